"""The database is from an older version of pidesktop: it is updated (``storage.schema_update``, which keeps
a ``pi.sqlite.v<n>.bak`` copy first) with a progress bar. A failure shows the reason and the backup's path; a
database from a newer pidesktop is left alone and named. Both offer Quit or choosing another data folder."""

from __future__ import annotations

import logging
import threading
import time
from typing import Any

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication, Qt
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QProgressBar,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from pidesktop import paths
from pidesktop.bus.errors import HostError
from pidesktop.sizes import human_size
from pidesktop.storage.errors import StorageJobError
from pidesktop.storage.schema_update import (
    BYTE_PHASES,
    MigrationDone,
    SchemaCheck,
    backups_after_failure,
    main_backup,
    migrate,
)
from pidesktop.ui.kit import i18n
from pidesktop.ui.kit import theme as themes
from pidesktop.ui.kit.dialog_style import error_text, set_severity
from pidesktop.ui.startup.window_base import EMIT_INTERVAL, Bridge, FolderChoice, StartupWindow, run_in_thread

log = logging.getLogger("pidesktop.ui.startup")

STEPS_SHOWN_EACH = 100  # a migration's progress counts up to this are forwarded step by step

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


def _reason(exc: BaseException) -> str:
    """A failed migration's words: the engine names the step, which value was wrong and where."""
    if isinstance(exc, HostError):
        return exc.message
    if isinstance(exc, (StorageJobError, OSError)):
        return error_text(exc, (StorageJobError,))
    log.error("the database update failed", exc_info=exc)
    return str(exc) or type(exc).__name__


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
    backup = main_backup(done.backups, done.from_version)
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
        self.bridge = Bridge(self)
        self.bridge.stepped.connect(self.show_progress)

    def begin(self) -> None:
        if self.check.newer:
            self.refuse_newer()
            return
        self.worker = run_in_thread(self._work, self._finished, self.fail, self)

    def _work(self) -> tuple[str, Any]:
        try:
            return "done", migrate(self.location, self._report)
        except Exception as exc:
            return "failed", (_reason(exc), backups_after_failure(self.location, exc))

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
        backup = main_backup(list(backups or []), self.check.version)
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
