"""The transcript view: a ``QListView`` over ``TranscriptModel`` with a painting delegate.

Older pages load when the reader nears the top; the message that was at the
top stays where it was (restored on a zero-delay timer once the rows are laid
out). A guard keeps programmatic scrolling from triggering more loads. A
"Jump to latest" button appears when the reader has scrolled away from the end.
"""

from __future__ import annotations

from typing import cast

import orjson
import shiboken6
from PySide6.QtCore import (
    QEvent,
    QModelIndex,
    QPoint,
    QPointF,
    QRectF,
    QSize,
    Qt,
    QTimer,
    QUrl,
    QVariantAnimation,
    Signal,
)
from PySide6.QtGui import QDesktopServices, QPainter
from PySide6.QtWidgets import (
    QAbstractItemView,
    QApplication,
    QListView,
    QPushButton,
    QStyledItemDelegate,
    QStyleOptionViewItem,
)

from pidesktop.ui.chat import activity, markdown, tool_rows
from pidesktop.ui.chat.message_layout import (
    LayoutCache,
    Nesting,
    Part,
    RenderedRow,
    layout_row,
    match_top,
    paint_row,
)
from pidesktop.ui.chat.thumbnails import Thumbnails
from pidesktop.ui.chat.transcript_keys import KeyboardFocus
from pidesktop.ui.chat.transcript_model import TranscriptModel
from pidesktop.ui.kit.painting import paint_focus
from pidesktop.ui.kit.theme import Theme

LOAD_OLDER_WITHIN = 400  # px from the top
HEIGHTS_KEPT = 20_000  # remembered row heights, far more than are ever loaded at once
AT_BOTTOM_WITHIN = 48


