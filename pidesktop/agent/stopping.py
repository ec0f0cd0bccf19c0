"""Waiting on something that Stop may cut short: a provider's response, a tool call."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from typing import TypeVar

T = TypeVar("T")


class Stopped(Exception):
    """The caller's stop event was set while we waited."""


async def unless_stopped(awaitable: Awaitable[T], stop: asyncio.Event | None) -> T:
    """Await ``awaitable``, or raise ``Stopped`` as soon as ``stop`` is set (cancelling the wait).

    The work is cancelled and awaited whenever this returns early, also when the task running this
    is itself cancelled, so nothing is left running on its own.
    """
    if stop is None:
        return await awaitable
    if stop.is_set():
        if hasattr(awaitable, "close"):
            awaitable.close()  # a coroutine we will never run
        raise Stopped
    work = asyncio.ensure_future(awaitable)
    stopped = asyncio.ensure_future(stop.wait())
    try:
        await asyncio.wait({work, stopped}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        stopped.cancel()
        if not work.done():
            work.cancel()
            await asyncio.wait({work})
    if work.cancelled() or (stop.is_set() and work.exception() is not None):
        raise Stopped
    return work.result()
