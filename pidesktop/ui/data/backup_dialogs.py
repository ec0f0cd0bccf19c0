"""Settings > Data: "Back up everything…" into a backup folder, "Back up to S3…" into the Settings > Sync
bucket, and "Restore…" from a backup folder into a new folder.

Backing up reads the data folder, which the host owns, so it runs as the host's
``data.snapshot`` (or ``data.snapshotS3``) job. Restoring writes only a new, empty folder no host has
opened, so it runs the storage layer's cold restore on a worker thread, as the
move wizard checks its destination; the person then opens it with
``pidesktop --data-dir``.
"""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

from PySide6.QtCore import QDateTime
from PySide6.QtWidgets import QComboBox, QFileDialog, QGridLayout, QLabel, QLineEdit, QSizePolicy, QSpinBox, QWidget
from shiboken6 import isValid

from pidesktop.bus import HostClient, HostError
from pidesktop.sizes import human_size
from pidesktop.storage.errors import StorageJobError
from pidesktop.ui.data.data_tools import ToolDialog
from pidesktop.ui.kit import i18n
from pidesktop.ui.kit import theme as themes
from pidesktop.ui.kit.dialog_style import error_text, path_row
from pidesktop.ui.kit.ops import host_op


def _passphrase_field(placeholder: str) -> QLineEdit:
    edit = QLineEdit()
    edit.setEchoMode(QLineEdit.EchoMode.Password)
    edit.setPlaceholderText(placeholder)
    return edit


def _choose_folder(parent: QWidget, title: str, edit: QLineEdit) -> None:
    chooser = QFileDialog(parent, title, edit.text() or str(Path.home()))
    chooser.setFileMode(QFileDialog.FileMode.Directory)
    chooser.setOption(QFileDialog.Option.ShowDirsOnly, True)
    chooser.fileSelected.connect(edit.setText)
    chooser.open()


class SnapshotDialog(ToolDialog):
    """An encrypted snapshot of the whole data folder into a backup folder (``data.snapshot``)."""

    def __init__(self, client: HostClient, theme: themes.Theme | None = None, parent: QWidget | None = None):
        super().__init__(
            self.tr("Back up everything"),
            self.tr(
                "Saves chats, attachments and settings, encrypted with a passphrase, into a backup folder "
                "(another disk is best). Backing up to the same folder again stores only what changed. "
                "Saved API keys are left out. Without the passphrase the backup cannot be read."
            ),
            theme,
            parent,
            client,
        )
        self.summary: dict | None = None
        self.folder_edit, row = path_row(self.tr("Backup folder (full path)"), self.browse)
        self.folder_edit.setText(str(Path.home() / "pidesktop-backups"))
        self.passphrase = _passphrase_field(self.tr("Passphrase"))
        self.again = _passphrase_field(self.tr("Passphrase again"))
        self.keep = QSpinBox()
        self.keep.setRange(0, 1000)
        self.keep.setSpecialValueText(self.tr("Keep every backup"))
        self.keep.setSuffix(self.tr(" newest backups kept"))
        self.body.addLayout(row)
        self.body.addWidget(self.passphrase)
        self.body.addWidget(self.again)
        self.body.addWidget(self.keep)
        self.backup_button = self.add_button(self.tr("Back up"), self.run, "primary")

    def browse(self) -> None:
        _choose_folder(self, self.tr("Backup folder"), self.folder_edit)

    def run(self) -> None:
        self.report.hide()
        if not self.passphrase.text():
            self.show_report(self.tr("Type a passphrase; you will need it to restore."), "error")
            return
        if self.passphrase.text() != self.again.text():
            self.show_report(self.tr("The two passphrases differ; type the same one twice."), "error")
            return
        params = {
            "folder": os.path.expanduser(self.folder_edit.text().strip()),
            "passphrase": self.passphrase.text(),
            "keep": self.keep.value(),
        }
        busy = (self.backup_button, self.folder_edit, self.passphrase, self.again, self.keep)
        self.job("data.snapshot", params, success=self._show, busy=busy)

    def _show(self, found: dict) -> None:
        self.summary = found
        text = i18n.arg(
            self.tr("Backed up %1 (%2 new) to %3."),
            human_size(found["bytes"]),
            human_size(found["bytesUploaded"]),
            found["folder"],
        )
        self.show_report(text, "ok")


