"""The start-up windows' shared parts: a small dialog that runs in its own event loop and ends with the
data folder to open (None: quit), work on a worker thread, and "Choose another data folder"."""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QCoreApplication, QEventLoop, QObject, Qt, Signal
from PySide6.QtWidgets import (
    QDialog,
    QFileDialog,
    QWidget,
)

from pidesktop import paths
from pidesktop.storage import recovery
from pidesktop.storage.errors import StorageJobError
from pidesktop.ui.kit import i18n
from pidesktop.ui.kit import theme as themes
from pidesktop.ui.kit.dialog_style import error_text, stylesheet

EMIT_INTERVAL = 0.05  # seconds between progress repaints
ETA_AFTER = 1.5  # seconds of a phase before the time left is estimated


class Bridge(QObject):
    """Carries a worker thread's results into the GUI thread (queued connections)."""

    progressed = Signal(str, int, int, int, int, str)
    stepped = Signal(str, object, object)  # a migration's (phase, done, total): bytes may pass 2**31
    succeeded = Signal(object)
    failed = Signal(str)


def run_in_thread(
    fn: Callable, on_done: Callable, on_error: Callable[[str], None], parent: QObject
) -> threading.Thread:
    bridge = Bridge(parent)
    bridge.succeeded.connect(on_done)
    bridge.failed.connect(on_error)

    def work():
        try:
            result = fn()
        except Exception as exc:
            bridge.failed.emit(error_text(exc, (StorageJobError,)))
            return
        bridge.succeeded.emit(result)

    thread = threading.Thread(target=work, name="pidesktop-startup", daemon=True)
    thread.start()
    return thread


def time_left(seconds: float) -> str:
    if seconds < 60:
        return QCoreApplication.translate("MoveProgressWindow", "Less than a minute left")
    minutes = round(seconds / 60)
    if minutes < 90:
        return i18n.arg(QCoreApplication.translate("MoveProgressWindow", "About %1 min left"), minutes)
    return i18n.arg(QCoreApplication.translate("MoveProgressWindow", "About %1 h left"), f"{seconds / 3600:.1f}")


class StartupWindow(QDialog):
    """A small frameless-looking dialog that ends with ``result_location`` (None: quit)."""

    ended = Signal()

    def __init__(self, theme: themes.Theme | None = None, parent: QWidget | None = None):
        super().__init__(parent)
        self.theme = theme or themes.LIGHT
        self.result_location: paths.StorageLocation | None = None
        self.setWindowTitle("pidesktop")
        self.setMinimumWidth(560)
        self.setStyleSheet(stylesheet(self.theme))

    def end(self, location: paths.StorageLocation | None) -> None:
        self.result_location = location
        self.ended.emit()
        self.hide()

    def reject(self) -> None:  # Esc or the window's close button: same as Quit
        self.end(None)

    def run(self) -> paths.StorageLocation | None:
        """Show, wait in a local event loop until the window ends, and return its location."""
        loop = QEventLoop()
        self.ended.connect(loop.quit)
        self.show()
        self.begin()
        loop.exec()
        return self.result_location

    def begin(self) -> None:
        pass


class FolderChoice:
    """ "Choose another data folder": a folder dialog, the choice validated (it must hold data/pi.sqlite) and
    selected on a worker thread, then the window ends with the new location.

    The window provides ``_busy(bool)``, ``_failed(message)``, ``end(location)`` and ``choose_from`` (the
    folder the dialog starts in). A pinned data folder (PI_DESKTOP_DATA_DIR or --data-dir) is replaced for
    this run only; the installation's own choice is written for the next starts as well.
    """

    choose_from: Path
    pinned = False

    def browse(self) -> QFileDialog:
        chooser = QFileDialog(
            self, QCoreApplication.translate("MissingRootWindow", "Select your data folder"), str(self.choose_from)
        )
        chooser.setFileMode(QFileDialog.FileMode.Directory)
        chooser.setOption(QFileDialog.Option.ShowDirsOnly, True)
        chooser.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose, True)
        chooser.fileSelected.connect(self.select_folder)
        chooser.open()
        return chooser

    def select_folder(self, folder: str) -> None:
        """Validate ``folder`` (it must hold data/pi.sqlite), then point the installation (or this run) at it."""
        self._busy(True)
        pinned = self.pinned

        def select():
            root = recovery.validate_existing(folder)
            if pinned:
                return paths.resolve(data_dir=root / "data")
            return recovery.select_existing(folder)

        run_in_thread(select, self.end, self._failed, self)
