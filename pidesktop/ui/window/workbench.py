"""The conversation column: the header bar, a banner for what blocks the data, the transcript (or the empty
page), and under it the composer with what waits above it (notices, the permission card, a proposal, the
checklist, the queue). The inbox slides in over it.

``MainWindow`` builds it once the host is up and routes the chat shown and the host's events to its parts.
"""

from __future__ import annotations

import html
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QStackedWidget, QVBoxLayout, QWidget

from pidesktop.ui.chat.composer import Composer
from pidesktop.ui.chat.permission_card import PermissionCard
from pidesktop.ui.chat.plan_area import PlanArea
from pidesktop.ui.chat.queue_strip import QueueStrip
from pidesktop.ui.chat.transcript_view import TranscriptView
from pidesktop.ui.inbox.inbox import InboxPanel
from pidesktop.ui.kit import theme as themes
from pidesktop.ui.kit.notice_line import NoticeLine
from pidesktop.ui.startup.first_frame import COMPOSER_WIDTH
from pidesktop.ui.window.header_bar import HeaderBar

if TYPE_CHECKING:
    from collections.abc import Callable

    from pidesktop.bus import HostClient, HostError
    from pidesktop.ui.chat.transcript_model import TranscriptModel


class Workbench(QWidget):
    def __init__(
        self,
        client: HostClient,
        runner,
        theme: themes.Theme,
        transcript_model: TranscriptModel,
        report_error: Callable[[HostError], None],
        parent: QWidget | None = None,
    ):
        super().__init__(parent)
        self.setObjectName("conversation")
        self.setAttribute(Qt.WidgetAttribute.WA_StyledBackground, True)
        self.header = HeaderBar(theme)

        self.banner = QFrame()
        self.banner.setObjectName("banner")
        banner_layout = QHBoxLayout(self.banner)
        banner_layout.setContentsMargins(16, 12, 16, 12)
        self.banner_text = QLabel()
        self.banner_text.setWordWrap(True)
        self.banner_text.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        banner_layout.addWidget(self.banner_text)
        self.banner.hide()

        self.pages = QStackedWidget()
        self.empty_page = _centered_message(
            self.tr("Start a conversation"), self.tr("Type below, or press Ctrl+N for a new chat.")
        )
        self.transcript = TranscriptView(transcript_model, theme)
        self.pages.addWidget(self.empty_page)
        self.pages.addWidget(self.transcript)
        self.composer = Composer(client)
        self.composer.tray.failed.connect(report_error)
        self.queue_strip = QueueStrip(client)
        self.queue_strip.setMaximumWidth(COMPOSER_WIDTH)
        self.queue_strip.failed.connect(report_error)
        self.notice = NoticeLine()
        self.notice.setMaximumWidth(COMPOSER_WIDTH)
        self.plans = PlanArea(client, runner, theme, report_error, self)
        self.permission_card = PermissionCard(theme)
        if runner is not None:
            runner.asker = self.permission_card.ask  # tool calls that need the person's word ask here
        composer_column = QVBoxLayout()
        composer_column.setSpacing(0)
        composer_column.addWidget(self.notice)
        for part in (self.permission_card, self.plans.card, self.plans.todo):  # they end the conversation
            part.setMaximumWidth(COMPOSER_WIDTH)
            composer_column.addWidget(part)
            composer_column.addSpacing(6)
        composer_column.addWidget(self.queue_strip)
        composer_column.addWidget(self.composer)
        composer_row = QHBoxLayout()
        composer_row.setContentsMargins(24, 0, 24, 0)
        composer_row.addStretch(1)
        composer_row.addLayout(composer_column, 100)
        composer_row.addStretch(1)
        self.composer.setMaximumWidth(COMPOSER_WIDTH)

        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        layout.addWidget(self.header)
        banner_holder = self.banner_holder = QVBoxLayout()
        banner_holder.setContentsMargins(24, 12, 24, 0)
        banner_holder.addWidget(self.banner)
        layout.addLayout(banner_holder)
        layout.addWidget(self.pages, 1)
        layout.addLayout(composer_row)
        self.inbox = InboxPanel(client, theme, self)
        self.inbox.layout().insertWidget(2, self.plans.pending)  # waiting proposals above the notifications

    def set_theme(self, theme: themes.Theme) -> None:
        self.header.set_theme(theme)
        self.transcript.set_theme(theme)
        self.inbox.set_theme(theme)
        self.plans.set_theme(theme)
        self.permission_card.set_theme(theme)

    def show_blocking_error(self, heading: str, sentence: str, detail: str) -> None:
        """The banner over the transcript: the data cannot be opened (the host's words name the file)."""
        self.banner.setProperty("severity", "error")
        self.banner_text.setText(
            f"<b>{html.escape(heading, quote=False)}</b><br>{html.escape(sentence, quote=False)}"
            f"<br><small>{html.escape(detail, quote=False)}</small>"
        )
        self.banner.show()


def _centered_message(title: str, hint: str) -> QWidget:
    page = QWidget()
    layout = QVBoxLayout(page)
    layout.addStretch(1)
    heading = QLabel(title)
    heading.setObjectName("emptyTitle")
    heading.setAlignment(Qt.AlignmentFlag.AlignCenter)
    detail = QLabel(hint)
    detail.setObjectName("emptyHint")
    detail.setAlignment(Qt.AlignmentFlag.AlignCenter)
    detail.setWordWrap(True)
    layout.addWidget(heading)
    layout.addSpacing(8)
    layout.addWidget(detail)
    layout.addStretch(2)
    return page