class _SavedS3Dialog(ToolDialog):
    """A dialog over the bucket saved in Settings > Sync: names it, and says failures in words with Details."""

    def __init__(self, title: str, intro: str, client: HostClient, theme: themes.Theme | None, parent: QWidget | None):
        super().__init__(title, intro, theme, parent, client)
        self.host: HostClient = client  # always set here (ToolDialog's client is optional)
        self.error: HostError | None = None
        self.where = QLabel(self.tr("Reading the Settings > Sync connection…"))
        self.where.setObjectName("path")
        self.where.setWordWrap(True)
        self.passphrase = _passphrase_field(self.tr("Passphrase (leave empty to use the Settings > Sync one)"))
        self.body.addWidget(self.where)
        self.body.addWidget(self.passphrase)
        self.details_button = self.add_button(self.tr("Details"), self.show_details)
        self.details_button.hide()

    async def _load(self) -> bool:
        """Name the saved bucket; False when Settings > Sync is not set up."""
        status = await host_op(self.host, "sync.status", {}, parent=self, failure=self.failed)
        if status is None or not isValid(self.where):
            return False
        if not status.get("configured") or not status.get("hasCredentials"):
            self.where.setText(self.tr("Settings > Sync is not set up: fill in the bucket and its key there first."))
            return False
        bucket = f"s3://{status['bucket']}/{status.get('prefix', '')}".rstrip("/")
        endpoint = status.get("endpoint") or self.tr("AWS")
        self.where.setText(self._where_text(bucket, endpoint))
        return True

    def _where_text(self, bucket: str, endpoint: str) -> str:
        return i18n.arg(self.tr("Into %1 at %2"), bucket, endpoint)

    def clear_report(self) -> None:
        self.report.hide()
        self.details_button.hide()

    def failed(self, error: HostError) -> None:
        self.error = error
        super().failed(error)
        if error.data.get("reason") == "wrong_passphrase" or error.data.get("field") == "passphrase":
            self.passphrase.setFocus()
        self.details_button.show()

    def show_details(self) -> None:
        from pidesktop.ui.kit.error_details import ErrorDetailsDialog, ErrorLog

        log = ErrorLog()
        if self.error is not None:
            log.add(self.error)
        ErrorDetailsDialog(log, self).open()


class S3BackupDialog(_SavedS3Dialog):
    """An encrypted snapshot of the whole data folder into the bucket saved in Settings > Sync (``data.snapshotS3``).

    Without a typed passphrase the host seals it with the key of the Settings > Sync passphrase, so that
    passphrase opens it on another computer ("Restore from S3" on the start-up page)."""

    def __init__(self, client: HostClient, theme: themes.Theme | None = None, parent: QWidget | None = None):
        super().__init__(
            self.tr("Back up to S3"),
            self.tr(
                "Saves chats, attachments and settings, encrypted, into the bucket set in Settings > Sync. "
                "Backing up again stores only what changed. Saved API keys are left out. To restore on "
                "another computer you need the bucket, its access key and the Settings > Sync passphrase."
            ),
            client,
            theme,
            parent,
        )
        self.summary: dict | None = None
        self.keep = QSpinBox()
        self.keep.setRange(0, 1000)
        self.keep.setSpecialValueText(self.tr("Keep every backup"))
        self.keep.setSuffix(self.tr(" newest backups kept"))
        self.body.addWidget(self.keep)
        self.backup_button = self.add_button(self.tr("Back up"), self.run, "primary")
        self.backup_button.setEnabled(False)
        self.loading = self.start(self._ready(), "sync.status")

    async def _ready(self) -> None:
        if await self._load():
            self.backup_button.setEnabled(True)

    def run(self) -> None:
        self.clear_report()
        params = {"passphrase": self.passphrase.text(), "keep": self.keep.value()}
        busy = (self.backup_button, self.passphrase, self.keep)
        self.job("data.snapshotS3", params, success=self._show, busy=busy)

    def _show(self, found: dict) -> None:
        self.summary = found
        text = i18n.arg(
            self.tr("Backed up %1 (%2 new) to %3."),
            human_size(found["bytes"]),
            human_size(found["bytesUploaded"]),
            found["where"],
        )
        self.show_report(text, "ok")


