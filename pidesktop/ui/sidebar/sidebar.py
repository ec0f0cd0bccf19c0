"""The sidebar: a New chat button over the session tree.

The tree is a ``QTreeView`` over ``SessionTreeModel`` with one delegate that
paints both group headers and session rows (title elided, relative time on
the right), so 10,000 rows cost no widgets.
"""

from __future__ import annotations

import time

from PySide6.QtCore import QModelIndex, QPointF, QRect, QSize, Qt, QTimer, Signal
from PySide6.QtGui import QAction, QColor, QFont, QKeySequence, QPainter, QPainterPath, QPen
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QLineEdit,
    QMenu,
    QPushButton,
    QStyle,
    QStyledItemDelegate,
    QStyleOptionViewItem,
    QToolButton,
    QTreeView,
    QVBoxLayout,
    QWidget,
)

from pidesktop.clock import now_ms
from pidesktop.ui.kit import theme as themes
from pidesktop.ui.kit.session_rows import display_title, is_native
from pidesktop.ui.kit.timefmt import relative
from pidesktop.ui.sidebar import native_rows, project_rows
from pidesktop.ui.sidebar.search_entry import SearchEntry
from pidesktop.ui.sidebar.session_model import SessionTreeModel

# One height for every row: with uniform heights Qt asks for a size once, not
# once per row, which keeps a 10,000-chat sidebar instant.
ROW_HEIGHT = 34
CLOCK_MS = 30_000  # how often the rows' relative times move on (all rows at once)
FORK_SUFFIX = " (fork)"  # what session.fork appends to a copied chat's title
FORK_MARK_WIDTH = 12  # the branch mark drawn before a fork's title, plus its gap


def is_fork(session: dict) -> bool:
    """A chat made by Fork: the host names it "<title> (fork)" (or says ``forkedFrom`` when it knows)."""
    return (
        bool(session.get("forkedFrom"))
        or (session.get("title") or "").endswith(FORK_SUFFIX)
        or native_rows.is_fork(session)
    )


# Combined once, not per painted row: arithmetic on Python enum flags costs microseconds.
LEFT = Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter
RIGHT = Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter
SELECTED = QStyle.StateFlag.State_Selected
HOVERED = QStyle.StateFlag.State_MouseOver


