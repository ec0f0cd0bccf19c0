"""Settings > Data: where the data lives, moving it, and the maintenance tools.

The folder comes from the host (``app.handshake``); whether this installation
manages it (and may move or clean it), and a move waiting for the next start,
come from the host too (``data.status {scan: false}``): the UI reads nothing
of the data folder or the installation anchor itself. Each tool opens its own
dialog, built when it is asked for, and talks to the host.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt, QUrl
from PySide6.QtGui import QDesktopServices
from PySide6.QtWidgets import QDialog, QGridLayout, QHBoxLayout, QLabel, QPushButton, QVBoxLayout, QWidget

from pidesktop import paths
from pidesktop.bus import HostClient, HostError
from pidesktop.ui.data.crash_reports_row import CrashReportsRow
from pidesktop.ui.data.host_jobs import run_job
from pidesktop.ui.kit import i18n
from pidesktop.ui.kit import theme as themes
from pidesktop.ui.kit.ops import host_op, task_op
from pidesktop.ui.kit.plain_errors import sentence


class DataPage(QWidget):
    """Where the data lives, moving it, and the maintenance tools (each opens its own dialog)."""

    TOOL_BUTTON_WIDTH = 190

    def __init__(self, client: HostClient, parent: QWidget | None = None):
        super().__init__(parent)
        self.client = client
        self.data_root: str | None = None
        self.location: paths.StorageLocation | None = None
        self.tool: QWidget | None = None  # the last dialog opened from here
        title = QLabel(self.tr("Data"))
        title.setObjectName("pageTitle")
        caption = QLabel(self.tr("Data folder"))
        caption.setObjectName("sectionTitle")
        self.path_label = QLabel("…")
        self.path_label.setObjectName("path")
        self.path_label.setWordWrap(True)
        self.path_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.open_button = QPushButton(self.tr("Open folder"))
        self.open_button.clicked.connect(self.open_folder)
        self.move_button = QPushButton(self.tr("Move data folder…"))
        self.move_button.clicked.connect(self.open_move_wizard)
        self.note = QLabel()
        self.note.setObjectName("notice")
        self.note.setWordWrap(True)
        self.note.hide()
        tools_title = QLabel(self.tr("Maintenance"))
        tools_title.setObjectName("sectionTitle")
        self.verify_button = QPushButton(self.tr("Verify data"))
        self.repair_button = QPushButton(self.tr("Repair…"))
        self.snapshot_button = QPushButton(self.tr("Back up everything…"))
        self.s3_backup_button = QPushButton(self.tr("Back up to S3…"))
        self.restore_button = QPushButton(self.tr("Restore…"))
        self.s3_restore_button = QPushButton(self.tr("Restore from S3…"))
        self.backup_button = QPushButton(self.tr("Copy database file…"))
        self.cache_button = QPushButton(self.tr("Clean caches…"))
        self.old_copies_button = QPushButton(self.tr("Remove old copies…"))
        self.schema_backups_button = QPushButton(self.tr("Old database copies…"))
        self.workflows_button = QPushButton(self.tr("Workflows…"))
        tools = (
            (self.verify_button, self.tr("Check the database and transcripts for problems."), self.open_verify),
            (
                self.repair_button,
                self.tr("Rebuild a damaged database from your chat files, and add what it missed."),
                self.open_repair,
            ),
            (
                self.snapshot_button,
                self.tr("Chats, attachments and settings, encrypted, into a backup folder."),
                self.open_snapshot,
            ),
            (
                self.s3_backup_button,
                self.tr("Chats, attachments and settings, encrypted, into the Settings > Sync bucket."),
                self.open_s3_backup,
            ),
            (
                self.restore_button,
                self.tr("Rebuild a data folder from a backup, into a new folder."),
                self.open_restore,
            ),
            (
                self.s3_restore_button,
                self.tr("The same from a backup in the Settings > Sync bucket; pick which one."),
                self.open_s3_restore,
            ),
            (self.backup_button, self.tr("Save a checked copy of the chat database file alone."), self.open_backup),
            (self.cache_button, self.tr("Free space used by caches pidesktop can rebuild."), self.open_caches),
            (self.old_copies_button, self.tr("Delete data folders kept after a move."), self.open_old_copies),
            (
                self.schema_backups_button,
                self.tr("Copies of the database kept when pidesktop updated it."),
                self.open_schema_backups,
            ),
        )
        grid = QGridLayout()
        grid.setContentsMargins(0, 0, 0, 0)
        grid.setHorizontalSpacing(16)
        grid.setVerticalSpacing(8)
        grid.setColumnStretch(1, 1)
        for row, (button, text, slot) in enumerate(tools):
            button.setMinimumWidth(self.TOOL_BUTTON_WIDTH)
            button.clicked.connect(slot)
            hint = QLabel(text)
            hint.setObjectName("muted")
            hint.setWordWrap(True)
            grid.addWidget(button, row, 0)
            grid.addWidget(hint, row, 1)
        self.crash_reports = CrashReportsRow(client)  # shown only when reports are kept
        grid.addWidget(self.crash_reports, len(tools), 0, 1, 2)
        # Only for people who run pi's workflows (the pi-workflows command): kept apart, and said so plainly.
        self.advanced_title = QLabel(self.tr("Advanced"))
        self.advanced_title.setObjectName("sectionTitle")
        self.workflows_hint = QLabel(
            self.tr(
                "For pi's multi-step workflows (the pi-workflows command): the status of their state file, "
                "a check and a backup. If you do not use them, there is nothing to do here."
            )
        )
        self.workflows_hint.setObjectName("muted")
        self.workflows_hint.setWordWrap(True)
        self.workflows_button.setMinimumWidth(self.TOOL_BUTTON_WIDTH)
        self.workflows_button.clicked.connect(self.open_workflows)
        advanced = QGridLayout()
        advanced.setContentsMargins(0, 0, 0, 0)
        advanced.setHorizontalSpacing(16)
        advanced.setColumnStretch(1, 1)
        advanced.addWidget(self.workflows_button, 0, 0, Qt.AlignmentFlag.AlignTop)
        advanced.addWidget(self.workflows_hint, 0, 1)
        for button in self._needs_location():
            button.setEnabled(False)
        buttons = QHBoxLayout()
        buttons.addWidget(self.open_button)
        buttons.addWidget(self.move_button)
        buttons.addStretch(1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(8)
        layout.addWidget(title)
        layout.addSpacing(8)
        layout.addWidget(caption)
        layout.addWidget(self.path_label)
        layout.addLayout(buttons)
        layout.addWidget(self.note)
        layout.addSpacing(16)
        layout.addWidget(tools_title)
        layout.addLayout(grid)
        layout.addSpacing(16)
        layout.addWidget(self.advanced_title)
        layout.addLayout(advanced)
        layout.addStretch(1)

    def _needs_location(self) -> tuple[QPushButton, ...]:
        return (
            self.open_button,
            self.move_button,
            self.verify_button,
            self.repair_button,
            self.snapshot_button,
            self.s3_backup_button,
            self.s3_restore_button,
            self.backup_button,
            self.cache_button,
            self.old_copies_button,
            self.schema_backups_button,
        )

    async def load(self) -> None:
        await self.crash_reports.load()
        result = await host_op(self.client, "app.handshake", {"protocolVersion": 1}, parent=self, failure=self._failed)
        if result is None:
            return
        self.data_root = result["dataRoot"]
        self.path_label.setText(self.data_root)
        status = await task_op(
            lambda: run_job(self.client, "data.status", {"scan": False}),
            parent=self,
            name="data.status",
            failure=self._status_failed,
        )
        if status is None:
            return
        self.location = paths.StorageLocation(Path(status["dataRoot"]), Path(status["uiRoot"]), status["resolvedBy"])
        pending = status.get("pendingMove")
        if status.get("anchorProblem"):
            self._notice(status["anchorProblem"])
        for button in self._needs_location():
            button.setEnabled(True)
        if self.location.source == "env":
            for button in (self.move_button, self.cache_button, self.old_copies_button):
                button.setEnabled(False)
                button.setToolTip(self.tr("Not available for a data folder set by PI_DESKTOP_DATA_DIR."))
            self._notice(
                self.tr(
                    "This data folder was chosen with PI_DESKTOP_DATA_DIR (or --data-dir), so it "
                    "is managed by whoever set it: pidesktop does not move it or clean it up. Unset "
                    "it to manage this installation's own data folder here."
                )
            )
        elif pending is not None:
            self.move_button.setEnabled(False)
            self._notice(
                i18n.arg(
                    self.tr("A move to %1 is waiting: it runs the next time pidesktop starts."),
                    pending.get("destination", ""),
                )
            )

    def _status_failed(self, error: HostError) -> None:
        self._notice(sentence(error))
        self.note.setToolTip(error.message)

    def _failed(self, error: HostError) -> None:
        self.path_label.setText(sentence(error))
        self.path_label.setToolTip(error.message)

    def _notice(self, text: str) -> None:
        self.note.setText(text)
        self.note.show()

    def _theme(self) -> themes.Theme:
        return getattr(self.window(), "theme", None) or themes.LIGHT

    def _open(self, dialog: QDialog) -> QDialog:
        self.tool = dialog
        dialog.open()
        return dialog

    def open_folder(self) -> None:
        if self.data_root:
            QDesktopServices.openUrl(QUrl.fromLocalFile(self.data_root))

    def open_move_wizard(self) -> QWidget:
        from pidesktop.ui.data.storage_wizard import StorageWizard

        return self._open(StorageWizard(self.location, self.client, self._theme(), self))

    def open_verify(self) -> QWidget:
        from pidesktop.ui.data.data_tools import VerifyDialog

        return self._open(VerifyDialog(self.client, self._theme(), self))

    def open_repair(self) -> QWidget:
        from pidesktop.ui.data.repair_dialog import RepairDialog

        return self._open(RepairDialog(self.client, self._theme(), self))

    def open_snapshot(self) -> QWidget:
        from pidesktop.ui.data.backup_dialogs import SnapshotDialog

        return self._open(SnapshotDialog(self.client, self._theme(), self))

    def open_s3_backup(self) -> QWidget:
        from pidesktop.ui.data.backup_dialogs import S3BackupDialog

        return self._open(S3BackupDialog(self.client, self._theme(), self))

    def open_restore(self) -> QWidget:
        from pidesktop.ui.data.backup_dialogs import RestoreDialog

        return self._open(RestoreDialog(self._theme(), self))

    def open_s3_restore(self) -> QWidget:
        from pidesktop.ui.data.backup_dialogs import S3RestoreDialog

        return self._open(S3RestoreDialog(self.client, self._theme(), self))

    def open_backup(self) -> QWidget:
        from pidesktop.ui.data.data_tools import BackupDialog

        return self._open(BackupDialog(self.client, self._theme(), self))

    def open_caches(self) -> QWidget:
        from pidesktop.ui.data.data_tools import CacheDialog

        return self._open(CacheDialog(self.client, self._theme(), self))

    def open_old_copies(self) -> QWidget:
        from pidesktop.ui.data.data_tools import OldCopiesDialog

        return self._open(OldCopiesDialog(self.client, self._theme(), self))

    def open_schema_backups(self) -> QWidget:
        from pidesktop.ui.data.data_tools import SchemaBackupsDialog

        return self._open(SchemaBackupsDialog(self.client, self._theme(), self))

    def open_workflows(self) -> QWidget:
        from pidesktop.ui.data.data_tools import WorkflowsDialog

        return self._open(WorkflowsDialog(self._theme(), self))
