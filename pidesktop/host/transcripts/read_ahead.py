"""Reading the next batch while this one is written: an iterator drained one item ahead by a helper thread.

An index build spends most of its time in SQLite (the trigram index), which
runs without the GIL; reading and parsing the transcript's next batch is
Python. On a second core the two overlap, so a rebuild takes about as long as
its inserts rather than the inserts plus the read.

The helper is the host's own: it is started and joined by the host thread
inside one call, so no file is ever read after that call returns, and the
source is closed on the helper's side (a generator that holds a file
descriptor closes it where it ran). An exception the source raises reaches the
caller at the item where it happened; a caller that stops early ends the helper
before going on.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable, Iterable, Iterator
from typing import Any, TypeVar

T = TypeVar("T")

_ITEM, _END, _ERROR = range(3)


def read_ahead(source: Callable[[], Iterable[T]], depth: int = 1, name: str = "pidesktop-read-ahead") -> Iterator[T]:
    """The items of ``source()`` in order, with up to ``depth`` of them made ahead on a helper thread."""
    if depth < 1:
        raise ValueError("read_ahead: depth must be at least 1")
    items: queue.Queue[tuple[int, Any]] = queue.Queue(maxsize=depth)
    stop = threading.Event()
    helper = threading.Thread(target=_produce, args=(source, items, stop), name=name, daemon=True)
    helper.start()
    try:
        while True:
            kind, value = items.get()
            if kind == _ITEM:
                yield value
            elif kind == _ERROR:
                raise value
            else:
                return
    finally:
        # Stopped early (or done): the helper puts at most one more item after the queue is emptied, then
        # sees the stop and closes its source.
        stop.set()
        while True:
            try:
                items.get_nowait()
            except queue.Empty:
                break
        helper.join()


def _produce(source: Callable[[], Iterable[Any]], items: queue.Queue[tuple[int, Any]], stop: threading.Event) -> None:
    try:
        iterator = iter(source())
        try:
            for item in iterator:
                items.put((_ITEM, item))
                if stop.is_set():
                    return
        finally:
            close = getattr(iterator, "close", None)
            if close is not None:
                close()
    except BaseException as exc:  # handed to the caller, which raises it where the item would have been
        if not stop.is_set():
            items.put((_ERROR, exc))
        return
    if not stop.is_set():
        items.put((_END, None))
