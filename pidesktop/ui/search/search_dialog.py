"""Search every chat (Ctrl+K): a field, live results, keyboard to pick one.

``SearchModel`` asks the host (``search.sessions``) and keeps only the answer
to the newest query (the "Automation runs" filter adds the chats automations
made, which no list shows); further pages load when the list reaches its end.
``SearchDelegate`` paints one result per session with up to three snippets,
their matches in bold on a soft accent. ``SearchDialog`` debounces typing and
reports the choice as ``chosen(sessionId, messageId, query)``.
"""

from __future__ import annotations

import re
from collections.abc import Coroutine

from PySide6.QtCore import (
    QT_TRANSLATE_NOOP,
    QCoreApplication,
    QModelIndex,
    QObject,
    QPersistentModelIndex,
    QRect,
    QRectF,
    QSize,
    Qt,
    QTimer,
    Signal,
)
from PySide6.QtGui import QColor, QFont, QFontMetrics, QPainter, QPainterPath
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QDialog,
    QFrame,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListView,
    QStackedWidget,
    QStyledItemDelegate,
    QStyleOptionViewItem,
    QVBoxLayout,
    QWidget,
)

from pidesktop.bus import HostClient, HostError
from pidesktop.clock import now_ms
from pidesktop.ui.kit import counts
from pidesktop.ui.kit.i18n import arg
from pidesktop.ui.kit.ops import task_op
from pidesktop.ui.kit.paged_model import PagedListModel
from pidesktop.ui.kit.painting import paint_row_card
from pidesktop.ui.kit.tasks import spawn
from pidesktop.ui.kit.theme import Theme, outline_toggles
from pidesktop.ui.kit.timefmt import relative

PAGE = 20
QUERY_MAX = 500  # the host refuses longer queries
DEBOUNCE_MS = 150
# English source texts, shown through ``_tr`` (translation context "Search").
UNTITLED = QT_TRANSLATE_NOOP("Search", "New chat")
HINT_TEXT = QT_TRANSLATE_NOOP("Search", "Type to search all your chats")

# Row geometry, on an 8 px grid.
PAD = 8
TITLE_LINE = 24
META_LINE = 16
SNIPPET_LINE = 24

SessionIdRole = Qt.ItemDataRole.UserRole + 1
MatchCountRole = Qt.ItemDataRole.UserRole + 2

_Index = QModelIndex | QPersistentModelIndex


def _tr(text: str) -> str:
    return QCoreApplication.translate("Search", text)


def no_match_text(query: str) -> str:
    return QCoreApplication.translate("Search", "No chats match “%1”").replace("%1", query)


def matches_text(result: dict) -> str:
    count = result.get("matchCount") or 0
    if not count:
        return ""
    if result.get("matchCountCapped"):  # the host stops counting a chat's matches at 1,000
        return QCoreApplication.translate("Search", "%1+ matches").replace("%1", f"{count:,}")
    if count == 1:
        return QCoreApplication.translate("Search", "1 match")
    return QCoreApplication.translate("Search", "%1 matches").replace("%1", f"{count:,}")


def project_name(path: str | None) -> str:
    if not path:
        return ""
    return path.rstrip("/\\").replace("\\", "/").rsplit("/", 1)[-1] or path


def first_message_id(result: dict) -> str:
    snippets = result.get("snippets") or []
    return snippets[0]["messageId"] if snippets else ""


# Markdown markup a snippet shows as text: what each pattern's groups mark is dropped, the rest is kept.
_MARKUP = [
    re.compile(r"(?m)^[ \t]{0,3}(#{1,6}[ \t]+)"),  # heading
    re.compile(r"(?m)^[ \t]{0,3}((?:>[ \t]?)+)"),  # quote
    re.compile(r"(?m)^[ \t]*([*+][ \t]+)"),  # "* item" (a "- item" reads as text)
    re.compile(r"(!?\[)[^\]\n]*(\]\([^)\s]*\))"),  # [text](url), ![alt](url)
    re.compile(r"(\*\*|~~)"),  # strong, strikethrough (even unpaired: cut)
    re.compile(r"(?<!\w)(__)|(__)(?!\w)"),  # strong with underscores, not snake__case
    re.compile(r"(`+)"),  # code spans and fences
    re.compile(r"(?<![\w*])(\*)(?=\S)[^*\n]*?(?<=\S)(\*)(?![\w*])"),  # *emphasis*
    re.compile(r"(?<!\w)(_)(?=\S)[^_\n]*?(?<=\S)(_)(?!\w)"),  # _emphasis_
]


