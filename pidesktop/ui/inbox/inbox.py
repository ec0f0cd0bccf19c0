"""The inbox: finished tasks the person did not watch, behind a bell in the header.

``InboxModel`` holds the notifications the host lists (newest first, paged by
cursor) and keeps itself current from host events handed to ``handle_event``.
``BellButton`` paints a bell with the unread count; ``InboxPanel`` is the list
that slides over the right side of the conversation. Every host call goes
through the bus; a failure is shown as one line in the panel.
"""

from __future__ import annotations

from PySide6.QtCore import (
    QT_TRANSLATE_NOOP,
    QCoreApplication,
    QEasingCurve,
    QEvent,
    QModelIndex,
    QObject,
    QPersistentModelIndex,
    QPoint,
    QPropertyAnimation,
    QRect,
    QRectF,
    QSize,
    Qt,
    Signal,
)
from PySide6.QtGui import QColor, QFont, QPainter, QPainterPath, QPen
from PySide6.QtWidgets import (
    QAbstractItemView,
    QFrame,
    QGraphicsDropShadowEffect,
    QHBoxLayout,
    QLabel,
    QListView,
    QMessageBox,
    QPushButton,
    QStackedWidget,
    QStyledItemDelegate,
    QStyleOptionViewItem,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from pidesktop.bus import HostClient, HostError, topics
from pidesktop.clock import now_ms
from pidesktop.ui.kit.dialog_style import style_message_box
from pidesktop.ui.kit.ops import task_op
from pidesktop.ui.kit.paged_model import PagedListModel
from pidesktop.ui.kit.painting import paint_row_card
from pidesktop.ui.kit.plain_errors import sentence_for_code
from pidesktop.ui.kit.tasks import spawn
from pidesktop.ui.kit.theme import Theme
from pidesktop.ui.kit.timefmt import relative

PAGE = 50
MAX_PAGE = 200  # the host's largest page (and its cap on stored notifications)
PANEL_WIDTH = 360
ROW_HEIGHT = 56
# English source texts, shown through ``_tr`` (translation context "Inbox").
UNTITLED_TASK = QT_TRANSLATE_NOOP("Inbox", "Untitled task")
EMPTY_TEXT = QT_TRANSLATE_NOOP("Inbox", "Nothing here yet — finished tasks you didn't watch show up here.")

# Roles carry plain values; views read whole rows with ``row_at``.
NotificationIdRole = Qt.ItemDataRole.UserRole + 1
SessionIdRole = Qt.ItemDataRole.UserRole + 2
UnreadRole = Qt.ItemDataRole.UserRole + 3

_Index = QModelIndex | QPersistentModelIndex


def _tr(text: str) -> str:
    return QCoreApplication.translate("Inbox", text)


def title_of(notification: dict) -> str:
    return notification.get("sessionTitle") or _tr(UNTITLED_TASK)


def status_of(notification: dict) -> str:
    """The row's second line: "Completed", or what went wrong as a sentence (never a code)."""
    if notification.get("kind") == "task.failed":
        code = notification.get("errorCode")
        if code:
            return sentence_for_code(str(code), QCoreApplication.translate("Inbox", "The reply failed."))
        return QCoreApplication.translate("Inbox", "Failed")
    return QCoreApplication.translate("Inbox", "Completed")


def badge_text(count: int) -> str:
    return "99+" if count > 99 else str(count)


class InboxModel(PagedListModel):
    task_name = "inbox-load-more"
    unreadChanged = Signal(int)

    def __init__(self, client: HostClient, parent: QObject | None = None):
        super().__init__(client, parent)
        self.unread_count = 0

    # -- Qt ------------------------------------------------------------------
    def data(self, index: _Index, role: int = Qt.ItemDataRole.DisplayRole):
        row = self.row_at(index)
        if row is None:
            return None
        if role == Qt.ItemDataRole.DisplayRole:
            return title_of(row)
        if role == Qt.ItemDataRole.ToolTipRole:
            return f"{title_of(row)}\n{status_of(row)}"
        if role == Qt.ItemDataRole.AccessibleTextRole:
            state = self.tr("Unread. ") if row.get("readAt") is None else ""
            return f"{state}{title_of(row)}: {status_of(row)}"
        if role == NotificationIdRole:
            return row["id"]
        if role == SessionIdRole:
            return row["sessionId"]
        if role == UnreadRole:
            return row.get("readAt") is None
        return None

    # -- lookups ---------------------------------------------------------------
    def row_of(self, notification_id: str) -> int:
        return next((i for i, row in enumerate(self.rows) if row["id"] == notification_id), -1)

    # -- host work ---------------------------------------------------------------
    async def load(self) -> None:
        """The first page again (as many rows as were loaded, so paging is kept)."""
        self._generation += 1
        generation = self._generation
        limit = min(MAX_PAGE, max(PAGE, len(self.rows)))
        reply = await self.client.call("notifications.list", {"limit": limit})
        if generation != self._generation:
            return
        self.beginResetModel()
        self.rows = list(reply["notifications"])
        self.next_cursor = reply.get("nextCursor")
        self._loading_more = False
        self.endResetModel()
        self._set_unread(reply["unreadCount"])

    async def load_more(self) -> None:
        reply = await self._next_page("notifications.list", {"limit": PAGE}, "notifications", "id")
        if reply is not None:
            self._set_unread(reply["unreadCount"])

    async def mark_read(self, notification_id: str) -> None:
        reply = await self.client.call("notifications.markRead", {"id": notification_id})
        # The event (if subscribed) already carried the host's count; without it, count locally.
        if self._replace(reply["notification"]):
            self._set_unread(max(0, self.unread_count - 1))

    async def mark_all_read(self) -> None:
        await self.client.call("notifications.markAllRead", {})
        now = now_ms()
        for row in self.rows:
            if row.get("readAt") is None:
                row["readAt"] = now
        if self.rows:
            self.dataChanged.emit(self.index(0), self.index(len(self.rows) - 1))
        self._set_unread(0)

    async def clear(self) -> None:
        await self.client.call("notifications.clear", {})
        self._generation += 1
        self.beginResetModel()
        self.rows = []
        self.next_cursor = None
        self._loading_more = False
        self.endResetModel()
        self._set_unread(0)

    # -- host events -------------------------------------------------------------
    def handle_event(self, topic: str, payload: dict) -> None:
        """Feed every host event here; the model picks the inbox ones."""
        if topic == topics.NOTIFICATION_CREATED:
            for replaced in payload.get("replaces") or []:  # the chat's older unread rows: one row per chat
                self._remove(replaced)
            self._insert_newest(payload["notification"])
            self._set_unread(payload.get("unreadCount", self.unread_count))
        elif topic == topics.SESSION_CHANGED and (payload.get("trashed") or payload.get("reason") == "restored"):
            # a chat went to the Trash or came back: the host lists its rows only while it is out of the Trash
            spawn(self._background(self.load()), name="inbox-reload")
        elif topic == topics.NOTIFICATION_CHANGED:
            if "notification" in payload:
                # one row read: patch it rather than reset the view under the pointer
                self._replace(payload["notification"])
                self._set_unread(payload.get("unreadCount", self.unread_count))
            else:
                spawn(self._background(self.load()), name="inbox-reload")

    # -- helpers -------------------------------------------------------------------
    def _insert_newest(self, notification: dict) -> None:
        if self.row_of(notification["id"]) >= 0:
            return
        self.beginInsertRows(QModelIndex(), 0, 0)
        self.rows.insert(0, notification)
        self.endInsertRows()

    def _remove(self, notification_id: str) -> None:
        row = self.row_of(notification_id)
        if row >= 0:
            self.beginRemoveRows(QModelIndex(), row, row)
            del self.rows[row]
            self.endRemoveRows()

    def _replace(self, notification: dict) -> bool:
        """Swap in the host's copy of a row; True when it turned from unread to read."""
        row = self.row_of(notification["id"])
        if row < 0:
            return False
        was_unread = self.rows[row].get("readAt") is None
        self.rows[row] = notification
        index = self.index(row)
        self.dataChanged.emit(index, index)
        return was_unread and notification.get("readAt") is not None

    def _set_unread(self, count: int) -> None:
        if count != self.unread_count:
            self.unread_count = count
            self.unreadChanged.emit(count)


class BellButton(QToolButton):
    """A painted bell outline with a red unread badge (hidden at zero)."""

    WIDTH, HEIGHT = 36, 32  # room on the right for a "99+" badge

    def __init__(self, theme: Theme, parent: QWidget | None = None):
        super().__init__(parent)
        self.theme = theme
        self.count = 0
        self.setObjectName("inboxBell")
        self.setToolTip(self.tr("Inbox (Ctrl+Shift+I)"))
        self.setAccessibleName(self.tr("Inbox"))
        self.setCursor(Qt.CursorShape.PointingHandCursor)
        self.setFixedSize(self.WIDTH, self.HEIGHT)
        self.setAutoRaise(True)

    def set_count(self, count: int) -> None:
        self.count = max(0, int(count))
        self.setAccessibleName(
            self.tr("Inbox, %1 unread").replace("%1", str(self.count)) if self.count else self.tr("Inbox")
        )
        self.update()

    def badge(self) -> str:
        """The badge's text; empty when it is hidden."""
        return badge_text(self.count) if self.count else ""

    def set_theme(self, theme: Theme) -> None:
        self.theme = theme
        self.update()

    def sizeHint(self) -> QSize:
        return QSize(self.WIDTH, self.HEIGHT)

    def paintEvent(self, event) -> None:
        t = self.theme
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        if self.underMouse() or self.isDown() or self.isChecked():
            back = QPainterPath()
            back.addRoundedRect(QRectF(self.rect()), 8, 8)
            painter.fillPath(back, QColor(t.hover))
        self._paint_bell(painter)
        if self.count:
            self._paint_badge(painter)
        painter.end()

    def _paint_bell(self, painter: QPainter) -> None:
        # The outline is drawn on a 24-unit grid, scaled to 20 px, left of centre to leave the badge room.
        painter.save()
        painter.translate(6, 7)
        painter.scale(20 / 24, 20 / 24)
        pen = QPen(QColor(self.theme.text), 2.0)
        pen.setCapStyle(Qt.PenCapStyle.RoundCap)
        pen.setJoinStyle(Qt.PenJoinStyle.RoundJoin)
        painter.setPen(pen)
        painter.setBrush(Qt.BrushStyle.NoBrush)
        body = QPainterPath()
        body.moveTo(18, 8)
        body.arcTo(QRectF(6, 2, 12, 12), 0, 180)
        body.cubicTo(6, 15, 3, 17, 3, 17)
        body.lineTo(21, 17)
        body.cubicTo(21, 17, 18, 15, 18, 8)
        painter.drawPath(body)
        clapper = QPainterPath()
        clapper.moveTo(13.73, 20)
        clapper.arcTo(QRectF(10, 17, 4, 4), -30, -120)
        painter.drawPath(clapper)
        painter.restore()

    def _paint_badge(self, painter: QPainter) -> None:
        text = badge_text(self.count)
        font = QFont(self.font())
        font.setPixelSize(9)
        font.setWeight(QFont.Weight.Bold)
        painter.setFont(font)
        height = 14
        width = max(height, painter.fontMetrics().horizontalAdvance(text) + 8)
        # Anchored at the bell's shoulder; a wide count grows right, then shifts left to fit.
        left = min(17.0, self.width() - width - 1)
        badge = QRectF(left, 2, width, height)
        path = QPainterPath()
        path.addRoundedRect(badge, height / 2, height / 2)
        # A ring in the background colour keeps the badge apart from the bell's outline.
        painter.setPen(QPen(QColor(self.theme.background), 2))
        painter.setBrush(QColor(self.theme.danger))
        painter.drawPath(path)
        painter.setPen(QColor("#FFFFFF"))
        painter.drawText(badge, Qt.AlignmentFlag.AlignCenter, text)


class InboxDelegate(QStyledItemDelegate):
    """One painted row: status dot, title (bold when unread), status line, relative time."""

    def __init__(self, view: QListView, theme: Theme):
        super().__init__(view)
        self.view = view
        self.theme = theme

    def sizeHint(self, option: QStyleOptionViewItem, index: _Index) -> QSize:
        return QSize(option.rect.width(), ROW_HEIGHT)

    def paint(self, painter: QPainter, option: QStyleOptionViewItem, index: _Index) -> None:
        row = self.view.model().row_at(index)
        if row is None:
            return
        t = self.theme
        painter.save()
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        paint_row_card(painter, option, t)
        unread = row.get("readAt") is None
        failed = row.get("kind") == "task.failed"
        # The dot lines up with the header's "Inbox" 16 px in.
        inner = option.rect.adjusted(16, 10, -16, -10)
        line_height = inner.height() // 2

        title_font = QFont(option.font)
        title_font.setWeight(QFont.Weight.Bold if unread else QFont.Weight.Normal)
        small_font = QFont(option.font)
        small_font.setPointSizeF(option.font.pointSizeF() * 0.9)

        # The dot sits on the title line, before the text.
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(QColor(t.danger if failed else t.accent))
        painter.drawEllipse(QRectF(inner.left(), inner.top() + line_height / 2 - 4, 8, 8))
        text_left = inner.left() + 16

        painter.setFont(small_font)
        when = relative(int(row.get("createdAt") or 0), now_ms())
        time_width = painter.fontMetrics().horizontalAdvance(when)
        title_line = QRect(text_left, inner.top(), inner.right() - text_left + 1, line_height)
        painter.setPen(QColor(t.muted))
        painter.drawText(title_line, Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter, when)

        painter.setFont(title_font)
        title_rect = title_line.adjusted(0, 0, -(time_width + 8), 0)
        title = painter.fontMetrics().elidedText(title_of(row), Qt.TextElideMode.ElideRight, title_rect.width())
        painter.setPen(QColor(t.text))
        painter.drawText(title_rect, Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter, title)

        painter.setFont(small_font)
        status_rect = QRect(text_left, inner.top() + line_height, title_line.width(), inner.height() - line_height)
        status = painter.fontMetrics().elidedText(status_of(row), Qt.TextElideMode.ElideRight, status_rect.width())
        painter.setPen(QColor(t.danger if failed else t.muted))
        painter.drawText(status_rect, Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter, status)
        painter.restore()


class InboxPanel(QFrame):
    """The inbox list, meant to be a child of the conversation area, docked to its right edge."""

    openSession = Signal(str)
    closeRequested = Signal()

    def __init__(self, client: HostClient, theme: Theme, parent: QWidget | None = None):
        super().__init__(parent)
        self.client = client
        self.theme = theme
        self.confirm_box: QMessageBox | None = None
        self.setObjectName("inboxPanel")
        self.setFixedWidth(PANEL_WIDTH)
        self.setFrameShape(QFrame.Shape.NoFrame)
        self.model = InboxModel(client, self)
        self.model.unreadChanged.connect(self._update_buttons)
        self.model.modelReset.connect(self._update_state)
        self.model.rowsInserted.connect(self._update_state)
        self.model.failed.connect(self.show_error)

        self.title_label = title = QLabel(self.tr("Inbox"))
        title.setObjectName("inboxTitle")
        self.mark_all_button = _text_button(self.tr("Mark all read"), self.tr("Mark every notification as read"))
        self.mark_all_button.clicked.connect(
            lambda: spawn(self._run(self.model.mark_all_read()), name="inbox-read-all")
        )
        self.clear_button = _text_button(self.tr("Clear"), self.tr("Remove every notification"))
        self.clear_button.clicked.connect(self.confirm_clear)
        self.close_button = QToolButton()
        self.close_button.setObjectName("inboxClose")
        self.close_button.setText("✕")
        self.close_button.setToolTip(self.tr("Close (Esc)"))
        self.close_button.setCursor(Qt.CursorShape.PointingHandCursor)
        self.close_button.setAutoRaise(True)
        self.close_button.clicked.connect(self.dismiss)
        header = QHBoxLayout()
        header.setContentsMargins(16, 12, 8, 8)
        header.setSpacing(4)
        header.addWidget(title, 1)
        header.addWidget(self.mark_all_button)
        header.addWidget(self.clear_button)
        header.addWidget(self.close_button)

        self.error_label = QLabel()
        self.error_label.setObjectName("inboxError")
        self.error_label.hide()

        self.list = QListView()
        self.list.setObjectName("inboxList")
        self.list.setModel(self.model)
        self.delegate = InboxDelegate(self.list, theme)
        self.list.setItemDelegate(self.delegate)
        self.list.setFrameShape(QFrame.Shape.NoFrame)
        self.list.setUniformItemSizes(True)
        self.list.setMouseTracking(True)
        self.list.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.list.setVerticalScrollMode(QAbstractItemView.ScrollMode.ScrollPerPixel)
        self.list.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.list.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.list.clicked.connect(self.open_row)
        self.list.installEventFilter(self)

        self.empty_label = QLabel(_tr(EMPTY_TEXT))
        self.empty_label.setObjectName("inboxEmpty")
        self.empty_label.setWordWrap(True)
        self.empty_label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.empty_label.setContentsMargins(32, 0, 32, 64)
        self.pages = QStackedWidget()
        self.pages.addWidget(self.list)
        self.pages.addWidget(self.empty_label)

        layout = QVBoxLayout(self)
        layout.setContentsMargins(1, 0, 0, 0)  # keeps the left border line visible past the header
        layout.setSpacing(0)
        layout.addLayout(header)
        error_row = QHBoxLayout()
        error_row.setContentsMargins(16, 0, 16, 8)
        error_row.addWidget(self.error_label)
        layout.addLayout(error_row)
        layout.addWidget(self.pages, 1)

        self._slide = QPropertyAnimation(self, b"pos", self)
        self._slide.setDuration(160)
        self._slide.setEasingCurve(QEasingCurve.Type.OutCubic)
        if parent is not None:
            parent.installEventFilter(self)
            self.hide()  # over the conversation only when asked: see ``slide_in``
        self.set_theme(theme)
        self._update_state()

    # -- public ------------------------------------------------------------------
    async def refresh(self) -> None:
        """Ask the host for the newest page; a failure becomes the panel's one-line message."""
        await self._run(self.model.load())

    def handle_event(self, topic: str, payload: dict) -> None:
        self.model.handle_event(topic, payload)

    def set_theme(self, theme: Theme) -> None:
        self.theme = theme
        self.delegate.theme = theme
        self.setStyleSheet(_stylesheet(theme))
        # A soft shadow lifts the panel off the conversation it covers.
        shadow = QGraphicsDropShadowEffect(self)
        shadow.setBlurRadius(24)
        shadow.setOffset(-2, 0)
        shadow.setColor(QColor(0, 0, 0, 110 if theme.name == "dark" else 40))
        self.setGraphicsEffect(shadow)
        self.list.viewport().update()

    def slide_in(self) -> None:
        """Dock to the parent's right edge, slide in, focus the list and refresh it."""
        self.raise_()
        self.show()
        parent = self.parentWidget()
        if parent is not None:
            docked = self._docked_rect()
            end = docked.topLeft()
            self._slide.stop()
            self.resize(docked.size())
            self._slide.setStartValue(QPoint(parent.width(), end.y()))
            self._slide.setEndValue(end)
            self._slide.start()
        self.list.setFocus()
        spawn(self.refresh(), name="inbox-refresh")

    def dismiss(self) -> None:
        self._slide.stop()
        self.hide()
        self.closeRequested.emit()

    def show_error(self, error: HostError) -> None:
        text = f"{error.message or error.code}"
        self.error_label.setToolTip(f"{error.code}: {error.message}")
        metrics = self.error_label.fontMetrics()
        self.error_label.setText(metrics.elidedText(text, Qt.TextElideMode.ElideRight, PANEL_WIDTH - 32))
        self.error_label.show()

    def open_row(self, index: QModelIndex) -> None:
        row = self.model.row_at(index)
        if row is None:
            return
        self.openSession.emit(row["sessionId"])
        if row.get("readAt") is None:
            spawn(self._run(self.model.mark_read(row["id"])), name="inbox-mark-read")

    def confirm_clear(self) -> None:
        """Ask first; the box is window-modal and opened with ``open()``."""
        box = QMessageBox(
            QMessageBox.Icon.Warning,
            self.tr("Clear inbox"),
            self.tr("Clear every notification?"),
            QMessageBox.StandardButton.Cancel,
            self,
        )
        box.setInformativeText(self.tr("Your chats stay as they are; only this list is emptied."))
        clear_button = box.addButton(self.tr("Clear"), QMessageBox.ButtonRole.DestructiveRole)
        style_message_box(box, self.theme if isinstance(getattr(self, "theme", None), Theme) else None)
        box.setDefaultButton(QMessageBox.StandardButton.Cancel)

        def finished(_result: int) -> None:
            self.confirm_box = None
            if box.clickedButton() is clear_button:
                spawn(self._run(self.model.clear()), name="inbox-clear")

        box.finished.connect(finished)
        self.confirm_box = box
        box.open()

    # -- Qt ----------------------------------------------------------------------
    def keyPressEvent(self, event) -> None:
        # Esc reaches here from any child that ignores it; a key press, not a shortcut,
        # so it never competes with the window's own Esc (stopping a reply).
        if event.key() == Qt.Key.Key_Escape:
            self.dismiss()
            return
        super().keyPressEvent(event)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self.list and event.type() == QEvent.Type.KeyPress:
            if event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter):
                self.open_row(self.list.currentIndex())
                return True
        elif watched is self.parentWidget() and event.type() == QEvent.Type.Resize and self.isVisible():
            self._slide.stop()
            self.setGeometry(self._docked_rect())
        return super().eventFilter(watched, event)

    # -- helpers -------------------------------------------------------------------
    def _docked_rect(self) -> QRect:
        parent = self.parentWidget()
        return QRect(parent.width() - PANEL_WIDTH, 0, PANEL_WIDTH, parent.height())

    async def _run(self, work) -> None:
        """Inbox work as an operation: a failure is the panel's one line, success clears it."""
        await task_op(
            lambda: work,
            parent=self,
            name="inbox",
            failure=self.show_error,
            success=lambda _result: self.error_label.hide(),
        )

    def _update_state(self, *_args) -> None:
        self.pages.setCurrentWidget(self.list if self.model.rowCount() else self.empty_label)
        self._update_buttons()

    def _update_buttons(self, *_args) -> None:
        self.mark_all_button.setEnabled(self.model.unread_count > 0)
        self.clear_button.setEnabled(self.model.rowCount() > 0)


