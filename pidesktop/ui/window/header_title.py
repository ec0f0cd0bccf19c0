"""The chat's title over the conversation: click it to rename the chat in place (UX.md's header).

A label that ends in "…" when the title does not fit; a click swaps in a field with the title selected.
Enter or leaving the field renames (an empty or unchanged title changes nothing), Esc puts the title back.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, Qt, Signal
from PySide6.QtGui import QKeyEvent, QMouseEvent
from PySide6.QtWidgets import QLineEdit, QSizePolicy, QStackedWidget, QWidget

from pidesktop.ui.kit.eliding_label import ElidingLabel

TITLE_MAX = 80  # what session.rename takes (spec 004: 1 to 80 code points after trimming)


class _TitleField(QLineEdit):
    cancelled = Signal()

    def event(self, event: QEvent) -> bool:
        # Esc belongs to the field while it is open, not to the window's Esc (which would stop the reply).
        if event.type() == QEvent.Type.ShortcutOverride and isinstance(event, QKeyEvent):
            if event.key() == Qt.Key.Key_Escape:
                event.accept()
                return True
        return super().event(event)

    def keyPressEvent(self, event: QKeyEvent) -> None:
        if event.key() == Qt.Key.Key_Escape:
            self.cancelled.emit()
            return
        super().keyPressEvent(event)


class HeaderTitle(QStackedWidget):
    renameRequested = Signal(str)  # the new title, trimmed, not empty, not the one shown

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.label = ElidingLabel("")
        self.label.setObjectName("headerTitle")
        self.field = _TitleField()
        self.field.setObjectName("headerTitleEdit")
        self.field.setMaxLength(TITLE_MAX)
        self.field.returnPressed.connect(self._commit)
        self.field.editingFinished.connect(self._commit)  # focus left the field: what was typed is kept
        self.field.cancelled.connect(self._cancel)
        self.addWidget(self.label)
        self.addWidget(self.field)
        self.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.editable = False
        self.set_editable(False)

    # -- what the window sets -----------------------------------------------------------
    def setText(self, text: str) -> None:
        self.label.setText(text)  # an open field keeps what is being typed (a reply's events retitle the chat)

    def text(self) -> str:
        return self.label.text()

    def set_editable(self, editable: bool) -> None:
        """Only a chat of ours can be renamed (not the empty page, not a pi session read in place)."""
        self.editable = editable
        self.label.setCursor(Qt.CursorShape.PointingHandCursor if editable else Qt.CursorShape.ArrowCursor)
        self.setToolTip(self.tr("Click to rename this chat") if editable else "")  # the label's own: the whole title
        if not editable and self.editing():
            self._close()

    def editing(self) -> bool:
        return self.currentWidget() is self.field

    # -- renaming -------------------------------------------------------------------------
    def start_rename(self) -> None:
        if not self.editable or self.editing():
            return
        self.field.setText(self.label.text())
        self.setCurrentWidget(self.field)
        self.field.selectAll()
        self.field.setFocus(Qt.FocusReason.MouseFocusReason)

    def mousePressEvent(self, event: QMouseEvent) -> None:
        if event.button() == Qt.MouseButton.LeftButton and not self.editing():
            self.start_rename()
            event.accept()
            return
        super().mousePressEvent(event)

    def _commit(self) -> None:
        if not self.editing():
            return
        title = " ".join(self.field.text().split())
        self._close()
        if title and title != self.label.text():
            self.label.setText(title)  # at once; the host's event confirms it
            self.renameRequested.emit(title)

    def _cancel(self) -> None:
        self.field.setText(self.label.text())  # the focus leaving the field as it closes then renames nothing
        self._close()

    def _close(self) -> None:
        self.setCurrentWidget(self.label)