class SessionDelegate(QStyledItemDelegate):
    """Repaints the visible rows after every page while the sidebar loads, so a
    row reads its session dict once and never goes through ``data()``."""

    def __init__(self, view: QTreeView, theme: themes.Theme):
        super().__init__(view)
        self._view = view
        self.theme = theme
        self.unread: set[str] = set()  # sessions with an unread inbox entry
        self._colors: dict[str, QColor] = {}
        # One clock for every paint until the next full refresh: a row repainted in part (a hover, a
        # popup closing over it) must draw the same time text, or the old and new labels overlap.
        self.now_ms = now_ms()

    def tick(self) -> None:
        """Move the relative times on; the caller repaints the whole viewport."""
        self.now_ms = now_ms()

    def sizeHint(self, option: QStyleOptionViewItem, index: QModelIndex) -> QSize:
        return QSize(option.rect.width(), ROW_HEIGHT)

    def _color(self, name: str) -> QColor:
        color = self._colors.get(name)
        if color is None:
            color = self._colors[name] = QColor(name)
        return color

    def paint(self, painter: QPainter, option: QStyleOptionViewItem, index: QModelIndex) -> None:
        model = self._view.model()
        session = model.session_at(index)
        group = model.group_at(index) if session is None else None
        painter.save()
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        rect = option.rect.adjusted(8, 1, -8, -1)
        if session is not None:
            rect.setLeft(rect.left() + project_rows.indent(model, index))  # a chat of a grouped project
            self._paint_session(painter, option, session, rect)
        elif group is not None and not project_rows.paint_header(self, painter, option, index, rect, group):
            self._paint_group(painter, option, index, rect, group.label)
        painter.restore()

    def _paint_group(
        self, painter: QPainter, option: QStyleOptionViewItem, index: QModelIndex, rect: QRect, label: str
    ) -> None:
        font = QFont(option.font)
        font.setPointSizeF(font.pointSizeF() * 0.9)
        font.setWeight(QFont.Weight.DemiBold)
        painter.setFont(font)
        painter.setPen(self._color(self.theme.muted))
        arrow = "▾" if self._view.isExpanded(index) else "▸"
        painter.drawText(rect.adjusted(4, 6, -4, 0), LEFT, f"{arrow}  {label}")

    def _paint_session(self, painter: QPainter, option: QStyleOptionViewItem, session: dict, rect: QRect) -> None:
        t = self.theme
        state = option.state
        selected = bool(state & SELECTED)
        if selected or state & HOVERED:
            path = QPainterPath()
            path.addRoundedRect(rect, 8, 8)
            painter.fillPath(path, self._color(t.selected if selected else t.hover))
        when = relative(session.get("updatedAt", 0), self.now_ms)
        painter.setFont(option.font)
        metrics = painter.fontMetrics()
        time_width = metrics.horizontalAdvance(when) + 4
        inner = rect.adjusted(12, 0, -10, 0)
        painter.setPen(self._color(t.muted))
        painter.drawText(inner, RIGHT, when)
        title_rect = QRect(inner.left(), inner.top(), inner.width() - time_width - 8, inner.height())
        tag = native_rows.badge(session)
        if tag:  # a pi session ("pi") or a copy imported from one ("pi copy"): a small tag before the time
            left = native_rows.paint_badge(
                painter, option.font, inner.right() - time_width - 2, inner.center().y() + 0.5, t.muted, tag
            )
            title_rect.setRight(int(left) - native_rows.BADGE_GAP)
        status = (session.get("lastTurn") or {}).get("status")
        if status in ("error", "running"):
            color = QColor(t.danger if status == "error" else t.accent)
            if status == "running":  # a gentle pulse while a reply streams
                color.setAlphaF(0.45 + 0.55 * abs(((time.monotonic() * 1.2) % 2) - 1))
            painter.setBrush(color)
            painter.setPen(Qt.PenStyle.NoPen)
            painter.drawEllipse(title_rect.left(), title_rect.center().y() - 3, 6, 6)
            title_rect.setLeft(title_rect.left() + 12)
        if session["id"] in self.unread:
            bold = QFont(option.font)
            bold.setWeight(QFont.Weight.DemiBold)
            painter.setFont(bold)
            metrics = painter.fontMetrics()
        shown = display_title(session)
        if is_fork(session):
            # The "(fork)" suffix is the first thing elision cuts; a mark before the title always shows.
            if shown.endswith(FORK_SUFFIX):
                shown = shown[: -len(FORK_SUFFIX)]
            self._paint_fork_mark(painter, title_rect.left(), title_rect.center().y())
            title_rect.setLeft(title_rect.left() + FORK_MARK_WIDTH + 6)
        painter.setPen(self._color(t.text))
        title = metrics.elidedText(shown, Qt.TextElideMode.ElideRight, title_rect.width())
        painter.drawText(title_rect, LEFT, title)

    def _paint_fork_mark(self, painter: QPainter, left: int, middle: int) -> None:
        """A small branch: a stem with a second line leaving it, drawn (no font has one everywhere)."""
        pen = QPen(self._color(self.theme.muted), 1.4)
        pen.setCapStyle(Qt.PenCapStyle.RoundCap)
        painter.setPen(pen)
        painter.setBrush(Qt.BrushStyle.NoBrush)
        x0, x1, top, bottom = left + 3.0, left + 9.0, middle - 5.0, middle + 5.0
        painter.drawEllipse(QPointF(x0, bottom), 1.6, 1.6)
        painter.drawEllipse(QPointF(x0, top), 1.6, 1.6)
        painter.drawEllipse(QPointF(x1, top), 1.6, 1.6)
        painter.drawLine(QPointF(x0, top + 1.6), QPointF(x0, bottom - 1.6))
        branch = QPainterPath(QPointF(x1, top + 1.6))
        branch.cubicTo(QPointF(x1, middle + 1), QPointF(x0, middle - 1), QPointF(x0, middle + 2.5))
        painter.drawPath(branch)

    def createEditor(self, parent: QWidget, option: QStyleOptionViewItem, index: QModelIndex) -> QWidget:
        editor = QLineEdit(parent)
        editor.setMaxLength(80)
        editor.setPlaceholderText(self.tr("Chat title"))
        return editor

    def updateEditorGeometry(self, editor: QWidget, option: QStyleOptionViewItem, index: QModelIndex) -> None:
        editor.setGeometry(option.rect.adjusted(8, 1, -8, -1))