def plain_snippet(text: str, highlights: list) -> tuple[str, list[list[int]]]:
    """``text`` without its markdown markers, and ``highlights`` moved to match.

    Snippets are cut from the raw markdown of a message; shown as they are,
    ``**Links:** none`` reads as code. A highlight that covered only markers
    is dropped.
    """
    drop = bytearray(len(text))
    for pattern in _MARKUP:
        for match in pattern.finditer(text):
            for group in range(1, (pattern.groups or 0) + 1):
                a, b = match.span(group)
                if a >= 0:
                    drop[a:b] = b"\x01" * (b - a)
    if not any(drop):
        return text, highlights
    new_index = []  # new_index[i]: position of old character i in the new text (or where it would be)
    kept: list[str] = []
    for ch, gone in zip(text, drop):
        new_index.append(len(kept))
        if not gone:
            kept.append(ch)
    new_index.append(len(kept))
    moved = []
    for a, b in highlights:
        a, b = max(0, min(len(text), int(a))), max(0, min(len(text), int(b)))
        na, nb = new_index[a], new_index[b]
        if nb > na:
            moved.append([na, nb])
    return "".join(kept), moved


def snippet_segments(text: str, highlights: list) -> list[tuple[str, bool]]:
    """Split ``text`` into (piece, highlighted) runs; ranges are clamped, sorted and merged.

    Line breaks become spaces (same length, so the host's offsets still hold).
    """
    flat = "".join(" " if ch in "\r\n\t\f\v" else ch for ch in text)
    ranges = sorted((max(0, int(a)), min(len(flat), int(b))) for a, b in highlights if int(b) > int(a))
    merged: list[list[int]] = []
    for a, b in ranges:
        if a >= b:
            continue
        if merged and a <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], b)
        else:
            merged.append([a, b])
    segments: list[tuple[str, bool]] = []
    position = 0
    for a, b in merged:
        if a > position:
            segments.append((flat[position:a], False))
        segments.append((flat[a:b], True))
        position = b
    if position < len(flat):
        segments.append((flat[position:], False))
    return segments


def title_highlights(title: str, query: str) -> list[list[int]]:
    """Where ``query`` occurs in ``title``, found here since the host marks only snippets.

    Skipped when lowercasing changes the length, as offsets would no longer line up.
    """
    lowered, needle = title.lower(), query.strip().lower()
    if not needle or len(lowered) != len(title):
        return []
    found, position = [], lowered.find(needle)
    while position >= 0:
        found.append([position, position + len(needle)])
        position = lowered.find(needle, position + len(needle))
    return found


def row_height(result: dict) -> int:
    snippets = len(result.get("snippets") or [])
    return PAD + TITLE_LINE + META_LINE + snippets * SNIPPET_LINE + PAD + (PAD if snippets else 0)


