"""A pending move of the data folder (scheduled in Settings, or interrupted by a crash), run with a progress
bar and the time left; Cancel keeps the current folder. On failure the reason is shown with Retry, Keep
current folder and Quit; the old folder stays active."""

from __future__ import annotations

import logging
import threading
import time

from PySide6.QtCore import QT_TRANSLATE_NOOP, Qt
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QProgressBar,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from pidesktop import paths
from pidesktop.sizes import human_size
from pidesktop.storage import move, recovery
from pidesktop.storage.errors import StorageJobError
from pidesktop.ui.kit import i18n
from pidesktop.ui.kit import theme as themes
from pidesktop.ui.kit.dialog_style import set_severity
from pidesktop.ui.startup.window_base import EMIT_INTERVAL, ETA_AFTER, Bridge, StartupWindow, run_in_thread, time_left

# Phases of ``storage.move``, shown translated (context "MoveProgressWindow").
log = logging.getLogger("pidesktop.ui.startup")

PHASES = {
    "inventory": QT_TRANSLATE_NOOP("MoveProgressWindow", "Looking at your data…"),
    "copy": QT_TRANSLATE_NOOP("MoveProgressWindow", "Copying files…"),
    "verify": QT_TRANSLATE_NOOP("MoveProgressWindow", "Checking the copy…"),
    "relocate": QT_TRANSLATE_NOOP("MoveProgressWindow", "Updating paths in the copy…"),
    "validate": QT_TRANSLATE_NOOP("MoveProgressWindow", "Checking the copied database…"),
    "publish": QT_TRANSLATE_NOOP("MoveProgressWindow", "Switching to the new folder…"),
    "done": QT_TRANSLATE_NOOP("MoveProgressWindow", "Done."),
}


class MoveProgressWindow(StartupWindow):
    def __init__(
        self, location: paths.StorageLocation, theme: themes.Theme | None = None, parent: QWidget | None = None
    ):
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
        where = QLabel(
            i18n.arg(
                self.tr("From %1\nto %2"),
                self.job.source_data_root if self.job else "",
                move.data_root_at(self.job.destination) if self.job else "",
            )
        )
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
        note = QLabel(
            self.tr("Your chats open as soon as the copy has been checked. Until then, your data stays where it was.")
        )
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
        self.bridge = Bridge(self)
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

    def _report(
        self, phase: str, bytes_done: int, bytes_total: int, files_done: int, files_total: int, current: str
    ) -> None:
        """Called on the worker thread: forward at most every ``EMIT_INTERVAL`` (and every phase change)."""
        now = time.monotonic()
        if phase == self._phase and now - self._last_emit < EMIT_INTERVAL and files_done < files_total:
            return
        self._last_emit = now
        self.bridge.progressed.emit(phase, bytes_done, bytes_total, files_done, files_total, current)

    def show_progress(
        self, phase: str, bytes_done: int, bytes_total: int, files_done: int, files_total: int, current: str
    ) -> None:
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
        self.detail.setText(
            self.tr(
                "Your data is still in the current folder. Fix the problem and retry, or keep using the current folder."
            )
        )
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
