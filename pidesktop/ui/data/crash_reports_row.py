"""Settings > Data > Maintenance: the crash reports kept, with a link to their folder and Remove.

The dumps stay on this computer; nothing is ever sent. Listing them here
records them as seen (``data.crashDumps {markReported: true}``).
"""

from __future__ import annotations

import time

from PySide6.QtCore import Qt, QUrl
from PySide6.QtGui import QDesktopServices
from PySide6.QtWidgets import QHBoxLayout, QLabel, QPushButton, QWidget

from pidesktop.bus import HostClient, HostError
from pidesktop.ui.kit import i18n
from pidesktop.ui.kit.ops import host_op
from pidesktop.ui.kit.plain_errors import sentence


class CrashReportsRow(QWidget):
    """One row of Settings > Data > Maintenance: Remove crash reports, and what is kept; hidden when none are."""

    BUTTON_WIDTH = 190

    def __init__(self, client: HostClient, parent: QWidget | None = None):
        super().__init__(parent)
        self.client = client
        self.folder: str | None = None
        self.dumps: list[dict] = []
        self.remove_button = QPushButton(self.tr("Remove crash reports"))
        self.remove_button.setMinimumWidth(self.BUTTON_WIDTH)
        self.remove_button.setToolTip(self.tr("Delete the crash reports kept on this computer"))
        self.remove_button.clicked.connect(lambda: self.remove().run())
        self.summary = QLabel("…")
        self.summary.setObjectName("muted")
        self.summary.setWordWrap(True)
        self.summary.setTextInteractionFlags(
            Qt.TextInteractionFlag.LinksAccessibleByMouse | Qt.TextInteractionFlag.LinksAccessibleByKeyboard
        )
        self.summary.linkActivated.connect(lambda _link: self.show_folder())
        row = QHBoxLayout(self)
        row.setContentsMargins(0, 0, 0, 0)
        row.setSpacing(16)
        row.addWidget(self.remove_button, 0)
        row.addWidget(self.summary, 1)
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
        self.setVisible(bool(dumps))  # nothing to say when pidesktop never crashed
        if not dumps:
            return
        newest = time.strftime("%Y-%m-%d %H:%M", time.localtime(dumps[0]["mtime"]))
        if len(dumps) == 1:
            text = self.tr("1 crash report from %1, kept on this computer and never sent (<a href='#'>show</a>).")
            self.summary.setText(i18n.arg(text, newest))
            return
        text = self.tr(
            "%1 crash reports, the newest from %2, kept on this computer and never sent (<a href='#'>show</a>)."
        )
        self.summary.setText(i18n.arg(text, len(dumps), newest))

    def _failed(self, error: HostError) -> None:
        self.setVisible(True)
        self.summary.setText(sentence(error))
        self.summary.setToolTip(error.message)
