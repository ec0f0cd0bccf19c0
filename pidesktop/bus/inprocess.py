"""The in-process transport: one host thread, a FIFO queue, asyncio futures.

The host thread takes commands one at a time; that FIFO *is* the
single-writer rule. The UI awaits replies on its own (qasync) loop: the host
settles the caller's future with ``loop.call_soon_threadsafe``, so no UI code
ever blocks on the host, and events reach subscribers on the loop's thread.

The bus knows nothing of the host's internals: it is handed an ``opener``, a
callable run on the host thread that returns a dispatcher (``dispatch(method,
params) -> dict`` and ``close()``). If opening fails, that failure is the
answer to every command, so the UI can show the reason.
"""

from __future__ import annotations

import asyncio
import logging
import queue
import sys
import threading
from collections.abc import Callable
from typing import Any, Protocol

from pidesktop.bus.errors import ErrorCode, HostError

log = logging.getLogger("pidesktop.bus")

# The host thread shares the GIL with the window. Python hands the GIL over every
# switch interval (5 ms by default), and a UI tick that calls into Python many
# times (a paint, a relayout) can wait that long at each call while the host
# decodes a long chat: ticks of 20-30 ms. 1 ms still left a 20 ms tick when a
# chat of 100,000 messages opened (a paint's dozens of calls, ~1 ms each);
# 0.2 ms bounds each wait to that (bench/ui.py: that tick is now under 8 ms).
SWITCH_INTERVAL_S = 0.0002

Reply = Callable[[dict[str, Any] | None, HostError | None], None]
EventSink = Callable[[str, dict[str, Any]], None]
# What the host thread's queue carries: a command, work posted back to the writer, or None to stop.
_Command = tuple[str, dict[str, Any], Reply]
_QueueItem = _Command | Callable[[], None] | None


class Dispatcher(Protocol):
    def dispatch(self, method: str, params: dict[str, Any]) -> dict[str, Any]: ...

    def close(self) -> None: ...


Opener = Callable[[EventSink], Dispatcher]


class HostThread:
    """Owns the dispatcher on a dedicated thread and feeds it from a queue."""

    def __init__(self, opener: Opener, name: str = "pidesktop-host"):
        self._opener = opener
        self._queue: queue.SimpleQueue[_QueueItem] = queue.SimpleQueue()
        self._sinks: list[EventSink] = []
        self._sinks_lock = threading.Lock()
        self._thread = threading.Thread(target=self._run, name=name, daemon=True)
        self._ready = threading.Event()
        self._accepting = True
        self.open_error: HostError | None = None

    # -- lifecycle -------------------------------------------------------
    def start(self) -> HostThread:
        if sys.getswitchinterval() > SWITCH_INTERVAL_S:
            sys.setswitchinterval(SWITCH_INTERVAL_S)
        self._thread.start()
        return self

    def wait_ready(self, timeout: float | None = None) -> bool:
        """Block until the dispatcher is open (or failed to open)."""
        return self._ready.wait(timeout)

    def stop(self, timeout: float | None = 30) -> None:
        """Drain queued commands, close the dispatcher and join the thread."""
        if not self._accepting:
            self._thread.join(timeout)
            return
        self._accepting = False
        self._queue.put(None)
        if self._thread.is_alive():
            self._thread.join(timeout)

    @property
    def alive(self) -> bool:
        return self._thread.is_alive()

    # -- commands and events ---------------------------------------------
    def submit(self, method: str, params: dict[str, Any], reply: Reply) -> None:
        if not self._accepting:
            reply(None, HostError(ErrorCode.STORAGE_UNAVAILABLE, "The host is shutting down."))
            return
        self._queue.put((method, params, reply))

    def post(self, work: Callable[[], None]) -> bool:
        """Queue ``work`` to run on the host thread after the commands already queued.

        For work a host job thread hands back to the single writer (an import's
        writes). False when the host is shutting down and it will never run.
        """
        if not self._accepting:
            return False
        self._queue.put(work)
        return True

    def subscribe(self, sink: EventSink) -> Callable[[], None]:
        with self._sinks_lock:
            self._sinks.append(sink)

        def unsubscribe() -> None:
            with self._sinks_lock:
                if sink in self._sinks:
                    self._sinks.remove(sink)

        return unsubscribe

    def _emit(self, topic: str, payload: dict[str, Any]) -> None:
        with self._sinks_lock:
            sinks = list(self._sinks)
        for sink in sinks:
            try:
                sink(topic, payload)
            except Exception:  # a broken subscriber must not stop the host
                log.exception("event subscriber failed for %s", topic)

    # -- the host thread ---------------------------------------------------
    def _run(self) -> None:
        dispatcher = self._open()
        attach = getattr(dispatcher, "attach_post", None)
        if attach is not None:
            attach(self.post)
        self._ready.set()
        try:
            while True:
                item = self._queue.get()
                if item is None:
                    break
                if callable(item):
                    self._run_posted(item)
                    continue
                method, params, reply = item
                self._answer(dispatcher, method, params, reply)
        finally:
            if dispatcher is not None:
                try:
                    dispatcher.close()
                except Exception:
                    log.exception("closing the host failed")

    @staticmethod
    def _run_posted(work: Callable[[], None]) -> None:
        try:
            work()
        except Exception:
            log.exception("posted host work failed")

    def _open(self) -> Dispatcher | None:
        try:
            return self._opener(self._emit)
        except HostError as exc:
            self.open_error = exc
        except Exception as exc:
            log.exception("the host could not open its storage")
            self.open_error = HostError(ErrorCode.STORAGE_UNAVAILABLE, str(exc) or type(exc).__name__)
        log.error("host unavailable: %s", self.open_error)
        return None

    def _answer(self, dispatcher: Dispatcher | None, method: str, params: dict[str, Any], reply: Reply) -> None:
        result: dict[str, Any] | None = None
        error: HostError | None = None
        if dispatcher is None:
            error = self.open_error
        else:
            try:
                result = dispatcher.dispatch(method, params)
            except HostError as exc:
                error = exc
            except Exception as exc:
                log.exception("command %s failed", method)
                error = HostError(ErrorCode.INTERNAL, f"{method} failed unexpectedly: {exc}")
        try:
            reply(result, error)
        except Exception:
            log.exception("delivering the reply to %s failed", method)