class S3RestoreDialog(_SavedS3Dialog):
    """Lists the snapshots in the bucket saved in Settings > Sync and rebuilds one into a new folder
    (``data.snapshotsS3``, ``data.restoreS3``); the data folder in use is not touched."""

    def __init__(self, client: HostClient, theme: themes.Theme | None = None, parent: QWidget | None = None):
        super().__init__(
            self.tr("Restore from S3"),
            self.tr(
                "Rebuilds a data folder from a backup in the bucket set in Settings > Sync, into a new or "
                "empty folder. The data you use now is not touched."
            ),
            client,
            theme,
            parent,
        )
        self.restored: Path | None = None
        self.snapshots = QComboBox()
        self.snapshots.setPlaceholderText(self.tr("Press Show backups to list them"))
        self.target_edit, target_row = path_row(self.tr("New data folder (full path)"), self.browse_target)
        self.target_edit.setText(str(Path.home() / "pidesktop-restored"))
        self.body.addWidget(QLabel(self.tr("Backup to restore")))
        self.body.addWidget(self.snapshots)
        self.body.addWidget(QLabel(self.tr("Into")))
        self.body.addLayout(target_row)
        self.list_button = self.add_button(self.tr("Show backups"), self.list_snapshots)
        self.list_button.setEnabled(False)
        self.restore_button = self.add_button(self.tr("Restore"), self.run, "primary")
        self.restore_button.setEnabled(False)
        self.loading = self.start(self._ready(), "sync.status")

    def _where_text(self, bucket: str, endpoint: str) -> str:
        return i18n.arg(self.tr("From %1 at %2"), bucket, endpoint)

    async def _ready(self) -> None:
        if await self._load():
            self.list_button.setEnabled(True)

    def browse_target(self) -> None:
        _choose_folder(self, self.tr("New data folder"), self.target_edit)

    def list_snapshots(self) -> asyncio.Task:
        self.clear_report()
        busy = (self.list_button, self.restore_button, self.passphrase)
        return self.job("data.snapshotsS3", {"passphrase": self.passphrase.text()}, success=self._listed, busy=busy)

    def _listed(self, found: dict) -> None:
        self.snapshots.clear()
        for entry in found["snapshots"]:
            when = QDateTime.fromMSecsSinceEpoch(int(entry["createdAt"])).toString("yyyy-MM-dd HH:mm")
            text = i18n.arg(self.tr("%1 · %2 files · %3"), when, entry["files"], human_size(entry["bytes"]))
            self.snapshots.addItem(text, entry["snapshot"])
        has_any = self.snapshots.count() > 0
        self.restore_button.setEnabled(has_any)
        if not has_any:
            self.show_report(self.tr("There are no backups in this bucket yet."), "info")

    def run(self) -> None:
        self.clear_report()
        target = os.path.expanduser(self.target_edit.text().strip())
        params = {"folder": target, "snapshot": self.snapshots.currentData(), "passphrase": self.passphrase.text()}
        busy = (self.list_button, self.restore_button, self.passphrase, self.target_edit, self.snapshots)
        self.job("data.restoreS3", params, success=self._show, busy=busy)

    def _show(self, found: dict) -> None:
        self.restored = Path(found["folder"])
        self.show_report(
            i18n.arg(
                self.tr("Restored %1 files into %2. Open it with: pidesktop --data-dir %2"),
                found["files"],
                found["folder"],
            ),
            "ok",
        )


class RestoreDialog(ToolDialog):
    """Rebuilds a data folder from a backup folder into a new, empty folder (cold: the host is not involved)."""

    def __init__(self, theme: themes.Theme | None = None, parent: QWidget | None = None):
        super().__init__(
            self.tr("Restore from a backup"),
            self.tr(
                "Rebuilds a data folder from the newest backup in a backup folder, into a new or empty "
                "folder. The data you use now is not touched."
            ),
            theme,
            parent,
        )
        self.restored: Path | None = None
        self.source_edit, source_row = path_row(self.tr("Backup folder (full path)"), self.browse_source)
        self.source_edit.setText(str(Path.home() / "pidesktop-backups"))
        self.passphrase = _passphrase_field(self.tr("Passphrase"))
        self.target_edit, target_row = path_row(self.tr("New data folder (full path)"), self.browse_target)
        self.target_edit.setText(str(Path.home() / "pidesktop-restored"))
        self.body.addWidget(QLabel(self.tr("Restore from")))
        self.body.addLayout(source_row)
        self.body.addWidget(self.passphrase)
        self.body.addWidget(QLabel(self.tr("Into")))
        self.body.addLayout(target_row)
        self.restore_button = self.add_button(self.tr("Restore"), self.run, "primary")

    def browse_source(self) -> None:
        _choose_folder(self, self.tr("Backup folder"), self.source_edit)

    def browse_target(self) -> None:
        _choose_folder(self, self.tr("New data folder"), self.target_edit)

    def run(self) -> None:
        self.report.hide()
        source = Path(os.path.expanduser(self.source_edit.text().strip()))
        target = Path(os.path.expanduser(self.target_edit.text().strip()))
        self.start(self._restore(source, target, self.passphrase.text()), "restore")

    async def _restore(self, source: Path, target: Path, passphrase: str) -> None:
        widgets = (self.restore_button, self.source_edit, self.target_edit, self.passphrase)
        for widget in widgets:
            widget.setEnabled(False)
        self.busy.show()
        try:
            found = await asyncio.to_thread(restore_folder, source, target, passphrase)
        except Exception as exc:
            self.show_report(error_text(exc, (StorageJobError,)), "error")
            return
        finally:
            if isValid(self.busy):  # closing the dialog deletes it
                self.busy.hide()
                for widget in widgets:
                    widget.setEnabled(True)
        self.restored = target
        self.show_report(
            i18n.arg(self.tr("Restored %1 files into %2. Open it with: pidesktop --data-dir %2"), found, str(target)),
            "ok",
        )


