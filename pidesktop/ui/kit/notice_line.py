"""One line above the composer for what the window has to say: an error (with Details) or a short note.

It takes no room until there is something to say (no empty status bar under
the window). An error stays until the person closes it or another message
replaces it; a note ("Copied to the clipboard") goes by itself after a while.
"""

from __future__ import annotations

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QPushButton, QToolButton, QWidget

NOTE_MS = 4000


class NoticeLine(QFrame):
    detailsRequested = Signal()

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("noticeLine")
        self.setAttribute(Qt.WidgetAttribute.WA_StyledBackground, True)
        self.label = QLabel()
        self.label.setObjectName("noticeText")
        self.label.setWordWrap(True)
        self.label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.details_button = QPushButton(self.tr("Details…"))
        self.details_button.setObjectName("noticeDetails")
        self.details_button.setFlat(True)
        self.details_button.setCursor(Qt.CursorShape.PointingHandCursor)
        self.details_button.setToolTip(self.tr("Show what went wrong, in full"))
        self.details_button.clicked.connect(self.detailsRequested)
        self.close_button = QToolButton()
        self.close_button.setObjectName("noticeClose")
        self.close_button.setText("✕")
        self.close_button.setToolTip(self.tr("Dismiss"))
        self.close_button.setAutoRaise(True)
        self.close_button.clicked.connect(self.clear)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(12, 6, 6, 6)
        layout.setSpacing(8)
        layout.addWidget(self.label, 1)
        layout.addWidget(self.details_button, 0, Qt.AlignmentFlag.AlignVCenter)
        layout.addWidget(self.close_button, 0, Qt.AlignmentFlag.AlignVCenter)
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.timeout.connect(self.clear)
        self.hide()

    def show_error(self, text: str) -> None:
        """Stays until dismissed or replaced; Details opens the full record."""
        self._show(text, "error", details=True)

    def show_note(self, text: str, ms: int = NOTE_MS) -> None:
        self._show(text, "note", details=False)
        self._timer.start(ms)

    def message(self) -> str:
        return self.label.text() if self.isVisible() or not self.isHidden() else ""

    def clear(self) -> None:
        self._timer.stop()
        self.label.clear()
        self.hide()

    def _show(self, text: str, kind: str, details: bool) -> None:
        self._timer.stop()
        self.label.setText(text)
        self.details_button.setVisible(details)
        self.setProperty("kind", kind)
        self.style().unpolish(self)
        self.style().polish(self)
        self.show()
