"""The composer's text box in the window's first frame: typing is taken before the widgets exist.

Right after the first frame is painted, a plain text box goes into the frame's
composer box with the focus, and start-up lets input through between its steps
(``app.py``), so letters typed while the rest of the window is built appear in
it at once. The built composer then adopts the box's document and cursor
(``hand_over``): what was typed is there once, where it was, with its undo
history, and nothing is typed twice.

Only text and moving or deleting in it are acted on here. A key that means
something only the built window knows (Enter sends, Esc stops, Tab moves on, a
shortcut) waits, and so does every key after it, so their order is kept: they
are replayed on the built window, as if typed then.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QEvent, QObject
from PySide6.QtWidgets import QApplication, QPlainTextEdit

if TYPE_CHECKING:
    from PySide6.QtGui import QKeyEvent
    from PySide6.QtWidgets import QWidget

    from pidesktop.ui.chat.composer import PromptEdit

# Qt::Key values (ints, so the ``Qt`` namespace is not built for them): keys the box handles itself.
_BACKSPACE, _DELETE, _HOME, _END, _LEFT, _UP, _RIGHT, _DOWN = (
    0x01000003,
    0x01000007,
    0x01000010,
    0x01000011,
    0x01000012,
    0x01000013,
    0x01000014,
    0x01000015,
)
_CONTROL, _META = 0x04000000, 0x10000000  # Qt::ControlModifier, Qt::MetaModifier
EDITING_KEYS = frozenset({_BACKSPACE, _DELETE, _HOME, _END, _LEFT, _UP, _RIGHT, _DOWN})


class EarlyPrompt(QObject):
    """The first frame's text box and the keys it keeps for the built window."""

    def __init__(self, parent: QWidget):
        super().__init__(parent)
        self.edit = QPlainTextEdit(parent)
        self.edit.setObjectName("promptEdit")  # the composer's look, once the theme's style sheet is applied
        self.edit.setTabChangesFocus(True)
        self.held: list[QKeyEvent] | None = None  # from the first key it cannot act on: that key and all after
        self.edit.installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        kind = event.type()
        if kind not in (QEvent.Type.KeyPress, QEvent.Type.KeyRelease):
            return False
        if self.held is None and (kind == QEvent.Type.KeyRelease or takes(event)):  # type: ignore[arg-type]
            return False
        if kind == QEvent.Type.KeyPress:
            if self.held is None:
                self.held = []
            self.held.append(event.clone())  # type: ignore[arg-type]
        return True

    def hand_over(self, prompt: PromptEdit) -> list[QKeyEvent]:
        """The composer's box takes this one's document and cursor; the keys kept, for ``replay`` once the
        window is built."""
        self.edit.removeEventFilter(self)
        document, cursor = self.edit.document(), self.edit.textCursor()
        document.setParent(prompt)  # kept when the box goes with the frame
        self.edit.setDocument(None)  # type: ignore[arg-type]  # the box lets go of it (an empty one of its own)
        prompt.adopt(document, cursor)
        held, self.held = self.held or [], None
        return held


def takes(event: QKeyEvent) -> bool:
    """Whether the early box acts on this key itself: text typed, or moving and deleting in it."""
    # From the key's combined int: event.modifiers() would build the Qt namespace's types (20-40 ms) at the
    # first key, in the middle of the start.
    if event.keyCombination().toCombined() & (_CONTROL | _META):
        return event.key() in EDITING_KEYS  # Ctrl+Left, Ctrl+Backspace; any other is a shortcut
    text = event.text()
    return bool(text) and text.isprintable() or event.key() in EDITING_KEYS


def replay(event: QKeyEvent, prompt: PromptEdit, window: QWidget) -> None:
    """A kept key, on the built window: one of its shortcuts if it is one, else typed into the composer."""
    from PySide6.QtGui import QKeySequence

    pressed = QKeySequence(event.keyCombination())
    for action in window.actions():
        if action.isEnabled() and any(shortcut == pressed for shortcut in action.shortcuts()):
            action.trigger()
            return
    QApplication.sendEvent(prompt, event)
