"""Start-up windows shown before any host opens a data folder.

- ``MoveProgressWindow``: a pending move of the data folder (scheduled in
  Settings, or interrupted by a crash) runs with a progress bar and the time
  left; Cancel keeps the current folder. On failure the reason is shown with
  Retry, Keep current folder and Quit; the old folder stays active.
- ``MissingRootWindow``: the default data folder is gone (not a first run):
  create a fresh one, select an existing one (validated with
  ``recovery.validate_existing``), or quit.
- ``IndexProgressWindow``: not before the host opens but while it does: a
  start that restores chats from their files (a lost or repaired database)
  shows how far it got, from the host's ``index.progress`` events.
- ``MigrationWindow``: the database is from an older version of pidesktop:
  it is updated (the cold ``storage.schema.migrate``, which keeps a
  ``pi.sqlite.v<n>.bak`` copy first) with a progress bar. A failure shows the
  reason and the backup's path; a database from a newer pidesktop is left
  alone and named. Both offer Quit or choosing another data folder.

``prepare(location, theme_name, notes)`` is the entry point ``app.run_gui``
calls: it shows a window only when there is something to do, runs each one in
a local Qt event loop (so it paints while the storage job runs on a worker
thread), and returns the location to open, or None when the person chose to
quit; ``notes`` receives the line the main window shows afterwards (where the
database backup of a migration is). Without a screen, ``migrate_on_stderr``
does the same migration with its progress and refusal on stderr.
"""

from __future__ import annotations

