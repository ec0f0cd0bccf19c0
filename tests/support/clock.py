"""Clocks a test hands to the host or the runtime, so time moves when the test says, not when it sleeps."""

from __future__ import annotations

import threading
import time

T0 = 1_700_000_000_000  # epoch ms, 14 November 2023


class Clock:
    """A settable millisecond clock, so leases expire without sleeping."""

    def __init__(self, start: int = T0):
        self.now = start

    def __call__(self) -> int:
        return self.now

    def advance(self, ms: int) -> None:
        self.now += ms


class TickingClock:
    """A millisecond clock that moves on by ``step`` at every reading: no two stamps are ever equal.

    For orderings by time ("newest first") that two writes in the same millisecond would leave to chance.
    It starts a minute in the past (by default), so a host started later on the real clock, after a few
    thousand readings, still stamps its own writes as newer. Read from the host thread and the test's,
    hence the lock."""

    def __init__(self, start: int | None = None, step: int = 1):
        self._next = time.time_ns() // 1_000_000 - 60_000 if start is None else start
        self._step = step
        self._lock = threading.Lock()

    def __call__(self) -> int:
        with self._lock:
            now = self._next
            self._next += self._step
            return now
