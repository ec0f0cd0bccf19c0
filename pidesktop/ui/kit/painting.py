"""Small painting helpers shared by the list delegates."""

from __future__ import annotations

from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QColor, QPainter, QPainterPath, QPen
from PySide6.QtWidgets import QStyle, QStyleOptionViewItem

from pidesktop.ui.kit.theme import Theme


def paint_row_card(painter: QPainter, option: QStyleOptionViewItem, theme: Theme) -> None:
    """The rounded hover/selection background of a list row (8 px in, 8 px radius)."""
    selected = bool(option.state & QStyle.StateFlag.State_Selected)
    hovered = bool(option.state & QStyle.StateFlag.State_MouseOver)
    if selected or hovered:
        back = QPainterPath()
        back.addRoundedRect(QRectF(option.rect.adjusted(8, 2, -8, -2)), 8, 8)
        painter.fillPath(back, QColor(theme.selected if selected else theme.hover))


def paint_focus(painter: QPainter, rect: QRectF, theme: Theme) -> None:
    """The keyboard focus on a painted target: a rounded accent outline just outside it."""
    painter.save()
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    pen = QPen(QColor(theme.accent))
    pen.setWidthF(2.0)
    painter.setPen(pen)
    painter.setBrush(Qt.BrushStyle.NoBrush)
    painter.drawRoundedRect(rect.adjusted(-2, -2, 2, 2), 7, 7)
    painter.restore()