import logging
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication, QEventLoop, QObject, Qt, Signal
from PySide6.QtWidgets import (
    QApplication,
    QDialog,
    QFileDialog,
    QHBoxLayout,
    QLabel,
    QLayout,
    QProgressBar,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from pidesktop import paths
from pidesktop.bus import topics
from pidesktop.bus.errors import HostError
from pidesktop.sizes import human_size
from pidesktop.storage import move, recovery
from pidesktop.storage.errors import StorageJobError
from pidesktop.ui.kit import i18n
from pidesktop.ui.kit import theme as themes
from pidesktop.ui.kit.dialog_style import error_text, set_severity, stylesheet

log = logging.getLogger("pidesktop.ui.startup")

EMIT_INTERVAL = 0.05  # seconds between progress repaints
ETA_AFTER = 1.5  # seconds of a phase before the time left is estimated
STEPS_SHOWN_EACH = 100  # a migration's progress counts up to this are forwarded step by step

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
    stepped = Signal(str, object, object)  # a migration's (phase, done, total): bytes may pass 2**31
    succeeded = Signal(object)
    failed = Signal(str)


def run_in_thread(
    fn: Callable, on_done: Callable, on_error: Callable[[str], None], parent: QObject
) -> threading.Thread:
    bridge = _Bridge(parent)
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


class MissingRootWindow(FolderChoice, StartupWindow):
    def __init__(
        self, check: recovery.DefaultRootCheck, theme: themes.Theme | None = None, parent: QWidget | None = None
    ):
        super().__init__(theme, parent)
        self.check = check
        self.choose_from = check.data_root.parent
        title = QLabel(self.tr("Your data folder is missing"))
        title.setObjectName("pageTitle")
        text = QLabel(
            i18n.arg(
                self.tr(
                    "pidesktop kept its data in %1, but that folder is gone. If it is on a disk "
                    "that is not connected, quit, connect it and start pidesktop again."
                ),
                check.data_root,
            )
        )
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
        self.s3_button = QPushButton(self.tr("Restore from S3…"))
        self.s3_button.clicked.connect(self.show_s3_form)
        self.quit_button = QPushButton(self.tr("Quit"))
        self.quit_button.clicked.connect(lambda: self.end(None))
        from pidesktop.ui.data.backup_dialogs import S3RestoreForm

        self.s3_intro = QLabel(
            i18n.arg(
                self.tr(
                    "Rebuild %1 from the newest backup made with Back up to S3 or “pidesktop data backup s3”. "
                    "Its passphrase is the Settings > Sync one, unless another was typed:"
                ),
                check.data_root,
            )
        )
        self.s3_intro.setWordWrap(True)
        self.s3_form = S3RestoreForm(self)
        self.s3_restore_button = QPushButton(self.tr("Restore"))
        self.s3_restore_button.setObjectName("primary")
        self.s3_restore_button.clicked.connect(self.restore_from_s3)
        s3_row = QHBoxLayout()
        s3_row.addStretch(1)
        s3_row.addWidget(self.s3_restore_button)
        for widget in (self.s3_intro, self.s3_form, self.s3_restore_button):
            widget.hide()
        buttons = QHBoxLayout()
        buttons.addWidget(self.quit_button)
        buttons.addStretch(1)
        for button in (self.s3_button, self.fresh_button, self.select_button):
            buttons.addWidget(button)
        for button in (self.quit_button, self.s3_button, self.fresh_button, self.select_button, self.s3_restore_button):
            button.setAutoDefault(False)
        self.page_layout = layout = QVBoxLayout(self)
        layout.setContentsMargins(24, 20, 24, 16)
        layout.setSpacing(10)
        layout.addWidget(title)
        layout.addWidget(text)
        # The S3 form and an error line appear later: the window grows to fit them, never squeezes them.
        layout.setSizeConstraint(QLayout.SizeConstraint.SetMinimumSize)
        layout.addWidget(self.s3_intro)
        layout.addWidget(self.s3_form)
        layout.addLayout(s3_row)
        layout.addWidget(self.error_label)
        layout.addSpacing(8)
        layout.addLayout(buttons)

    def _busy(self, busy: bool) -> None:
        buttons = (self.fresh_button, self.select_button, self.quit_button, self.s3_button, self.s3_restore_button)
        for button in buttons:
            button.setEnabled(not busy)

    def show_s3_form(self) -> None:
        for widget in (self.s3_intro, self.s3_form, self.s3_restore_button):
            widget.show()
        self.s3_button.hide()
        self.s3_form.bucket.setFocus()
        self.s3_form.fit()
        self._fit()

    def _fit(self) -> None:
        """Grow to the height the form and the error line need (a dialog's minimum ignores late children)."""
        layout = self.page_layout
        layout.invalidate()
        layout.activate()
        needed = max(layout.totalMinimumSize().height(), layout.totalSizeHint().height())
        self.setMinimumHeight(needed)
        self.resize(self.width(), max(self.height(), needed))

    def restore_from_s3(self) -> None:
        """Restore the newest S3 snapshot into the missing default data folder, then start on it."""
        from pidesktop.ui.data.backup_dialogs import restore_s3

        form = self.s3_form
        values = {
            "endpoint": form.endpoint.text(),
            "bucket": form.bucket.text(),
            "prefix": form.prefix.text(),
            "region": form.region.text(),
            "accessKey": form.access_key.text(),
            "secretKey": form.secret_key.text(),
            "passphrase": form.passphrase.text(),
        }
        target = self.check.data_root
        self.error_label.hide()
        self._busy(True)

        def restore():
            restore_s3(values, target)
            return paths.resolve({})

        run_in_thread(restore, self.end, self._failed, self)

    def _failed(self, message: str) -> None:
        self._busy(False)
        self.error_label.setText(message)
        set_severity(self.error_label, "error")
        self.error_label.show()
        self._fit()

    def create_fresh(self) -> None:
        self._busy(True)
        run_in_thread(recovery.create_fresh_default, self.end, self._failed, self)


# -- the database of an older or newer pidesktop -------------------------------------------------------
# Phases of a migration (``storage.schema.migrate``'s progress), shown translated (context "MigrationWindow").
MIGRATION_PHASES = {
    "checkpoint": QT_TRANSLATE_NOOP("MigrationWindow", "Getting the database ready…"),
    "backup": QT_TRANSLATE_NOOP("MigrationWindow", "Keeping a copy of your database…"),
    "migrate": QT_TRANSLATE_NOOP("MigrationWindow", "Updating the database…"),
    "check": QT_TRANSLATE_NOOP("MigrationWindow", "Checking the updated database…"),
    "archive": QT_TRANSLATE_NOOP("MigrationWindow", "Setting the old database aside…"),
    "done": QT_TRANSLATE_NOOP("MigrationWindow", "Done."),
}
MIGRATING = MIGRATION_PHASES["migrate"]  # a phase this window does not know
BYTE_PHASES = frozenset({"backup"})  # their counts are bytes; the others count steps


def _cold_schema():
    """``storage.schema``, the migration that runs before any host opens the data folder."""
    from pidesktop.storage import schema

    return schema


@dataclass(frozen=True)
class SchemaCheck:
    """What the data folder's database needs before a host opens it."""

    version: int | None
    supported: int | None
    needs_migration: bool = False
    newer: bool = False
    archive: bool = False  # v1-v6: set aside as pi.sqlite.v6.bak, a new database replaces it
    reason: str = ""  # the refusal's words, for a newer database
    backups: tuple[str, ...] = ()


@dataclass
class MigrationDone:
    """What a finished migration did, for the main window's note."""

    from_version: int
    to_version: int
    backups: list[str] = field(default_factory=list)
    archived: str | None = None


def _paths(items: Any) -> list[str]:
    """Backup paths from a report or a state: paths, or objects/dicts with a ``path``."""
    found = []
    for item in items or ():
        if isinstance(item, dict):
            item = item.get("path") or item.get("name")
        if item:
            found.append(str(item))
    return found


def schema_check(location: paths.StorageLocation) -> SchemaCheck | None:
    """The database's state (``storage.schema.schema_state``); None when it needs nothing (or is not there)."""
    try:
        state = _cold_schema().schema_state(location)
    except Exception as exc:
        log.warning("cannot read the schema state of %s: %s", location.data_root, exc)
        return None
    version, supported = state.get("version"), state.get("supported")
    backups = tuple(_paths(state.get("backups")))
    if version is not None and supported is not None and version > supported:
        return SchemaCheck(version, supported, newer=True, reason=state.get("problem") or "", backups=backups)
    if state.get("needsMigration"):
        return SchemaCheck(
            version, supported, needs_migration=True, archive=bool(state.get("archive")), backups=backups
        )
    return None  # current, fresh, or a problem the host reports when it opens the folder


def _migrate(location: paths.StorageLocation, progress: Callable[[str, int, int], None]) -> MigrationDone:
    """``storage.schema.migrate`` with its progress as ``(phase, done, total)`` (bytes or steps)."""

    def forward(
        phase: str, bytes_done: int, bytes_total: int, steps_done: int, steps_total: int, _current: str = ""
    ) -> None:
        if steps_total or not bytes_total:
            progress(phase, steps_done, steps_total)
        else:
            progress(phase, bytes_done, bytes_total)

    report = _cold_schema().migrate(location, forward)
    return MigrationDone(
        report["fromVersion"], report["toVersion"], _paths(report.get("backups")), report.get("archived") or None
    )


def _backups_after_failure(location: paths.StorageLocation, exc: BaseException | None = None) -> list[str]:
    """The copy a failed migration kept: named by its error, else those beside the database now."""
    named = getattr(exc, "data", {}).get("backup") if exc is not None else None
    if named:
        return [str(named)]
    try:
        state = _cold_schema().schema_state(location)
    except Exception:
        return []
    return _paths(state.get("backups"))


def _reason(exc: BaseException) -> str:
    """A failed migration's words: the engine names the step, which value was wrong and where."""
    if isinstance(exc, HostError):
        return exc.message
    if isinstance(exc, (StorageJobError, OSError)):
        return error_text(exc, (StorageJobError,))
    log.error("the database update failed", exc_info=exc)
    return str(exc) or type(exc).__name__


def _main_backup(backups: list[str], version: int | None) -> str | None:
    """The exact copy taken before the migration (the newest ``pi.sqlite.v<from>[.<n>].bak``), else the last."""
    prefix = f"pi.sqlite.v{version}."
    mine = [b for b in backups if Path(b).name.startswith(prefix)]
    return (mine or backups or [None])[-1]


def migration_note(done: MigrationDone) -> str:
    """The one line the main window shows after a migration."""
    translate = QCoreApplication.translate
    if done.archived:
        return i18n.arg(
            translate(
                "MigrationWindow",
                "Your database was from version %1, too old to update: it "
                "was set aside as %2 and a new one was started.",
            ),
            done.from_version,
            done.archived,
        )
    backup = _main_backup(done.backups, done.from_version)
    if backup:
        return i18n.arg(
            translate(
                "MigrationWindow", "Your data was updated from version %1 to %2. The old database is kept at %3."
            ),
            done.from_version,
            done.to_version,
            backup,
        )
    return i18n.arg(
        translate("MigrationWindow", "Your data was updated from version %1 to %2."), done.from_version, done.to_version
    )


class MigrationWindow(FolderChoice, StartupWindow):
    """Updates an older database with a progress bar, or says why it cannot (failed, or from a newer version).

    Ends with the location (``done`` holds what the migration did), another folder the person chose, or None
    (Quit).
    """

    def __init__(
        self,
        location: paths.StorageLocation,
        check: SchemaCheck,
        theme: themes.Theme | None = None,
        parent: QWidget | None = None,
    ):
        super().__init__(theme, parent)
        self.location = location
        self.check = check
        self.pinned = location.source == "env"
        self.choose_from = location.data_root.parent.parent
        self.done: MigrationDone | None = None
        self.error: str | None = None
        self.worker: threading.Thread | None = None
        self._phase = ""
        self._last_emit = 0.0
        self.title = QLabel(self.tr("pidesktop has been updated"))
        self.title.setObjectName("pageTitle")
        if check.archive:
            self.headline = QLabel(
                i18n.arg(
                    self.tr(
                        "Your database is from version %1, too old to update: it is set aside and a new one is started."
                    ),
                    check.version,
                )
            )
        else:
            self.headline = QLabel(
                i18n.arg(self.tr("Updating your data from version %1 to version %2…"), check.version, check.supported)
            )
        self.headline.setObjectName("rowTitle")
        self.headline.setWordWrap(True)
        self.where = QLabel(str(location.data_root))
        self.where.setObjectName("muted")
        self.where.setWordWrap(True)
        self.where.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.phase_label = QLabel(self.tr("Starting…"))
        self.phase_label.setObjectName("muted")
        self.bar = QProgressBar()
        self.bar.setRange(0, 0)
        self.bar.setTextVisible(False)
        self.detail = QLabel(" ")
        self.detail.setObjectName("muted")
        self.error_label = QLabel()
        self.error_label.setObjectName("report")
        self.error_label.setWordWrap(True)
        self.error_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.error_label.hide()
        self.note = QLabel(
            self.tr(
                "pidesktop keeps a copy of the database before it changes anything, and your "
                "chats open when the update has been checked. This happens once."
            )
        )
        self.note.setObjectName("muted")
        self.note.setWordWrap(True)
        self.note.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.quit_button = QPushButton(self.tr("Quit"))
        self.quit_button.clicked.connect(lambda: self.end(None))
        self.choose_button = QPushButton(self.tr("Choose another folder…"))
        self.choose_button.setObjectName("primary")
        self.choose_button.clicked.connect(self.browse)
        buttons = QHBoxLayout()
        buttons.addWidget(self.quit_button)
        buttons.addStretch(1)
        buttons.addWidget(self.choose_button)
        for button in (self.quit_button, self.choose_button):
            button.setAutoDefault(False)
            button.hide()
        layout = QVBoxLayout(self)
        layout.setContentsMargins(24, 20, 24, 16)
        layout.setSpacing(8)
        layout.addWidget(self.title)
        layout.addWidget(self.headline)
        layout.addWidget(self.where)
        layout.addSpacing(8)
        layout.addWidget(self.phase_label)
        layout.addWidget(self.bar)
        layout.addWidget(self.detail)
        layout.addWidget(self.error_label)
        layout.addSpacing(4)
        layout.addWidget(self.note)
        layout.addSpacing(4)
        layout.addLayout(buttons)
        self.bridge = _Bridge(self)
        self.bridge.stepped.connect(self.show_progress)

    def begin(self) -> None:
        if self.check.newer:
            self.refuse_newer()
            return
        self.worker = run_in_thread(self._work, self._finished, self.fail, self)

    def _work(self) -> tuple[str, Any]:
        try:
            return "done", _migrate(self.location, self._report)
        except Exception as exc:
            return "failed", (_reason(exc), _backups_after_failure(self.location, exc))

    def _report(self, phase: str, done: int, total: int) -> None:
        """Called on the worker thread: every step of a short count (a step may then take long, and the bar
        must not stay behind); of a long count (rows) at most one every ``EMIT_INTERVAL``."""
        now = time.monotonic()
        if phase == self._phase and total > STEPS_SHOWN_EACH and now - self._last_emit < EMIT_INTERVAL and done < total:
            return
        self._phase, self._last_emit = phase, now
        self.bridge.stepped.emit(phase, done, total)

    def show_progress(self, phase: str, done: int, total: int) -> None:
        self.phase_label.setText(self.tr(MIGRATION_PHASES.get(phase, MIGRATING)))
        if total > 0:
            self.bar.setRange(0, 1000)
            self.bar.setValue(int(1000 * min(done, total) / total))
        else:
            self.bar.setRange(0, 0)
        if phase in BYTE_PHASES and total > 0:
            self.detail.setText(i18n.arg(self.tr("%1 of %2"), human_size(done), human_size(total)))
        elif total > 1:
            self.detail.setText(i18n.arg(self.tr("Step %1 of %2"), done, total))
        else:
            self.detail.setText(" ")

    def _finished(self, outcome: tuple[str, Any]) -> None:
        kind, value = outcome
        if kind == "done":
            self.done = value
            self.end(self.location)
        else:
            self.fail(*value)

    def _stopped(self, message: str, severity: str = "error") -> None:
        self.bar.hide()
        self.phase_label.hide()
        self.detail.hide()
        self.error_label.setText(message)
        set_severity(self.error_label, severity)
        self.error_label.show()
        for button in (self.quit_button, self.choose_button):
            button.show()
        self._busy(False)

    def fail(self, message: str, backups: list[str] | None = None) -> None:
        self.error = message
        self.title.setText(self.tr("Your data could not be updated"))
        self.headline.setText(
            i18n.arg(
                self.tr(
                    "The update from version %1 stopped. Nothing was changed: the database is still at version %1."
                ),
                self.check.version,
            )
        )
        backup = _main_backup(list(backups or []), self.check.version)
        if backup:
            self.note.setText(
                i18n.arg(
                    self.tr(
                        "A copy of the database as it was is kept at %1. Quit and keep "
                        "the folder as it is, or open another data folder."
                    ),
                    backup,
                )
            )
        else:
            self.note.setText(self.tr("Quit and keep the folder as it is, or open another data folder."))
        self._stopped(message)

    def refuse_newer(self, reason: str = "") -> None:
        self.error = reason or self.check.reason or "newer"
        self.title.setText(self.tr("This data is from a newer pidesktop"))
        if self.check.version is not None and self.check.supported is not None:
            text = i18n.arg(
                self.tr("The database is version %1; this pidesktop opens versions up to %2."),
                self.check.version,
                self.check.supported,
            )
        else:
            text = reason or self.check.reason
        self.headline.setText(text)
        self.note.setText(
            self.tr("Nothing was changed. Update pidesktop to open this folder, or choose another data folder.")
        )
        self._stopped(text, "info")
        self.error_label.hide()

    def _busy(self, busy: bool) -> None:
        for button in (self.quit_button, self.choose_button):
            button.setEnabled(not busy)

    def _failed(self, message: str) -> None:  # choosing another folder failed (not a data folder)
        self._busy(False)
        self.error_label.setText(message)
        set_severity(self.error_label, "error")
        self.error_label.show()


class IndexProgressWindow(StartupWindow):
    """A start's rebuild of the chat index from the chat files (the host's ``index.progress`` events), with a
    progress bar and the time left; it closes itself with the last event. Nothing to decide: no buttons.
    """

    PHASES = {
        "restore": QT_TRANSLATE_NOOP("IndexProgressWindow", "Restoring your chats from their files…"),
        "reindex": QT_TRANSLATE_NOOP("IndexProgressWindow", "Indexing a long chat again from its file…"),
    }

    def __init__(self, theme: themes.Theme | None = None, parent: QWidget | None = None):
        super().__init__(theme, parent)
        self.setWindowTitle(self.tr("pidesktop"))
        self._phase = ""
        self._phase_started = 0.0
        self.title = QLabel(self.tr("Rebuilding the chat index"))
        self.title.setObjectName("pageTitle")
        self.headline = QLabel(self.tr("Starting…"))
        self.headline.setObjectName("rowTitle")
        self.headline.setWordWrap(True)
        self.bar = QProgressBar()
        self.bar.setRange(0, 1000)
        self.bar.setTextVisible(False)
        self.detail = QLabel(" ")
        self.detail.setObjectName("muted")
        self.note = QLabel(
            self.tr("Your chats are safe in their files; the index that lists and searches them is being rebuilt.")
        )
        self.note.setObjectName("muted")
        self.note.setWordWrap(True)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(24, 20, 24, 20)
        layout.setSpacing(8)
        layout.addWidget(self.title)
        layout.addWidget(self.headline)
        layout.addSpacing(4)
        layout.addWidget(self.bar)
        layout.addWidget(self.detail)
        layout.addSpacing(4)
        layout.addWidget(self.note)

    def handle_event(self, topic: str, payload: dict[str, Any]) -> None:
        """Follow ``index.progress``: shown at a phase's first event, hidden after its last."""
        if topic != topics.INDEX_PROGRESS:
            return
        phase = str(payload.get("phase", ""))
        if phase != self._phase:
            self._phase, self._phase_started = phase, time.monotonic()
            self.headline.setText(
                QCoreApplication.translate("IndexProgressWindow", str(self.PHASES.get(phase, self.PHASES["restore"])))
            )
        done, total = int(payload.get("bytesDone") or 0), int(payload.get("bytesTotal") or 0)
        self.bar.setValue(1000 * done // total if total else 1000)
        chats = i18n.arg(
            self.tr("%1 of %2 chats"), int(payload.get("chatsDone") or 0), int(payload.get("chatsTotal") or 0)
        )
        elapsed = time.monotonic() - self._phase_started
        if done and total and elapsed >= ETA_AFTER:
            chats = f"{chats} · {time_left(elapsed * (total - done) / done)}"
        self.detail.setText(chats)
        if payload.get("done"):
            self.hide()
        elif not self.isVisible():
            self.show()


def prepare(
    location: paths.StorageLocation, theme_name: str | None = None, notes: list[str] | None = None
) -> paths.StorageLocation | None:
    """Finish a pending move, handle a missing default folder and update an older database, with windows;
    None means quit. ``notes`` receives the line for the main window after a migration.

    Raises ``recovery.RecoveryError`` for what no window can fix (a damaged journal).
    """
    theme = None

    def window_theme() -> themes.Theme:
        nonlocal theme
        if theme is None:
            app = QApplication.instance()
            _install_language(app, location)
            theme = themes.pick(theme_name)
            themes.apply(app, theme)
        return theme

    if location.source != "env":
        recovery.refuse_maintenance_without_root(location)  # before any choice could replace that folder
        pending = recovery.pending()
        check = recovery.check_default_root() if pending is None else None
        if pending is None and check.state != "missing":
            location = recovery.before_host_start(location)
        else:
            if pending is not None:
                location = MoveProgressWindow(location, window_theme()).run()
                if location is None:
                    return None
                check = recovery.check_default_root()
            if check.state == "missing":
                location = MissingRootWindow(check, window_theme()).run()
                if location is None:
                    return None
                location = recovery.before_host_start(location)
    while (needed := schema_check(location)) is not None:
        window = MigrationWindow(location, needed, window_theme())
        chosen = window.run()
        if chosen is None:
            return None
        if window.done is not None:
            if notes is not None:
                notes.append(migration_note(window.done))
            return chosen
        location = recovery.before_host_start(chosen)  # another folder: its database is checked in turn
    return location


def needs_window(location: paths.StorageLocation) -> bool:
    """Whether ``prepare`` has a window to show for the database (older or newer than this pidesktop)."""
    return schema_check(location) is not None


class StderrSteps:
    """A migration's progress on a terminal: one line per phase, then at most one every ``interval`` s."""

    def __init__(self, stream: TextIO | None = None, interval: float = 0.5):
        self.stream = stream or sys.stderr
        self.interval = interval
        self._phase = ""
        self._last = 0.0

    def __call__(self, phase: str, done: int, total: int) -> None:
        now = time.monotonic()
        if phase == self._phase and (total <= 1 or (now - self._last < self.interval and done < total)):
            return  # a phase without finer steps is one line
        self._phase, self._last = phase, now
        if phase in BYTE_PHASES and total > 0:
            count = f" {100 * done // total}%"
        else:
            count = f" {done}/{total}" if total > 1 else ""
        print(f"pidesktop: updating the database: {phase}{count}", file=self.stream, flush=True)


def migrate_on_stderr(location: paths.StorageLocation, stream: TextIO | None = None) -> MigrationDone | None:
    """Without a screen: the same migration, progress on stderr; ``recovery.RecoveryError`` when it cannot be
    done (a newer database, a failed step: the message names the backup)."""
    needed = schema_check(location)
    if needed is None:
        return None
    if needed.newer:
        raise recovery.RecoveryError(
            needed.reason
            or f"The database in {location.data_root} is version {needed.version}; this pidesktop "
            f"opens versions up to {needed.supported}. Nothing was changed. Update pidesktop, or start it with "
            f"another data folder (--data-dir)."
        )
    stream = stream or sys.stderr
    print(
        f"pidesktop: updating your data from version {needed.version} to {needed.supported} ({location.data_root})",
        file=stream,
        flush=True,
    )
    try:
        done = _migrate(location, StderrSteps(stream))
    except Exception as exc:
        raise recovery.RecoveryError(_failure_words(exc, location, needed)) from exc
    backup = _main_backup(done.backups, done.from_version)
    print(
        f"pidesktop: updated the database from version {done.from_version} to {done.to_version}"
        + (f"; the old one is kept at {backup}" if backup else "")
        + (f"; the old one was set aside as {done.archived}" if done.archived else ""),
        file=stream,
        flush=True,
    )
    return done


def _failure_words(exc: BaseException, location: paths.StorageLocation, needed: SchemaCheck) -> str:
    backup = _main_backup(_backups_after_failure(location, exc), needed.version)
    where = f" A copy of the database as it was is kept at {backup}." if backup else ""
    return (
        f"Updating the database in {location.data_root} from version {needed.version} failed: "
        f"{_reason(exc)} Nothing was changed; it is still at version {needed.version}.{where}"
    )


def _install_language(app, location: paths.StorageLocation) -> None:
    from pidesktop.ui.kit.prefs import Preferences

    try:
        language = Preferences(location.ui_root).data["window"].get("language")
    except Exception:
        language = None
    i18n.install(app, language)
