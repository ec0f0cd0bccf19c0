"""Pi Workflows state store: one ``state.sqlite`` for all live workflow state.

Modules, one concept each:

- ``paths``: where the database lives; what counts as older live state
- ``schema`` (+ ``schema.sql``): the DDL, its digest and its exact shape
- ``db``: creating, verifying and opening (writer pragmas, read-only mode)
- ``write``: the one write-contract transaction path (``Command``, ``Permit``)
- ``ownership``: actor classes and the operations they may perform
- ``resources``: resource ids, revisions and the immutable event history
- ``blobs``, ``claims`` (lease rows and claim checks), ``outbox`` (effect
  requests and their insertion): the shared records the write path uses
- ``leases`` (acquire, renew, release): lease commands, above ``write``
- ``projects``, ``definitions``, ``runs``, ``attempts``, ``decisions``,
  ``controllers``, ``delivery``, ``channels``, ``sessions``: domain commands
- ``effects``: applying, attempting and settling effects, with the local
  handlers and settle hooks of ``runs``, ``decisions`` and ``channels``

Imports only go down this list's layers (tests/test_workflows_imports.py
checks there is no cycle).
- ``projection``: the read contract; ``status``: ``summary`` and ``verify``
- ``backup``: verified backups; ``cli``: the ``pi-workflows`` command

See docs/workflows-state.md.
"""
