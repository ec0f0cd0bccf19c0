"""JSON-RPC 2.0 over stdin/stdout, one object per line (RPC-CORE.md).

The same host thread and dispatcher as the GUI. Replies are written by the
host thread as each command finishes; events go out as ``event``
notifications. Bad input gets an error reply and the host keeps serving. End
of stdin is an orderly shutdown: queued commands are drained, the database is
closed, exit code 0. SIGTERM is the same shutdown (a second one ends the
process at once). Nothing but protocol lines ever reaches stdout.
"""

from __future__ import annotations

import logging
import os
import signal
import sys
import threading
from typing import Any, BinaryIO

import orjson

from pidesktop.bus.errors import ErrorCode, HostError
from pidesktop.bus.inprocess import Dispatcher, EventSink, HostThread, Opener

log = logging.getLogger("pidesktop.bus.stdio")


class StdioServer:
    def __init__(self, opener: Opener, stdin: BinaryIO, stdout: BinaryIO):
        self._stdin = stdin
        self._stdout = stdout
        self._write_lock = threading.Lock()
        self.reading = True  # stdin is read: SIGTERM stops the read (``run``)
        self._thread = HostThread(opener, name="pidesktop-host-stdio")
        self._thread.subscribe(self._on_event)

    def serve(self) -> int:
        self._thread.start()
        try:
            for raw in self._stdin:
                if raw.strip():
                    self._handle_line(raw)
        finally:
            self.reading = False  # a SIGTERM from here on finds the shutdown under way and leaves it alone
            self._thread.stop()
        return 0

    def _handle_line(self, raw: bytes) -> None:
        try:
            message = orjson.loads(raw)
        except orjson.JSONDecodeError as exc:
            self._write_error(None, HostError(ErrorCode.PARSE_ERROR, f"The line is not valid JSON: {exc}."))
            return
        if not isinstance(message, dict):
            self._write_error(None, HostError(ErrorCode.INVALID_REQUEST, "A request must be a JSON object."))
            return
        request_id = message.get("id")
        if not isinstance(request_id, (str, int)) or isinstance(request_id, bool):
            if "id" in message and request_id is not None:
                self._write_error(None, HostError(ErrorCode.INVALID_REQUEST, "'id' must be a string or an integer."))
                return
            request_id = None
        problem = _request_problem(message)
        if problem is not None:
            self._write_error(request_id, problem)
            return
        wants_reply = "id" in message and request_id is not None

        def reply(result: dict[str, Any] | None, error: HostError | None) -> None:
            if not wants_reply:
                return
            if error is not None:
                self._write_error(request_id, error)
            else:
                self._write({"jsonrpc": "2.0", "id": request_id, "result": result})

        self._thread.submit(message["method"], message.get("params") or {}, reply)

    def _on_event(self, topic: str, payload: dict[str, Any]) -> None:
        self._write({"jsonrpc": "2.0", "method": "event", "params": {"topic": topic, "payload": payload}})

    def _write_error(self, request_id: Any, error: HostError) -> None:
        self._write({"jsonrpc": "2.0", "id": request_id, "error": error.to_jsonrpc()})

    def _write(self, message: dict[str, Any]) -> None:
        line = encode(message)
        if line is None:
            return
        with self._write_lock:
            self._stdout.write(line)
            self._stdout.flush()


def encode(message: dict[str, Any]) -> bytes | None:
    """``message`` as one protocol line; a reply that cannot be encoded becomes an error reply.

    Every request with an id gets an answer, even when its result is something
    orjson will not write (nested past its limit, say). An event that cannot be
    encoded is logged and dropped: nobody waits for it.
    """
    try:
        return orjson.dumps(message, default=str) + b"\n"
    except orjson.JSONEncodeError as exc:
        if "id" not in message:
            log.error("an event could not be encoded and was not sent: %s", exc)
            return None
        log.error("the reply to request %r could not be encoded: %s", message["id"], exc)
        error = HostError(ErrorCode.INTERNAL, f"The reply could not be encoded as JSON: {exc}.")
        return orjson.dumps({"jsonrpc": "2.0", "id": message["id"], "error": error.to_jsonrpc()}) + b"\n"


def _request_problem(message: dict[str, Any]) -> HostError | None:
    if message.get("jsonrpc") != "2.0":
        return HostError(ErrorCode.INVALID_REQUEST, "'jsonrpc' must be \"2.0\".")
    method = message.get("method")
    if method is None:
        return HostError(ErrorCode.INVALID_REQUEST, "The request has no 'method'.")
    if not isinstance(method, str) or not method:
        return HostError(ErrorCode.INVALID_REQUEST, "'method' must be a non-empty string.")
    params = message.get("params")
    if params is not None and not isinstance(params, dict):
        return HostError(ErrorCode.INVALID_PARAMS, f"{method}: 'params' must be a JSON object.")
    return None


def unavailable_opener(reason: str, cause: str | None = None) -> Opener:
    """An opener for a data folder that cannot be used: every call is answered with ``reason`` (and the
    ``cause`` a client words what to do by: ``"full"``, ``"readOnly"``, ``"permission"``)."""
    data = {"reason": reason} if cause is None else {"reason": reason, "cause": cause}

    def refuse(emit: EventSink) -> Dispatcher:
        raise HostError(ErrorCode.STORAGE_UNAVAILABLE, reason, dict(data))

    return refuse


class Terminated(Exception):
    """SIGTERM arrived: stop reading stdin and shut down as at its end."""


def run(opener: Opener) -> int:
    """Serve on this process's stdin/stdout, keeping stdout for protocol lines only."""
    protocol_out = os.fdopen(os.dup(1), "wb", buffering=0)
    os.dup2(2, 1)  # anything else printed, even by C code, goes to stderr
    sys.stdout = sys.stderr
    server = StdioServer(opener, sys.stdin.buffer, protocol_out)

    def terminate(_signum: int, _frame: object) -> None:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)  # a second SIGTERM ends the process at once
        log.info("SIGTERM: shutting down as at the end of stdin")
        if server.reading:
            # Raised in the main thread, which reads stdin: the read stops and serve() stops the host thread
            # (queued commands drained, the database closed), so the next start need not check the database.
            raise Terminated

    signal.signal(signal.SIGTERM, terminate)
    try:
        return server.serve()
    except Terminated:
        return 0
