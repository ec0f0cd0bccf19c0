"""The search field on top of the sidebar: where a person looks for search, it opens the search window.

It holds no text and never takes the keyboard: a click opens the search window, whose field takes the
typing; from the keyboard, Ctrl+K (shown in it) does the same. Were it focusable, the focus would land
in it whenever a focused widget hides (the inbox closing, a card answered), and the next key typed for
the composer would open the search window instead.
"""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QMouseEvent
from PySide6.QtWidgets import QLineEdit, QWidget


class SearchEntry(QLineEdit):
    searchRequested = Signal()

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("sidebarSearch")
        self.setPlaceholderText(self.tr("Search chats   Ctrl+K"))
        self.setToolTip(self.tr("Search every chat's title and messages (Ctrl+K)"))
        self.setCursor(Qt.CursorShape.PointingHandCursor)
        self.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.setReadOnly(True)
        self.setContextMenuPolicy(Qt.ContextMenuPolicy.NoContextMenu)  # nothing to cut, copy or paste here

    def mousePressEvent(self, event: QMouseEvent) -> None:
        if event.button() == Qt.MouseButton.LeftButton:
            self.searchRequested.emit()
            event.accept()
            return
        super().mousePressEvent(event)
