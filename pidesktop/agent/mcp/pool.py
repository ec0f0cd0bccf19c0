"""The app's MCP servers: started when a chat first needs their tools, once per app, closed at quit.

``McpPool`` belongs to the agent runtime (one per ``TurnRunner``; the app
and ``pidesktop chat`` each have one). Before a turn, ``offer(session_id)``
asks the host which servers the chat gets (``mcp.launchConfig``), starts the
ones not running yet (all at once, each within its own timeout) and returns
their enabled tools as the model sees them. ``call`` runs one tool within the
server's timeout. A server that died is started again on its next use; one
that timed out is stopped (a hung server is cut off) and started again on
its next use. Every change of state goes to the host (``mcp.reportState``)
for Settings > Tools.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from pidesktop.agent.mcp import names
from pidesktop.bus import HostError

if TYPE_CHECKING:  # the SDK is imported when a server is first started, not with the app
    from mcp_types import CallToolResult, Tool

    from pidesktop.agent.mcp.connection import Connection, ServerConfig

log = logging.getLogger("pidesktop.agent.mcp")

DESCRIPTION_MAX = 1024
CONNECTION_CLOSED = -32000  # the SDK's code for "the server went away"


@dataclass(frozen=True)
class OfferedTool:
    server: str
    tool: str  # the server's own name for it
    read_only: bool
    definition: dict[str, Any]


@dataclass
class Offer:
    """What a turn gets: tools by the name the model calls them, and the servers that could not start."""

    tools: dict[str, OfferedTool] = field(default_factory=dict)
    failed: dict[str, str] = field(default_factory=dict)  # server -> the sentence saying why

    @property
    def definitions(self) -> list[dict[str, Any]]:
        return [tool.definition for tool in self.tools.values()]


@dataclass
class CallResult:
    """A call's outcome: the SDK's result, or a sentence saying why there is none."""

    result: CallToolResult | None = None
    failure: str | None = None


def _definition(server: str, tool: Tool, *, hashed: bool = False) -> dict[str, Any]:
    schema = tool.input_schema if isinstance(tool.input_schema, dict) else {}
    if schema.get("type") != "object":
        schema = {"type": "object", "properties": {}}
    description = (tool.description or tool.title or tool.name).strip()
    return {
        "type": "function",
        "function": {
            "name": names.model_name(server, tool.name, hashed=hashed),
            "description": f"{description} (MCP server {server})"[:DESCRIPTION_MAX],
            "parameters": schema,
        },
    }


def _read_only(tool: Tool) -> bool:
    return bool(tool.annotations is not None and tool.annotations.read_only_hint is True)


class McpPool:
    def __init__(self, client: Any):
        self.client = client
        self._connections: dict[str, Connection] = {}
        self._locks: dict[str, asyncio.Lock] = {}
        self._configs: dict[str, ServerConfig] = {}
        self._closed = False

    # -- offering -------------------------------------------------------------------------
    async def offer(self, session_id: str | None) -> Offer:
        """The chat's MCP tools, starting the servers that are not running; never raises for a server."""
        params = {"sessionId": session_id} if session_id else {}
        try:
            answer = await self.client.call("mcp.launchConfig", params)
        except HostError as exc:
            log.warning("no MCP servers for %s: %s", session_id, exc)
            return Offer()
        from pidesktop.agent.mcp.connection import ServerConfig

        proxy = answer.get("networkProxy")
        configs = [ServerConfig.from_wire(raw, proxy) for raw in answer.get("servers") or []]
        offer = Offer()
        if not configs or self._closed:
            return offer
        started = await asyncio.gather(*(self._running(config, check=True) for config in configs))
        for config, outcome in zip(configs, started, strict=True):
            if isinstance(outcome, str):
                offer.failed[config.name] = outcome
                continue
            for tool in outcome.tools:
                if tool.name in config.disabled_tools:
                    continue
                definition = _definition(config.name, tool)
                name = definition["function"]["name"]
                if name in offer.tools:  # server "a" tool "b__c" and server "a__b" tool "c"
                    definition = _definition(config.name, tool, hashed=True)
                    name = definition["function"]["name"]
                offer.tools[name] = OfferedTool(config.name, tool.name, _read_only(tool), definition)
        return offer

    async def _running(self, config: ServerConfig, *, check: bool = False) -> Connection | str:
        """A usable connection to ``config``'s server, started if needed; a sentence when it cannot start.

        ``check`` (once per turn): ping a running server first, so one that exited while idle is
        started again now rather than failing the turn's first call.
        """
        from pidesktop.agent.mcp.connection import Connection, StartFailed

        lock = self._locks.setdefault(config.name, asyncio.Lock())
        async with lock:
            self._configs[config.name] = config
            current = self._connections.get(config.name)
            if current is not None and current.usable and current.config.launch_key() == config.launch_key():
                if not check or await current.answers():
                    current.config = config  # the timeout and disabled tools apply without a restart
                    return current
            if current is not None:
                await current.close()
                self._connections.pop(config.name, None)
            await self._report(config.name, "starting")
            connection = Connection(config)
            try:
                await connection.start()
            except StartFailed as exc:
                sentence = f"The MCP server {config.name} could not start: {exc}"
                await self._report(config.name, "failed", reason=str(exc), stderr=exc.stderr_tail)
                return sentence
            if self._closed:  # the app quit while it started: it must not outlive the pool
                await connection.close()
                return f"The MCP server {config.name} was not kept: the app is closing."
            self._connections[config.name] = connection
            await self._report(config.name, "ready", tools=connection.tools)
            return connection

    # -- calling --------------------------------------------------------------------------
    async def call(self, server: str, tool: str, args: dict[str, Any]) -> CallResult:
        """Run one tool; a dead, failing or hung server gives a ``failure`` sentence, never an exception."""
        from mcp.shared.exceptions import MCPError

        config = self._configs.get(server)
        if config is None:
            return CallResult(failure=f"The MCP server {server} is not configured any more.")
        connection = await self._running(config)
        if isinstance(connection, str):
            return CallResult(failure=connection)
        try:
            result = await asyncio.wait_for(connection.call(tool, args), config.timeout_s)
            return CallResult(result=result)
        except TimeoutError:
            await self._drop(connection, f"{tool} did not answer within {config.timeout_s:g} s")
            return CallResult(
                failure=(
                    f"The MCP server {server} did not answer {tool} within {config.timeout_s:g} s, so the call "
                    f"was cut off and the server stopped; it starts again on its next use."
                )
            )
        except MCPError as exc:
            if exc.code != CONNECTION_CLOSED:
                return CallResult(failure=f"The MCP server {server} refused {tool}: {exc.message}")
            return CallResult(failure=await self._died(connection, tool))
        except (ConnectionError, OSError, BaseExceptionGroup) as exc:
            log.warning("MCP call %s/%s failed: %s", server, tool, exc)
            return CallResult(failure=await self._died(connection, tool))
        except Exception as exc:  # a result the SDK refused (schema, input requests): the server stays up
            log.warning("MCP call %s/%s gave no usable result: %r", server, tool, exc)
            return CallResult(failure=f"The MCP server {server} answered {tool} with something unusable: {exc}")

    async def _died(self, connection: Connection, tool: str) -> str:
        tail = connection.stderr_tail()
        await self._drop(connection, "the server stopped during a call", tail)
        sentence = (
            f"The MCP server {connection.config.name} stopped while running {tool}; it starts again on its next use."
        )
        if tail:
            sentence += f" Its last output:\n{tail[-1000:]}"
        return sentence

    async def _drop(self, connection: Connection, reason: str, stderr: str = "") -> None:
        name = connection.config.name
        if self._connections.get(name) is connection:
            del self._connections[name]
        await connection.close()
        await self._report(name, "failed", reason=reason, stderr=stderr)

    # -- state ----------------------------------------------------------------------------
    def running(self) -> dict[str, list[str]]:
        """Servers running now and their tools' names (``pidesktop mcp list --tools``, tests)."""
        return {name: [t.name for t in c.tools] for name, c in self._connections.items() if c.usable}

    async def _report(
        self, name: str, state: str, *, reason: str = "", stderr: str = "", tools: list[Tool] | None = None
    ) -> None:
        params: dict[str, Any] = {"name": name, "state": state}
        if reason:
            params["reason"] = reason
        if stderr:
            params["stderrTail"] = stderr
        if tools is not None:
            params["tools"] = [
                {"name": t.name, "description": (t.description or "")[:500], "readOnly": _read_only(t)} for t in tools
            ]
        try:
            await self.client.call("mcp.reportState", params)
        except Exception as exc:  # the host refused or is closing: Settings shows an older state, the chat goes on
            log.info("could not report the state of MCP server %s: %s", name, exc)

    async def aclose(self) -> None:
        """Stop every server (at quit): no process outlives the app."""
        self._closed = True
        connections = list(self._connections.values())
        self._connections.clear()
        await asyncio.gather(*(c.close() for c in connections), return_exceptions=True)
