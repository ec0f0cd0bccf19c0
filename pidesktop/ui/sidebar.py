"""The sidebar: a New chat button over the session tree.

The tree is a ``QTreeView`` over ``SessionTreeModel`` with one delegate that
paints both group headers and session rows (title elided, relative time on
the right), so 10,000 rows cost no widgets.
"""

from __future__ import annotations

import time

from PySide6.QtCore import QModelIndex, QRect, QSize, Qt, Signal
from PySide6.QtGui import QAction, QColor, QFont, QKeySequence, QPainter, QPainterPath
from PySide6.QtWidgets import (QAbstractItemView, QLineEdit, QMenu, QPushButton, QStyle,
                               QStyledItemDelegate, QStyleOptionViewItem, QTreeView, QVBoxLayout,
                               QWidget)

from . import theme as themes
from .session_model import IsGroupRole, SessionTreeModel
from .timefmt import relative

SESSION_ROW_HEIGHT = 34
GROUP_ROW_HEIGHT = 30


class SessionDelegate(QStyledItemDelegate):
    def __init__(self, view: QTreeView, theme: themes.Theme):
        super().__init__(view)
        self._view = view
        self.theme = theme

    def sizeHint(self, option: QStyleOptionViewItem, index: QModelIndex) -> QSize:
        height = GROUP_ROW_HEIGHT if index.data(IsGroupRole) else SESSION_ROW_HEIGHT
        return QSize(option.rect.width(), height)

    def paint(self, painter: QPainter, option: QStyleOptionViewItem, index: QModelIndex) -> None:
        t = self.theme
        painter.save()
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        rect = option.rect.adjusted(8, 1, -8, -1)
        if index.data(IsGroupRole):
            font = QFont(option.font)
            font.setPointSizeF(font.pointSizeF() * 0.9)
            font.setWeight(QFont.Weight.DemiBold)
            painter.setFont(font)
            painter.setPen(QColor(t.muted))
            arrow = "▾" if self._view.isExpanded(index) else "▸"
            text_rect = rect.adjusted(4, 6, -4, 0)
            painter.drawText(text_rect, Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter,
                             f"{arrow}  {index.data()}")
            painter.restore()
            return
        selected = bool(option.state & QStyle.StateFlag.State_Selected)
        hovered = bool(option.state & QStyle.StateFlag.State_MouseOver)
        if selected or hovered:
            path = QPainterPath()
            path.addRoundedRect(rect, 8, 8)
            painter.fillPath(path, QColor(t.selected if selected else t.hover))
        session = self._view.model().session_at(index) or {}
        when = relative(session.get("updatedAt", 0), int(time.time() * 1000))
        painter.setFont(option.font)
        metrics = painter.fontMetrics()
        time_width = metrics.horizontalAdvance(when) + 4
        inner = rect.adjusted(12, 0, -10, 0)
        painter.setPen(QColor(t.muted))
        painter.drawText(inner, Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter, when)
        title_rect = QRect(inner.left(), inner.top(), inner.width() - time_width - 8, inner.height())
        status = (session.get("lastTurn") or {}).get("status")
        if status == "error":
            painter.setBrush(QColor(t.danger))
            painter.setPen(Qt.PenStyle.NoPen)
            painter.drawEllipse(title_rect.left(), title_rect.center().y() - 3, 6, 6)
            title_rect.setLeft(title_rect.left() + 12)
        painter.setPen(QColor(t.text))
        title = metrics.elidedText(str(index.data()), Qt.TextElideMode.ElideRight, title_rect.width())
        painter.drawText(title_rect, Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter, title)
        painter.restore()

    def createEditor(self, parent: QWidget, option: QStyleOptionViewItem, index: QModelIndex) -> QWidget:
        editor = QLineEdit(parent)
        editor.setMaxLength(80)
        editor.setPlaceholderText("Chat title")
        return editor

    def updateEditorGeometry(self, editor: QWidget, option: QStyleOptionViewItem, index: QModelIndex) -> None:
        editor.setGeometry(option.rect.adjusted(8, 1, -8, -1))