class HostClient:
    """The UI-side handle: ``await client.call(method, params)``.

    Replies and events are delivered on ``loop`` (the qasync loop of the UI
    thread, or any asyncio loop). Without a loop (command-line tools) only
    ``call_blocking`` works and events are delivered on the host thread.
    """

    def __init__(self, thread: HostThread, loop: asyncio.AbstractEventLoop | None = None):
        self._thread = thread
        self._loop = loop
        self._subscribers: list[EventSink] = []
        self._unsubscribe = thread.subscribe(self._forward_event)

    async def call(self, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
        if self._loop is None:
            raise RuntimeError("HostClient.call needs a loop; use call_blocking")
        future: asyncio.Future[dict[str, Any]] = self._loop.create_future()

        def reply(result: dict[str, Any] | None, error: HostError | None) -> None:
            self._post(_settle, future, result, error)

        self._thread.submit(method, dict(params or {}), reply)
        return await future

    def call_blocking(self, method: str, params: dict[str, Any] | None = None, timeout: float = 60) -> dict[str, Any]:
        """For code that has no loop running (command-line tools, start-up)."""
        done = threading.Event()
        box: list[tuple[dict[str, Any] | None, HostError | None]] = []

        def reply(result: dict[str, Any] | None, error: HostError | None) -> None:
            box.append((result, error))
            done.set()

        self._thread.submit(method, dict(params or {}), reply)
        if not done.wait(timeout):
            raise HostError(ErrorCode.STORAGE_UNAVAILABLE, f"The host did not answer {method} in {timeout:.0f} s.")
        result, error = box[0]
        if error is not None:
            raise error
        assert result is not None  # a reply without an error carries the result
        return result

    def subscribe(self, callback: EventSink) -> Callable[[], None]:
        """``callback(topic, payload)`` runs on the loop's thread."""
        self._subscribers.append(callback)
        return lambda: self._subscribers.remove(callback) if callback in self._subscribers else None

    def close(self) -> None:
        self._unsubscribe()

    def _forward_event(self, topic: str, payload: dict[str, Any]) -> None:
        self._post(self._deliver, topic, payload)

    def _deliver(self, topic: str, payload: dict[str, Any]) -> None:
        for callback in list(self._subscribers):
            try:
                callback(topic, payload)
            except Exception:
                log.exception("event handler failed for %s", topic)

    def _post(self, fn: Callable[..., None], *args: Any) -> None:
        if self._loop is None:
            fn(*args)
            return
        try:
            self._loop.call_soon_threadsafe(fn, *args)
        except RuntimeError:  # the loop closed while the app was quitting
            log.debug("dropped a delivery: the loop is closed")


def _settle(future: asyncio.Future[dict[str, Any]], result: dict[str, Any] | None, error: HostError | None) -> None:
    if future.done():
        return
    if error is not None:
        future.set_exception(error)
    else:
        assert result is not None  # a reply without an error carries the result
        future.set_result(result)
