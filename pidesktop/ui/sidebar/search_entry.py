"""The search field on top of the sidebar: where a person looks for search, it opens the search window.

It holds no text of its own. A click, Enter, or the first key typed opens the search window (Ctrl+K
does the same from anywhere); what was typed goes on in the window's field, so no keystroke is lost.
"""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QKeyEvent, QMouseEvent
from PySide6.QtWidgets import QLineEdit, QWidget


class SearchEntry(QLineEdit):
    searchRequested = Signal(str)  # the text typed so far ("" for a click)

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("sidebarSearch")
        self.setPlaceholderText(self.tr("Search chats   Ctrl+K"))
        self.setToolTip(self.tr("Search every chat's title and messages (Ctrl+K)"))
        self.setCursor(Qt.CursorShape.PointingHandCursor)
        self.setContextMenuPolicy(Qt.ContextMenuPolicy.NoContextMenu)  # nothing to cut, copy or paste here

    def mousePressEvent(self, event: QMouseEvent) -> None:
        if event.button() == Qt.MouseButton.LeftButton:
            self.searchRequested.emit("")
            event.accept()
            return
        super().mousePressEvent(event)

    def keyPressEvent(self, event: QKeyEvent) -> None:
        text = event.text()
        if event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter, Qt.Key.Key_Down):
            self.searchRequested.emit("")
        elif text and text.isprintable() and not event.modifiers() & Qt.KeyboardModifier.ControlModifier:
            self.searchRequested.emit(text)
        else:
            super().keyPressEvent(event)  # Tab, Esc and shortcuts go on as usual
            return
        event.accept()

    def inputMethodEvent(self, event) -> None:
        # Text composed by an input method (Chinese, Japanese) goes to the window like typed keys.
        committed = event.commitString()
        if committed:
            self.searchRequested.emit(committed)
        event.accept()
