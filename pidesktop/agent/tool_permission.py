"""Which workspace tool calls need the person's word, by permission mode (``permissions`` has the modes).

- ``ask``: ``write``, ``edit`` and ``bash`` ask;
- ``accept-edits``: ``write``/``edit`` inside the workspace run, ``bash`` asks;
- ``auto``: everything runs (``bash`` in the sandbox); without a sandbox,
  the first ``bash`` of a chat asks once to confirm that commands run unconfined.

An MCP server's tool (``must_ask_mcp``) asks in ``ask`` and ``accept-edits``
unless its server marks it ``readOnlyHint: true``; ``auto`` runs it.

A path outside the workspace asks in every mode, one call at a time: "Allow
for this chat" never covers it. Read-only tools never ask otherwise. The
chat's grants ("Allow for this chat") are the host's (``permissions.grants``);
``permission_gate`` asks.
"""

from __future__ import annotations

from pidesktop.agent import permissions
from pidesktop.agent.workspace_tools import BASH, EDITING


def must_ask(mode: str, tool: str, *, outside: bool = False, unconfined: bool = False, confirmed: bool = False) -> bool:
    """Whether this call waits for the person (``confirmed``: running unconfined was already accepted)."""
    if outside:
        return True
    if tool in EDITING:
        return mode == permissions.ASK
    if tool == BASH:
        if mode == permissions.AUTO:
            return unconfined and not confirmed
        return True
    return False


def must_ask_mcp(mode: str, read_only: bool) -> bool:
    """An MCP server's tool: ``auto`` runs it; ``ask`` and ``accept-edits`` ask unless it is marked ``readOnlyHint``."""
    if mode == permissions.AUTO:
        return False
    return not read_only
