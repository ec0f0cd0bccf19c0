"""The one way a tool call gets the person's word: built-in workspace tools and MCP servers' tools alike.

Which calls must ask is ``tool_permission``'s rule; this module does the
asking. ``PermissionGate.ask`` opens a card through the window's ``Asker``
(announced to the runner's listeners as ``permission``, withdrawn on Stop),
or, with nobody to ask, denies at once. An allowed call returns ``None``; "Allow
for this chat" is kept by the host with the chat (``permissions.grant``), so
it holds across restarts until the person resets it. A denied call returns a
``Refusal``: the sentence the model reads and the ``tool_denied`` audit record
the host made (``tools.deny``), which is written with the call's result.
"""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from pidesktop.agent import permissions
from pidesktop.agent.permissions import Answer, Decision, PermissionRequest
from pidesktop.agent.stopping import unless_stopped

Notify = Callable[[str, str, "dict[str, Any] | None"], None]
TITLE_MAX = 500


@dataclass(frozen=True)
class Refusal:
    text: str  # what the model reads instead of a result
    audit: dict[str, Any]  # the host's ``tool_denied`` record, stored in the call's block


@dataclass(frozen=True)
class Card:
    """What the person is asked about: a title, the diff or command or arguments, and where it reaches."""

    title: str
    detail: str = ""
    outside: bool = False  # a path outside the workspace: asked for each call, never granted for the chat
    unconfined: bool = False  # a command that would run without a sandbox
    extra: dict[str, Any] | None = None


class PermissionGate:
    def __init__(
        self,
        client: Any,
        session_id: str,
        turn_id: str,
        cancel: asyncio.Event,
        *,
        asker: permissions.Asker | None,
        notify: Notify,
        workspace: str = "",
    ):
        self.client = client
        self.session_id = session_id
        self.turn_id = turn_id
        self.cancel = cancel
        self.asker = asker
        self._notify = notify
        self.workspace = workspace
        self.waited = 0.0  # seconds spent waiting for the person's answers: not the calls' own time

    async def grants(self) -> dict[str, Any]:
        """The chat's "Allow for this chat" answers, as the host keeps them: ``{tools, unconfined}``."""
        answer: dict[str, Any] = await self.client.call("permissions.grants", {"sessionId": self.session_id})
        return answer

    async def allows(self, tool: str) -> bool:
        return tool in (await self.grants())["tools"]

    async def ask(self, call_id: str, tool: str, args: dict[str, Any], card: Card) -> Refusal | None:
        """None when the call may run; otherwise why not, for the model, and its audit record."""
        request = PermissionRequest(
            request_id=str(uuid.uuid4()),
            session_id=self.session_id,
            turn_id=self.turn_id,
            call_id=call_id,
            tool=tool,
            args=args,
            title=card.title,
            detail=card.detail,
            outside_workspace=card.outside,
            workspace=self.workspace,
            unconfined=card.unconfined,
            extra=dict(card.extra or {}),
        )
        answer = await self._answer(request)
        if answer is not None and answer.decision != Decision.DENY:
            await self._remember(tool, answer, card)
            return None
        params: dict[str, Any] = {
            "sessionId": self.session_id,
            "turnId": self.turn_id,
            "callId": call_id,
            "tool": tool,
            "title": request.title[:TITLE_MAX],
            "reason": answer.reason if answer else None,
            "nobodyToAsk": answer is None,
            "outsideWorkspace": card.outside,
        }
        if card.extra and card.extra.get("mcpServer"):
            params["mcpServer"] = card.extra["mcpServer"]
        denied = await self.client.call("tools.deny", params)
        return Refusal(permissions.denied_result(request, answer), denied["audit"])

    async def _answer(self, request: PermissionRequest) -> Answer | None:
        """The person's answer, or None when nobody is there to ask (an unattended run)."""
        if self.asker is None:
            return None
        pending = {"requestId": request.request_id, "callId": request.call_id}
        self._notify(self.session_id, "permission", {**pending, "pending": True})
        asked = time.monotonic()
        try:
            return await unless_stopped(self.asker(request), self.cancel)
        finally:
            self.waited += time.monotonic() - asked
            self._notify(self.session_id, "permission", {**pending, "pending": False})

    async def _remember(self, tool: str, answer: Answer, card: Card) -> None:
        grant: dict[str, Any] = {}
        if answer.decision == Decision.ALLOW_FOR_CHAT and not card.outside:
            grant["tool"] = tool
        if card.unconfined:  # accepting one unconfined command accepts them for the chat (asked once)
            grant["unconfined"] = True
        if grant:
            await self.client.call("permissions.grant", {"sessionId": self.session_id, **grant})
