"""Start-up windows shown before any host opens a data folder.

- ``MoveProgressWindow``: a pending move of the data folder (scheduled in
  Settings, or interrupted by a crash) runs with a progress bar and the time
  left; Cancel keeps the current folder. On failure the reason is shown with
  Retry, Keep current folder and Quit; the old folder stays active.
- ``MissingRootWindow``: the default data folder is gone (not a first run):
  create a fresh one, select an existing one (validated with
  ``recovery.validate_existing``), or quit.

``prepare(location, theme_name)`` is the entry point ``app.run_gui`` calls: it
shows a window only when there is something to do, runs each one in a local
Qt event loop (so it paints while the storage job runs on a worker thread),
and returns the location to open, or None when the person chose to quit.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication, QEventLoop, QObject, Qt, Signal
from PySide6.QtWidgets import (QApplication, QDialog, QFileDialog, QHBoxLayout, QLabel, QProgressBar, QPushButton,
                               QVBoxLayout, QWidget)

from .. import paths
from ..storage import move, recovery
from ..storage.errors import StorageJobError
from . import i18n
from . import theme as themes
from .dialog_style import error_text, set_severity, stylesheet
from ..sizes import human_size

log = logging.getLogger("pidesktop.ui.startup")

EMIT_INTERVAL = 0.05  # seconds between progress repaints
ETA_AFTER = 1.5  # seconds of a phase before the time left is estimated

# Phases of ``storage.move``, shown translated (context "MoveProgressWindow").
PHASES = {
    "inventory": QT_TRANSLATE_NOOP("MoveProgressWindow", "Looking at your data…"),
    "copy": QT_TRANSLATE_NOOP("MoveProgressWindow", "Copying files…"),
    "verify": QT_TRANSLATE_NOOP("MoveProgressWindow", "Checking the copy…"),
    "relocate": QT_TRANSLATE_NOOP("MoveProgressWindow", "Updating paths in the copy…"),
    "validate": QT_TRANSLATE_NOOP("MoveProgressWindow", "Checking the copied database…"),
    "publish": QT_TRANSLATE_NOOP("MoveProgressWindow", "Switching to the new folder…"),
    "done": QT_TRANSLATE_NOOP("MoveProgressWindow", "Done."),
}


class _Bridge(QObject):
    """Carries a worker thread's results into the GUI thread (queued connections)."""

    progressed = Signal(str, int, int, int, int, str)
    succeeded = Signal(object)
    failed = Signal(str)


def run_in_thread(fn: Callable, on_done: Callable, on_error: Callable[[str], None], parent: QObject) -> threading.Thread:
    bridge = _Bridge(parent)
    bridge.succeeded.connect(on_done)
    bridge.failed.connect(on_error)

    def work():
        try:
            result = fn()
        except Exception as exc:  # noqa: BLE001 - becomes a sentence
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


