"""Handing a job thread's database step back to the host thread, and waiting for it."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TypeVar

from pidesktop.bus.errors import ErrorCode, HostError
from pidesktop.host.context import Post

T = TypeVar("T")


def on_host_thread(post: Post, work: Callable[[], T]) -> T:
    """Run ``work`` on the host thread (after the commands queued before it) and return what it returns;
    what it raises is raised here. ``STORAGE_UNAVAILABLE`` when the host is closing and it will never run."""
    done = threading.Event()
    outcome: list[T] = []
    failure: list[BaseException] = []

    def run() -> None:
        try:
            outcome.append(work())
        except BaseException as exc:  # handed to the waiting thread, which raises it
            failure.append(exc)
        finally:
            done.set()

    if not post(run):
        raise HostError(ErrorCode.STORAGE_UNAVAILABLE, "The host is shutting down; nothing more was written.")
    done.wait()
    if failure:
        raise failure[0]
    return outcome[0]
