"""Running a turn's calls to MCP tools: the person's word when needed, the call, its record.

The permission rule is ``tool_permission.must_ask_mcp``; the asking is
``permission_gate``'s, as for a workspace tool: a call that is not allowed is
stored as ``denied`` with its ``tool_denied`` record and the model reads why.
The result, or the sentence saying why there is none (the server died, hung,
refused), goes to ``mcp.recordCall``, which cuts and spills it like built-in
tool output and makes its ``tool_execute`` record. Records are written with
the stored result.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from pidesktop.agent import permissions, tool_permission
from pidesktop.agent.permission_gate import Card, PermissionGate
from pidesktop.bus import HostError

if TYPE_CHECKING:
    from pidesktop.agent.mcp.pool import McpPool, Offer

Notify = Callable[[str, str, "dict[str, Any] | None"], None]
DETAIL_MAX = 4000


class McpResult:
    def __init__(self, text: str, ok: bool, *, denied: bool = False, audit: dict[str, Any] | None = None):
        self.text, self.ok = text, ok
        self.denied = denied  # not run: the person (or nobody there to ask) said no
        self.audit = audit  # the host's audit record of the call, stored with its result


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
        notify: Notify,
    ):
        self.client = client
        self.pool = pool
        self.offer = offer
        self.session_id = session_id
        self.turn_id = turn_id
        self.cancel = cancel
        self.mode = mode
        self._notify = notify
        self.gate = PermissionGate(client, session_id, turn_id, cancel, asker=asker, notify=notify)

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
        if tool_permission.must_ask_mcp(self.mode, tool.read_only) and not await self.gate.allows(name):
            detail = json.dumps(args, indent=2, ensure_ascii=False)[:DETAIL_MAX]
            card = Card(
                f"Use {tool.tool} from the MCP server {tool.server}",
                detail,
                extra={"mcpServer": tool.server, "mcpTool": tool.tool},
            )
            refused = await self.gate.ask(call_id, name, args, card)
            if refused is not None:
                return McpResult(refused.text, False, denied=True, audit=refused.audit)
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
        return McpResult(str(recorded["result"]), bool(recorded["ok"]), audit=recorded.get("audit"))
