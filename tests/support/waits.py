"""Waiting on a condition, never for a fixed time: on the test's event loop, or from a plain thread."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")


async def wait_until(predicate: Callable[[], T], timeout: float = 10.0, interval: float = 0.01) -> T:
    """Poll ``predicate`` while the event loop keeps running; its first truthy value."""
    deadline = asyncio.get_running_loop().time() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if asyncio.get_running_loop().time() > deadline:
            raise AssertionError(f"condition not met within {timeout} s")
        await asyncio.sleep(interval)


def spin_until(qloop: asyncio.AbstractEventLoop, predicate: Callable[[], T], timeout: float = 15.0) -> T:
    """Run the qasync loop until ``predicate()`` is truthy (at most ``timeout`` s); returns its value."""
    return qloop.run_until_complete(wait_until(predicate, timeout))


def wait_for(check: Callable[[], T], timeout: float = 10.0, what: str = "the condition", every: float = 0.02) -> T:
    """Poll ``check`` from a thread with no event loop (a subprocess, a watcher thread) until it is truthy.

    AssertionError naming ``what`` after ``timeout`` s."""
    deadline = time.monotonic() + timeout
    while True:
        result = check()
        if result:
            return result
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout:g} s waiting for {what}")
        time.sleep(every)