def restore_folder(source: Path, target: Path, passphrase: str) -> int:
    """Restore the newest snapshot in the backup folder ``source`` into ``target``; the number of files.

    Every failure is a ``StorageJobError`` whose message is a sentence for the person.
    """
    from pidesktop.storage import snapshot_format, snapshot_restore, vault
    from pidesktop.storage.blobstore import FolderStore
    from pidesktop.storage.errors import Refused

    if not source.is_absolute() or not target.is_absolute():
        raise Refused("Give both folders as full paths.")
    snapshot_restore.check_target(target)
    try:
        repo = snapshot_format.open_repository(FolderStore(source), passphrase)
        manifest = snapshot_restore.restore(repo, target)
    except vault.VaultError as exc:
        raise StorageJobError(str(exc)) from exc
    return len(manifest.files)


class S3RestoreForm(QWidget):
    """Where a backup on S3 is and how to open it: endpoint, bucket, prefix, region, key pair, passphrase."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.endpoint = QLineEdit()
        self.endpoint.setPlaceholderText(self.tr("Endpoint URL (empty for AWS)"))
        self.bucket = QLineEdit()
        self.bucket.setPlaceholderText(self.tr("Bucket"))
        self.prefix = QLineEdit()
        self.prefix.setPlaceholderText(self.tr("Prefix (optional)"))
        self.region = QLineEdit()
        self.region.setPlaceholderText(self.tr("Region (optional)"))
        self.access_key = QLineEdit(os.environ.get("AWS_ACCESS_KEY_ID", ""))
        self.access_key.setPlaceholderText(self.tr("Access key"))
        self.secret_key = _passphrase_field(self.tr("Secret key"))
        self.secret_key.setText(os.environ.get("AWS_SECRET_ACCESS_KEY", ""))
        self.passphrase = _passphrase_field(self.tr("Backup passphrase"))
        # Its exact height always: a window that grows later must not squeeze the fields.
        self.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Fixed)
        self.grid = grid = QGridLayout(self)
        grid.setContentsMargins(0, 0, 0, 0)
        grid.setHorizontalSpacing(8)
        grid.setVerticalSpacing(6)
        grid.addWidget(self.endpoint, 0, 0, 1, 2)
        grid.addWidget(self.bucket, 1, 0)
        grid.addWidget(self.prefix, 1, 1)
        grid.addWidget(self.region, 2, 0)
        grid.addWidget(self.access_key, 3, 0)
        grid.addWidget(self.secret_key, 3, 1)
        grid.addWidget(self.passphrase, 4, 0, 1, 2)

    def fit(self) -> None:
        """Take the height the styled fields need (the style sheet pads them once they are shown)."""
        for edit in self.fields():
            edit.ensurePolished()
            edit.setFixedHeight(edit.sizeHint().height())
        self.grid.invalidate()
        self.setFixedHeight(self.grid.totalSizeHint().height())

    def fields(self) -> tuple[QLineEdit, ...]:
        return (self.endpoint, self.bucket, self.prefix, self.region, self.access_key, self.secret_key, self.passphrase)


def restore_s3(form_values: dict[str, str], target: Path) -> int:
    """Restore the newest snapshot on S3 into ``target`` (missing or empty); the number of files.

    ``form_values``: endpoint, bucket, prefix, region, accessKey, secretKey, passphrase. Every failure
    is a ``StorageJobError`` whose message is a sentence for the person.
    """
    from pidesktop.storage import s3, snapshot_format, snapshot_restore, vault
    from pidesktop.storage.blobstore import S3Store
    from pidesktop.storage.errors import Refused

    if not form_values["bucket"].strip():
        raise Refused("Type the bucket that holds the backup.")
    snapshot_restore.check_target(target)
    location = s3.S3Location(
        form_values["bucket"].strip(),
        form_values["endpoint"].strip() or None,
        form_values["region"].strip() or None,
        form_values["prefix"].strip(),
    )
    access, secret = form_values["accessKey"].strip(), form_values["secretKey"].strip()
    try:
        client = s3.connect(location, s3.S3Credentials(access, secret) if access and secret else None)
        repo = snapshot_format.open_repository(S3Store(client, location), form_values["passphrase"])
        manifest = snapshot_restore.restore(repo, target)
    except (vault.VaultError, s3.S3Problem) as exc:
        raise StorageJobError(str(exc)) from exc
    return len(manifest.files)