class MoveProgressWindow(StartupWindow):
    def __init__(self, location: paths.StorageLocation, theme: themes.Theme | None = None,
                 parent: QWidget | None = None):
        super().__init__(theme, parent)
        self.location = location
        self.job = recovery.pending()
        self.cancel_event = threading.Event()
        self.error: str | None = None
        self.worker: threading.Thread | None = None
        self._phase = ""
        self._phase_started = 0.0
        self._last_emit = 0.0
        title = QLabel(self.tr("Moving your data folder"))
        title.setObjectName("pageTitle")
        where = QLabel(i18n.arg(self.tr("From %1\nto %2"), self.job.source_data_root if self.job else "",
                                move.data_root_at(self.job.destination) if self.job else ""))
        where.setObjectName("muted")
        where.setWordWrap(True)
        where.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.phase_label = QLabel(self.tr("Starting…"))
        self.phase_label.setObjectName("rowTitle")
        self.bar = QProgressBar()
        self.bar.setRange(0, 0)
        self.bar.setTextVisible(False)
        self.detail = QLabel(" ")
        self.detail.setObjectName("muted")
        self.detail.setWordWrap(True)
        self.current = QLabel(" ")
        self.current.setObjectName("muted")
        self.current.setMinimumWidth(1)
        self.error_label = QLabel()
        self.error_label.setObjectName("report")
        self.error_label.setWordWrap(True)
        self.error_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.error_label.hide()
        note = QLabel(self.tr("Your chats open as soon as the copy has been checked. Until then, your data stays "
                              "where it was."))
        note.setObjectName("muted")
        note.setWordWrap(True)
        self.cancel_button = QPushButton(self.tr("Cancel move"))
        self.cancel_button.clicked.connect(self.cancel)
        self.retry_button = QPushButton(self.tr("Retry"))
        self.retry_button.setObjectName("primary")
        self.retry_button.clicked.connect(self.begin)
        self.keep_button = QPushButton(self.tr("Keep current folder"))
        self.keep_button.setToolTip(self.tr("Forget this move and open your data where it is now."))
        self.keep_button.clicked.connect(self.abandon)
        self.quit_button = QPushButton(self.tr("Quit"))
        self.quit_button.clicked.connect(lambda: self.end(None))
        for button in (self.retry_button, self.keep_button, self.quit_button):
            button.hide()
        buttons = QHBoxLayout()
        buttons.addStretch(1)
        for button in (self.quit_button, self.keep_button, self.cancel_button, self.retry_button):
            button.setAutoDefault(False)
            buttons.addWidget(button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(24, 20, 24, 16)
        layout.setSpacing(8)
        layout.addWidget(title)
        layout.addWidget(where)
        layout.addSpacing(8)
        layout.addWidget(self.phase_label)
        layout.addWidget(self.bar)
        layout.addWidget(self.detail)
        layout.addWidget(self.current)
        layout.addWidget(self.error_label)
        layout.addSpacing(4)
        layout.addWidget(note)
        layout.addSpacing(4)
        layout.addLayout(buttons)
        self.bridge = _Bridge(self)
        self.bridge.progressed.connect(self.show_progress)

    def begin(self) -> None:
        """Run (or retry) the pending move on a worker thread."""
        self.error = None
        self.cancel_event.clear()
        self.error_label.hide()
        for button in (self.retry_button, self.keep_button, self.quit_button):
            button.hide()
        self.cancel_button.show()
        self.cancel_button.setEnabled(True)
        self.phase_label.setText(self.tr("Starting…"))
        self.bar.setRange(0, 0)
        self.bar.show()
        self._phase = ""
        self.worker = run_in_thread(self._work, self.end, self.fail, self)

    def _work(self) -> paths.StorageLocation:
        try:
            recovery.resume_pending(self._report, self.cancel_event)
        except StorageJobError:
            if self.cancel_event.is_set() and recovery.pending() is None:
                log.info("the data folder move was cancelled at start-up; the current folder stays")
            else:
                raise
        try:
            location = paths.resolve()
        except paths.StorageLocationError as exc:
            raise recovery.RecoveryError(str(exc)) from exc
        return recovery.before_host_start(location)

    def _report(self, phase: str, bytes_done: int, bytes_total: int, files_done: int, files_total: int,
                current: str) -> None:
        """Called on the worker thread: forward at most every ``EMIT_INTERVAL`` (and every phase change)."""
        now = time.monotonic()
        if phase == self._phase and now - self._last_emit < EMIT_INTERVAL and files_done < files_total:
            return
        self._last_emit = now
        self.bridge.progressed.emit(phase, bytes_done, bytes_total, files_done, files_total, current)

    def show_progress(self, phase: str, bytes_done: int, bytes_total: int, files_done: int, files_total: int,
                      current: str) -> None:
        if phase != self._phase:
            self._phase, self._phase_started = phase, time.monotonic()
        self.phase_label.setText(self.tr(PHASES.get(phase, phase)))
        done, total = (bytes_done, bytes_total) if bytes_total else (files_done, files_total)
        if total:
            self.bar.setRange(0, 1000)
            self.bar.setValue(int(1000 * done / total))
        else:
            self.bar.setRange(0, 0)
        parts = []
        if bytes_total:
            parts.append(i18n.arg(self.tr("%1 of %2"), human_size(bytes_done), human_size(bytes_total)))
        elif files_total:
            parts.append(i18n.arg(self.tr("%1 of %2 files"), files_done, files_total))
        elapsed = time.monotonic() - self._phase_started
        if total and 0 < done < total and elapsed > ETA_AFTER:
            parts.append(time_left(elapsed * (total - done) / done))
        self.detail.setText(" · ".join(parts) or " ")
        metrics = self.current.fontMetrics()
        self.current.setText(metrics.elidedText(current, Qt.TextElideMode.ElideMiddle, max(200, self.width() - 60)))

    def cancel(self) -> None:
        self.cancel_event.set()
        self.cancel_button.setEnabled(False)
        self.phase_label.setText(self.tr("Cancelling…"))

    def fail(self, message: str) -> None:
        self.error = message
        self.bar.hide()
        self.phase_label.setText(self.tr("The move did not finish"))
        self.detail.setText(self.tr("Your data is still in the current folder. Fix the problem and retry, or keep "
                                    "using the current folder."))
        self.current.setText(" ")
        self.error_label.setText(message)
        set_severity(self.error_label, "error")
        self.error_label.show()
        self.cancel_button.hide()
        for button in (self.retry_button, self.keep_button, self.quit_button):
            button.show()

    def abandon(self) -> None:
        def forget():
            recovery.abandon_pending()
            return recovery.before_host_start(paths.resolve())

        run_in_thread(forget, self.end, self.fail, self)


class MissingRootWindow(StartupWindow):
    def __init__(self, check: recovery.DefaultRootCheck, theme: themes.Theme | None = None,
                 parent: QWidget | None = None):
        super().__init__(theme, parent)
        self.check = check
        title = QLabel(self.tr("Your data folder is missing"))
        title.setObjectName("pageTitle")
        text = QLabel(i18n.arg(self.tr("pidesktop kept its data in %1, but that folder is gone. If it is on a disk "
                                       "that is not connected, quit, connect it and start pidesktop again."),
                               check.data_root))
        text.setWordWrap(True)
        text.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.error_label = QLabel()
        self.error_label.setObjectName("report")
        self.error_label.setWordWrap(True)
        self.error_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.error_label.hide()
        self.fresh_button = QPushButton(self.tr("Create a fresh data folder"))
        self.fresh_button.clicked.connect(self.create_fresh)
        self.select_button = QPushButton(self.tr("Select an existing one…"))
        self.select_button.setObjectName("primary")
        self.select_button.clicked.connect(self.browse)
        self.quit_button = QPushButton(self.tr("Quit"))
        self.quit_button.clicked.connect(lambda: self.end(None))
        buttons = QHBoxLayout()
        buttons.addWidget(self.quit_button)
        buttons.addStretch(1)
        for button in (self.fresh_button, self.select_button):
            buttons.addWidget(button)
        for button in (self.quit_button, self.fresh_button, self.select_button):
            button.setAutoDefault(False)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(24, 20, 24, 16)
        layout.setSpacing(10)
        layout.addWidget(title)
        layout.addWidget(text)
        layout.addWidget(self.error_label)
        layout.addSpacing(8)
        layout.addLayout(buttons)

    def _busy(self, busy: bool) -> None:
        for button in (self.fresh_button, self.select_button, self.quit_button):
            button.setEnabled(not busy)

    def _failed(self, message: str) -> None:
        self._busy(False)
        self.error_label.setText(message)
        set_severity(self.error_label, "error")
        self.error_label.show()

    def create_fresh(self) -> None:
        self._busy(True)
        run_in_thread(recovery.create_fresh_default, self.end, self._failed, self)

    def browse(self) -> None:
        chooser = QFileDialog(self, self.tr("Select your data folder"), str(self.check.data_root.parent))
        chooser.setFileMode(QFileDialog.FileMode.Directory)
        chooser.setOption(QFileDialog.Option.ShowDirsOnly, True)
        chooser.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose, True)
        chooser.fileSelected.connect(self.select_folder)
        chooser.open()

    def select_folder(self, folder: str) -> None:
        """Validate ``folder`` (it must hold data/pi.sqlite), then point the installation at it."""
        self._busy(True)

        def select():
            recovery.validate_existing(folder)
            return recovery.select_existing(folder)

        run_in_thread(select, self.end, self._failed, self)


def prepare(location: paths.StorageLocation, theme_name: str | None = None) -> paths.StorageLocation | None:
    """Finish a pending move and handle a missing default folder, with windows; None means quit.

    Raises ``recovery.RecoveryError`` for what no window can fix (a damaged journal).
    """
    if location.source == "env":
        return location
    pending = recovery.pending()
    check = recovery.check_default_root() if pending is None else None
    if pending is None and check.state != "missing":
        return recovery.before_host_start(location)
    app = QApplication.instance()
    _install_language(app, location)
    theme = themes.pick(theme_name)
    themes.apply(app, theme)
    if pending is not None:
        location = MoveProgressWindow(location, theme).run()
        if location is None:
            return None
        check = recovery.check_default_root()
    if check.state == "missing":
        location = MissingRootWindow(check, theme).run()
        if location is None:
            return None
        location = recovery.before_host_start(location)
    return location


def _install_language(app, location: paths.StorageLocation) -> None:
    from .prefs import Preferences

    try:
        language = Preferences(location.ui_root).data["window"].get("language")
    except Exception:  # noqa: BLE001 - only a preference; English is fine
        language = None
    i18n.install(app, language)

