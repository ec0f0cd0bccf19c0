"""Settings > Data > Crash reports: whether crash dumps are kept, with Show folder and Remove.

The dumps stay on this computer; nothing is ever sent. Listing them here
records them as seen (``data.crashDumps {markReported: true}``).
"""

from __future__ import annotations

import time

from PySide6.QtCore import QUrl
from PySide6.QtGui import QDesktopServices
from PySide6.QtWidgets import QHBoxLayout, QLabel, QPushButton, QVBoxLayout, QWidget

from ..bus import HostClient, HostError
from . import i18n
from .ops import host_op
from .plain_errors import sentence


class CrashReportsRow(QWidget):
    def __init__(self, client: HostClient, parent: QWidget | None = None):
        super().__init__(parent)
        self.client = client
        self.folder: str | None = None
        self.dumps: list[dict] = []
        title = QLabel(self.tr("Crash reports"))
        title.setObjectName("sectionTitle")
        self.summary = QLabel("…")
        self.summary.setObjectName("muted")
        self.summary.setWordWrap(True)
        self.show_button = QPushButton(self.tr("Show folder"))
        self.show_button.clicked.connect(self.show_folder)
        self.remove_button = QPushButton(self.tr("Remove"))
        self.remove_button.setToolTip(self.tr("Delete the crash reports kept on this computer"))
        self.remove_button.clicked.connect(lambda: self.remove().run())
        buttons = QHBoxLayout()
        buttons.setContentsMargins(0, 0, 0, 0)
        buttons.addWidget(self.show_button)
        buttons.addWidget(self.remove_button)
        buttons.addStretch(1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(8)
        layout.addWidget(title)
        layout.addWidget(self.summary)
        layout.addLayout(buttons)
        self._show([])

    async def load(self) -> None:
        await host_op(
            self.client,
            "data.crashDumps",
            {"markReported": True},
            parent=self,
            success=lambda result: self._listed(result),
            failure=self._failed,
        )

    def remove(self):
        return host_op(
            self.client,
            "data.removeCrashDumps",
            {},
            parent=self,
            success=lambda result: self._show(result["dumps"]),
            failure=self._failed,
        )

    def show_folder(self) -> None:
        if self.folder:
            QDesktopServices.openUrl(QUrl.fromLocalFile(self.folder))

    def _listed(self, result: dict) -> None:
        self.folder = result.get("folder")
        self._show(result["dumps"])

    def _show(self, dumps: list[dict]) -> None:
        self.dumps = list(dumps)
        self.show_button.setVisible(bool(dumps))
        self.remove_button.setVisible(bool(dumps))
        if not dumps:
            self.summary.setText(self.tr("pidesktop has not crashed on this computer, or its reports were removed."))
            return
        newest = time.strftime("%Y-%m-%d %H:%M", time.localtime(dumps[0]["mtime"]))
        if len(dumps) == 1:
            text = self.tr("1 crash report is kept on this computer and never sent anywhere. It is from %1.")
            self.summary.setText(i18n.arg(text, newest))
            return
        text = self.tr("%1 crash reports are kept on this computer and never sent anywhere. The newest is from %2.")
        self.summary.setText(i18n.arg(text, len(dumps), newest))

    def _failed(self, error: HostError) -> None:
        self.summary.setText(sentence(error))
        self.summary.setToolTip(error.message)