class _SessionTree(QTreeView):
    """The chats' tree; it notes where the last press landed (a project header's "+" starts a chat).

    A method of its own rather than an event filter on its viewport: asking a view for its viewport from
    Python makes PySide build the types of every widget class the viewport could be (about 70 enums, 5-15
    ms), which the sidebar shown at start-up, before the rest of the window, has no need to pay."""

    press_x = -1

    def mousePressEvent(self, event) -> None:
        self.press_x = int(event.position().x())
        super().mousePressEvent(event)


class Sidebar(QWidget):
    sessionActivated = Signal(str)
    newChatRequested = Signal()
    deleteRequested = Signal(str)
    forkRequested = Signal(str)
    compactRequested = Signal(str)  # summarise the chat's earlier messages now
    automationsRequested = Signal()  # open the Automations window
    settingsRequested = Signal()  # open Settings
    searchRequested = Signal()  # the search field on top was clicked: open the search window
    exportRequested = Signal(str)
    newChatInProjectRequested = Signal(str)  # a project header's "+": its path
    projectMenuRequested = Signal(object, str)  # (menu, path): the project actions add theirs
    groupMenuRequested = Signal(object, str)  # (menu, project group id)
    projectPinToggled = Signal(str, bool)

    def __init__(self, model: SessionTreeModel, theme: themes.Theme, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("sidebar")
        self.setAttribute(Qt.WidgetAttribute.WA_StyledBackground, True)
        self.model = model
        self._selected_id: str | None = None
        self.new_chat_button = QPushButton("+  " + self.tr("New chat"))
        self.new_chat_button.setObjectName("newChat")
        self.new_chat_button.setToolTip(self.tr("New chat (Ctrl+N)"))
        self.new_chat_button.setCursor(Qt.CursorShape.PointingHandCursor)
        self.new_chat_button.clicked.connect(self.newChatRequested)
        self.search_entry = SearchEntry()
        self.search_entry.searchRequested.connect(self.searchRequested)

        self.tree = _SessionTree()
        self.tree.setObjectName("sessionTree")
        self.tree.setModel(model)
        self.tree.setHeaderHidden(True)
        self.tree.setRootIsDecorated(False)
        self.tree.setIndentation(0)
        self.tree.setUniformRowHeights(True)
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
        model.relaidOut.connect(self._after_relayout)
        # A chat with newer activity moves up its group: its row leaves and comes back. Meanwhile a
        # neighbour would become current (and be opened); the current chat is held until it is back.
        self._held: str | None = None
        model.aboutToMove.connect(self._hold_current)
        model.moved.connect(self._release_held)
        self._pulse = QTimer(self)
        self._pulse.setInterval(80)
        self._pulse.timeout.connect(self._repaint_running)
        self._pulse.start()
        self._clock = QTimer(self)
        self._clock.setInterval(CLOCK_MS)
        self._clock.timeout.connect(self._tick)
        self._clock.start()

        self.rename_action = QAction(self.tr("Rename"), self)
        self.rename_action.setShortcut(QKeySequence(Qt.Key.Key_F2))
        # F2 and Delete act on the chat picked from anywhere in the window (a click hands the keyboard to the
        # composer); a text field that has text keeps Delete for itself (see PromptEdit.event).
        self.rename_action.setShortcutContext(Qt.ShortcutContext.WindowShortcut)
        self.rename_action.triggered.connect(self.rename_current)
        self.delete_action = QAction(self.tr("Delete…"), self)
        self.delete_action.setShortcut(QKeySequence(QKeySequence.StandardKey.Delete))
        self.delete_action.setShortcutContext(Qt.ShortcutContext.WindowShortcut)
        self.delete_action.triggered.connect(self._delete_current)
        self.pin_action = QAction(self.tr("Pin"), self)
        self.pin_action.triggered.connect(lambda: self._toggle_session_flag("pinned"))
        self.archive_action = QAction(self.tr("Archive"), self)
        self.archive_action.triggered.connect(lambda: self._toggle_session_flag("archived"))
        self.fork_action = QAction(self.tr("Fork"), self)
        self.fork_action.setToolTip(self.tr("Copy this chat into a new one"))
        self.fork_action.triggered.connect(self._fork_current)
        self.compact_action = QAction(self.tr("Compact now"), self)
        self.compact_action.setToolTip(self.tr("Summarise the earlier messages to free the model's context"))
        self.compact_action.triggered.connect(self._compact_current)
        self.export_action = QAction(self.tr("Export…"), self)
        self.export_action.setToolTip(self.tr("Save this chat as Markdown or JSON"))
        self.export_action.triggered.connect(lambda: self._emit_current(self.exportRequested))
        self.move_up_action = QAction(self.tr("Move project up"), self)
        self.move_up_action.setShortcut(QKeySequence("Alt+Up"))
        self.move_up_action.setShortcutContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
        self.move_up_action.triggered.connect(lambda: self.move_current_project(-1))
        self.move_down_action = QAction(self.tr("Move project down"), self)
        self.move_down_action.setShortcut(QKeySequence("Alt+Down"))
        self.move_down_action.setShortcutContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
        self.move_down_action.triggered.connect(lambda: self.move_current_project(1))
        self.tree.addActions([self.rename_action, self.delete_action, self.move_up_action, self.move_down_action])

        self.view_button = QToolButton()
        self.view_button.setObjectName("viewButton")
        self.view_button.setText("⋯")
        self.view_button.setToolTip(self.tr("Sort and filter chats"))
        self.view_button.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        self.view_button.setMenu(self._view_menu())

        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 12, 0, 0)
        layout.setSpacing(8)
        search_row = QHBoxLayout()
        search_row.setContentsMargins(12, 0, 12, 0)
        search_row.addWidget(self.search_entry)
        layout.addLayout(search_row)
        button_row = QHBoxLayout()
        button_row.setContentsMargins(12, 0, 12, 0)
        button_row.setSpacing(8)
        button_row.addWidget(self.new_chat_button, 1)
        button_row.addWidget(self.view_button)
        layout.addLayout(button_row)
        layout.addWidget(self.tree, 1)
        self.automations_button = QPushButton(self.tr("Automations"))
        self.automations_button.setObjectName("sidebarFooter")
        self.automations_button.setToolTip(self.tr("Prompts that run on a schedule (Ctrl+Shift+A)"))
        self.automations_button.setCursor(Qt.CursorShape.PointingHandCursor)
        self.automations_button.setFlat(True)
        self.automations_button.clicked.connect(self.automationsRequested)
        self.settings_button = QPushButton(self.tr("Settings"))
        self.settings_button.setObjectName("sidebarFooter")
        self.settings_button.setToolTip(self.tr("Providers, tools, data and the look of the app (Ctrl+,)"))
        self.settings_button.setCursor(Qt.CursorShape.PointingHandCursor)
        self.settings_button.setFlat(True)
        self.settings_button.clicked.connect(self.settingsRequested)
        footer = QHBoxLayout()
        footer.setContentsMargins(12, 0, 12, 10)
        footer.addWidget(self.automations_button)
        footer.addStretch(1)
        footer.addWidget(self.settings_button)
        layout.addLayout(footer)

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

    def select_none(self) -> None:
        """No row is current: the chat shown has none (one not made yet, an automation's run) or is gone.
        Forgotten too as the row to keep selected when the tree is laid out again."""
        self._selected_id = None
        self.tree.setCurrentIndex(QModelIndex())

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
        group = self.model.group_at(index)
        menu = QMenu(self)
        if group is not None and group.path is not None:
            meta = self.model.prefs.project_meta(group.path)
            self.tree.setCurrentIndex(index)
            pin = menu.addAction(self.tr("Unpin project") if meta.get("pinned") else self.tr("Pin project"))
            pin.triggered.connect(lambda: self._toggle_project_flag(group.path, "pinned"))
            archive = menu.addAction(
                self.tr("Unarchive project") if meta.get("archived") else self.tr("Archive project")
            )
            archive.triggered.connect(lambda: self._toggle_project_flag(group.path, "archived"))
            menu.addSeparator()
            menu.addAction(self.move_up_action)
            menu.addAction(self.move_down_action)
            self.projectMenuRequested.emit(menu, group.path)
            menu.popup(self.tree.viewport().mapToGlobal(pos))
            return
        if group is not None and project_rows.is_group_key(group.key):
            self.groupMenuRequested.emit(menu, project_rows.group_id(group.key))
            if not menu.isEmpty():
                menu.popup(self.tree.viewport().mapToGlobal(pos))
            return
        session = self.model.session_at(index)
        if session is None:
            return
        self.tree.setCurrentIndex(index)
        self._enable_for(session)
        meta = self.model.prefs.session_meta(session["id"])
        self.pin_action.setText(self.tr("Unpin") if meta.get("pinned") else self.tr("Pin"))
        self.archive_action.setText(self.tr("Unarchive") if meta.get("archived") else self.tr("Archive"))
        menu.addAction(self.rename_action)
        menu.addAction(self.pin_action)
        menu.addAction(self.archive_action)
        menu.addAction(self.fork_action)
        menu.addAction(self.compact_action)
        menu.addAction(self.export_action)
        menu.addSeparator()
        menu.addAction(self.delete_action)
        menu.popup(self.tree.viewport().mapToGlobal(pos))

    def _view_menu(self) -> QMenu:
        menu = QMenu(self)
        prefs = self.model.prefs
        sessions = menu.addMenu(self.tr("Sort chats by"))
        for value, label in (
            ("recent", self.tr("Recent activity")),
            ("created", self.tr("Newest first")),
            ("oldest", self.tr("Oldest first")),
            ("name", self.tr("Name")),
        ):
            action = sessions.addAction(label)
            action.setCheckable(True)
            action.triggered.connect(lambda _=False, v=value: self._set_view("sessionView.sort", v))
            sessions.aboutToShow.connect(
                lambda a=action, v=value: a.setChecked(prefs.sidebar["sessionView"]["sort"] == v)
            )
        projects = menu.addMenu(self.tr("Sort projects by"))
        for value, label in (
            ("recent", self.tr("Recent activity")),
            ("created", self.tr("Newest first")),
            ("oldest", self.tr("Oldest first")),
            ("name", self.tr("Name")),
            ("manual", self.tr("Manual order (Alt+Up/Down)")),
        ):
            action = projects.addAction(label)
            action.setCheckable(True)
            action.triggered.connect(lambda _=False, v=value: self._set_view("projectSort", v))
            projects.aboutToShow.connect(lambda a=action, v=value: a.setChecked(prefs.sidebar["projectSort"] == v))
        self.show_archived_action = menu.addAction(self.tr("Show archived"))
        self.show_archived_action.setCheckable(True)
        self.show_archived_action.setChecked(prefs.sidebar["sessionView"]["archived"])
        self.show_archived_action.toggled.connect(lambda on: self._set_view("sessionView.archived", on))
        self.show_native_action = menu.addAction(self.tr("Show pi sessions"))
        self.show_native_action.setToolTip(self.tr("List the pi coding agent's own sessions beside your chats"))
        self.show_native_action.setCheckable(True)
        self.show_native_action.setChecked(native_rows.shown(prefs))
        self.show_native_action.toggled.connect(lambda on: self._set_view("sessionView.native", on))
        return menu

    def _set_view(self, key: str, value) -> None:
        prefs = self.model.prefs
        if key == "projectSort":
            prefs.sidebar["projectSort"] = value
        else:
            prefs.sidebar["sessionView"][key.split(".", 1)[1]] = value
        prefs.save()
        self.model.relayout()

    def _fork_current(self) -> None:
        session_id = self.current_session_id()
        if session_id:
            self.forkRequested.emit(session_id)

    def _compact_current(self) -> None:
        session_id = self.current_session_id()
        if session_id:
            self.compactRequested.emit(session_id)

    def _toggle_session_flag(self, flag: str) -> None:
        session_id = self.current_session_id()
        if session_id is None:
            return
        prefs = self.model.prefs
        prefs.set_session_flag(session_id, flag, not prefs.session_meta(session_id).get(flag, False))
        self.model.relayout()

    def _toggle_project_flag(self, path: str, flag: str) -> None:
        prefs = self.model.prefs
        value = not prefs.project_meta(path).get(flag, False)
        prefs.set_project_flag(path, flag, value)
        self.model.relayout()
        if flag == "pinned":
            self.projectPinToggled.emit(path, value)

    def _emit_current(self, signal) -> None:
        session_id = self.current_session_id()
        if session_id:
            signal.emit(session_id)

    def _hide_collapsed_groups(self) -> None:
        """A collapsed project group hides its projects' rows (they stay in the model)."""
        header = None
        for row in range(self.model.rowCount()):
            group = self.model.group_at(self.model.index(row, 0))
            if group is not None and project_rows.is_group_key(group.key):
                header = group.key
                continue
            member = (
                group is not None
                and header is not None
                and project_rows.header_of(self.model.project_index, group.key) == header
            )
            self.tree.setRowHidden(row, QModelIndex(), member and project_rows.collapsed(self.model.prefs, header))

    def move_current_project(self, step: int) -> None:
        """Manual project order: move the current project group one place up or down."""
        group = self.model.group_at(self.tree.currentIndex())
        if group is None or group.path is None:
            return
        paths = self.model.project_paths()
        position = paths.index(group.path)
        target = position + step
        if not 0 <= target < len(paths):
            return
        paths[position], paths[target] = paths[target], paths[position]
        self.model.prefs.set_project_order(paths)
        self.model.relayout()
        self.tree.setCurrentIndex(self.model.group_index(f"project:{group.path}"))

    def _hold_current(self, session_id: str) -> None:
        if session_id == self._selected_id and self.tree.currentIndex().isValid():
            self._held = session_id
            self.tree.selectionModel().blockSignals(True)

    def _release_held(self, session_id: str) -> None:
        if self._held != session_id:
            return
        self._held = None
        index = self.model.index_of(session_id)  # invalid when it moved out of sight (a filter)
        self.tree.setCurrentIndex(index)
        self.tree.selectionModel().blockSignals(False)
        self.tree.viewport().update()

    def _after_relayout(self) -> None:
        """Re-apply collapse state from the preferences and keep the current chat selected."""
        current = self._selected_id
        blocked = self.tree.selectionModel().blockSignals(True)
        try:
            for row in range(self.model.rowCount()):
                index = self.model.index(row, 0)
                group = self.model.group_at(index)
                collapsed = (
                    group is not None
                    and group.path is not None
                    and bool(self.model.prefs.project_meta(group.path).get("collapsed"))
                )
                self.tree.setExpanded(index, not collapsed)
            if current:
                index = self.model.index_of(current)
                if index.isValid():
                    self.tree.setCurrentIndex(index)
        finally:
            self.tree.selectionModel().blockSignals(blocked)
        self._hide_collapsed_groups()

    def _tick(self) -> None:
        self.delegate.tick()
        self.tree.viewport().update()

    def _repaint_running(self) -> None:
        if self.model.has_running():
            self.tree.viewport().update()

    def _clicked(self, index: QModelIndex) -> None:
        group = self.model.group_at(index)
        if group is not None and project_rows.is_group_key(group.key):  # fold the group's projects
            key = project_rows.pref_key(group.key)
            self.model.prefs.set_project_flag(key, "collapsed", not project_rows.collapsed(self.model.prefs, group.key))
            self._hide_collapsed_groups()
            self.tree.viewport().update()
            return
        if (
            group is not None
            and group.path is not None
            and project_rows.on_plus(self.tree.visualRect(index), self.tree.press_x)
        ):
            self.newChatInProjectRequested.emit(group.path)
            return
        if group is not None:
            expanded = not self.tree.isExpanded(index)
            self.tree.setExpanded(index, expanded)
            if group.path is not None:
                self.model.prefs.set_project_flag(group.path, "collapsed", not expanded)

    def _current_changed(self, current: QModelIndex, _previous: QModelIndex) -> None:
        session = self.model.session_at(current)
        if session is not None:
            self._selected_id = session["id"]
            self._enable_for(session)
            self.sessionActivated.emit(session["id"])

    def _enable_for(self, session: dict) -> None:
        """A pi session is read-only here: rename, delete and compact would be refused, so they are off."""
        writable = not is_native(session)
        for action in (self.rename_action, self.delete_action, self.compact_action):
            action.setEnabled(writable)

    def _expand_new_groups(self, parent: QModelIndex, first: int, last: int) -> None:
        if not parent.isValid():
            for row in range(first, last + 1):
                index = self.model.index(row, 0)
                group = self.model.group_at(index)
                if group is None or not self.model.prefs.project_meta(group.path).get("collapsed"):
                    self.tree.expand(index)
