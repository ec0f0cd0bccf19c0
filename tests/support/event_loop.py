"""The qasync loop the UI tests run: one that is the running loop whenever it runs a callback."""

from __future__ import annotations

import asyncio
from typing import Any

import qasync
from PySide6.QtCore import QEventLoop as QtEventLoop
from PySide6.QtWidgets import QApplication


class QasyncTestLoop(qasync.QEventLoop):
    """qasync's loop, made the running one whenever Qt hands it a callback.

    In the app the loop runs for good. A test runs it only inside
    ``run_until_complete``; between those, Qt's events still run (the last pass
    after the loop stopped, ``qtbot.waitUntil``, ``sendPostedEvents``) and with
    them qasync's callbacks. A task stepped there would fail with "no running
    event loop" and die, so each callback runs with this loop as the running one.
    """

    def _add_callback(self, handle: asyncio.Handle, delay: float = 0) -> Any:
        callback = handle._callback  # type: ignore[attr-defined]
        loop = self

        def as_running(*args: Any) -> Any:
            if asyncio.events._get_running_loop() is not None:
                return callback(*args)
            asyncio.events._set_running_loop(loop)
            try:
                return callback(*args)
            finally:
                asyncio.events._set_running_loop(None)

        handle._callback = as_running  # type: ignore[attr-defined]
        return super()._add_callback(handle, delay)

    def run_until_complete(self, future: Any) -> Any:
        if self.is_running():
            raise RuntimeError("Event loop already running")
        future = asyncio.ensure_future(future, loop=self)

        def stop(_future: Any) -> None:
            self.stop()

        future.add_done_callback(stop)
        try:
            self.run_forever()
        finally:
            future.remove_done_callback(stop)
        asyncio.events._set_running_loop(self)
        try:
            QApplication.instance().eventDispatcher().processEvents(QtEventLoop.ProcessEventsFlag.AllEvents)
        finally:
            asyncio.events._set_running_loop(None)
        if not future.done():
            raise RuntimeError("Event loop stopped before Future completed.")
        return future.result()
