"""One way for the UI to run host work: an operation (after Anki's ``CollectionOp``).

An operation names what to run (a host command, or any coroutine that talks to
the host, such as the turn runner), which widgets are busy while it runs, what
to do with the result, and where a failure goes. By default a failure goes to
the window's error line: the nearest ancestor widget with a ``report_error``
method (the main window) shows one sentence and keeps the code and data
behind Details; without one the failure is logged.

    host_op(client, "session.rename", {"sessionId": sid, "title": title},
            parent=self, success=lambda result: self.model.upsert(result["session"])).run()

``run()`` starts the operation in the background and returns its task;
``await op`` runs it in place and returns the result, or ``None`` when it
failed (the failure has been handled by then). Widgets are never touched from
inside the command: ``success`` and ``failure`` run on the UI thread.
"""

from __future__ import annotations

import inspect
import logging
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from PySide6.QtCore import QObject
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QWidget
from shiboken6 import isValid

from pidesktop.bus import HostClient, HostError
from pidesktop.ui.kit import native_guard
from pidesktop.ui.kit.tasks import spawn

log = logging.getLogger("pidesktop.ui")

Busy = QWidget | QAction


@dataclass
class Op:
    """Run ``call``; on success hand its result to ``success``, on a ``HostError`` to ``failure``."""

    call: Callable[[], Awaitable[Any]]
    parent: QObject | None
    success: Callable[[Any], Any] | None = None
    failure: Callable[[HostError], Any] | None = None
    busy: tuple[Busy, ...] = field(default_factory=tuple)
    name: str = "op"

    def run(self) -> Any:
        """Start in the background (the task is kept and its crash logged)."""
        return spawn(self.run_async(), name=self.name)

    def __await__(self):
        return self.run_async().__await__()

    async def run_async(self) -> Any:
        for widget in self.busy:
            widget.setEnabled(False)
        try:
            result = await self.call()
        except HostError as error:
            handled = (self.failure or (lambda e: report(self.parent, e)))(error)
            if inspect.isawaitable(handled):
                await handled
            return None
        finally:
            for widget in self.busy:
                if isValid(widget):  # the dialog may have closed while the command ran
                    widget.setEnabled(True)
        if self.success is not None:
            done = self.success(result)
            if inspect.isawaitable(done):
                await done
        return result


def host_op(
    client: HostClient,
    method: str,
    params: dict | None = None,
    *,
    parent: QObject | None,
    success: Callable[[dict], Any] | None = None,
    failure: Callable[[HostError], Any] | None = None,
    busy: Iterable[Busy] = (),
) -> Op:
    """One host command as an operation. A write naming a pi session is never sent: it fails here, as the
    host would refuse it (``native_guard``)."""
    refused = native_guard.refusal(method, params)
    if refused is not None:
        return Op(lambda: _fail(refused), parent, success, failure, tuple(busy), method)
    return Op(lambda: client.call(method, params or {}), parent, success, failure, tuple(busy), method)


async def _fail(error: HostError) -> dict:
    raise error


def task_op(
    call: Callable[[], Awaitable[Any]],
    *,
    parent: QObject | None,
    name: str,
    success: Callable[[Any], Any] | None = None,
    failure: Callable[[HostError], Any] | None = None,
    busy: Iterable[Busy] = (),
) -> Op:
    """Work that talks to the host through something else (the turn runner, a paged model) as an operation."""
    return Op(call, parent, success, failure, tuple(busy), name)


def report(origin: QObject | None, error: HostError) -> None:
    """Hand ``error`` to the nearest ``report_error`` above ``origin`` (the window's error line)."""
    node = origin
    while node is not None:
        sink = getattr(node, "report_error", None)
        if callable(sink):
            sink(error)
            return
        node = node.parent()
    log.warning("unreported host error: %s", error)
