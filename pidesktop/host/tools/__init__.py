"""The agent's file tools, run by the host (``tools.*``, ``review.*``, ``artifacts.list``, ``audit.list``).

Why the host and not the agent: a chat without a project works in
``scratch/<sessionId>/`` inside the data root, which only the host may
touch, and a ``write``/``edit`` must keep its review snapshot, its
``artifacts`` row and its ``tool_execute`` audit row together. Running every
file tool here gives one rule for resolving paths (symlinks included) and one
writer for the person's files. ``bash`` is the exception: it runs in the
agent (``pidesktop.agent.shell``) so a long command never holds the host
thread; its output comes back through ``tools.recordShell`` to be cut,
spilled and audited.

- ``workspace``: the chat's folder and resolving a path inside it
- ``limits``: pi's 2,000 lines / 50 KiB cut, the rest under ``tool-output/``
- ``files``: read, write, edit, ls, find, grep
- ``gitignore``: the ``.gitignore`` rules the built-in walk follows without ripgrep
- ``review``: snapshots before a change, ``review.list`` / ``review.revert``
- ``audit``: ``audit_log`` and ``artifacts`` rows, ``audit.list`` / ``artifacts.list``
- ``commands``: the ``tools.*`` commands the runner calls
"""
