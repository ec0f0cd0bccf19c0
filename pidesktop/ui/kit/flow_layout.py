"""A layout that lines its widgets up left to right and wraps onto a new line when they do not fit."""

from __future__ import annotations

from PySide6.QtCore import QPoint, QRect, QSize, Qt
from PySide6.QtWidgets import QLayout, QLayoutItem, QWidget


class FlowLayout(QLayout):
    """Each widget at its size hint (never wider than the row): a long label wraps to the next line, not clipped."""

    def __init__(self, parent: QWidget | None = None, spacing: int = 6) -> None:
        super().__init__(parent)
        self._items: list[QLayoutItem] = []
        self._spacing = spacing
        self.setContentsMargins(0, 0, 0, 0)

    def addItem(self, item: QLayoutItem) -> None:
        self._items.append(item)

    def count(self) -> int:
        return len(self._items)

    def itemAt(self, index: int) -> QLayoutItem | None:
        return self._items[index] if 0 <= index < len(self._items) else None

    def takeAt(self, index: int) -> QLayoutItem | None:
        return self._items.pop(index) if 0 <= index < len(self._items) else None

    def expandingDirections(self) -> Qt.Orientation:
        return Qt.Orientation(0)

    def hasHeightForWidth(self) -> bool:
        return True

    def heightForWidth(self, width: int) -> int:
        return self._arrange(QRect(0, 0, width, 0), move=False)

    def setGeometry(self, rect: QRect) -> None:
        super().setGeometry(rect)
        height = self._arrange(rect, move=True)
        # Not every parent layout asks heightForWidth (a splitter does not): the lines' height as the
        # holder's minimum makes room for a wrapped line all the same.
        holder = self.parentWidget()
        if holder is not None and holder.minimumHeight() != height:
            holder.setMinimumHeight(height)

    def sizeHint(self) -> QSize:
        # All on one line: what the row asks for when there is room.
        shown = [item.sizeHint() for item in self._visible()]
        width = sum(s.width() for s in shown) + self._spacing * max(0, len(shown) - 1)
        return QSize(width, max((s.height() for s in shown), default=0))

    def minimumSize(self) -> QSize:
        size = QSize()
        for item in self._visible():
            size = size.expandedTo(item.minimumSize())
        return size

    def _visible(self) -> list[QLayoutItem]:
        return [item for item in self._items if not item.isEmpty()]

    def _arrange(self, rect: QRect, move: bool) -> int:
        """Places (or, with ``move`` False, only measures) the lines; returns their total height."""
        x, y, line_height = rect.x(), rect.y(), 0
        for item in self._visible():
            hint = item.sizeHint()
            width = min(hint.width(), rect.width())
            if x > rect.x() and x + width > rect.right() + 1:
                x, y, line_height = rect.x(), y + line_height + self._spacing, 0
            if move:
                item.setGeometry(QRect(QPoint(x, y), QSize(width, hint.height())))
            x += width + self._spacing
            line_height = max(line_height, hint.height())
        return y + line_height - rect.y()
