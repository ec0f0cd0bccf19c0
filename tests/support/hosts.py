"""Real hosts for tests: a host thread with a blocking client, ``pidesktop host --stdio`` in a subprocess,
and host threads with clients on the test's qasync loop."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import threading
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TypeVar

import orjson
import pytest

from pidesktop import paths
from pidesktop.bus import HostClient, HostError, HostThread
from pidesktop.clock import now_ms
from pidesktop.host.core import opener
from tests.support.repo import REPO

T = TypeVar("T")


class InProcessHost:
    """A real host thread with a blocking client, and a record of its events."""

    def __init__(self, location: paths.StorageLocation, clock: Callable[[], int] | None = None):
        self.location = location
        self.thread = HostThread(opener(location, "test host", clock or now_ms)).start()
        self.client = HostClient(self.thread)
        self.events: list[tuple[str, dict]] = []
        self._events_lock = threading.Lock()
        self.thread.subscribe(self._record)
        self.thread.wait_ready(30)

    def _record(self, topic: str, payload: dict) -> None:
        with self._events_lock:
            self.events.append((topic, payload))

    def call(self, method: str, params: dict | None = None) -> dict:
        return self.client.call_blocking(method, params or {})

    def error(self, method: str, params: dict | None = None) -> HostError:
        with pytest.raises(HostError) as info:
            self.call(method, params)
        return info.value

    def stop(self) -> None:
        self.client.close()
        self.thread.stop()


class StdioHost:
    """``pidesktop host --stdio`` in a real subprocess."""

    def __init__(self, data_root: Path, env: dict | None = None):
        self.data_root = data_root
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "pidesktop", "host", "--stdio", "--data-dir", str(data_root)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env={**os.environ, **(env or {})},
            cwd=REPO,
        )
        self._next_id = 0
        self.events: list[dict] = []
        self.raw_lines: list[bytes] = []

    def send_raw(self, line: bytes) -> None:
        self.proc.stdin.write(line if line.endswith(b"\n") else line + b"\n")
        self.proc.stdin.flush()

    def read_message(self) -> dict:
        line = self.proc.stdout.readline()
        if not line:
            raise EOFError(f"host exited: {self.proc.stderr.read().decode(errors='replace')}")
        self.raw_lines.append(line)
        return orjson.loads(line)

    def reply_to(self, request_id) -> dict:
        """Read until the reply with ``request_id``, collecting events on the way."""
        while True:
            message = self.read_message()
            if message.get("method") == "event":
                self.events.append(message["params"])
                continue
            if message.get("id") == request_id:
                return message

    def request(self, method: str, params: dict | None = None) -> dict:
        self._next_id += 1
        body = {"jsonrpc": "2.0", "id": self._next_id, "method": method}
        if params is not None:
            body["params"] = params
        self.send_raw(orjson.dumps(body))
        return self.reply_to(self._next_id)

    def call(self, method: str, params: dict | None = None) -> dict:
        reply = self.request(method, params or {})
        if "error" in reply:
            raise HostError.from_jsonrpc(reply["error"])
        return reply["result"]

    def close(self, timeout: float = 30) -> int:
        if self.proc.stdin and not self.proc.stdin.closed:
            self.proc.stdin.close()
        rest = self.proc.stdout.read()
        self.raw_lines += [line + b"\n" for line in rest.splitlines()]
        code = self.proc.wait(timeout)
        self.proc.stdout.close()
        self.proc.stderr.close()
        return code

    def kill(self) -> None:
        self.proc.kill()
        self.proc.wait(30)
        for stream in (self.proc.stdin, self.proc.stdout, self.proc.stderr):
            try:
                stream.close()
            except OSError:
                pass


class LoopHosts:
    """Real host threads, each with a client on the test's qasync loop; all closed and stopped after the test."""

    def __init__(self, loop, location: paths.StorageLocation):
        self._loop = loop
        self._location = location
        self._started: list[tuple[HostThread, HostClient]] = []

    def start(self, location: paths.StorageLocation | None = None) -> HostClient:
        """A new host thread on ``location`` (the test's own by default) and a client for it."""
        thread = HostThread(opener(location or self._location, role="test GUI")).start()
        client = HostClient(thread, self._loop)
        self._started.append((thread, client))
        return client

    def thread_of(self, client: HostClient) -> HostThread:
        return next(thread for thread, started in self._started if started is client)

    def stop_all(self) -> None:
        for thread, client in reversed(self._started):
            client.close()
            thread.stop()
            assert not thread.alive
        self._started.clear()


def run_with_client(host: InProcessHost, body: Callable[[HostClient], Awaitable[T]]) -> T:
    """``body(client)`` on a fresh event loop, with a client of ``host``'s thread that is closed after it."""

    async def main() -> T:
        client = HostClient(host.thread, asyncio.get_running_loop())
        try:
            return await body(client)
        finally:
            client.close()

    return asyncio.run(main())
