"""An MCP tool call's round trip through the app, next to the same call made directly with the SDK's client.

Both sides talk to the same real server (``tests/support/mcp_server.py``, the
SDK's own ``MCPServer``) over stdio. The app's side is what the runner's tool
loop does for a call: ``McpCalls.run`` (the permission rule, the call through
the pool's connection, the result handed to the host's ``mcp.recordCall``,
which formats it, cuts it and writes its ``tool_execute`` audit row) on a
real host thread. The direct side is ``ClientSession.call_tool`` on a session
of its own. Printed, medians of ``--runs`` calls of ``echo``:

- the app's round trip, the direct one, and the app's overhead (target <= 5 ms);
- the first call's server start, reported separately: the pool's ``offer``
  (spawn, handshake, tool listing) next to the SDK doing the same directly.

    python bench/mcp.py [--runs 200]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import statistics
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from quick import add_quick

# This file is named mcp.py: with bench/ on the path, ``import mcp`` would find it instead of the SDK.
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]

from pidesktop import paths
from pidesktop.agent.mcp.calls import McpCalls
from pidesktop.agent.mcp.pool import McpPool
from pidesktop.bus import HostClient, HostThread
from pidesktop.host.core import opener

SERVER = Path(__file__).resolve().parent.parent / "tests" / "support" / "mcp_server.py"
OVERHEAD_TARGET_MS = 5.0
Call = Callable[[int], Awaitable[None]]


@contextlib.asynccontextmanager
async def app_side(client: HostClient) -> AsyncIterator[tuple[float, Call]]:
    """The first start's time (ms) and one call through the app, as the tool loop makes it."""
    await client.call("mcp.add", {"name": "bench", "command": sys.executable, "args": [str(SERVER), "stdio"]})
    sid = (await client.call("session.create", {}))["session"]["id"]
    pool = McpPool(client)
    try:
        t0 = time.perf_counter()
        offer = await pool.offer(sid)
        start_ms = (time.perf_counter() - t0) * 1000
        calls = McpCalls(
            client,
            pool,
            offer,
            sid,
            "bench-turn",
            asyncio.Event(),
            mode="auto",
            asker=None,
            notify=lambda *_: None,
        )

        async def call(n: int) -> None:
            done = await calls.run({"callId": f"c{n}", "name": "mcp__bench__echo", "args": {"text": f"hello {n}"}})
            assert done.ok and done.text == f"echo: hello {n}", done.text

        yield start_ms, call
    finally:
        await pool.aclose()


@contextlib.asynccontextmanager
async def direct_side() -> AsyncIterator[tuple[float, Call]]:
    """The first start's time (ms) and one call with the SDK's client alone."""
    from mcp import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    params = StdioServerParameters(command=sys.executable, args=[str(SERVER), "stdio"])
    with open(os.devnull, "w") as quiet:
        t0 = time.perf_counter()
        async with contextlib.AsyncExitStack() as stack:
            read, write = await stack.enter_async_context(stdio_client(params, errlog=quiet))
            session = await stack.enter_async_context(ClientSession(read, write))
            await session.initialize()
            await session.list_tools()
            start_ms = (time.perf_counter() - t0) * 1000

            async def call(n: int) -> None:
                result = await session.call_tool("echo", {"text": f"hello {n}"})
                assert not result.is_error

            yield start_ms, call


async def compare(client: HostClient, runs: int) -> dict[str, float]:
    """Both sides open at once, their calls alternated so the machine's load falls on both alike."""
    async with direct_side() as (direct_start, direct_call), app_side(client) as (app_start, app_call):
        app_times, direct_times = [], []
        for n in range(runs):
            for call, times in ((app_call, app_times), (direct_call, direct_times)):
                t0 = time.perf_counter()
                await call(n)
                times.append((time.perf_counter() - t0) * 1000)
    return {
        "app": statistics.median(app_times),
        "direct": statistics.median(direct_times),
        "app_start": app_start,
        "direct_start": direct_start,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=200, help="calls measured on each side")
    add_quick(parser, runs=30)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="pidesktop-bench-mcp-") as tmp:
        location = paths.resolve(data_dir=Path(tmp) / "data")
        paths.prepare_data_root(location)
        host = HostThread(opener(location, role="bench")).start()
        host.wait_ready(60)
        try:

            async def run() -> dict[str, float]:
                client = HostClient(host, asyncio.get_running_loop())
                try:
                    return await compare(client, args.runs)
                finally:
                    client.close()

            figures = asyncio.run(run())
        finally:
            host.stop()
    app_call, direct_call = figures["app"], figures["direct"]
    overhead = app_call - direct_call
    print(f"MCP tool call (echo over stdio), median of {args.runs}:")
    print(f"  through the app   {app_call:7.2f} ms  (permission, call, result recorded and audited by the host)")
    print(f"  SDK client alone  {direct_call:7.2f} ms")
    verdict = "ok" if overhead <= OVERHEAD_TARGET_MS else "OVER TARGET"
    print(f"  app overhead      {overhead:7.2f} ms  (target <= {OVERHEAD_TARGET_MS:g} ms: {verdict})")
    print("First use, reported separately (spawn, handshake, tool listing):")
    print(f"  through the app   {figures['app_start']:7.1f} ms")
    print(f"  SDK client alone  {figures['direct_start']:7.1f} ms  (started first: the app's start is the warm one)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
