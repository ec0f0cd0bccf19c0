"""A small real MCP server for the tests and the bench, built on the SDK's own ``MCPServer``.

    python mcp_server.py stdio [STARTS]  # over stdin/stdout
    python mcp_server.py http           # streamable HTTP on 127.0.0.1, a free port; prints "PORT <n>"

Tools: ``echo`` (read-only), ``add``, ``picture`` (an image), ``note`` (an
embedded text resource), ``boom`` (raises), ``hang`` (never answers), ``die``
(the process exits mid-call), ``has_env`` (whether an environment variable's
SHA-256 is the one given, without saying the value). ``MCP_TEST_STARTS`` names a
file (or the STARTS argument) that gets one line (the pid) per start, so tests can count starts and find
the processes; ``MCP_TEST_HANGING`` a file ``hang`` writes to once it is called.
"""

from __future__ import annotations

import base64
import hashlib
import os
import socket
import sys

import anyio
from mcp.server import MCPServer
from mcp_types import EmbeddedResource, ImageContent, TextResourceContents, ToolAnnotations

server = MCPServer("pidesktop-test")
PNG = base64.b64encode(
    bytes.fromhex(
        "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
        "1f15c4890000000d49444154789c6360000002000154a24f5d0000000049454e44ae426082"
    )
).decode()


@server.tool(annotations=ToolAnnotations(read_only_hint=True))
def echo(text: str) -> str:
    """Say the text back."""
    return f"echo: {text}"


@server.tool()
def add(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b


@server.tool(annotations=ToolAnnotations(read_only_hint=True))
def picture() -> list[ImageContent]:
    """A one-pixel picture."""
    return [ImageContent(type="image", data=PNG, mime_type="image/png")]


@server.tool(annotations=ToolAnnotations(read_only_hint=True))
def note() -> list[EmbeddedResource]:
    """A note as an embedded resource."""
    contents = TextResourceContents(uri="note://today", text="buy milk", mime_type="text/plain")
    return [EmbeddedResource(type="resource", resource=contents)]


@server.tool()
def boom() -> str:
    """Always fails."""
    raise RuntimeError("the boom tool always fails")


@server.tool()
async def hang() -> str:
    """Never answers."""
    mark = os.environ.get("MCP_TEST_HANGING")
    if mark:
        with open(mark, "a") as f:
            f.write("hanging\n")
    await anyio.sleep_forever()
    return "never"


@server.tool()
def die() -> str:
    """Exits the server in the middle of the call."""
    sys.stderr.write("dying on purpose\n")
    sys.stderr.flush()
    os._exit(3)


@server.tool(annotations=ToolAnnotations(read_only_hint=True))
def has_env(name: str, sha256: str) -> str:
    """Whether the environment variable's SHA-256 is the one given (the value itself is never said)."""
    value = os.environ.get(name)
    return "matches" if value is not None and hashlib.sha256(value.encode()).hexdigest() == sha256 else "differs"


def _count_start() -> None:
    starts = sys.argv[2] if len(sys.argv) > 2 else os.environ.get("MCP_TEST_STARTS")
    if starts:
        with open(starts, "a") as f:
            f.write(f"{os.getpid()}\n")


def _serve_http() -> None:
    import uvicorn

    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(64)  # connections wait in the backlog until uvicorn serves: the port is usable once printed
    print(f"PORT {sock.getsockname()[1]}", flush=True)
    app = server.streamable_http_app()
    config = uvicorn.Config(app, log_level="warning")
    anyio.run(uvicorn.Server(config).serve, [sock])


if __name__ == "__main__":
    _count_start()
    sys.stderr.write("test server starting\n")
    sys.stderr.flush()
    if sys.argv[1:2] == ["http"]:
        _serve_http()
    else:
        server.run("stdio")