class Sidebar(QWidget):
    sessionActivated = Signal(str)
    newChatRequested = Signal()
    deleteRequested = Signal(str)

    def __init__(self, model: SessionTreeModel, theme: themes.Theme, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("sidebar")
        self.setAttribute(Qt.WidgetAttribute.WA_StyledBackground, True)
        self.model = model
        self.new_chat_button = QPushButton("+  New chat")
        self.new_chat_button.setObjectName("newChat")
        self.new_chat_button.setToolTip("New chat (Ctrl+N)")
        self.new_chat_button.setCursor(Qt.CursorShape.PointingHandCursor)
        self.new_chat_button.clicked.connect(self.newChatRequested)

        self.tree = QTreeView()
        self.tree.setObjectName("sessionTree")
        self.tree.setModel(model)
        self.tree.setHeaderHidden(True)
        self.tree.setRootIsDecorated(False)
        self.tree.setIndentation(0)
        self.tree.setUniformRowHeights(False)
        self.tree.setMouseTracking(True)
        self.tree.setExpandsOnDoubleClick(False)
        self.tree.setEditTriggers(QAbstractItemView.EditTrigger.EditKeyPressed)
        self.tree.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.tree.setVerticalScrollMode(QAbstractItemView.ScrollMode.ScrollPerPixel)
        self.delegate = SessionDelegate(self.tree, theme)
        self.tree.setItemDelegate(self.delegate)
        self.tree.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.tree.customContextMenuRequested.connect(self._show_menu)
        self.tree.clicked.connect(self._clicked)
        self.tree.selectionModel().currentChanged.connect(self._current_changed)
        model.rowsInserted.connect(self._expand_new_groups)
        model.modelReset.connect(self.tree.expandAll)

        self.rename_action = QAction("Rename", self)
        self.rename_action.setShortcut(QKeySequence(Qt.Key.Key_F2))
        self.rename_action.setShortcutContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
        self.rename_action.triggered.connect(self.rename_current)
        self.delete_action = QAction("Delete…", self)
        self.delete_action.setShortcut(QKeySequence(QKeySequence.StandardKey.Delete))
        self.delete_action.setShortcutContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
        self.delete_action.triggered.connect(self._delete_current)
        self.tree.addActions([self.rename_action, self.delete_action])

        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 12, 0, 0)
        layout.setSpacing(8)
        button_row = QVBoxLayout()
        button_row.setContentsMargins(12, 0, 12, 0)
        button_row.addWidget(self.new_chat_button)
        layout.addLayout(button_row)
        layout.addWidget(self.tree, 1)

    def set_theme(self, theme: themes.Theme) -> None:
        self.delegate.theme = theme
        self.tree.viewport().update()

    def current_session_id(self) -> str | None:
        session = self.model.session_at(self.tree.currentIndex())
        return session["id"] if session else None

    def select(self, session_id: str) -> None:
        index = self.model.index_of(session_id)
        if index.isValid():
            self.tree.setCurrentIndex(index)
            self.tree.scrollTo(index)

    def rename_current(self) -> None:
        index = self.tree.currentIndex()
        if self.model.session_at(index) is not None:
            self.tree.edit(index)

    def _delete_current(self) -> None:
        session_id = self.current_session_id()
        if session_id:
            self.deleteRequested.emit(session_id)

    def _show_menu(self, pos) -> None:
        index = self.tree.indexAt(pos)
        if self.model.session_at(index) is None:
            return
        self.tree.setCurrentIndex(index)
        menu = QMenu(self)
        menu.addAction(self.rename_action)
        menu.addSeparator()
        menu.addAction(self.delete_action)
        menu.popup(self.tree.viewport().mapToGlobal(pos))

    def _clicked(self, index: QModelIndex) -> None:
        if index.data(IsGroupRole):
            self.tree.setExpanded(index, not self.tree.isExpanded(index))

    def _current_changed(self, current: QModelIndex, _previous: QModelIndex) -> None:
        session = self.model.session_at(current)
        if session is not None:
            self.sessionActivated.emit(session["id"])

    def _expand_new_groups(self, parent: QModelIndex, first: int, last: int) -> None:
        if not parent.isValid():
            for row in range(first, last + 1):
                self.tree.expand(self.model.index(row, 0))
