"""One running MCP server: its transport and SDK ``ClientSession``, owned by one task.

The SDK's transports and sessions are async context managers built on anyio
task groups, which must be entered and left by the same task. So each
connection has an owner task that opens them, lists the tools, and then waits
until it is told to close; calls are made from the turn's task through the
session it published. A server whose process dies ends its session: the call
in flight fails, the connection is marked dead, and the pool starts a fresh
one on the next call.

A stdio server's stderr goes to a temporary file (not in the data root, which
only the host writes) so a failure can show its last lines.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import tempfile
from dataclasses import dataclass, field
from typing import IO, Any

import httpx2
from mcp import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import MCP_DEFAULT_SSE_READ_TIMEOUT, MCP_DEFAULT_TIMEOUT
from mcp_types import CallToolResult, PaginatedRequestParams, Tool

from pidesktop import network_proxy

log = logging.getLogger("pidesktop.agent.mcp")

STDERR_TAIL_BYTES = 2000
CLOSE_GRACE_S = 5.0
START_TIMEOUT_MIN_S = 10.0  # a short call timeout must not fail a server whose interpreter starts slowly
PING_TIMEOUT_S = 5.0


class StartFailed(Exception):
    """The server could not be started or did not answer its handshake; the message says why."""

    def __init__(self, message: str, stderr_tail: str = ""):
        super().__init__(message)
        self.stderr_tail = stderr_tail


@dataclass
class ServerConfig:
    name: str
    transport: str  # "stdio" | "http"
    command: str = ""
    args: list[str] = field(default_factory=list)
    env: dict[str, str] = field(default_factory=dict)
    url: str = ""
    headers: dict[str, str] = field(default_factory=dict)
    timeout_s: float = 60.0
    disabled_tools: frozenset[str] = frozenset()
    proxy: Any = None  # settings.networkProxy, for a server over HTTP (None: the system's proxy)

    @classmethod
    def from_wire(cls, raw: dict[str, Any], proxy: Any = None) -> ServerConfig:
        return cls(
            name=str(raw["name"]),
            transport=str(raw.get("transport") or "stdio"),
            command=str(raw.get("command") or ""),
            args=[str(a) for a in raw.get("args") or []],
            env={str(k): str(v) for k, v in (raw.get("env") or {}).items()},
            url=str(raw.get("url") or ""),
            headers={str(k): str(v) for k, v in (raw.get("headers") or {}).items()},
            timeout_s=float(raw.get("timeoutSeconds") or 60),
            disabled_tools=frozenset(str(t) for t in raw.get("disabledTools") or []),
            proxy=proxy if raw.get("transport") == "http" else None,
        )

    def launch_key(self) -> tuple[Any, ...]:
        """What a running server was started with: a change means a restart."""
        return (
            self.transport,
            self.command,
            tuple(self.args),
            tuple(sorted(self.env.items())),
            self.url,
            tuple(sorted(self.headers.items())),
            repr(network_proxy.setting_of(self.proxy)) if self.transport == "http" else None,
        )


class Connection:
    def __init__(self, config: ServerConfig):
        self.config = config
        self.session: ClientSession | None = None
        self.tools: list[Tool] = []
        self.dead = False
        self._closing = asyncio.Event()
        self._ready: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._owner: asyncio.Task[None] | None = None
        self._stderr: IO[str] | None = None

    @property
    def usable(self) -> bool:
        return self.session is not None and not self.dead

    def stderr_tail(self) -> str:
        if self._stderr is None or self._stderr.closed:
            return ""
        try:
            self._stderr.flush()
            self._stderr.seek(0, 2)
            size = self._stderr.tell()
            self._stderr.seek(max(0, size - STDERR_TAIL_BYTES))
            return self._stderr.read().strip()
        except (OSError, ValueError):
            return ""

    async def start(self) -> None:
        """Start the server and list its tools, within the server's timeout; ``StartFailed`` says why not."""
        self._owner = asyncio.create_task(self._own(), name=f"mcp:{self.config.name}")
        limit = max(self.config.timeout_s, START_TIMEOUT_MIN_S)
        try:
            await asyncio.wait_for(asyncio.shield(self._ready), limit)
        except TimeoutError:
            tail = self.stderr_tail()
            await self.close()
            raise StartFailed(f"{self.config.name} did not finish starting within {limit:g} s.", tail) from None
        except (StartFailed, asyncio.CancelledError):  # failed, or Stop while it started: nothing left running
            await self.close()
            raise

    async def _own(self) -> None:
        try:
            async with contextlib.AsyncExitStack() as stack:
                read, write = await stack.enter_async_context(self._transport())
                session = await stack.enter_async_context(ClientSession(read, write))
                await session.initialize()
                self.tools = await _all_tools(session)
                self.session = session
                if not self._ready.done():
                    self._ready.set_result(None)
                await self._closing.wait()
        except asyncio.CancelledError:
            raise
        except BaseException as exc:  # the SDK wraps failures in exception groups; the person reads one sentence
            message = _sentence(exc)
            log.warning("MCP server %s ended: %s", self.config.name, message)
            if not self._ready.done():
                self._ready.set_exception(StartFailed(message, self.stderr_tail()))
        finally:
            self.dead = True
            self.session = None

    def _transport(self) -> contextlib.AbstractAsyncContextManager[Any]:
        config = self.config
        if config.transport == "http":
            # The SDK's own client, with the timeouts it sets, but following the app's proxy setting.
            client = httpx2.AsyncClient(
                headers=config.headers or None,
                timeout=httpx2.Timeout(MCP_DEFAULT_TIMEOUT, read=MCP_DEFAULT_SSE_READ_TIMEOUT),
                **network_proxy.client_options(config.proxy, config.url),
            )
            return streamable_http_client(config.url, http_client=client)
        self._stderr = tempfile.TemporaryFile(mode="w+", encoding="utf-8", errors="replace")
        params = StdioServerParameters(command=config.command, args=config.args, env=config.env or None)
        return stdio_client(params, errlog=self._stderr)

    async def call(self, tool: str, args: dict[str, Any]) -> CallToolResult:
        """One ``tools/call``; raises on a transport failure (the caller marks the connection dead)."""
        session = self.session
        if session is None:
            raise ConnectionError(f"{self.config.name} is not running")
        result = await session.call_tool(tool, args)
        if not isinstance(result, CallToolResult):
            raise ConnectionError(f"{self.config.name} answered {tool} with something other than a tool result")
        return result

    async def answers(self) -> bool:
        """Whether the server still answers a ping (a server that exited while idle does not)."""
        session = self.session
        if session is None:
            return False
        try:
            await asyncio.wait_for(session.send_ping(), PING_TIMEOUT_S)
        except Exception as exc:  # closed, timed out, or refused: start it again
            log.info("MCP server %s did not answer a ping: %s", self.config.name, exc)
            return False
        return True

    async def close(self) -> None:
        """Stop the server (its process, or its HTTP session); bounded, never raises."""
        self.dead = True
        self._closing.set()
        owner = self._owner
        if owner is None or owner.done():
            self._close_stderr()
            return
        if self.session is None:  # still starting (the handshake hangs): it is not waiting to be told
            owner.cancel()
        await asyncio.wait({owner}, timeout=CLOSE_GRACE_S)  # the SDK's own shutdown: stdin closed, then signals
        if not owner.done():
            owner.cancel()
            await asyncio.wait({owner})
        self._close_stderr()

    def _close_stderr(self) -> None:
        if self._stderr is not None:
            with contextlib.suppress(OSError):
                self._stderr.close()


async def _all_tools(session: ClientSession) -> list[Tool]:
    listing = await session.list_tools()
    tools = list(listing.tools)
    cursor = listing.next_cursor
    while cursor:
        listing = await session.list_tools(params=PaginatedRequestParams(cursor=cursor))
        tools.extend(listing.tools)
        cursor = listing.next_cursor
    return tools


def _sentence(exc: BaseException) -> str:
    """The innermost meaningful message of ``exc`` (exception groups unwrapped)."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    if isinstance(exc, FileNotFoundError):
        return f"the command was not found ({exc.filename or exc})"
    text = str(exc).strip()
    return text or type(exc).__name__
