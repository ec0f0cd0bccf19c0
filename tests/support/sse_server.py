"""A real HTTP/1.1 server on 127.0.0.1 that plays scripted responses, for the provider tests.

Each path gets a ``Script``: status, headers, and a body as byte chunks sent
one by one (chunked, with a Content-Length, or close-delimited), with optional
pauses and an optional abrupt close mid-body. Every request is recorded so a
test can check what the client sent. Pauses end early when the server stops,
so a test never waits for a sleeping handler.
"""

from __future__ import annotations

import random
import socket
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import orjson
import pytest

from pidesktop.agent.errors import ProviderError
from tests.support.repo import FIXTURES

FIXTURE_DIR = FIXTURES / "openai-sse"  # byte-identical copies of openai-python's recordings (its MANIFEST.md)
FIXTURE_NAMES = ("plain-text", "single-tool-call", "parallel-tool-calls")
HELLO = [{"id": "m1", "role": "user", "blocks": [{"type": "text", "text": "Hello"}]}]


@dataclass
class Script:
    status: int = 200
    headers: dict[str, str] = field(default_factory=lambda: {"Content-Type": "text/event-stream"})
    chunks: list[bytes] = field(default_factory=list)
    delay: float = 0.0  # pause before every chunk but the first
    delays: dict[int, float] = field(default_factory=dict)  # pause before chunk i, overriding ``delay``
    wait_before_headers: float = 0.0
    framing: str = "chunked"  # "chunked", "length" or "close"
    drop_after: int | None = None  # close the socket abruptly after this many chunks


@dataclass
class ReceivedRequest:
    method: str
    path: str
    headers: dict[str, str]
    body: bytes

    @property
    def json(self) -> dict:
        return orjson.loads(self.body)


class ScriptedServer:
    def __init__(self) -> None:
        self.scripts: dict[str, Script | list[Script]] = {}
        self.requests: list[ReceivedRequest] = []
        self.stopping = threading.Event()
        self._connections: set[socket.socket] = set()
        self._lock = threading.Lock()
        self._httpd = _Server(("127.0.0.1", 0), _Handler)
        self._httpd.owner = self
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.02}, name="scripted-http", daemon=True
        )

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._httpd.server_address[1]}"

    @property
    def base_url(self) -> str:
        return f"{self.url}/v1"

    def serve(self, path: str, script: Script) -> Script:
        self.scripts[path] = script
        return script

    def serve_in_turn(self, path: str, *scripts: Script) -> None:
        """Answer ``path`` with each script once, in order; the last one keeps answering."""
        self.scripts[path] = list(scripts)

    def _next(self, path: str) -> Script | None:
        found = self.scripts.get(path)
        if isinstance(found, list):
            with self._lock:
                return found.pop(0) if len(found) > 1 else found[0]
        return found

    def stream(self, chunks: list[bytes], **options) -> Script:
        """Serve ``chunks`` as the answer to ``POST /v1/chat/completions``."""
        return self.serve("/v1/chat/completions", Script(chunks=chunks, **options))

    def pause(self, seconds: float) -> bool:
        """Sleep unless the server is stopping; False when it is."""
        return seconds <= 0 or not self.stopping.wait(seconds)

    def start(self) -> ScriptedServer:
        self._thread.start()
        return self

    def stop(self) -> None:
        self.stopping.set()
        self._httpd.shutdown()
        with self._lock:
            open_connections = list(self._connections)
        for connection in open_connections:
            try:
                connection.shutdown(socket.SHUT_RDWR)  # wakes handlers waiting for a next request
            except OSError:
                pass
        self._httpd.server_close()  # joins every handler thread
        self._thread.join(5)
        assert not self._thread.is_alive()

    def _track(self, connection: socket.socket, open_: bool) -> None:
        with self._lock:
            (self._connections.add if open_ else self._connections.discard)(connection)