class SearchModel(PagedListModel):
    task_name = "search-load-more"
    searched = Signal(str)  # results for this query are in (possibly none)
    counted = Signal()  # a further page changed the number of matching chats

    def __init__(self, client: HostClient, parent: QObject | None = None):
        super().__init__(client, parent)
        self.query = ""
        self.automation_runs = False  # the filter: also search the chats automations made (not listed elsewhere)
        self.total = 0
        self.total_exact = True  # False: ``total`` counts the chats listed so far, more may match

    # -- Qt ------------------------------------------------------------------
    def data(self, index: _Index, role: int = Qt.ItemDataRole.DisplayRole):
        row = self.row_at(index)
        if row is None:
            return None
        if role in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.ToolTipRole):
            return row.get("title") or _tr(UNTITLED)
        if role == Qt.ItemDataRole.AccessibleTextRole:
            found = matches_text(row) or self.tr("matches its name")
            return f"{row.get('title') or _tr(UNTITLED)}, {found}"
        if role == SessionIdRole:
            return row["sessionId"]
        if role == MatchCountRole:
            return int(row.get("matchCount") or 0)
        return None

    # -- host work ---------------------------------------------------------------
    def forget_pending(self) -> None:
        """The query is about to change: whatever is in flight no longer matters."""
        self._generation += 1

    def search(self, query: str) -> Coroutine[None, None, None]:
        """Search for ``query``; await the result.

        The query's turn is taken now, not when the coroutine starts, so a
        change made after this call always supersedes it.
        """
        self._generation += 1
        return self._search(self._generation, query)

    async def _search(self, generation: int, query: str) -> None:
        query = query.strip()[:QUERY_MAX]
        if not query:
            self._apply(generation, "", {"results": [], "nextCursor": None, "totalSessions": 0})
            return
        reply = await self.client.call("search.sessions", self._params(query))
        self._apply(generation, query, reply)

    def _params(self, query: str) -> dict:
        return {"query": query, "limit": PAGE} | ({"automationRuns": True} if self.automation_runs else {})

    async def load_more(self) -> None:
        reply = await self._next_page("search.sessions", self._params(self.query), "results", "sessionId")
        if reply is not None:
            self.total = reply.get("totalSessions", self.total)
            self.total_exact = reply.get("totalSessionsExact", True)
            self.counted.emit()

    def _apply(self, generation: int, query: str, reply: dict) -> None:
        if generation != self._generation:
            return
        self.beginResetModel()
        self.query = query
        self.rows = list(reply["results"])
        self.next_cursor = reply.get("nextCursor")
        self.total = reply.get("totalSessions", len(self.rows))
        self.total_exact = reply.get("totalSessionsExact", True)
        self._loading_more = False
        self.endResetModel()
        self.searched.emit(query)


