"""How one transcript row is laid out and painted.

A row is a stack of parts, each a ``QTextDocument`` at a known offset: a user
prompt in a right-aligned bubble; for an assistant, a collapsible "Thought"
line, the Markdown answer and one compact row per tool call; a compaction is a
thin labelled divider. Layouts are cached per (row, width, theme, expanded),
so scrolling repaints without re-parsing Markdown.
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any

import orjson
from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication, QPointF, QRectF, QSizeF
from PySide6.QtGui import QAbstractTextDocumentLayout, QColor, QFont, QFontDatabase, QPainter, QPainterPath, QTextDocument

from . import markdown
from .theme import Theme

ACTIONS_HEIGHT = 24
ACTION_GAP = 4
MAX_COLUMN = 760
SIDE_MARGIN = 24
ROW_GAP = 16
BUBBLE_PAD = 12
BUBBLE_MAX_FRACTION = 0.8
TOOL_PAD = 8
# The buttons under a message: English source texts, shown translated (context "MessageLayout").
USER_ACTIONS = (("copy", QT_TRANSLATE_NOOP("MessageLayout", "Copy")),
                ("edit", QT_TRANSLATE_NOOP("MessageLayout", "Edit")),
                ("fork", QT_TRANSLATE_NOOP("MessageLayout", "Fork")),
                ("delete", QT_TRANSLATE_NOOP("MessageLayout", "Delete")))
SHOW_FULL = ("show-full", QT_TRANSLATE_NOOP("MessageLayout", "Show full message"))
REPLY_ACTIONS = (("copy", QT_TRANSLATE_NOOP("MessageLayout", "Copy")),
                 ("regenerate", QT_TRANSLATE_NOOP("MessageLayout", "Regenerate")),
                 ("fork", QT_TRANSLATE_NOOP("MessageLayout", "Fork")),
                 ("delete", QT_TRANSLATE_NOOP("MessageLayout", "Delete")))


@dataclass
class Part:
    kind: str  # bubble | text | thinking | tool | divider | error
    doc: QTextDocument
    x: float
    y: float
    width: float
    height: float
    background: str | None = None
    border: str | None = None
    toggle: str | None = None  # what clicking this part expands or collapses


@dataclass
class Action:
    """A small text button under a message: copy, edit, regenerate, fork, delete, pager arrows."""

    name: str
    label: str
    rect: QRectF
    always: bool = False  # the revision pager stays visible; the rest show on hover
    enabled: bool = True


@dataclass
class RenderedRow:
    height: float
    parts: list[Part] = field(default_factory=list)
    actions: list[Action] = field(default_factory=list)


def _doc(html: str, width: float, font: QFont, mono: bool = False) -> QTextDocument:
    doc = QTextDocument()
    doc.setDocumentMargin(0)
    doc.setDefaultFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont) if mono else font)
    doc.setHtml(html)
    doc.setTextWidth(max(40.0, width))
    return doc


def _column(width: int) -> tuple[float, float]:
    column = min(MAX_COLUMN, max(200, width - 2 * SIDE_MARGIN))
    return (width - column) / 2, column


def layout_row(row: dict, width: int, theme: Theme, font: QFont, expanded: frozenset[str],
               show_thinking: bool = True) -> RenderedRow:
    x0, column = _column(width)
    if row["kind"] == "compaction":
        return _divider(row["compaction"], x0, column, theme, font)
    message = row["message"]
    if message.get("role") == "user":
        return _user(message, x0, column, theme, font)
    return _assistant(message, x0, column, theme, font, expanded, row.get("live", False), show_thinking)


def _divider(compaction: dict, x0: float, column: float, theme: Theme, font: QFont) -> RenderedRow:
    label = _escape(QCoreApplication.translate("MessageLayout", "Earlier messages summarised"))
    html_text = (f'<p align="center" style="color:{theme.muted}; font-size: small;">'
                 f'── {label} ──</p>')
    doc = _doc(html_text, column, font)
    height = doc.size().height()
    return RenderedRow(height + ROW_GAP, [Part("divider", doc, x0, ROW_GAP / 2, column, height)])


def _user(message: dict, x0: float, column: float, theme: Theme, font: QFont) -> RenderedRow:
    text = "\n\n".join(b.get("text", "") for b in message.get("blocks", []) if b.get("type") == "text")
    unnamed = QCoreApplication.translate("MessageLayout", "attachment")
    chips = [b.get("name", unnamed) for b in message.get("blocks", []) if b.get("type") == "attachment"]
    if chips:
        text = (text + "\n" if text else "") + "  ".join(f"📎 {name}" for name in chips)
    limit = column * BUBBLE_MAX_FRACTION - 2 * BUBBLE_PAD
    doc = _doc(markdown.plain_to_html(text, theme), limit, font)
    ideal = min(limit, doc.idealWidth() + 1)
    doc.setTextWidth(ideal)
    size = doc.size()
    bubble_w = size.width() + 2 * BUBBLE_PAD
    part = Part("bubble", doc, x0 + column - bubble_w, ROW_GAP / 2, bubble_w, size.height() + 2 * BUBBLE_PAD,
                background=theme.user_bubble)
    y = part.y + part.height + ACTION_GAP
    meta = message.get("meta") or {}
    actions = _action_row(_translated(USER_ACTIONS + ((SHOW_FULL,) if _capped(message) else ())),
                          x0 + column, y, font, align_right=True)
    count, active = meta.get("revisionCount"), meta.get("activeRevision")
    if isinstance(count, int) and count > 1 and isinstance(active, int):
        left = min(a.rect.left() for a in actions) - 12
        pager = _action_row([("revision-prev", "‹"), ("revision-label", f"{active} / {count}"),
                             ("revision-next", "›")], left, y, font, align_right=True, always=True)
        pager[0].enabled = active > 1
        pager[2].enabled = active < count
        pager[1].enabled = False
        actions = pager + actions
    return RenderedRow(y + ACTIONS_HEIGHT + ROW_GAP / 2, [part], actions)


def _assistant(message: dict, x0: float, column: float, theme: Theme, font: QFont,
               expanded: frozenset[str], live: bool, show_thinking: bool = True) -> RenderedRow:
    parts: list[Part] = []
    y = ROW_GAP / 2
    mid = message.get("id", "")
    blocks = message.get("blocks", [])
    meta = message.get("meta") or {}
    thinking = "\n\n".join(b.get("text", "") for b in blocks if b.get("type") == "thinking" and b.get("text"))
    if thinking and show_thinking:
        key = f"thinking:{mid}"
        open_ = key in expanded
        seconds = meta.get("thinkingSeconds")
        if live and not _has_text(blocks):
            title = QCoreApplication.translate("MessageLayout", "Thinking…")
        else:
            title = _thought_label(seconds)
        arrow = "▾" if open_ else "▸"
        body = (f'<div style="color:{theme.muted};">{arrow} {_escape(title)}</div>')
        if open_:
            body += markdown.plain_to_html(thinking, theme, theme.muted)
        doc = _doc(body, column, font)
        h = doc.size().height()
        parts.append(Part("thinking", doc, x0, y, column, h, toggle=key))
        y += h + 6
    text = "\n\n".join(b.get("text", "") for b in blocks if b.get("type") == "text" and b.get("text"))
    if text:
        suffix = " ▍" if live else ""
        doc = _doc(markdown.to_html(text + suffix, theme), column, font)
        h = doc.size().height()
        parts.append(Part("text", doc, x0, y, column, h))
        y += h + 4
    for number, block in enumerate(b for b in blocks if b.get("type") == "tool_call"):
        key = f"tool:{mid}:{number}"
        doc = _doc(_tool_html(block, theme, key in expanded), column - 2 * TOOL_PAD, font)
        h = doc.size().height() + 2 * TOOL_PAD
        parts.append(Part("tool", doc, x0, y, column, h, background=theme.code_panel, border=theme.border,
                          toggle=key))
        y += h + 6
    error = meta.get("error") if isinstance(meta.get("error"), dict) else None
    status = meta.get("status")
    if error or status == "aborted":
        note = (f"⚠ {error.get('message') or error.get('code')}" if error
                else QCoreApplication.translate("MessageLayout", "Stopped — the reply above is partial."))
        color = theme.danger if error else theme.muted
        doc = _doc(f'<div style="color:{color};">{_escape(note)}</div>', column, font)
        h = doc.size().height()
        parts.append(Part("error", doc, x0, y, column, h))
        y += h + 4
    if not parts:
        empty = "…" if live else _escape(QCoreApplication.translate("MessageLayout", "(empty reply)"))
        doc = _doc(f'<div style="color:{theme.muted};">{empty}</div>', column, font)
        h = doc.size().height()
        parts.append(Part("text", doc, x0, y, column, h))
        y += h
    if live:
        return RenderedRow(y + ROW_GAP / 2, parts)
    actions = _action_row(_translated(REPLY_ACTIONS + ((SHOW_FULL,) if _capped(message) else ())),
                          x0, y + ACTION_GAP, font)
    for action in actions:
        action.always = action.always or action.name == "show-full"  # a cut message says so without hovering
    return RenderedRow(y + ACTION_GAP + ACTIONS_HEIGHT + ROW_GAP / 2, parts, actions)


def _action_row(items: list[tuple[str, str]], x: float, y: float, font: QFont, align_right: bool = False,
                always: bool = False) -> list[Action]:
    """Lay out small text buttons left to right from ``x`` (or ending at ``x``)."""
    from PySide6.QtGui import QFontMetricsF

    small = QFont(font)
    small.setPointSizeF(max(7.0, font.pointSizeF() * 0.9))
    metrics = QFontMetricsF(small)
    widths = [metrics.horizontalAdvance(label) + 16 for _name, label in items]
    start = x - sum(widths) if align_right else x
    actions = []
    for (name, label), width in zip(items, widths):
        actions.append(Action(name, label, QRectF(start, y, width, ACTIONS_HEIGHT - 2), always))
        start += width
    return actions


def _translated(items: tuple[tuple[str, str], ...]) -> list[tuple[str, str]]:
    return [(name, QCoreApplication.translate("MessageLayout", label)) for name, label in items]


def _thought_label(seconds) -> str:
    if not isinstance(seconds, (int, float)):
        return QCoreApplication.translate("MessageLayout", "Thought")
    if seconds < 1:
        return QCoreApplication.translate("MessageLayout", "Thought for a moment")
    return QCoreApplication.translate("MessageLayout", "Thought for %1 s").replace("%1", f"{seconds:.0f}")


def _capped(message: dict) -> bool:
    """Some block was cut for display (``contentLimit``); the stored message is whole."""
    return any(isinstance(b, dict) and b.get("truncated") for b in message.get("blocks", []))


def _has_text(blocks: list[dict]) -> bool:
    return any(b.get("type") == "text" and b.get("text") for b in blocks)


def _tool_html(block: dict, theme: Theme, open_: bool) -> str:
    name = _escape(str(block.get("name") or "tool"))
    status = block.get("status") or "running"
    mark = {"ok": "✓", "error": "✗", "denied": "⊘"}.get(status, "…")
    color = theme.danger if status in ("error", "denied") else theme.muted
    args = block.get("args")
    summary = _summary(args)
    duration = block.get("durationMs")
    took = f" · {duration / 1000:.1f} s" if isinstance(duration, (int, float)) else ""
    arrow = "▾" if open_ else "▸"
    head = (f'<span style="color:{theme.muted};">{arrow}</span> <b>{name}</b> '
            f'<span style="color:{theme.muted};">{_escape(summary)}</span> '
            f'<span style="color:{color};">{mark}{took}</span>')
    if not open_:
        return f"<div>{head}</div>"
    detail = f"<pre>{_escape(_pretty(args))}</pre>"
    if "result" in block:
        label = _escape(QCoreApplication.translate("MessageLayout", "result"))
        detail += f'<div style="color:{theme.muted};">{label}</div><pre>{_escape(_pretty(block["result"]))}</pre>'
    return f"<div>{head}</div>{detail}"


def _summary(args: Any) -> str:
    if isinstance(args, dict):
        for key in ("command", "path", "file_path", "query", "url", "city", "pattern"):
            if isinstance(args.get(key), str):
                value = args[key]
                return value if len(value) <= 60 else value[:57] + "…"
        text = _pretty(args).replace("\n", " ")
    else:
        text = str(args) if args is not None else ""
    return text if len(text) <= 60 else text[:57] + "…"


def _pretty(value: Any) -> str:
    if isinstance(value, str):
        return value
    try:
        return orjson.dumps(value, option=orjson.OPT_INDENT_2).decode()
    except TypeError:
        return str(value)


def _escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def paint_row(painter: QPainter, rendered: RenderedRow, top: float, left: float, theme: Theme,
              highlighted: bool = False, hovered: bool = False, hover_action: str | None = None,
              font: QFont | None = None) -> None:
    painter.save()
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    if highlighted:
        painter.fillRect(QRectF(left, top, 10_000, rendered.height), QColor(theme.accent).lighter(190)
                         if theme.name == "light" else QColor(theme.selected))
    for part in rendered.parts:
        x, y = left + part.x, top + part.y
        if part.background:
            path = QPainterPath()
            path.addRoundedRect(QRectF(x, y, part.width, part.height), 8, 8)
            painter.fillPath(path, QColor(part.background))
            if part.border:
                painter.setPen(QColor(part.border))
                painter.drawPath(path)
        pad = BUBBLE_PAD if part.kind == "bubble" else TOOL_PAD if part.kind == "tool" else 0
        painter.save()
        painter.translate(QPointF(x + pad, y + pad))
        context = QAbstractTextDocumentLayout.PaintContext()
        part.doc.documentLayout().draw(painter, context)
        painter.restore()
    if rendered.actions and font is not None:
        small = QFont(font)
        small.setPointSizeF(max(7.0, font.pointSizeF() * 0.9))
        painter.setFont(small)
        for action in rendered.actions:
            if not (hovered or action.always):
                continue
            rect = action.rect.translated(left, top)
            if action.enabled and action.name == hover_action:
                path = QPainterPath()
                path.addRoundedRect(rect, 6, 6)
                painter.fillPath(path, QColor(theme.hover))
            color = QColor(theme.text if action.name == hover_action else theme.muted)
            if not action.enabled and action.name != "revision-label":
                color.setAlphaF(0.35)
            painter.setPen(color)
            painter.drawText(rect, 0x84, action.label)  # AlignCenter
    painter.restore()


class LayoutCache:
    """Rendered rows by (key, width, theme, expanded); bounded, least recently used out first."""

    def __init__(self, capacity: int = 600):
        self._items: OrderedDict[tuple, RenderedRow] = OrderedDict()
        self._capacity = capacity

    def get(self, key: tuple) -> RenderedRow | None:
        item = self._items.get(key)
        if item is not None:
            self._items.move_to_end(key)
        return item

    def put(self, key: tuple, value: RenderedRow) -> None:
        self._items[key] = value
        self._items.move_to_end(key)
        while len(self._items) > self._capacity:
            self._items.popitem(last=False)

    def clear(self) -> None:
        self._items.clear()


def size_of(rendered: RenderedRow, width: int) -> QSizeF:
    return QSizeF(width, rendered.height)
