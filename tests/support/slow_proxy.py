"""A TCP pass-through on 127.0.0.1 that can hold requests: S3 as seen over a slow network.

While ``hold()`` is in force, every byte a client sends waits before it is forwarded (on new and
kept-alive connections alike), so a request is stuck in flight until ``release()``.
"""

from __future__ import annotations

import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager, suppress


class SlowProxy:
    def __init__(self, upstream_host: str, upstream_port: int) -> None:
        self.upstream = (upstream_host, upstream_port)
        self.open = threading.Event()
        self.open.set()
        self.waiting = threading.Event()  # set once a held request is waiting
        self._server = socket.create_server(("127.0.0.1", 0))
        self.port = int(self._server.getsockname()[1])
        self._closed = False
        threading.Thread(target=self._accept, name="slow-proxy", daemon=True).start()

    @property
    def endpoint(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def hold(self) -> None:
        self.waiting.clear()
        self.open.clear()

    def release(self) -> None:
        self.open.set()

    def close(self) -> None:
        self._closed = True
        self.open.set()
        with suppress(OSError):
            self._server.close()

    def _accept(self) -> None:
        while not self._closed:
            try:
                client, _ = self._server.accept()
            except OSError:
                return
            upstream = socket.create_connection(self.upstream)
            threading.Thread(target=self._pipe, args=(client, upstream, True), daemon=True).start()
            threading.Thread(target=self._pipe, args=(upstream, client, False), daemon=True).start()

    def _pipe(self, source: socket.socket, target: socket.socket, gated: bool) -> None:
        try:
            while data := source.recv(65536):
                if gated and not self.open.is_set():
                    self.waiting.set()
                    self.open.wait()
                target.sendall(data)
        except OSError:
            pass
        finally:
            for sock in (source, target):
                with suppress(OSError):
                    sock.shutdown(socket.SHUT_RDWR)


@contextmanager
def slow_proxy(endpoint: str) -> Iterator[SlowProxy]:
    host, port = endpoint.removeprefix("http://").rsplit(":", 1)
    proxy = SlowProxy(host, int(port))
    try:
        yield proxy
    finally:
        proxy.close()