class TranscriptDelegate(QStyledItemDelegate):
    def __init__(self, view: TranscriptView, theme: Theme):
        super().__init__(view)
        self.view = view
        self.theme = theme
        self.cache = LayoutCache()
        self.heights: dict[tuple, float] = {}
        # row key -> (rev, view state, height): a relayout of every loaded row is one
        # lookup a row while nothing about the view changed. Subagent rows, whose
        # look depends on other rows, always take the full path.
        self.known: dict[str, tuple[int, tuple, QSize]] = {}
        self._state: tuple | None = None

    def state_changed(self) -> None:
        self._state = None

    def forget(self) -> None:
        self._state = None
        self.cache.clear()
        self.heights.clear()
        self.known.clear()

    def state(self) -> tuple:
        """Everything about the view a row's height depends on, rebuilt only when one of them changes."""
        if self._state is None:
            view = self.view
            self._state = (
                view.layout_width(),
                self.theme.name,
                view.show_thinking,
                view.display_mode,
                view.layout_version,
            )
        return self._state

    def _key(self, row: dict, nesting: Nesting | None, width: int) -> tuple[tuple, frozenset]:
        mine = (f"thinking:{row['key']}", f"tool:{row['key']}:", f"group:{row['key']}:")
        summary = f"summary:{row['key']}"  # a compaction divider's folded summary
        expanded = frozenset(k for k in self.view.expanded if k in (mine[0], summary) or k.startswith(mine[1:]))
        key = (
            row["key"],
            row["rev"],
            width,
            self.theme.name,
            expanded,
            self.view.show_thinking,
            self.view.display_mode,
            nesting,
            self._previews_known(row),
            self._reviews_known(row),
        )
        return key, expanded

    def _reviews_known(self, row: dict) -> tuple:
        """What ``review.list`` says of this row's snapshots: the row is laid out again when that changes."""
        ids = _snapshot_ids(row)
        if not ids:
            return ()
        reviews = self.view.reviews
        return tuple((sid, orjson.dumps(reviews[sid], option=orjson.OPT_SORT_KEYS)) for sid in ids if sid in reviews)

    def _previews_known(self, row: dict) -> tuple[str, ...]:
        """The image refs of this row whose preview has arrived: a row is laid out again when one does."""
        refs = _image_refs(row)
        return tuple(ref for ref in refs if self.view.thumbnails.get(ref) is not None) if refs else ()

    def _nesting(self, position: int) -> Nesting | None:
        model: TranscriptModel = self.view.model()
        parent = model.parent_call(position)
        if parent is None:
            return None
        call, agent, first = parent
        owner = model.task_call(call)
        hidden = owner is not None and f"tool:{owner[0]}:{owner[1]}" not in self.view.expanded
        return Nesting(agent, first, hidden)

    def _render(self, row: dict, nesting: Nesting | None, width: int) -> RenderedRow:
        key, expanded = self._key(row, nesting, width)
        rendered = self.cache.get(key)
        if rendered is None:
            images = {ref: self.view.thumbnails.get(ref) for ref in _image_refs(row)}
            rendered = layout_row(
                row,
                width,
                self.theme,
                self.view.font(),
                expanded,
                self.view.show_thinking,
                self.view.display_mode,
                nesting,
                images,
                self.view.prices,
                self.view.reviews,
            )
            self.cache.put(key, rendered)
            if len(self.heights) > HEIGHTS_KEPT:
                self.heights.clear()
            self.heights[key] = rendered.height
        return rendered

    def rendered(self, index: QModelIndex) -> RenderedRow:
        return self._render(self.view.model().row_at(index), self._nesting(index.row()), self.view.layout_width())

    def prepare(self, row: dict) -> None:
        """Lay a row out before the model inserts it (subagent rows wait: they depend on their neighbours)."""
        if row["kind"] == "message" and (row["message"].get("meta") or {}).get("parentToolCallId"):
            return
        self._render(row, None, self.view.layout_width())

    def sizeHint(self, option: QStyleOptionViewItem, index: QModelIndex) -> QSize:
        """Heights are remembered apart from the (bounded) layouts, so a relayout of
        thousands of loaded rows never lays out their text again."""
        row = self.view.model().rows[index.row()]
        state = self._state or self.state()
        known = self.known.get(row["key"])
        if known is not None and known[0] == row["rev"] and known[1] is state:
            return known[2]
        width = state[0]
        nesting = self._nesting(index.row())
        key, _expanded = self._key(row, nesting, width)
        height = self.heights.get(key)
        if height is None:
            height = self._render(row, nesting, width).height
        size = QSize(width, int(height + 0.5))
        if nesting is None:
            if len(self.known) > HEIGHTS_KEPT:
                self.known.clear()
            self.known[row["key"]] = (row["rev"], state, size)
        return size

    def paint(self, painter: QPainter, option: QStyleOptionViewItem, index: QModelIndex) -> None:
        rendered = self.rendered(index)
        row = self.view.model().row_at(index)
        model = cast(TranscriptModel, self.view.model())
        highlighted = self.view.highlight_level if row["key"] == model.highlight_id else 0.0
        marked = model.found_text if row["key"] == model.found_id else ""
        focus = self.view.keys.rect_in_row(row["key"], rendered)  # the keyboard's target, when in this row
        hovered = row["key"] == self.view.hover_key or focus is not None
        hover_action = self.view.hover_action if row["key"] == self.view.hover_key else None
        if focus is not None and self.view.keys.target is not None and self.view.keys.target.kind == "action":
            hover_action = self.view.keys.target.name
        paint_row(
            painter,
            rendered,
            option.rect.top(),
            option.rect.left(),
            self.theme,
            highlighted,
            hovered,
            hover_action,
            self.view.font(),
            QRectF(self.view.viewport().rect()),
            marked,
        )
        if focus is not None:
            paint_focus(painter, focus.translated(option.rect.left(), option.rect.top()), self.theme)


def _snapshot_ids(row: dict) -> list[str]:
    """The review snapshots the changes in this row made (their calls' ``details.review``)."""
    if row["kind"] != "message" or row["message"].get("role") != "assistant":
        return []
    ids = []
    for block in row["message"].get("blocks", []):
        if block.get("type") == "tool_call" and block.get("name") in tool_rows.CHANGE_TOOLS:
            review = tool_rows.review_of(block)
            if review is not None:
                ids.append(review["snapshotId"])
    return ids


def _image_refs(row: dict) -> list[str]:
    if row["kind"] != "message" or row["message"].get("role") != "user":
        return []
    return [
        b["ref"]
        for b in row["message"].get("blocks", [])
        if b.get("type") == "attachment" and b.get("kind") == "image" and isinstance(b.get("ref"), str)
    ]


HIGHLIGHT_HOLD_MS = 1500  # a search hit stays highlighted this long,
HIGHLIGHT_FADE_MS = 1500  # then fades out over this long