class SearchDelegate(QStyledItemDelegate):
    """Title and time; match count, project and markers; then the snippets, one line each."""

    def __init__(self, view: QListView, theme: Theme):
        super().__init__(view)
        self.view = view
        self.theme = theme

    def sizeHint(self, option: QStyleOptionViewItem, index: QModelIndex) -> QSize:
        row = self.view.model().row_at(index)
        return QSize(option.rect.width(), row_height(row) if row else 0)

    def paint(self, painter: QPainter, option: QStyleOptionViewItem, index: QModelIndex) -> None:
        row = self.view.model().row_at(index)
        if row is None:
            return
        t = self.theme
        painter.save()
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        paint_row_card(painter, option, t)
        # Text starts 16 px in, in line with the search field above.
        inner = option.rect.adjusted(16, PAD, -16, -PAD)
        body = QFont(option.font)
        small = QFont(option.font)
        small.setPointSizeF(option.font.pointSizeF() * 0.9)
        bold = QFont(option.font)
        bold.setWeight(QFont.Weight.DemiBold)

        # Title line: title (its matches marked too) on the left, relative time on the right.
        y = inner.top()
        painter.setFont(small)
        when = relative(int(row.get("updatedAt") or 0), now_ms())
        time_width = painter.fontMetrics().horizontalAdvance(when)
        line = QRect(inner.left(), y, inner.width(), TITLE_LINE)
        painter.setPen(QColor(t.muted))
        painter.drawText(line, Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter, when)
        title = row.get("title") or _tr(UNTITLED)
        marks = title_highlights(title, self.view.model().query) if row.get("titleMatch") else []
        self._paint_runs(
            painter,
            snippet_segments(title, marks),
            line.adjusted(0, 0, -(time_width + 16), 0),
            (bold, bold),
            (t.text, t.text),
        )
        y += TITLE_LINE

        self._paint_meta(painter, small, row, QRect(inner.left(), y, inner.width(), META_LINE))
        y += META_LINE
        if row.get("snippets"):
            y += PAD
        for snippet in (row.get("snippets") or [])[:3]:
            rect = QRect(inner.left(), y, inner.width(), SNIPPET_LINE)
            # A thin rule marks the snippets as quotes from the chat.
            painter.fillRect(QRect(rect.left(), rect.top() + 4, 2, rect.height() - 8), QColor(t.border))
            segments = snippet_segments(*plain_snippet(snippet.get("text", ""), snippet.get("highlights") or []))
            self._paint_runs(painter, segments, rect.adjusted(12, 0, 0, 0), (body, bold), (t.muted, t.text))
            y += SNIPPET_LINE
        painter.restore()

    def _paint_meta(self, painter: QPainter, font: QFont, row: dict, rect: QRect) -> None:
        """ "3 matches · project" in muted text, then small "title"/"project" markers."""
        t = self.theme
        painter.setFont(font)
        metrics = painter.fontMetrics()
        parts = [p for p in (matches_text(row), project_name(row.get("projectPath"))) if p]
        markers = [
            name
            for name, hit in (
                (self.tr("automation"), row.get("automationRun")),  # a run's chat: not in the sidebar
                (self.tr("pi session"), row.get("native")),  # pi's own file, read in place
                (self.tr("title"), row.get("titleMatch")),
                (self.tr("project"), row.get("projectMatch")),
            )
            if hit
        ]
        marker_width = sum(metrics.horizontalAdvance(m) + 12 + 8 for m in markers)
        text = metrics.elidedText("  ·  ".join(parts), Qt.TextElideMode.ElideRight, max(0, rect.width() - marker_width))
        painter.setPen(QColor(t.muted))
        painter.drawText(rect, Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter, text)
        x = rect.left() + (metrics.horizontalAdvance(text) + 8 if text else 0)
        for marker in markers:
            width = metrics.horizontalAdvance(marker) + 12
            pill = QRectF(x, rect.top(), width, rect.height())
            path = QPainterPath()
            path.addRoundedRect(pill, rect.height() / 2, rect.height() / 2)
            painter.fillPath(path, _soft(t.accent))
            painter.setPen(QColor(t.accent))
            painter.drawText(pill, Qt.AlignmentFlag.AlignCenter, marker)
            x += width + 8

    def _paint_runs(
        self,
        painter: QPainter,
        segments: list[tuple[str, bool]],
        rect: QRect,
        fonts: tuple[QFont, QFont],
        colours: tuple[str, str],
    ) -> None:
        """One line of runs, marked ones on a soft accent, elided at the right edge."""
        x, right = rect.left(), rect.right()
        for piece, marked in segments:
            font = fonts[marked]
            metrics = QFontMetrics(font)
            width = metrics.horizontalAdvance(piece)
            if x + width > right:
                piece = metrics.elidedText(piece, Qt.TextElideMode.ElideRight, max(0, right - x))
                width = metrics.horizontalAdvance(piece)
            if not piece:
                break
            if marked:
                mark = QPainterPath()
                mark.addRoundedRect(QRectF(x - 2, rect.top() + 3, width + 4, rect.height() - 6), 4, 4)
                painter.fillPath(mark, _soft(self.theme.accent))
            painter.setFont(font)
            painter.setPen(QColor(colours[marked]))
            painter.drawText(
                QRect(x, rect.top(), width + 1, rect.height()),
                Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter,
                piece,
            )
            x += width
            if x >= right:
                break


class SearchField(QLineEdit):
    """The query field; Up/Down/Page keys move the result list without leaving the field."""

    moved = Signal(int)  # rows to move: -1, +1, or a page

    def keyPressEvent(self, event) -> None:
        steps = {Qt.Key.Key_Up: -1, Qt.Key.Key_Down: 1, Qt.Key.Key_PageUp: -5, Qt.Key.Key_PageDown: 5}
        if event.key() in steps:
            self.moved.emit(steps[event.key()])
            return
        super().keyPressEvent(event)