def _text_button(text: str, tip: str) -> QPushButton:
    button = QPushButton(text)
    button.setObjectName("inboxAction")
    button.setToolTip(tip)
    button.setCursor(Qt.CursorShape.PointingHandCursor)
    button.setFlat(True)
    return button


def _stylesheet(t: Theme) -> str:
    return f"""
QFrame#inboxPanel {{ background: {t.background}; border-left: 1px solid {t.border}; }}
QLabel#inboxTitle {{ color: {t.text}; font-size: 15px; font-weight: 600; }}
QLabel#inboxError {{ color: {t.danger}; }}
QLabel#inboxEmpty {{ color: {t.muted}; background: {t.background}; }}
QListView#inboxList {{ background: {t.background}; border: none; outline: 0; }}
QPushButton#inboxAction {{
    color: {t.accent}; background: transparent; border: none; border-radius: 6px; padding: 4px 8px;
}}
QPushButton#inboxAction:hover {{ background: {t.hover}; }}
QPushButton#inboxAction:disabled {{ color: {t.muted}; }}
QToolButton#inboxClose {{
    color: {t.muted}; background: transparent; border: none; border-radius: 6px; padding: 4px 8px;
}}
QToolButton#inboxClose:hover {{ background: {t.hover}; color: {t.text}; }}
"""
