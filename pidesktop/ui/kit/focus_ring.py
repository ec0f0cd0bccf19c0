"""The ring around the button, chip or box that keyboard focus is on, in every window of the app.

The style sheets draw buttons and chips with their own borders, which turns
off the style's focus rectangle: a person moving with Tab could not see where
they were. One ring follows the focus instead: an accent outline drawn just
inside the focused control, as a transparent child laid over it. It shows only when focus arrived from
the keyboard (Qt marks the window with ``WA_KeyboardFocusChange``), so a mouse
click never leaves a ring behind; text fields, lists and the transcript show
their focus themselves and get none.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, QRectF, Qt
from PySide6.QtGui import QColor, QPainter, QPen
from PySide6.QtWidgets import QAbstractButton, QApplication, QComboBox, QWidget
from shiboken6 import isValid

RING = 2.0  # px, just inside the control's edge
RADIUS = 10.0  # the chips' own corner radius (a shorter control gets half its height)


class FocusRing(QWidget):
    """A transparent child laid over the focused control: drawn above it, and clipped to it alone."""

    def __init__(self, colour: str, inner: str):
        super().__init__()
        self.colour = QColor(colour)
        self.inner = QColor(inner)  # a thin line inside the ring: it shows on a control filled with the accent
        self.setAttribute(Qt.WidgetAttribute.WA_TransparentForMouseEvents)
        self.setAttribute(Qt.WidgetAttribute.WA_NoSystemBackground)
        self.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.hide()

    def follow(self, control: QWidget | None) -> None:
        watched = self.parentWidget()
        if watched is not None and watched is not control:
            watched.removeEventFilter(self)
        if control is None:
            self.hide()
            return
        if watched is not control:
            self.setParent(control)
            control.installEventFilter(self)
        self.setGeometry(control.rect())
        self.show()
        self.raise_()

    def around(self) -> QWidget | None:
        return self.parentWidget() if self.isVisible() else None

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        control = self.parentWidget()
        if event.type() == QEvent.Type.Resize and control is not None and watched is control:
            self.setGeometry(control.rect())
        return False

    def paintEvent(self, event) -> None:
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        painter.setPen(QPen(self.colour, RING))
        painter.setBrush(Qt.BrushStyle.NoBrush)
        box = QRectF(self.rect()).adjusted(RING / 2, RING / 2, -RING / 2, -RING / 2)
        radius = min(RADIUS, box.height() / 2)
        painter.drawRoundedRect(box, radius, radius)
        painter.setPen(QPen(self.inner, 1.0))
        inside = box.adjusted(RING / 2 + 0.5, RING / 2 + 0.5, -RING / 2 - 0.5, -RING / 2 - 0.5)
        painter.drawRoundedRect(inside, radius - RING, radius - RING)
        painter.end()


_ring: FocusRing | None = None
_colours = ("#2563EB", "#FFFFFF")  # the ring, the line inside it
_following: set[int] = set()  # the applications whose focus is followed (one in the app, one per test run)


def install(app: QApplication, colour: str, inner: str) -> None:
    """Follow the focus in ``app`` from now on (connected once; a later call only changes the colours)."""
    global _colours
    _colours = (colour, inner)
    if id(app) not in _following:
        _following.add(id(app))
        app.focusChanged.connect(_moved)
    ring = _alive()
    if ring is not None:
        ring.colour, ring.inner = QColor(colour), QColor(inner)
        ring.update()


def shown_on() -> QWidget | None:
    """The control the ring is around now, or None."""
    ring = _alive()
    return ring.around() if ring is not None else None


def wants_ring(widget: QWidget | None) -> bool:
    """A control that shows no focus of its own (buttons of every kind, drop-down boxes), reached from the
    keyboard: Qt marks its window when a focus change came from Tab."""
    return isinstance(widget, (QAbstractButton, QComboBox)) and widget.window().testAttribute(
        Qt.WidgetAttribute.WA_KeyboardFocusChange
    )


def _moved(_old: QWidget | None, new: QWidget | None) -> None:
    global _ring
    ring = _alive()
    if not wants_ring(new):
        if ring is not None:
            ring.follow(None)
        return
    # The ring is the child of the control it is drawn on: when that control goes, so does the ring, and the
    # next one is made anew.
    if ring is None:
        ring = _ring = FocusRing(*_colours)
    ring.follow(new)


def _alive() -> FocusRing | None:
    return _ring if _ring is not None and isValid(_ring) else None