class SearchDialog(QDialog):
    chosen = Signal(str, str, str)  # sessionId, messageId ("" for a match on the title or project only), query

    def __init__(self, client: HostClient, theme: Theme, parent: QWidget | None = None):
        super().__init__(parent)
        self.client = client
        self.theme = theme
        self.setObjectName("searchDialog")
        self.setWindowTitle(self.tr("Search chats"))
        self.resize(640, 520)
        self._choose_first = False  # Enter came before the results for the typed text
        self.model = SearchModel(client, self)
        self.model.searched.connect(self._searched)
        self.model.failed.connect(self.show_error)
        self.model.rowsInserted.connect(self._update_footer)
        self.model.counted.connect(self._update_footer)

        self.field = SearchField()
        self.field.setObjectName("searchField")
        self.field.setPlaceholderText(self.tr("Search chats…"))
        self.field.setClearButtonEnabled(True)
        self.field.setMaxLength(QUERY_MAX)
        self.field.textChanged.connect(self._text_changed)
        self.field.moved.connect(self.move_selection)
        self.field.returnPressed.connect(self.choose_current)

        self.debounce = QTimer(self)
        self.debounce.setSingleShot(True)
        self.debounce.setInterval(DEBOUNCE_MS)
        self.debounce.timeout.connect(self._search_now)

        self.list = QListView()
        self.list.setObjectName("searchResults")
        self.list.setModel(self.model)
        self.delegate = SearchDelegate(self.list, theme)
        self.list.setItemDelegate(self.delegate)
        self.list.setFrameShape(QFrame.Shape.NoFrame)
        self.list.setMouseTracking(True)
        self.list.setFocusPolicy(Qt.FocusPolicy.NoFocus)  # typing stays in the field
        self.list.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.list.setVerticalScrollMode(QAbstractItemView.ScrollMode.ScrollPerPixel)
        self.list.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.list.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.list.clicked.connect(self.choose)

        self.empty_label = QLabel(_tr(HINT_TEXT))
        self.empty_label.setObjectName("searchEmpty")
        self.empty_label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.empty_label.setWordWrap(True)
        self.pages = QStackedWidget()
        self.pages.addWidget(self.list)
        self.pages.addWidget(self.empty_label)
        self.pages.setCurrentWidget(self.empty_label)

        self.status_label = QLabel()
        self.status_label.setObjectName("searchStatus")
        self.keys_label = QLabel(self.tr("↑↓ to move  ·  Enter to open  ·  Esc to close"))
        self.keys_label.setObjectName("searchKeys")
        footer = QHBoxLayout()
        footer.setContentsMargins(16, 8, 16, 8)
        footer.addWidget(self.status_label, 1)
        footer.addWidget(self.keys_label)
        footer_frame = QFrame()
        footer_frame.setObjectName("searchFooter")
        footer_frame.setLayout(footer)

        self.runs_filter = QCheckBox(self.tr("&Automation runs"))  # Alt+A
        self.runs_filter.setObjectName("searchRunsFilter")
        self.runs_filter.setToolTip(
            self.tr(
                "Also search the chats your automations made "
                "(they are not in the sidebar; the Automations window lists them too)"
            )
        )
        self.runs_filter.toggled.connect(self._filter_changed)

        top = QHBoxLayout()
        top.setContentsMargins(16, 16, 16, 8)
        top.setSpacing(12)
        top.addWidget(self.field, 1)
        top.addWidget(self.runs_filter)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        layout.addLayout(top)
        layout.addWidget(self.pages, 1)
        layout.addWidget(footer_frame)
        self.set_theme(theme)

    @classmethod
    def ask(cls, client: HostClient, theme: Theme, parent: QWidget | None = None) -> SearchDialog:
        """Build the dialog; the caller connects ``chosen`` and calls ``open()``."""
        dialog = cls(client, theme, parent)
        dialog.setWindowModality(Qt.WindowModality.WindowModal)
        return dialog

    # -- public ------------------------------------------------------------------
    def set_theme(self, theme: Theme) -> None:
        self.theme = theme
        self.delegate.theme = theme
        self.setStyleSheet(_stylesheet(theme))
        outline_toggles(self, theme)
        self.list.viewport().update()

    def move_selection(self, steps: int) -> None:
        count = self.model.rowCount()
        if not count:
            return
        current = self.list.currentIndex()
        row = current.row() + steps if current.isValid() else (0 if steps > 0 else count - 1)
        if row >= count and self.model.canFetchMore():
            self.model.fetchMore()  # "load more" when the keyboard reaches the end
        row = max(0, min(count - 1, row))
        self.list.setCurrentIndex(self.model.index(row))
        self.list.scrollTo(self.model.index(row))

    def choose_current(self) -> None:
        if self.debounce.isActive() or self.model.query != self.field.text().strip()[:QUERY_MAX]:
            # The list still shows an older query: search now and take its first result.
            self.debounce.stop()
            self._choose_first = True
            self._search_now()
            return
        self.choose(self.list.currentIndex())

    def choose(self, index: QModelIndex) -> None:
        row = self.model.row_at(index)
        if row is None:
            return
        self.chosen.emit(row["sessionId"], first_message_id(row), self.model.query)
        self.accept()

    def show_error(self, error: HostError) -> None:
        self.status_label.setToolTip(f"{error.code}: {error.message}")
        text = error.message or error.code
        self.status_label.setText(
            self.status_label.fontMetrics().elidedText(
                text, Qt.TextElideMode.ElideRight, max(120, self.status_label.width())
            )
        )
        self.status_label.setStyleSheet(f"color: {self.theme.danger};")

    # -- Qt ----------------------------------------------------------------------
    def showEvent(self, event) -> None:
        super().showEvent(event)
        # Opening again keeps the last search; typing replaces it.
        self.field.selectAll()
        self.field.setFocus()

    # -- helpers -------------------------------------------------------------------
    def _text_changed(self, _text: str) -> None:
        self._choose_first = False
        self.model.forget_pending()
        self.debounce.start()

    def _filter_changed(self, on: bool) -> None:
        self.model.automation_runs = on
        self.field.setFocus()  # typing goes on in the field
        self._text_changed(self.field.text())

    def _search_now(self) -> None:
        spawn(self._search(self.field.text()), name="search-sessions")

    async def _search(self, text: str) -> None:
        await task_op(lambda: self.model.search(text), parent=self, name="search-sessions", failure=self.show_error)

    def _searched(self, query: str) -> None:
        if not query:
            self.empty_label.setText(_tr(HINT_TEXT))
        elif not self.model.rows:
            self.empty_label.setText(no_match_text(query))
        has_rows = bool(self.model.rows)
        self.pages.setCurrentWidget(self.list if has_rows else self.empty_label)
        if has_rows:
            self.list.setCurrentIndex(self.model.index(0))
            self.list.scrollToTop()
        self._update_footer()
        if self._choose_first:
            self._choose_first = False
            self.choose(self.model.index(0))

    def _update_footer(self, *_args) -> None:
        self.status_label.setStyleSheet("")
        self.status_label.setToolTip("")
        model = self.model
        if not model.query or not model.rows:
            self.status_label.setText("")
        elif not model.total_exact:  # the host counted the chats it listed, not all of them
            self.status_label.setText(self.tr("%1+ chats").replace("%1", f"{model.total:,}"))
        elif model.total > len(model.rows):
            self.status_label.setText(arg(self.tr("%1 of %2 chats"), len(model.rows), model.total))
        else:
            self.status_label.setText(counts.chats(model.total))


def _soft(color: str) -> QColor:
    soft = QColor(color)
    soft.setAlpha(48)
    return soft


def _stylesheet(t: Theme) -> str:
    return f"""
QDialog#searchDialog {{ background: {t.background}; }}
QLineEdit#searchField {{
    font-size: 15px; padding: 8px 12px; border: 1px solid {t.border}; border-radius: 8px;
    background: {t.background}; color: {t.text};
}}
QLineEdit#searchField:focus {{ border-color: {t.accent}; }}
QListView#searchResults {{ background: {t.background}; border: none; outline: 0; }}
QLabel#searchEmpty {{ color: {t.muted}; font-size: 14px; background: {t.background}; }}
QFrame#searchFooter {{ border-top: 1px solid {t.border}; background: {t.sidebar}; }}
QLabel#searchStatus, QLabel#searchKeys {{ color: {t.muted}; }}
QCheckBox#searchRunsFilter {{ color: {t.muted}; }}
"""
