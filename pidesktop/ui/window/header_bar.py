"""The conversation's header: the chat's title, its project, how full its context is, the model, the bell.

The window fills it (``MainWindow`` routes the chat shown and the host's events here); other parts add
their own controls to ``layout`` (the Files changed button, a pi session's branch switcher).
"""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QHBoxLayout, QMenu, QToolButton, QWidget

from pidesktop.ui.chat.usage_format import meter_text, near_limit, short_tokens
from pidesktop.ui.inbox.inbox import BellButton
from pidesktop.ui.kit import theme as themes
from pidesktop.ui.sidebar.project_picker import ProjectPicker
from pidesktop.ui.window.header_title import HeaderTitle


class HeaderBar(QWidget):
    compactRequested = Signal()  # "Compact now" in the context meter's menu

    def __init__(self, theme: themes.Theme, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("header")
        layout = self.row = QHBoxLayout(self)
        layout.setContentsMargins(24, 12, 24, 12)
        self.title = HeaderTitle()  # a long title ends in "…", never squeezing the sidebar; a click renames
        self.project_picker = ProjectPicker()  # which project this chat belongs to
        self.model_chip = QToolButton()
        self.model_chip.setObjectName("modelChip")
        self.model_chip.setToolTip(
            self.tr("The model new chats use. Click to add a provider or change the default (Settings > Providers)")
        )
        self.model_chip.setCursor(Qt.CursorShape.PointingHandCursor)
        self.model_chip.hide()  # until the host names the model: empty, it is a blank pill (a long restore at start)
        # How full the chat's context is; its menu compacts the chat.
        self.context_meter = QToolButton()
        self.context_meter.setObjectName("contextMeter")
        self.context_meter.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        self.context_meter.setCursor(Qt.CursorShape.PointingHandCursor)
        self.context_meter.hide()
        self.compact_action = QAction(self.tr("Compact now"), self)
        self.compact_action.setToolTip(
            self.tr("Summarise the earlier messages so the conversation fits the model's context again")
        )
        self.compact_action.triggered.connect(self.compactRequested)
        meter_menu = QMenu(self.context_meter)
        meter_menu.addAction(self.compact_action)
        self.context_meter.setMenu(meter_menu)
        self.bell = BellButton(theme)
        layout.addWidget(self.title, 1)
        layout.addWidget(self.project_picker)
        layout.addSpacing(8)
        layout.addWidget(self.context_meter)
        layout.addSpacing(8)
        layout.addWidget(self.model_chip)
        layout.addSpacing(8)
        layout.addWidget(self.bell)

    def set_theme(self, theme: themes.Theme) -> None:
        self.bell.set_theme(theme)

    def show_context_usage(self, usage: dict | None) -> None:
        """``{"tokens", "window"}``: "12.3k / 32k" in the header, amber from 80 %."""
        meter = self.context_meter
        tokens = (usage or {}).get("tokens")
        window = (usage or {}).get("window")
        if not isinstance(tokens, int):
            meter.hide()
            return
        window = window if isinstance(window, int) and window > 0 else None
        high = near_limit(tokens, window)
        meter.setText(meter_text(tokens, window))
        meter.setProperty("level", "high" if high else "normal")
        meter.style().unpolish(meter)
        meter.style().polish(meter)
        if window:
            percent = round(100 * tokens / window)
            tip = (
                self.tr(
                    "This chat’s context: about %1 of the model’s %2 tokens (%3%), sent with every "
                    "message; when it nears the limit, earlier messages are summarised. "
                    "Click to compact now."
                )
                .replace("%1", short_tokens(tokens))
                .replace("%2", short_tokens(window))
                .replace("%3", str(percent))
            )
        else:
            tip = self.tr(
                "This chat’s context: about %1 tokens are sent with every message. Click to compact now."
            ).replace("%1", short_tokens(tokens))
        meter.setToolTip(tip)
        meter.show()
