"""Small painting helpers shared by the list delegates."""

from __future__ import annotations

from PySide6.QtCore import QRectF
from PySide6.QtGui import QColor, QPainter, QPainterPath
from PySide6.QtWidgets import QStyle, QStyleOptionViewItem

from pidesktop.ui.theme import Theme


def paint_row_card(painter: QPainter, option: QStyleOptionViewItem, theme: Theme) -> None:
    """The rounded hover/selection background of a list row (8 px in, 8 px radius)."""
    selected = bool(option.state & QStyle.StateFlag.State_Selected)
    hovered = bool(option.state & QStyle.StateFlag.State_MouseOver)
    if selected or hovered:
        back = QPainterPath()
        back.addRoundedRect(QRectF(option.rect.adjusted(8, 2, -8, -2)), 8, 8)
        painter.fillPath(back, QColor(theme.selected if selected else theme.hover))
