"""Clocks a test hands to the host or the runtime, so time moves when the test says, not when it sleeps."""

from __future__ import annotations

T0 = 1_700_000_000_000  # epoch ms, 14 November 2023


class Clock:
    """A settable millisecond clock, so leases expire without sleeping."""

    def __init__(self, start: int = T0):
        self.now = start

    def __call__(self) -> int:
        return self.now

    def advance(self, ms: int) -> None:
        self.now += ms