class _Server(ThreadingHTTPServer):
    daemon_threads = False  # so server_close waits for them
    block_on_close = True
    owner: ScriptedServer


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _Server

    def setup(self) -> None:
        super().setup()
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.server.owner._track(self.connection, True)

    def finish(self) -> None:
        self.server.owner._track(self.connection, False)
        try:
            super().finish()
        except OSError:
            pass

    def handle(self) -> None:
        try:
            super().handle()
        except OSError:
            pass  # the client reset the connection, as cancelling clients do

    def log_message(self, format: str, *args) -> None:
        pass

    def do_GET(self) -> None:
        self._answer()

    def do_POST(self) -> None:
        self._answer()

    def _answer(self) -> None:
        owner = self.server.owner
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else b""
        owner.requests.append(
            ReceivedRequest(self.command, self.path, {k.lower(): v for k, v in self.headers.items()}, body)
        )
        script = owner._next(self.path) or Script(
            status=404,
            headers={"Content-Type": "application/json"},
            chunks=[b'{"error": {"message": "no route"}}'],
            framing="length",
        )
        try:
            self._play(script, owner)
        except OSError:
            self.close_connection = True  # the client went away mid-body

    def _play(self, script: Script, owner: ScriptedServer) -> None:
        if not owner.pause(script.wait_before_headers):
            self.close_connection = True
            return
        self.send_response(script.status)
        for name, value in script.headers.items():
            self.send_header(name, value)
        if script.framing == "chunked":
            self.send_header("Transfer-Encoding", "chunked")
        elif script.framing == "length":
            self.send_header("Content-Length", str(sum(map(len, script.chunks))))
        else:
            self.send_header("Connection", "close")
            self.close_connection = True
        self.end_headers()
        for number, chunk in enumerate(script.chunks):
            if script.drop_after is not None and number >= script.drop_after:
                self.close_connection = True
                return
            if number and not owner.pause(script.delays.get(number, script.delay)):
                self.close_connection = True
                return
            if script.framing == "chunked":
                if chunk:
                    self.wfile.write(b"%x\r\n%s\r\n" % (len(chunk), chunk))
            else:
                self.wfile.write(chunk)
        if script.drop_after is not None and script.drop_after <= len(script.chunks):
            self.close_connection = True
            return
        if script.framing == "chunked":
            self.wfile.write(b"0\r\n\r\n")


@pytest.fixture
def sse_server():
    server = ScriptedServer().start()
    try:
        yield server
    finally:
        server.stop()


# --- bodies and splits ---------------------------------------------------------------------------


def fixture_bytes(name: str) -> bytes:
    return (FIXTURE_DIR / f"{name}.sse").read_bytes()


def sse_body(*payloads: object, done: bool = True, ending: str = "\n") -> bytes:
    """``data:`` events for ``payloads`` (objects become JSON, strings go as they are)."""
    parts = [p if isinstance(p, str) else orjson.dumps(p).decode() for p in payloads]
    if done:
        parts.append("[DONE]")
    return "".join(f"data: {part}{ending}{ending}" for part in parts).encode()


def chunk(content: str | None = None, *, finish: str | None = None, model: str = "test-model", **delta) -> dict:
    """One ``chat.completion.chunk`` with a single choice."""
    if content is not None:
        delta["content"] = content
    return {
        "object": "chat.completion.chunk",
        "model": model,
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
    }


def usage_chunk(prompt: int = 5, completion: int = 7, **extra) -> dict:
    return {
        "object": "chat.completion.chunk",
        "model": "test-model",
        "choices": [],
        "usage": {
            "prompt_tokens": prompt,
            "completion_tokens": completion,
            "total_tokens": prompt + completion,
            **extra,
        },
    }


def split_every(data: bytes, size: int) -> list[bytes]:
    return [data[i : i + size] for i in range(0, len(data), size)]


def split_randomly(data: bytes, seed: int, largest: int = 97) -> list[bytes]:
    rng = random.Random(seed)
    pieces, start = [], 0
    while start < len(data):
        end = start + rng.randint(1, largest)
        pieces.append(data[start:end])
        start = end
    return pieces


def with_endings(data: bytes, ending: bytes) -> bytes:
    return data.replace(b"\n", ending)


def closed_port() -> int:
    """A port nothing listens on (bound, then released)."""
    probe = socket.socket()
    probe.bind(("127.0.0.1", 0))
    port = probe.getsockname()[1]
    probe.close()
    return port


# --- running a provider ----------------------------------------------------------------------------


async def collect(provider, messages: list[dict] | None = None, **options) -> tuple[list, ProviderError | None]:
    """Every event the provider yields, and the ProviderError it ended with (if any); closes the provider."""
    events: list = []
    try:
        async for event in provider.stream(HELLO if messages is None else messages, **options):
            events.append(event)
    except ProviderError as error:
        return events, error
    finally:
        await provider.aclose()
    return events, None
