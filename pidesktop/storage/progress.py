"""Progress reports of a long job, and a printer for a terminal.

A job calls ``progress(phase, bytes_done, bytes_total, files_done, files_total,
current_path)``; the totals are those of the current phase. Phases of a move,
in order: ``inventory``, ``copy``, ``verify``, ``relocate``, ``validate``,
``publish``, ``done``.
"""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Callable
from typing import TextIO

from pidesktop.bus import topics

Progress = Callable[[str, int, int, int, int, str], None]


def ignore(phase: str, bytes_done: int, bytes_total: int, files_done: int, files_total: int, current_path: str) -> None:
    return None


class StderrProgress:
    """One line per phase change, then at most one every ``interval`` seconds."""

    def __init__(self, prefix: str = "pidesktop", stream: TextIO | None = None, interval: float = 0.5):
        self.prefix = prefix
        self.stream = stream or sys.stderr
        self.interval = interval
        self._phase = ""
        self._last = 0.0
        self._closed = False  # the current phase's final line is out
        self._lock = threading.Lock()

    def __call__(
        self, phase: str, bytes_done: int, bytes_total: int, files_done: int, files_total: int, current_path: str
    ) -> None:
        now = time.monotonic()
        finished = files_done >= files_total
        with self._lock:
            if phase != self._phase:
                self._phase, self._closed = phase, False
            elif self._closed or (not finished and now - self._last < self.interval):
                return
            self._last, self._closed = now, finished
        percent = f"{100 * bytes_done // bytes_total:3d}%" if bytes_total else "    "
        files = f"{files_done}/{files_total} files" if files_total else ""
        line = f"{self.prefix}: {phase:<9} {percent} {files} {current_path}".rstrip()
        print(line, file=self.stream, flush=True)


INDEX_PHASES = {"restore": "restoring chats from their files", "reindex": "indexing a chat again from its file"}


class IndexProgressLines:
    """The host's ``index.progress`` events as lines on a terminal: the first, one every ``interval`` s, the last.

    An event sink (``HostThread.subscribe``, or a host's ``emit``): other topics are ignored.
    """

    def __init__(self, prefix: str = "pidesktop", stream: TextIO | None = None, interval: float = 0.5):
        self.prefix = prefix
        self.stream = stream
        self.interval = interval
        self._last = -interval
        self._lock = threading.Lock()

    def __call__(self, topic: str, payload: dict[str, object]) -> None:
        if topic != topics.INDEX_PROGRESS:
            return
        now = time.monotonic()
        first, last = payload.get("bytesDone") == 0, payload.get("done") is True
        with self._lock:
            if not (first or last) and now - self._last < self.interval:
                return
            self._last = now
        done, total = payload.get("bytesDone"), payload.get("bytesTotal")
        percent = 100 * done // total if isinstance(done, int) and isinstance(total, int) and total else 100
        phase = INDEX_PHASES.get(str(payload.get("phase")), "indexing chats")
        chats = f"{payload.get('chatsDone')}/{payload.get('chatsTotal')} chats"
        print(f"{self.prefix}: {phase} {percent:3d}% ({chats})", file=self.stream or sys.stderr, flush=True)
