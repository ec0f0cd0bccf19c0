"""Settings > Sync: the S3 connection for settings sync, Test connection, and Sync now.

The page only talks to the host (``sync.status``, and the jobs ``sync.test``, ``sync.configure``,
``sync.history``, ``sync.run``): secrets go to the host's secret store and are never shown again;
an empty key field keeps the saved one. What went wrong is said in the host's
sentence, under the buttons.
"""

from __future__ import annotations

import platform
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QDateTime, Qt
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from pidesktop.bus import HostClient, HostError
from pidesktop.sizes import human_size
from pidesktop.ui.data.host_jobs import run_job
from pidesktop.ui.kit import i18n
from pidesktop.ui.kit.ops import host_op, task_op
from pidesktop.ui.settings.sync_conflicts import conflict_subject


class SyncPage(QWidget):
    def __init__(self, client: HostClient, parent: QWidget | None = None):
        super().__init__(parent)
        self.client = client
        title = QLabel(self.tr("Sync"))
        title.setObjectName("pageTitle")
        intro = QLabel(
            self.tr(
                "Keep settings, providers, models, prices, MCP servers, project memory and groups, and automations "
                "the same on your computers through an S3 bucket. Everything is encrypted with your passphrase "
                "before it leaves this computer."
            )
        )
        intro.setObjectName("muted")
        intro.setWordWrap(True)
        self.endpoint = QLineEdit()
        self.endpoint.setPlaceholderText(self.tr("https://s3.example.com (empty for AWS)"))
        self.region = QLineEdit()
        self.region.setPlaceholderText("us-east-1")
        self.bucket = QLineEdit()
        self.prefix = QLineEdit()
        self.prefix.setPlaceholderText(self.tr("optional folder in the bucket"))
        self.access_key = QLineEdit()
        self.secret_key = QLineEdit()
        self.secret_key.setEchoMode(QLineEdit.EchoMode.Password)
        self.passphrase = QLineEdit()
        self.passphrase.setEchoMode(QLineEdit.EchoMode.Password)
        self.sync_keys = QCheckBox(self.tr("Sync API keys too"))
        self.machine_name = QLineEdit()
        self.machine_name.setMaxLength(60)
        self.machine_name.setPlaceholderText(platform.node())
        self.machine_name.setToolTip(
            self.tr("Your other computers show this name beside an automation that runs on this one.")
        )
        form = QFormLayout()
        form.setLabelAlignment(Qt.AlignmentFlag.AlignRight)
        form.addRow(self.tr("Endpoint"), self.endpoint)
        form.addRow(self.tr("Region"), self.region)
        form.addRow(self.tr("Bucket"), self.bucket)
        form.addRow(self.tr("Prefix"), self.prefix)
        form.addRow(self.tr("Access key"), self.access_key)
        form.addRow(self.tr("Secret key"), self.secret_key)
        form.addRow(self.tr("Passphrase"), self.passphrase)
        form.addRow(self.tr("This computer"), self.machine_name)
        form.addRow("", self.sync_keys)
        self.test_button = QPushButton(self.tr("Test connection"))
        self.test_button.clicked.connect(self.test_connection)
        self.save_button = QPushButton(self.tr("Save"))
        self.save_button.clicked.connect(self.save)
        self.sync_button = QPushButton(self.tr("Sync now"))
        self.sync_button.clicked.connect(self.sync_now)
        buttons = QHBoxLayout()
        for button in (self.test_button, self.save_button, self.sync_button):
            buttons.addWidget(button)
        buttons.addStretch(1)
        self.message = QLabel()
        self.message.setWordWrap(True)
        self.message.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.state = QLabel()
        self.state.setObjectName("muted")
        self.state.setWordWrap(True)
        self.versions_button = QPushButton(self.tr("Show earlier versions"))
        self.versions_button.clicked.connect(self.show_versions)
        self.versions = QComboBox()
        self.versions.setMinimumWidth(320)
        self.restore_button = QPushButton(self.tr("Restore this version"))
        self.restore_button.clicked.connect(self.restore)
        self.versions.hide()
        self.restore_button.hide()
        history = QHBoxLayout()
        history.addWidget(self.versions_button)
        history.addWidget(self.versions)
        history.addWidget(self.restore_button)
        history.addStretch(1)
        self.daily = QCheckBox(self.tr("Back up to S3 every day"))
        self.daily.setToolTip(
            self.tr("While pidesktop runs, once a day: chats, attachments and settings, sealed with the passphrase.")
        )
        self.daily.setEnabled(False)
        self.daily.clicked.connect(self.set_daily_backup)
        self.daily_state = QLabel()
        self.daily_state.setObjectName("muted")
        self.daily_state.setWordWrap(True)
        self.daily_state.hide()
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(8)
        layout.addWidget(title)
        layout.addWidget(intro)
        layout.addSpacing(8)
        layout.addLayout(form)
        layout.addLayout(buttons)
        layout.addWidget(self.message)
        layout.addWidget(self.state)
        layout.addLayout(history)
        layout.addSpacing(8)
        layout.addWidget(self.daily)
        layout.addWidget(self.daily_state)
        layout.addStretch(1)
        self.sync_button.setEnabled(False)
        self.versions_button.setEnabled(False)

    def _busy(self) -> tuple[QWidget, ...]:
        return (self.test_button, self.save_button, self.sync_button, self.versions_button, self.restore_button)

    def connection(self) -> dict[str, Any]:
        params: dict[str, Any] = {
            "endpoint": self.endpoint.text().strip(),
            "region": self.region.text().strip(),
            "bucket": self.bucket.text().strip(),
            "prefix": self.prefix.text().strip(),
            "syncKeys": self.sync_keys.isChecked(),
        }
        if self.access_key.text().strip() and self.secret_key.text():
            params["accessKey"] = self.access_key.text().strip()
            params["secretKey"] = self.secret_key.text()
        if self.passphrase.text():
            params["passphrase"] = self.passphrase.text()
        if self.machine_name.text().strip():
            params["machineName"] = self.machine_name.text().strip()
        return params

    async def load(self) -> None:
        status = await host_op(self.client, "sync.status", {}, parent=self, failure=self._failed)
        if status is not None:
            self.show_status(status)

    def show_status(self, status: dict[str, Any]) -> None:
        if not status.get("configured"):
            self.state.setText(self.tr("Not set up yet."))
            self.sync_button.setEnabled(False)
            self.versions_button.setEnabled(False)
            self.daily.setEnabled(False)
            return
        self.show_daily_backup(status.get("dailyBackup") or {})
        self.endpoint.setText(status.get("endpoint", ""))
        self.region.setText(status.get("region", ""))
        self.bucket.setText(status.get("bucket", ""))
        self.prefix.setText(status.get("prefix", ""))
        self.sync_keys.setChecked(bool(status.get("syncKeys")))
        self.machine_name.setText(status.get("machineName", ""))
        if status.get("hasCredentials"):
            self.access_key.setPlaceholderText(self.tr("saved"))
            self.secret_key.setPlaceholderText(self.tr("saved"))
            self.passphrase.setPlaceholderText(self.tr("saved"))
        self.sync_button.setEnabled(True)
        self.versions_button.setEnabled(True)
        last = status.get("lastRun")
        lines = [i18n.arg(self.tr("Synced up to revision %1."), status.get("revision", 0))]
        if status.get("pending"):
            lines.append(
                i18n.counted(
                    len(status["pending"]),
                    self.tr("1 change waits for the next sync."),
                    self.tr("%1 changes wait for the next sync."),
                )
            )
        for conflict in (last or {}).get("conflicts", []):
            subject = conflict_subject(conflict)
            lines.append(i18n.arg(self.tr("Changed on two computers: %1; the newer change was kept."), subject))
        self.state.setText("\n".join(lines))

    def show_daily_backup(self, daily: dict[str, Any]) -> None:
        self.daily.setEnabled(True)
        self.daily.setChecked(bool(daily.get("enabled")))
        last = daily.get("last")
        if not last:
            self.daily_state.hide()
            return
        when = QDateTime.fromMSecsSinceEpoch(int(last["at"])).toString("yyyy-MM-dd HH:mm")
        if last.get("ok"):
            text = i18n.arg(self.tr("Last daily backup: %1, %2 new."), when, human_size(int(last["bytesUploaded"])))
        else:
            text = i18n.arg(self.tr("Last daily backup, %1: %2"), when, last.get("sentence", ""))
        self.daily_state.setText(text)
        self.daily_state.show()

    def set_daily_backup(self, enabled: bool) -> None:
        def refused(error: HostError) -> None:
            self.daily.setChecked(not enabled)
            self._failed(error)

        host_op(
            self.client,
            "data.setDailyBackup",
            {"enabled": enabled},
            parent=self,
            success=self.show_daily_backup,
            failure=refused,
            busy=(self.daily,),
        ).run()

    def _say(self, text: str, problem: bool = False) -> None:
        self.message.setObjectName("error" if problem else "notice")
        self.message.setStyleSheet("color: #c0392b;" if problem else "")
        self.message.setText(text)

    def _failed(self, error: HostError) -> None:
        self._say(error.message, problem=True)

    def test_connection(self) -> None:
        self._job("sync.test", self.connection(), lambda _r: self._say(self.tr("The bucket answers and accepts data.")))

    def save(self) -> None:
        def saved(status: dict[str, Any]) -> None:
            self.secret_key.clear()
            self.passphrase.clear()
            self._say(self.tr("Saved. Sync now sends and fetches settings."))
            self.show_status(status)

        self._job("sync.configure", self.connection(), saved)

    def sync_now(self) -> None:
        def synced(result: dict[str, Any]) -> None:
            self._say(i18n.arg(self.tr("Synced: %1 sent, %2 received."), len(result["pushed"]), len(result["pulled"])))
            self.load_later()

        self._job("sync.run", {}, synced)

    def _job(self, method: str, params: dict[str, Any], success: Callable[[dict[str, Any]], None]) -> None:
        """Every sync command that talks to S3 is a host job: its outcome comes with the job's end."""
        task_op(
            lambda: run_job(self.client, method, params),
            parent=self,
            name=method,
            success=success,
            failure=self._failed,
            busy=self._busy(),
        ).run()

    def load_later(self) -> None:
        from pidesktop.ui.kit.tasks import spawn

        spawn(self.load(), name="sync-status")

    def show_versions(self) -> None:
        """Ask the bucket for the kept revisions (newest first) and offer them for restoring."""

        def listed(status: dict[str, Any]) -> None:
            self.versions.clear()
            for entry in status.get("history", []):
                when = QDateTime.fromMSecsSinceEpoch(int(entry["at"])).toString("yyyy-MM-dd HH:mm")
                changes = i18n.counted(len(entry["keys"]), self.tr("1 change"), self.tr("%1 changes"))
                text = i18n.arg(self.tr("Version %1 · %2 · %3"), entry["revision"], when, changes)
                self.versions.addItem(text, entry["revision"])
            self.versions.setVisible(self.versions.count() > 0)
            self.restore_button.setVisible(self.versions.count() > 1)
            if not self.versions.count():
                self._say(self.tr("There are no versions in the bucket yet: press Sync now."))

        self._job("sync.history", {}, listed)

    def restore(self) -> None:
        revision = self.versions.currentData()
        if revision is None:
            return

        def restored(result: dict[str, Any]) -> None:
            self._say(
                i18n.arg(self.tr("Version %1 restored here and on the next sync of your other computers."), revision)
            )
            self.versions.hide()
            self.restore_button.hide()
            self.load_later()

        self._job("sync.run", {"restore": int(revision)}, restored)