class TranscriptView(QListView):
    nearTop = Signal()
    actionTriggered = Signal(str, str)  # action name, message id
    codeCopied = Signal()

    def __init__(self, model: TranscriptModel, theme: Theme, parent=None):
        super().__init__(parent)
        self.setObjectName("transcript")
        self.expanded: set[str] = set()
        self.show_thinking = True
        self.display_mode = activity.DEFAULT_MODE
        self.prices: dict[tuple[str, str], dict] = {}  # (provider, model) -> price: the cost under each reply
        self.reviews: dict[str, dict] = {}  # snapshot id -> its entry in review.list (reversible, reverted)
        self.layout_version = 0  # bumps when an expansion or a preview changes some row's height
        self._layout_width: int | None = None
        self.thumbnails = Thumbnails(model.client, self)
        self.thumbnails.ready.connect(self._preview_arrived)
        self.hover_key: str | None = None
        self.hover_action: str | None = None
        self.hover_link = ""
        self.setModel(model)
        self.delegate = TranscriptDelegate(self, theme)
        self.setItemDelegate(self.delegate)
        model.prepare = self.delegate.prepare
        self.setVerticalScrollMode(QAbstractItemView.ScrollMode.ScrollPerPixel)
        self.verticalScrollBar().setSingleStep(24)
        self.setSelectionMode(QAbstractItemView.SelectionMode.NoSelection)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setUniformItemSizes(False)
        self.setResizeMode(QListView.ResizeMode.Adjust)
        self.setFrameShape(QListView.Shape.NoFrame)
        self.setMouseTracking(True)
        self._programmatic = False
        self._follow_tail = True
        # A search hit is shown highlighted, then the highlight fades (it is where the hit was, not a mark).
        self.highlight_level = 0.0
        self._highlight_hold = QTimer(self)
        self._highlight_hold.setSingleShot(True)
        self._highlight_hold.setInterval(HIGHLIGHT_HOLD_MS)
        self._highlight_fade = QVariantAnimation(self)
        self._highlight_fade.setStartValue(1.0)
        self._highlight_fade.setEndValue(0.0)
        self._highlight_fade.setDuration(HIGHLIGHT_FADE_MS)
        self._highlight_hold.timeout.connect(self._highlight_fade.start)
        self._highlight_fade.valueChanged.connect(self._fade_highlight)
        self._highlight_fade.finished.connect(self._highlight_faded)
        self.jump_button = QPushButton("↓  " + self.tr("Jump to latest"), self)
        self.jump_button.setObjectName("jumpToLatest")
        self.jump_button.setCursor(Qt.CursorShape.PointingHandCursor)
        self.jump_button.hide()
        self.jump_button.clicked.connect(self.jump_to_latest)
        self.verticalScrollBar().valueChanged.connect(self._scrolled)
        model.modelReset.connect(self._after_reset)
        model.rowsInserted.connect(self._rows_inserted)
        model.dataChanged.connect(self._data_changed)
        model.pageLoaded.connect(self._page_loaded)
        model.rowsPrepended.connect(self._after_prepend)
        model.aboutToDropTop.connect(self._before_drop_top)
        self._anchor: tuple[str, int] | None = None
        self._hit_to_show = False  # a search hit's page is on its way: centre the hit when its rows are in
        self.setFocusPolicy(Qt.FocusPolicy.TabFocus)  # reached by Tab; a click leaves the typing in the composer
        self.keys = KeyboardFocus(self)  # its buttons and foldable parts, reached by arrows, pressed by Enter

    def _later(self, fn) -> None:
        """Run ``fn`` after the pending layout, unless the view is gone by then."""
        QTimer.singleShot(0, lambda: fn() if shiboken6.isValid(self) else None)

    # -- theme and expansion ----------------------------------------------------------
    def set_theme(self, theme: Theme) -> None:
        self.delegate.theme = theme
        self.delegate.forget()
        self.scheduleDelayedItemsLayout()

    def set_show_thinking(self, show: bool) -> None:
        if show != self.show_thinking:
            self.show_thinking = show
            self.delegate.forget()
            self.scheduleDelayedItemsLayout()
            self.viewport().update()

    def set_prices(self, prices: dict[tuple[str, str], dict]) -> None:
        """Model prices changed (``models.list``): the usage lines under replies are laid out again."""
        if prices != self.prices:
            self.prices = dict(prices)
            self.delegate.forget()
            self.scheduleDelayedItemsLayout()
            self.viewport().update()

    def layout_width(self) -> int:
        """The width rows are laid out for: as if the scroll bar were shown, so its
        appearing (once the first rows overflow) never lays every row out again."""
        if self._layout_width is None:
            extent = self.verticalScrollBar().sizeHint().width()
            self._layout_width = max(1, self.width() - 2 * self.frameWidth() - extent)
        return self._layout_width

    def _relayout(self) -> None:
        """Something a row's height depends on changed: heights are asked for again."""
        self.layout_version += 1
        self.delegate.state_changed()
        self.scheduleDelayedItemsLayout()
        self.viewport().update()

    def set_reviews(self, snapshots: list[dict]) -> None:
        """The open chat's ``review.list``: the Revert under each change says what it can do."""
        reviews = {s["snapshotId"]: s for s in snapshots if isinstance(s.get("snapshotId"), str)}
        if reviews != self.reviews:
            self.reviews = reviews
            self._relayout()

    def _preview_arrived(self, _ref: str) -> None:
        self._relayout()

    def set_display_mode(self, mode: object) -> None:
        mode = activity.normalize_mode(mode)
        if mode != self.display_mode:
            self.display_mode = mode
            self.delegate.forget()
            self.scheduleDelayedItemsLayout()
            self.viewport().update()

    def toggle(self, key: str) -> None:
        if key in self.expanded and key.startswith("group:"):
            # Folding a group folds what was opened inside it, subagent rows included.
            calls = "tool:" + key[len("group:") : key.rindex(":")] + ":"
            self.expanded = {k for k in self.expanded if not k.startswith(calls)}
        self.expanded.symmetric_difference_update({key})
        self._relayout()

    def _hit(self, pos) -> tuple[QModelIndex, float, float]:
        index = self.indexAt(pos.toPoint())
        if not index.isValid():
            return index, 0.0, 0.0
        rect = self.visualRect(index)
        return index, pos.x() - rect.left(), pos.y() - rect.top()

    def action_at(self, pos) -> tuple[str | None, str | None]:
        """(action name, message id) under ``pos``, if any."""
        index, x, y = self._hit(pos)
        if not index.isValid():
            return None, None
        row = self.model().row_at(index)
        rendered = self.delegate.rendered(index)
        for action in rendered.actions:
            if action.enabled and action.rect.contains(x, y):
                return action.name, row["key"]
        return None, row["key"]

    def link_at(self, pos) -> tuple[Part | None, str]:
        """The text part under ``pos`` and the link (href) there, if any."""
        index, x, y = self._hit(pos)
        if not index.isValid():
            return None, ""
        for part in self.delegate.rendered(index).parts:
            if part.x <= x <= part.x + part.width and part.y <= y <= part.y + part.height:
                return part, part.doc.documentLayout().anchorAt(QPointF(x - part.x - part.pad, y - part.y - part.pad))
        return None, ""

    def follow_link(self, part: Part, href: str) -> None:
        """A code panel's Copy link copies that block; a web link opens in the browser."""
        if href.startswith(markdown.COPY_LINK) and part.source is not None:
            blocks = markdown.code_blocks(part.source)
            number = int(href[len(markdown.COPY_LINK) :] or -1)
            if 0 <= number < len(blocks):
                QApplication.clipboard().setText(blocks[number])
                self.codeCopied.emit()
        elif QUrl(href).scheme() in ("http", "https", "mailto"):
            QDesktopServices.openUrl(QUrl(href))

    def mouseMoveEvent(self, event) -> None:
        action, key = self.action_at(event.position())
        _part, href = self.link_at(event.position())
        if (key, action, href) != (self.hover_key, self.hover_action, self.hover_link):
            self.hover_key, self.hover_action, self.hover_link = key, action, href
            pointing = bool(action or href)
            self.viewport().setCursor(Qt.CursorShape.PointingHandCursor if pointing else Qt.CursorShape.ArrowCursor)
            self.viewport().setToolTip(href if href and not href.startswith(markdown.COPY_LINK) else "")
            self.viewport().update()
        super().mouseMoveEvent(event)

    def leaveEvent(self, event) -> None:
        self.hover_key = self.hover_action = None
        self.viewport().update()
        super().leaveEvent(event)

    def mousePressEvent(self, event) -> None:
        self.keys.leave()  # the mouse took over: no keyboard ring until a key moves it
        action, key = self.action_at(event.position())
        if action and key:
            self.actionTriggered.emit(action, key)
            return
        part, href = self.link_at(event.position())
        if part is not None and href:
            self.follow_link(part, href)
            return
        index = self.indexAt(event.position().toPoint())
        if index.isValid():
            rendered = self.delegate.rendered(index)
            rect = self.visualRect(index)
            y = event.position().y() - rect.top()
            x = event.position().x() - rect.left()
            if any(a.button and a.rect.contains(x, y) for a in rendered.actions):
                return  # a switched-off Revert: clicking it does nothing, it does not fold its row
            for part in rendered.parts:
                if part.toggle and part.y <= y <= part.y + part.height and part.x <= x <= part.x + part.width:
                    self.toggle(part.toggle)
                    return
        super().mousePressEvent(event)

    # -- keyboard (transcript_keys) ------------------------------------------------------
    def focusInEvent(self, event) -> None:
        super().focusInEvent(event)
        self.keys.enter(event.reason() in (Qt.FocusReason.TabFocusReason, Qt.FocusReason.BacktabFocusReason))

    def focusOutEvent(self, event) -> None:
        super().focusOutEvent(event)
        self.keys.leave()

    def keyPressEvent(self, event) -> None:
        key = event.key()
        if key in (Qt.Key.Key_Up, Qt.Key.Key_Left, Qt.Key.Key_Down, Qt.Key.Key_Right):
            self.keys.move(-1 if key in (Qt.Key.Key_Up, Qt.Key.Key_Left) else 1)
        elif key in (Qt.Key.Key_Home, Qt.Key.Key_End):
            self.keys.to_end(last=key == Qt.Key.Key_End)
        elif key in (Qt.Key.Key_Return, Qt.Key.Key_Enter, Qt.Key.Key_Space) and self.keys.press():
            pass
        else:
            super().keyPressEvent(event)

    # -- paging ------------------------------------------------------------------------
    def _scrolled(self, value: int) -> None:
        bar = self.verticalScrollBar()
        self._follow_tail = value >= bar.maximum() - AT_BOTTOM_WITHIN
        self._place_jump_button()
        if self._programmatic:
            return
        model: TranscriptModel = self.model()
        # An empty view is at its top only because a page is being put in (a search hit's, after the reset):
        # older rows asked for now would go in above it with nothing to keep the reader's place by.
        reached_top = value <= LOAD_OLDER_WITHIN and model.rowCount() > 0
        if reached_top and model.has_more_before and "older" not in model.loading:
            self._anchor = self._top_anchor()
            model.load_in_background(model.load_older(), "transcript-load-older")
            self.nearTop.emit()

    def _top_anchor(self) -> tuple[str, int] | None:
        index = self.indexAt(QPoint(8, 1))
        if not index.isValid():
            return None
        return self.model().row_at(index)["key"], self.visualRect(index).top()

    def _page_loaded(self, reason: str) -> None:
        if reason in ("older", "newer") and self._anchor is not None:
            anchor, self._anchor = self._anchor, None
            self._later(lambda: self._restore(anchor))
        elif reason == "tail" and self._follow_tail:
            self._later(self.scroll_to_end)

    def _after_prepend(self) -> None:
        """Rows went in (or out) above the reader: keep what they were reading where it was.

        The anchor is used up here: rows that go at the far end afterwards never move the
        reader, and laying every loaded row out once more for the page (``_page_loaded``)
        doubled the longest stall of scrolling back."""
        model = cast(TranscriptModel, self.model())
        if self._anchor is not None:
            anchor, self._anchor = self._anchor, None
            self._restore(anchor)
        elif self._hit_to_show and model.row_of(model.highlight_id or "") >= 0:
            self._later(self.center_highlight)  # a search hit's page went in after the reset
        elif self._follow_tail:
            self.scroll_to_end()

    def _before_drop_top(self) -> None:
        if self._anchor is None:
            self._anchor = self._top_anchor()

    def _restore(self, anchor: tuple[str, int]) -> None:
        """Put the message that was on top back where the reader saw it."""
        key, offset = anchor
        row = self.model().row_of(key)
        if row < 0:
            return
        self.doItemsLayout()
        self._programmatic = True
        try:
            index = self.model().index(row)
            bar = self.verticalScrollBar()
            bar.setValue(bar.value() + self.visualRect(index).top() - offset)
        finally:
            self._programmatic = False

    def _after_reset(self) -> None:
        # Layouts stay cached: they are keyed by row revision, and the first rows of
        # the new chat were laid out just before the reset.
        model: TranscriptModel = self.model()
        self._highlight_fade.stop()
        self.highlight_level = 1.0 if model.highlight_id else 0.0
        self._hit_to_show = bool(model.highlight_id)
        if model.highlight_id:
            self._highlight_hold.start()  # the hit's page comes in the next ticks; then the mark fades
        self._later(self.center_highlight if model.highlight_id else self.scroll_to_end)

    def open_task_of_hit(self) -> None:
        """A hit inside a subagent's run: its Task call (and the activity group holding it) opens (W.24)."""
        model = cast(TranscriptModel, self.model())
        if model.navigation_parent is None:
            return
        hit = model.row_of(model.highlight_id or "")
        call = model.parent_call(hit) if hit >= 0 else None
        owner = model.task_call(call[0]) if call is not None else None
        if owner is None:
            return
        key, number = owner
        opened = {f"tool:{key}:{number}"}
        row = model.rows[model.row_of(key)]
        for piece in activity.segments(key, row["message"].get("blocks", []), self.display_mode):
            if piece.kind == "group" and any(n == number for n, _block in piece.tools):
                opened.add(piece.key)
        if not opened <= self.expanded:
            self.expanded |= opened
            self._relayout()

    def _rows_inserted(self, parent: QModelIndex, first: int, last: int) -> None:
        if last == self.model().rowCount() - 1 and self._follow_tail:
            self._later(self.scroll_to_end)

    def _data_changed(self, top_left: QModelIndex, bottom_right: QModelIndex, roles=()) -> None:
        if self._follow_tail and bottom_right.row() == self.model().rowCount() - 1:
            # The streamed row grew: the view relays out once, in the layout Qt scheduled for the change
            # (``scrollToBottom`` runs it if it has not run yet); a forced one as well lays every loaded
            # row out twice an update.
            self._later(lambda: self.scroll_to_end(relayout=False))
        else:
            self.scheduleDelayedItemsLayout()

    def scroll_to_end(self, relayout: bool = True) -> None:
        self._programmatic = True
        try:
            if relayout:
                self.doItemsLayout()
            self.scrollToBottom()
            self.verticalScrollBar().setValue(self.verticalScrollBar().maximum())
        finally:
            self._programmatic = False
        self._follow_tail = True
        self._place_jump_button()

    def center_highlight(self) -> None:
        model: TranscriptModel = self.model()
        row = model.row_of(model.highlight_id or "")
        if row < 0:
            return
        self._hit_to_show = False
        self.open_task_of_hit()
        self._programmatic = True
        try:
            self.doItemsLayout()
            index = model.index(row)
            self.scrollTo(index, QAbstractItemView.ScrollHint.PositionAtCenter)
            top = self.match_top(index)
            if top is not None:  # the words themselves at the middle: a long reply's middle may not show them
                bar = self.verticalScrollBar()
                bar.setValue(bar.value() + self.visualRect(index).top() + round(top) - self.viewport().height() // 2)
        finally:
            self._programmatic = False
        self._follow_tail = False
        self._place_jump_button()

    def match_top(self, index: QModelIndex) -> float | None:
        """How far below the row's top the search hit's words first show, when a search opened it."""
        model = cast(TranscriptModel, self.model())
        row = model.row_at(index)
        if not model.found_text or row is None or row["key"] != model.found_id:
            return None
        return match_top(self.delegate.rendered(index), model.found_text)

    def _fade_highlight(self, level: float) -> None:
        self.highlight_level = float(level)
        self.viewport().update()

    def _highlight_faded(self) -> None:
        self.highlight_level = 0.0
        self.model().highlight_id = None
        self.viewport().update()

    def jump_to_latest(self) -> None:
        model: TranscriptModel = self.model()
        if model.has_more_after and model.session_id:
            model.load_in_background(model.open(model.session_id), "transcript-jump-latest")
        else:
            self.scroll_to_end()

    def _place_jump_button(self) -> None:
        model: TranscriptModel = self.model()
        show = (not self._follow_tail or model.has_more_after) and model.rowCount() > 0
        self.jump_button.setVisible(show)
        if show:
            self.jump_button.adjustSize()
            size = self.jump_button.size()
            self.jump_button.move(
                (self.viewport().width() - size.width()) // 2, self.viewport().height() - size.height() - 12
            )

    def resizeEvent(self, event) -> None:
        self._layout_width = None
        self.delegate.state_changed()
        following = self._follow_tail  # read before the resize moves the scroll bar
        super().resizeEvent(event)
        if following and event.size().height() < event.oldSize().height():
            self._later(self.scroll_to_end)  # a card or checklist appeared below: the newest line stays in view
        self._place_jump_button()

    def event(self, event) -> bool:
        if event.type() == QEvent.Type.LayoutRequest:
            self._place_jump_button()
        return super().event(event)
