"""Asking the person before a tool call runs: the request, the answer, and who asks.

The runner builds a ``PermissionRequest`` for every call that needs the
person's word (``write``/``edit``/``bash`` in ``ask`` mode, ``bash`` in
``accept-edits``, any path outside the workspace) and awaits the window's
``Asker`` (``TurnRunner(asker=...)``). A runner with no asker (``pidesktop chat``
without ``--interactive``, automations) denies: the model gets a result
saying why and the turn goes on.

``ALLOW_FOR_CHAT`` lets the same tool run without asking for the rest of the
chat, across restarts, until the person resets it (the host keeps it:
``permissions.grant``; a path outside the workspace is still asked for each
call: it is allowed one call at a time). ``permission_gate`` does the asking
for built-in and MCP tools alike. A ``DENY`` may carry a reason, which
the model reads in the call's result.

Live output of a running tool (the ``bash`` row streams it): the runner's
listeners (``TurnRunner.listeners``, ``(session_id, phase, payload)``) also get

- ``"tool_output"`` with ``{"turnId", "callId", "tool", "chunk"}``: a piece of
  stdout+stderr as it arrives, in order (both streams interleaved as read);
- ``"tool_done"`` with ``{"turnId", "callId", "tool", "ok", "result"}``: the
  call has ended and ``result`` is what the model gets (its stored block
  carries the same result when the round's message is stored);
- ``"permission"`` with ``{"requestId", "callId", "pending"}``: a card opens
  (``pending`` true) or its request is settled or withdrawn (false, e.g. Stop).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any


class Decision(StrEnum):
    ALLOW_ONCE = "allow-once"
    ALLOW_FOR_CHAT = "allow-chat"
    DENY = "deny"


@dataclass(frozen=True)
class Answer:
    decision: Decision
    reason: str | None = None  # a denial's reason, given to the model


@dataclass(frozen=True)
class PermissionRequest:
    request_id: str
    session_id: str
    turn_id: str
    call_id: str
    tool: str
    args: dict[str, Any]
    title: str  # one line a person reads: "Edit src/app.py", "Run make test"
    detail: str  # the unified diff for write/edit, the command for bash, the path outside
    outside_workspace: bool
    workspace: str = ""  # the folder the tool works in, for the card's wording
    unconfined: bool = False  # bash with no sandbox installed: the command runs with the person's full rights
    extra: dict[str, Any] = field(default_factory=dict)  # room to grow without renaming


Asker = Callable[[PermissionRequest], Awaitable[Answer]]

# Permission modes as stored in ``sessions.permission_mode`` (spec 004) and the settings default.
INHERIT, ASK, ACCEPT_EDITS, AUTO = "inherit", "ask", "accept-edits", "auto"
MODES = (ASK, ACCEPT_EDITS, AUTO)
DEFAULT_MODE = ASK
SETTINGS_KEY = "permissionMode"  # in ``settings.get``: the default for chats whose mode is ``inherit``

NOBODY_TO_ASK = (
    "The person is not here to approve this call ({what}), so it was not run. Do what you can without it, "
    "or say in your answer what you would run and why."
)


def denied_result(request: PermissionRequest, answer: Answer | None) -> str:
    """What the model reads for a call that did not run."""
    if answer is None:
        return NOBODY_TO_ASK.format(what=request.title)
    if answer.reason:
        return f"The person denied this call ({request.title}). Their reason: {answer.reason}"
    return f"The person denied this call ({request.title}). Do not try it again unchanged; ask or do something else."
