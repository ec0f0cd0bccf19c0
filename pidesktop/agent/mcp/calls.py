"""Running a turn's calls to MCP tools: the person's word when needed, the call, its record.

The permission rule is ``tool_permission.must_ask_mcp``; a call that is not
allowed is audited by ``tools.deny`` and the model reads why, like a
workspace tool's. The result, or the sentence saying why there is none (the
server died, hung, refused), goes to ``mcp.recordCall``, which cuts and
spills it like built-in tool output and writes the ``tool_execute`` row.
"""

from __future__ import annotations

import asyncio
import json
import uuid
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from pidesktop.agent import permissions, tool_permission
from pidesktop.agent.permissions import Answer, Decision, PermissionRequest
from pidesktop.agent.stopping import unless_stopped
from pidesktop.bus import HostError

if TYPE_CHECKING:
    from pidesktop.agent.mcp.pool import McpPool, Offer, OfferedTool

Notify = Callable[[str, str, "dict[str, Any] | None"], None]
DETAIL_MAX = 4000


class McpResult:
    def __init__(self, text: str, ok: bool):
        self.text, self.ok = text, ok


class McpCalls:
    def __init__(
        self,
        client: Any,
        pool: McpPool,
        offer: Offer,
        session_id: str,
        turn_id: str,
        cancel: asyncio.Event,
        *,
        mode: str,
        asker: permissions.Asker | None,
        grants: tool_permission.Grants,
        notify: Notify,
    ):
        self.client = client
        self.pool = pool
        self.offer = offer
        self.session_id = session_id
        self.turn_id = turn_id
        self.cancel = cancel
        self.mode = mode
        self.asker = asker
        self.grants = grants
        self._notify = notify

    @property
    def definitions(self) -> list[dict[str, Any]]:
        return self.offer.definitions

    def offers(self, name: str) -> bool:
        return name in self.offer.tools

    async def run(self, call: dict[str, Any]) -> McpResult:
        name, args = str(call.get("name")), call.get("args")
        assert isinstance(args, dict)
        call_id = str(call.get("callId") or "")
        tool = self.offer.tools[name]
        if not self.grants.allows(self.session_id, name) and tool_permission.must_ask_mcp(self.mode, tool.read_only):
            denied = await self._ask(name, call_id, args, tool)
            if denied is not None:
                return denied
        outcome = await self.pool.call(tool.server, tool.tool, args)
        params: dict[str, Any] = {
            "sessionId": self.session_id,
            "turnId": self.turn_id,
            "callId": call_id,
            "tool": name,
            "server": tool.server,
            "serverTool": tool.tool,
        }
        if outcome.result is None:
            params["error"] = outcome.failure or "The call failed."
            sentence = params["error"].split("\n")[0].removesuffix(" Its last output:")  # the tail is for the model
            self._notify(self.session_id, "mcp_failure", {"server": tool.server, "message": sentence})
        else:
            dumped = outcome.result.model_dump(mode="json", by_alias=True, exclude_none=True)
            params.update(
                {
                    "content": dumped.get("content") or [],
                    "isError": bool(outcome.result.is_error),
                    "structuredContent": dumped.get("structuredContent"),
                }
            )
        try:
            recorded = await self.client.call("mcp.recordCall", params)
        except HostError as exc:
            return McpResult(f"{name} ran, but its result could not be kept: {exc.message}", False)
        return McpResult(str(recorded["result"]), bool(recorded["ok"]))

    async def _ask(self, name: str, call_id: str, args: dict[str, Any], tool: OfferedTool) -> McpResult | None:
        """None when the person allowed the call; otherwise the result the model reads (audited as denied)."""
        detail = json.dumps(args, indent=2, ensure_ascii=False)
        request = PermissionRequest(
            request_id=str(uuid.uuid4()),
            session_id=self.session_id,
            turn_id=self.turn_id,
            call_id=call_id,
            tool=name,
            args=args,
            title=f"Use {tool.tool} from the MCP server {tool.server}",
            detail=detail[:DETAIL_MAX],
            outside_workspace=False,
            extra={"mcpServer": tool.server, "mcpTool": tool.tool},
        )
        answer: Answer | None = None
        if self.asker is not None:
            pending = {"requestId": request.request_id, "callId": call_id}
            self._notify(self.session_id, "permission", {**pending, "pending": True})
            try:
                answer = await unless_stopped(self.asker(request), self.cancel)
            finally:
                self._notify(self.session_id, "permission", {**pending, "pending": False})
        if answer is not None and answer.decision != Decision.DENY:
            if answer.decision == Decision.ALLOW_FOR_CHAT:
                self.grants.allow(self.session_id, name)
            return None
        await self.client.call(
            "tools.deny",
            {
                "sessionId": self.session_id,
                "turnId": self.turn_id,
                "callId": call_id,
                "tool": name,
                "title": request.title[:500],
                "reason": answer.reason if answer else None,
                "nobodyToAsk": answer is None,
                "outsideWorkspace": False,
            },
        )
        return McpResult(permissions.denied_result(request, answer), False)
