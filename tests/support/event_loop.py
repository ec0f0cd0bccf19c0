"""The qasync loop the UI tests run: one that stays current while it runs Qt's events a last time."""

from __future__ import annotations

import asyncio
from typing import Any

import qasync
from PySide6.QtCore import QEventLoop as QtEventLoop
from PySide6.QtWidgets import QApplication


class QasyncTestLoop(qasync.QEventLoop):
    """``run_until_complete`` as qasync's, but the last pass over Qt's events (after the loop stopped) has
    this loop as the running one: a task woken in that pass (a reply's next step) would otherwise fail with
    "no running event loop" and die, which never happens in the app, whose loop runs for good."""

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
