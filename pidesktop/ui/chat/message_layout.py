"""How one transcript row is laid out and painted.

A row is a stack of parts, each a ``QTextDocument`` at a known offset: a user
prompt in a right-aligned bubble; for an assistant, a collapsible "Thought"
line, then its text and tool calls in order, runs of calls folded into activity
groups as the display mode says (``activity``); a subagent's rows are indented
under a guide line; a compaction is a thin labelled divider whose summary
unfolds on a click; a stored reply carries a muted usage line (tokens, and the
cost where the model's price is known) at the right of its actions. Layouts are
cached per (row, width, theme, expanded, mode), so scrolling repaints without
re-parsing Markdown.
"""

from __future__ import annotations

import html
from collections import OrderedDict
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication, QPointF, QRectF, QUrl
from PySide6.QtGui import (
    QAbstractTextDocumentLayout,
    QColor,
    QFont,
    QFontDatabase,
    QImage,
    QPainter,
    QPainterPath,
    QTextCharFormat,
    QTextDocument,
)

from pidesktop.sizes import human_size
from pidesktop.ui.chat import activity, markdown, native_parts, tool_rows
from pidesktop.ui.chat.usage_format import Prices, short_tokens, usage_line
from pidesktop.ui.kit.theme import Theme

ACTIONS_HEIGHT = 24
ACTION_GAP = 4
MAX_COLUMN = 760
SIDE_MARGIN = 24
ROW_GAP = 16
BUBBLE_PAD = 12
BUBBLE_MAX_FRACTION = 0.8
TOOL_PAD = 8
GROUP_INDENT = 16  # the calls inside an opened activity group
NEST_INDENT = 28  # a subagent's rows, under the Task call that spawned them
# The buttons under a message: English source texts, shown translated (context "MessageLayout").
USER_ACTIONS = (
    ("copy", QT_TRANSLATE_NOOP("MessageLayout", "Copy")),
    ("edit", QT_TRANSLATE_NOOP("MessageLayout", "Edit")),
    ("fork", QT_TRANSLATE_NOOP("MessageLayout", "Fork")),
    ("delete", QT_TRANSLATE_NOOP("MessageLayout", "Delete")),
)
# A subagent's rows belong to its Task call: they can be copied, not edited one by one.
NESTED_ACTIONS = (("copy", QT_TRANSLATE_NOOP("MessageLayout", "Copy")),)
SHOW_FULL = ("show-full", QT_TRANSLATE_NOOP("MessageLayout", "Show full message"))
REPLY_ACTIONS = (
    ("copy", QT_TRANSLATE_NOOP("MessageLayout", "Copy")),
    ("edit", QT_TRANSLATE_NOOP("MessageLayout", "Edit")),  # into a fork of the chat (session.editReply)
    ("regenerate", QT_TRANSLATE_NOOP("MessageLayout", "Regenerate")),
    ("fork", QT_TRANSLATE_NOOP("MessageLayout", "Fork")),
    ("delete", QT_TRANSLATE_NOOP("MessageLayout", "Delete")),
)
# A pi session is read-only here (docs/rpc.md, "Native pi sessions"): these would be refused.
READ_ONLY_OFF = frozenset({"edit", "regenerate", "delete"})
NOTE_PREVIEW = 280  # characters of a folded context note
FOUND_IN = ("text", "bubble")  # the parts whose text search finds (never thinking or tool output)


@dataclass
class Part:
    kind: str  # bubble | text | thinking | tool | group | divider | summary | usage | error
    doc: QTextDocument
    x: float
    y: float
    width: float
    height: float
    background: str | None = None
    border: str | None = None
    toggle: str | None = None  # what clicking this part expands or collapses
    source: str | None = None  # the Markdown a text part was made from (its code panels' Copy links)

    @property
    def pad(self) -> float:
        """Where the text starts inside the part's box."""
        return BUBBLE_PAD if self.kind == "bubble" else TOOL_PAD if self.kind in ("tool", "group", "summary") else 0


@dataclass
class Action:
    """A small text button under a message: copy, edit, regenerate, fork, delete, pager arrows."""

    name: str
    label: str
    rect: QRectF
    always: bool = False  # the revision pager stays visible; the rest show on hover
    enabled: bool = True
    button: bool = False  # drawn with a border: a tool row's Revert


@dataclass
class RenderedRow:
    height: float
    parts: list[Part] = field(default_factory=list)
    actions: list[Action] = field(default_factory=list)
    guide_x: float | None = None  # a nested (subagent) row draws a vertical guide here


@dataclass(frozen=True)
class Nesting:
    """A subagent's row (``meta.parentToolCallId``), drawn under its Task call."""

    agent: str
    first: bool  # the first row of this delegate's run: it carries the agent's name
    hidden: bool  # its Task call is loaded and folded


HIDDEN_ROW = RenderedRow(0.0)


def _doc(
    html: str, width: float, font: QFont, mono: bool = False, resources: Mapping[str, QImage] | None = None
) -> QTextDocument:
    doc = QTextDocument()
    doc.setDocumentMargin(0)
    for name, image in (resources or {}).items():
        doc.addResource(QTextDocument.ResourceType.ImageResource, QUrl(name), image)
    doc.setDefaultFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont) if mono else font)
    doc.setHtml(html)
    doc.setTextWidth(max(40.0, width))
    return doc


def _column(width: int) -> tuple[float, float]:
    column = min(MAX_COLUMN, max(200, width - 2 * SIDE_MARGIN))
    return (width - column) / 2, column


def layout_row(
    row: dict,
    width: int,
    theme: Theme,
    font: QFont,
    expanded: frozenset[str],
    show_thinking: bool = True,
    mode: str = activity.DEFAULT_MODE,
    nesting: Nesting | None = None,
    images: Mapping[str, Any] | None = None,
    prices: Prices | None = None,
    reviews: Mapping[str, dict] | None = None,
) -> RenderedRow:
    """``reviews``: what ``review.list`` says of the snapshots (by id) this row's changes made."""
    x0, column = _column(width)
    if row["kind"] == "compaction":
        return _divider(row, x0, column, theme, font, expanded)
    if nesting is not None and nesting.hidden:
        return HIDDEN_ROW
    message = row["message"]
    if message.get("role") == "system":
        return _labelled(
            _system(row, message, x0, column, theme, font, expanded), message, x0, column, theme, font, right=False
        )
    top = 0.0
    header: Part | None = None
    if nesting is not None:
        x0, column = x0 + NEST_INDENT, column - NEST_INDENT
        if nesting.first:
            label = html.escape(
                QCoreApplication.translate("MessageLayout", "Subagent %1").replace("%1", nesting.agent), quote=False
            )
            doc = _doc(f'<div style="color:{theme.muted}; font-size: small;">↳ {label}</div>', column, font)
            header = Part("text", doc, x0, ROW_GAP / 2, column, doc.size().height())
            top = header.height + 2
    if message.get("role") == "user":
        rendered = _user(message, x0, column, theme, font, nested=nesting is not None, images=images)
    else:
        rendered = _assistant(
            message,
            x0,
            column,
            theme,
            font,
            expanded,
            row.get("live", False),
            show_thinking,
            mode,
            nested=nesting is not None,
            prices=prices,
            reviews=reviews,
        )
    if row.get("readOnly"):
        for action in rendered.actions:
            action.enabled = action.enabled and action.name not in READ_ONLY_OFF
    rendered = _labelled(rendered, message, x0, column, theme, font, right=message.get("role") == "user")
    if nesting is None:
        return rendered
    return _nested(rendered, header, top, x0 - NEST_INDENT / 2)


def _nested(rendered: RenderedRow, header: Part | None, top: float, guide_x: float) -> RenderedRow:
    """Shift a laid-out row down under its header and mark it with the nesting guide."""
    if top:
        for part in rendered.parts:
            part.y += top
        for action in rendered.actions:
            action.rect.translate(0, top)
    parts = ([header] if header else []) + rendered.parts
    return RenderedRow(rendered.height + top, parts, rendered.actions, guide_x)


def summary_key(row: dict) -> str:
    """What clicking a compaction divider unfolds: its summary."""
    return f"summary:{row['key']}"


def divider_label(compaction: dict) -> str:
    """ "Earlier messages summarised · 48.2k tokens before · 2025-03-03 14:05" (what is known of it)."""
    pieces = [QCoreApplication.translate("MessageLayout", "Earlier messages summarised")]
    before = compaction.get("tokensBefore")
    if isinstance(before, int) and not isinstance(before, bool) and before > 0:
        pieces.append(
            QCoreApplication.translate("MessageLayout", "%1 tokens before").replace("%1", short_tokens(before))
        )
    when = _when(compaction.get("createdAt"))
    if when:
        pieces.append(when)
    return " · ".join(pieces)


def _when(value: Any) -> str:
    """A checkpoint's time (RFC 3339 text or epoch milliseconds) as local "2025-03-04 14:05"."""
    from PySide6.QtCore import QDateTime, Qt

    if isinstance(value, (int, float)) and not isinstance(value, bool):
        moment = QDateTime.fromMSecsSinceEpoch(int(value))
    elif isinstance(value, str) and value:
        moment = QDateTime.fromString(value, Qt.DateFormat.ISODateWithMs)
        if not moment.isValid():
            moment = QDateTime.fromString(value, Qt.DateFormat.ISODate)
    else:
        return ""
    if not moment.isValid():
        return ""
    # ISO order reads the same in every language; the system's short format can come out as "4 03 2025"
    return moment.toLocalTime().toString("yyyy-MM-dd HH:mm")


def _divider(
    row: dict,
    x0: float,
    column: float,
    theme: Theme,
    font: QFont,
    expanded: frozenset[str] = frozenset(),
    text: str | None = None,
) -> RenderedRow:
    """A thin full-width rule with its label (``text``, else the compaction's) in the middle; the
    summary (if any) unfolds under it."""
    compaction = row["compaction"]
    summary = compaction.get("summary") if isinstance(compaction.get("summary"), str) else ""
    key = summary_key(row)
    open_ = key in expanded
    arrow = ("▾ " if open_ else "▸ ") if summary.strip() else ""
    label = html.escape(text or divider_label(compaction), quote=False)
    doc = _doc(f'<p align="center" style="color:{theme.muted}; font-size: small;">{arrow}{label}</p>', column, font)
    height = doc.size().height()
    parts = [Part("divider", doc, x0, ROW_GAP / 2, column, height, toggle=key if arrow else None)]
    y = ROW_GAP / 2 + height
    if open_ and summary.strip():
        body = _doc(markdown.plain_to_html(summary, theme, theme.muted), column - 2 * TOOL_PAD, font)
        h = body.size().height() + 2 * TOOL_PAD
        y += 6
        parts.append(
            Part("summary", body, x0, y, column, h, background=theme.code_panel, border=theme.border, toggle=key)
        )
        y += h
    return RenderedRow(y + ROW_GAP / 2, parts)


def _system(
    row: dict, message: dict, x0: float, column: float, theme: Theme, font: QFont, expanded: frozenset[str]
) -> RenderedRow:
    """A pi session's system row: a branch summary as a divider, anything else as a muted context note."""
    text = native_parts.text_of(message)
    if native_parts.is_divider(message):
        return _divider(
            {"key": row["key"], "compaction": {"summary": text}},
            x0,
            column,
            theme,
            font,
            expanded,
            native_parts.divider_label(message),
        )
    key = summary_key(row)
    long_ = len(text) > NOTE_PREVIEW
    open_ = key in expanded
    shown = text if open_ or not long_ else text[:NOTE_PREVIEW].rstrip() + "…"
    arrow = f'<span style="color:{theme.muted};">{"▾" if open_ else "▸"}</span> ' if long_ else ""
    html_text = arrow + native_parts.note_heading(message, theme)
    if shown:
        html_text += markdown.plain_to_html(shown, theme, theme.muted)
    doc = _doc(html_text, column - 2 * TOOL_PAD, font)
    h = doc.size().height() + 2 * TOOL_PAD
    part = Part(
        "summary",
        doc,
        x0,
        ROW_GAP / 2,
        column,
        h,
        background=theme.background,
        border=theme.border,
        toggle=key if long_ else None,
    )
    return RenderedRow(ROW_GAP / 2 + h + ROW_GAP / 2, [part])


def _labelled(
    rendered: RenderedRow, message: dict, x0: float, column: float, theme: Theme, font: QFont, right: bool
) -> RenderedRow:
    """Labels set in pi (``meta.labels``) as chips over the row, on the side its content sits."""
    labels = native_parts.labels_of(message)
    if not labels or rendered is HIDDEN_ROW:
        return rendered
    doc = _doc(native_parts.chips_html(labels, theme), column, font)
    doc.setTextWidth(min(column, doc.idealWidth() + 1))
    w, h = doc.size().width(), doc.size().height()
    shift = h + 4
    for part in rendered.parts:
        part.y += shift
    for action in rendered.actions:
        action.rect.translate(0, shift)
    chip = Part("text", doc, x0 + column - w if right else x0, ROW_GAP / 2, w, h)
    return RenderedRow(rendered.height + shift, [chip, *rendered.parts], rendered.actions, rendered.guide_x)


def _user(
    message: dict,
    x0: float,
    column: float,
    theme: Theme,
    font: QFont,
    nested: bool = False,
    images: Mapping[str, Any] | None = None,
) -> RenderedRow:
    blocks = message.get("blocks", [])
    text = "\n\n".join(b.get("text", "") for b in blocks if b.get("type") == "text")
    attachments = [b for b in blocks if b.get("type") == "attachment"]
    # An approved plan's prompt is the app's sentence and the plan's Markdown, not typed text: rendered.
    approved = isinstance((message.get("meta") or {}).get("approvedProposal"), dict)
    html_text = (markdown.to_html(text, theme) if approved else markdown.prompt_to_html(text, theme)) if text else ""
    resources: dict[str, QImage] = {}
    if attachments:
        html_text += _attachments_html(attachments, theme, images or {}, resources)
    html_text += _inline_pictures_html(native_parts.inline_images(blocks), resources)
    limit = column * BUBBLE_MAX_FRACTION - 2 * BUBBLE_PAD
    doc = _doc(html_text, limit, font, resources=resources)
    ideal = min(limit, doc.idealWidth() + 1)
    doc.setTextWidth(ideal)
    size = doc.size()
    bubble_w = size.width() + 2 * BUBBLE_PAD
    part = Part(
        "bubble",
        doc,
        x0 + column - bubble_w,
        ROW_GAP / 2,
        bubble_w,
        size.height() + 2 * BUBBLE_PAD,
        background=theme.user_bubble,
    )
    y = part.y + part.height + ACTION_GAP
    meta = message.get("meta") or {}
    items = NESTED_ACTIONS if nested else USER_ACTIONS
    actions = _action_row(
        _translated(items + ((SHOW_FULL,) if _capped(message) else ())), x0 + column, y, font, align_right=True
    )
    count, active = meta.get("revisionCount"), meta.get("activeRevision")
    if isinstance(count, int) and count > 1 and isinstance(active, int):
        left = min(a.rect.left() for a in actions) - 12
        pager = _action_row(
            [("revision-prev", "‹"), ("revision-label", f"{active} / {count}"), ("revision-next", "›")],
            left,
            y,
            font,
            align_right=True,
            always=True,
        )
        pager[0].enabled = active > 1
        pager[2].enabled = active < count
        pager[1].enabled = False
        actions = pager + actions
    return RenderedRow(y + ACTIONS_HEIGHT + ROW_GAP / 2, [part], actions)


def _assistant(
    message: dict,
    x0: float,
    column: float,
    theme: Theme,
    font: QFont,
    expanded: frozenset[str],
    live: bool,
    show_thinking: bool = True,
    mode: str = activity.DEFAULT_MODE,
    nested: bool = False,
    prices: Prices | None = None,
    reviews: Mapping[str, dict] | None = None,
) -> RenderedRow:
    parts: list[Part] = []
    tool_actions: list[Action] = []
    y = ROW_GAP / 2
    mid = message.get("id", "")
    blocks = [tool_rows.effective(b, live) for b in message.get("blocks", [])]
    tools = _ToolContext(tool_actions, reviews or {}, not nested)
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
        body = f'<div style="color:{theme.muted};">{arrow} {html.escape(title, quote=False)}</div>'
        if open_:
            body += markdown.plain_to_html(thinking, theme, theme.muted)
        doc = _doc(body, column, font)
        h = doc.size().height()
        parts.append(Part("thinking", doc, x0, y, column, h, toggle=key))
        y += h + 6
    pieces = activity.segments(mid, blocks, mode)
    last_text = max((i for i, piece in enumerate(pieces) if piece.kind == "text"), default=-1)
    for position, piece in enumerate(pieces):
        if piece.kind == "text":
            streaming = live and position == last_text
            # While it streams, an emphasis or code marker whose end has not arrived is closed for now.
            text = markdown.close_open_markers(piece.text) + " ▍" if streaming else piece.text
            copy = QCoreApplication.translate("MessageLayout", "Copy")
            doc = _doc(markdown.to_html(text, theme, copy), column, font)
            h = doc.size().height()
            parts.append(Part("text", doc, x0, y, column, h, source=piece.text))
            y += h + 8
        elif piece.kind == "tool":
            y = _tool_part(parts, mid, piece.tools[0], x0, y, column, theme, font, expanded, tools)
        else:
            y = _group_part(parts, mid, piece, x0, y, column, theme, font, expanded, tools)
    pictures = native_parts.inline_images(blocks)
    if pictures:  # a pi session's reply may carry pictures inline
        resources: dict[str, QImage] = {}
        doc = _doc(_inline_pictures_html(pictures, resources), column, font, resources=resources)
        h = doc.size().height()
        parts.append(Part("text", doc, x0, y, column, h))
        y += h + 8
    if meta.get("imagesNotSent"):
        note = QCoreApplication.translate(
            "MessageLayout", "This model did not accept pictures, so they were sent by name only."
        )
        doc = _doc(
            f'<div style="color:{theme.muted}; font-size: small;">{html.escape(note, quote=False)}</div>', column, font
        )
        h = doc.size().height()
        parts.append(Part("text", doc, x0, y, column, h))
        y += h + 4
    error = meta.get("error") if isinstance(meta.get("error"), dict) else None
    if error is None and isinstance(meta.get("error"), str) and meta["error"]:
        error = {"message": meta["error"]}  # a pi session's failed reply says why in words
    status = meta.get("status")
    if error or status == "aborted":
        note = f"⚠ {error.get('message') or error.get('code')}" if error else _stopped_note(meta)
        color = theme.danger if error else theme.muted
        doc = _doc(f'<div style="color:{color};">{html.escape(note, quote=False)}</div>', column, font)
        h = doc.size().height()
        parts.append(Part("error", doc, x0, y, column, h))
        y += h + 4
    if not parts:
        empty = "…" if live else html.escape(QCoreApplication.translate("MessageLayout", "(empty reply)"), quote=False)
        doc = _doc(f'<div style="color:{theme.muted};">{empty}</div>', column, font)
        h = doc.size().height()
        parts.append(Part("text", doc, x0, y, column, h))
        y += h
    if live:
        return RenderedRow(y + ROW_GAP / 2, parts, tool_actions)
    items = NESTED_ACTIONS if nested else REPLY_ACTIONS
    actions = tool_actions + _action_row(
        _translated(items + ((SHOW_FULL,) if _capped(message) else ())), x0, y + ACTION_GAP, font
    )
    for action in actions:
        action.always = action.always or action.name == "show-full"  # a cut message says so without hovering
    used = usage_line(meta, prices)
    if used:  # always shown, at the right of the (hover) actions, so it costs no height
        doc = _doc(
            f'<span style="color:{theme.muted}; font-size: small;">{html.escape(used, quote=False)}</span>',
            column,
            font,
        )
        doc.setTextWidth(doc.idealWidth() + 1)
        w, h = doc.size().width(), doc.size().height()
        top = y + ACTION_GAP + max(0.0, (ACTIONS_HEIGHT - 2 - h) / 2)
        parts.append(Part("usage", doc, x0 + column - w, top, w, h))
    return RenderedRow(y + ACTION_GAP + ACTIONS_HEIGHT + ROW_GAP / 2, parts, actions)


def _attachments_html(
    attachments: list[dict], theme: Theme, images: Mapping[str, Any], resources: dict[str, QImage]
) -> str:
    """Image previews where they are loaded, a name chip for everything else."""
    pictures, chips = [], []
    unnamed = QCoreApplication.translate("MessageLayout", "attachment")
    for block in attachments:
        name = html.escape(str(block.get("name") or unnamed), quote=False)
        image = images.get(block.get("ref", ""))
        if block.get("kind") == "image" and isinstance(image, QImage):
            key = f"pidesktop-preview:{len(resources)}"
            resources[key] = image
            pictures.append(f'<img src="{key}" width="{image.width()}" height="{image.height()}" title="{name}">')
            continue
        size = human_size(block["size"]) if isinstance(block.get("size"), int) else ""
        chips.append(
            f'<td style="background:{theme.background}; padding: 4px 8px;">{name}'
            + (f'<span style="color:{theme.muted};"> · {size}</span>' if size else "")
            + "</td>"
        )
    html_text = ""
    if pictures:
        html_text += "<p>" + "&nbsp;".join(pictures) + "</p>"
    if chips:  # one small card per file, like the chips in the composer
        rows = "".join(f"<tr>{chip}</tr>" for chip in chips)
        html_text += f'<table cellspacing="4">{rows}</table>'
    return html_text


def _inline_pictures_html(pictures: list[QImage], resources: dict[str, QImage]) -> str:
    """Pictures a message carries itself (a pi session's ``image`` blocks), registered in ``resources``."""
    tags = []
    for image in pictures:
        key = f"pidesktop-inline:{len(resources)}"
        resources[key] = image
        tags.append(f'<img src="{key}" width="{image.width()}" height="{image.height()}">')
    return "<p>" + "&nbsp;".join(tags) + "</p>" if tags else ""


@dataclass
class _ToolContext:
    """What a tool row needs beyond its block: where its Revert goes, and what the host says of its snapshot."""

    actions: list[Action]
    reviews: Mapping[str, dict]
    revert: bool = True  # a subagent's rows are read, not acted on


def _tool_part(
    parts: list[Part],
    mid: str,
    tool: tuple[int, dict],
    x: float,
    y: float,
    width: float,
    theme: Theme,
    font: QFont,
    expanded: frozenset[str],
    context: _ToolContext | None = None,
) -> float:
    number, block = tool
    key = f"tool:{mid}:{number}"
    open_ = key in expanded
    review = tool_rows.review_of(block) if open_ and context and context.revert else None
    html_text = _tool_html(block, theme, open_)
    revert: Action | None = None
    if review is not None and context is not None and block.get("status") == "ok":
        enabled, why = tool_rows.revert_state(review, context.reviews.get(review["snapshotId"]))
        if why:
            html_text += f'<div style="color:{theme.muted};">{html.escape(why, quote=False)}</div>'
        known = {**review, **context.reviews.get(review["snapshotId"], {})}
        label = (
            QCoreApplication.translate("MessageLayout", "Reverted")
            if known.get("reverted")
            else QCoreApplication.translate("MessageLayout", "Revert")
        )
        revert = _action_row([(f"revert:{review['snapshotId']}", label)], x + TOOL_PAD, 0, font, always=True)[0]
        revert.enabled, revert.button = enabled, True
    doc = _doc(html_text, width - 2 * TOOL_PAD, font)
    h = doc.size().height() + 2 * TOOL_PAD
    if revert is not None and context is not None:
        revert.rect.moveTop(y + h - TOOL_PAD + 4)
        context.actions.append(revert)
        h += ACTIONS_HEIGHT + 4
    parts.append(Part("tool", doc, x, y, width, h, background=theme.code_panel, border=theme.border, toggle=key))
    return y + h + 6


def _group_part(
    parts: list[Part],
    mid: str,
    group: activity.Segment,
    x: float,
    y: float,
    width: float,
    theme: Theme,
    font: QFont,
    expanded: frozenset[str],
    context: _ToolContext | None = None,
) -> float:
    """One folded line for a run of tool calls; opened, the calls follow it, indented."""
    open_ = group.key in expanded
    doc = _doc(_group_html(group, theme, open_), width - 2 * TOOL_PAD, font)
    h = doc.size().height() + 2 * TOOL_PAD
    parts.append(Part("group", doc, x, y, width, h, background=theme.code_panel, border=theme.border, toggle=group.key))
    y += h + 6
    if open_:
        for tool in group.tools:
            y = _tool_part(parts, mid, tool, x + GROUP_INDENT, y, width - GROUP_INDENT, theme, font, expanded, context)
    return y


def _group_html(group: activity.Segment, theme: Theme, open_: bool) -> str:
    names, seconds, worst = activity.group_summary(group.tools)
    # A group holds two calls or more, so the plural always reads right.
    steps = QCoreApplication.translate("MessageLayout", "%1 steps").replace("%1", str(len(group.tools)))
    listed = ", ".join(name if count == 1 else f"{name} ×{count}" for name, count in names)
    mark = {"ok": "✓", "error": "✗", "unanswered": "–"}.get(worst, "…")
    color = theme.danger if worst == "error" else theme.muted
    took = f" · {_duration(seconds)}" if seconds is not None else ""
    arrow = "▾" if open_ else "▸"
    return (
        f'<div><span style="color:{theme.muted};">{arrow}</span> <b>{html.escape(steps, quote=False)}</b> '
        f'<span style="color:{theme.muted};">{html.escape(_clip(listed, 70), quote=False)}</span> '
        f'<span style="color:{color};">{mark}{took}</span></div>'
    )


def _duration(seconds: float) -> str:
    return f"{seconds * 1000:.0f} ms" if seconds < 1 else f"{seconds:.1f} s"


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _action_row(
    items: list[tuple[str, str]], x: float, y: float, font: QFont, align_right: bool = False, always: bool = False
) -> list[Action]:
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


def _stopped_note(meta: dict) -> str:
    """Under an aborted reply: stopped by the person, or cut off by a quit or crash (recovered at start-up)."""
    if meta.get("stopReason") == "crash" or meta.get("recoveredFrom") == "inflight":
        return QCoreApplication.translate(
            "MessageLayout", "Interrupted — pidesktop quit or crashed while this reply was being written."
        )
    return QCoreApplication.translate("MessageLayout", "Stopped — the reply above is partial.")


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
    name = html.escape(str(block.get("name") or "tool"), quote=False)
    status = block.get("status") or "running"
    mark = {"ok": "✓", "error": "✗", "denied": "⊘", "unanswered": "–"}.get(status, "…")
    color = theme.danger if status in ("error", "denied") else theme.muted
    args = block.get("args")
    own = tool_rows.summary(block)  # the agent's file and shell tools: path or command
    summary = _clip(own, 60) if own is not None else _summary(args)
    duration = block.get("durationMs")
    took = f" · {_duration(duration / 1000)}" if isinstance(duration, (int, float)) else ""
    if status == "denied":  # it never ran: no time, and the word itself (UX.md's "denied" mark)
        took = " " + html.escape(QCoreApplication.translate("MessageLayout", "denied"), quote=False)
    arrow = "▾" if open_ else "▸"
    head = (
        f'<span style="color:{theme.muted};">{arrow}</span> <b>{name}</b> '
        f'<span style="color:{theme.muted};">{html.escape(summary, quote=False)}</span> '
        f'<span style="color:{color};" title="{html.escape(_status_words(status), quote=False)}">{mark}{took}</span>'
    )
    if not open_:
        return f"<div>{head}</div>"
    if own is not None:
        return f"<div>{head}</div>{tool_rows.detail_html(block, theme)}"
    detail = f"<pre>{html.escape(tool_rows.pretty(args), quote=False)}</pre>"
    if "result" in block:
        label = html.escape(QCoreApplication.translate("MessageLayout", "result"), quote=False)
        shown = tool_rows.cut(tool_rows.pretty(block["result"]))[0]  # pi's limits, for imported output too
        detail += f'<div style="color:{theme.muted};">{label}</div><pre>{html.escape(shown, quote=False)}</pre>'
    return f"<div>{head}</div>{detail}"


STATUS_WORDS = {
    "ok": QT_TRANSLATE_NOOP("MessageLayout", "Done"),
    "error": QT_TRANSLATE_NOOP("MessageLayout", "Failed"),
    "denied": QT_TRANSLATE_NOOP("MessageLayout", "Denied"),
    "unanswered": QT_TRANSLATE_NOOP("MessageLayout", "Not run"),
    "running": QT_TRANSLATE_NOOP("MessageLayout", "Running"),
}


def _status_words(status: str) -> str:
    return QCoreApplication.translate("MessageLayout", str(STATUS_WORDS.get(status, STATUS_WORDS["running"])))


def _summary(args: Any) -> str:
    if isinstance(args, dict):
        for key in ("plan", "goal"):  # SubmitPlan / SubmitGoal: the proposal's first line (its title)
            if isinstance(args.get(key), str):
                first = next((line.strip().lstrip("#").strip() for line in args[key].splitlines() if line.strip()), "")
                return first if len(first) <= 60 else first[:57] + "…"
        if isinstance(args.get("todos"), list):  # TodoWrite: how far the checklist is
            done = sum(1 for item in args["todos"] if isinstance(item, dict) and item.get("status") == "completed")
            return (
                QCoreApplication.translate("MessageLayout", "%1 of %2 done")
                .replace("%1", str(done))
                .replace("%2", str(len(args["todos"])))
            )
        for key in ("description", "command", "path", "file_path", "query", "url", "city", "pattern"):
            if isinstance(args.get(key), str):
                value = args[key]
                return value if len(value) <= 60 else value[:57] + "…"
        text = tool_rows.pretty(args).replace("\n", " ")
    else:
        text = str(args) if args is not None else ""
    return text if len(text) <= 60 else text[:57] + "…"


def paint_row(
    painter: QPainter,
    rendered: RenderedRow,
    top: float,
    left: float,
    theme: Theme,
    highlighted: float = 0.0,
    hovered: bool = False,
    hover_action: str | None = None,
    font: QFont | None = None,
    visible: QRectF | None = None,
    marked: str = "",
) -> None:
    """``highlighted``: how strongly the row is marked as a search hit, 1 (full) fading to 0 (not at all);
    ``marked``: the words the hit was found by, marked wherever its text shows them.

    ``visible``: the part of the painter that shows (the view's viewport); only the text there is drawn,
    so a row taller than the view (a long output, a long reply) costs what shows. The painter's own
    clip, when it has one, is used instead."""
    painter.save()
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    if highlighted > 0:
        color = QColor(theme.accent).lighter(190) if theme.name == "light" else QColor(theme.selected)
        color.setAlphaF(min(1.0, float(highlighted)))
        painter.fillRect(QRectF(left, top, 10_000, rendered.height), color)
    if rendered.guide_x is not None:
        painter.fillRect(QRectF(left + rendered.guide_x - 1, top, 2, rendered.height), QColor(theme.border))
    shown = painter.clipBoundingRect() if painter.hasClipping() else visible
    for part in rendered.parts:
        x, y = left + part.x, top + part.y
        if shown is not None and not shown.intersects(QRectF(x, y, part.width, part.height)):
            continue
        if part.background:
            path = QPainterPath()
            path.addRoundedRect(QRectF(x, y, part.width, part.height), 8, 8)
            painter.fillPath(path, QColor(part.background))
            if part.border:
                painter.setPen(QColor(part.border))
                painter.drawPath(path)
        if part.kind == "divider":
            _rule(painter, part, x, y, theme)
        painter.save()
        painter.translate(QPointF(x + part.pad, y + part.pad))
        context = QAbstractTextDocumentLayout.PaintContext()
        if shown is not None:  # only the blocks in view: a long diff or output costs what shows
            context.clip = shown.translated(-(x + part.pad), -(y + part.pad))
        if marked and part.kind in FOUND_IN:
            context.selections = _found_marks(part.doc, marked, theme)
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
            if action.button:
                frame = QPainterPath()
                frame.addRoundedRect(rect.adjusted(0.5, 0.5, -0.5, -0.5), 6, 6)
                painter.fillPath(frame, QColor(theme.background))
                painter.setPen(QColor(theme.border))
                painter.drawPath(frame)
            if action.enabled and action.name == hover_action:
                path = QPainterPath()
                path.addRoundedRect(rect, 6, 6)
                painter.fillPath(path, QColor(theme.hover))
            color = QColor(theme.text if action.name == hover_action or action.button else theme.muted)
            if not action.enabled and action.name != "revision-label":
                color.setAlphaF(0.35)
            painter.setPen(color)
            painter.drawText(rect, 0x84, action.label)  # AlignCenter
    painter.restore()


def _rule(painter: QPainter, part: Part, x: float, y: float, theme: Theme) -> None:
    """The divider's thin line, left and right of its centred label."""
    label = min(part.doc.idealWidth(), part.width)
    middle = y + part.doc.documentLayout().blockBoundingRect(part.doc.begin()).height() / 2
    gap = 12
    left_end = x + (part.width - label) / 2 - gap
    right_start = x + (part.width + label) / 2 + gap
    painter.save()
    painter.setPen(QColor(theme.border))
    if left_end > x:
        painter.drawLine(QPointF(x, middle), QPointF(left_end, middle))
    if right_start < x + part.width:
        painter.drawLine(QPointF(right_start, middle), QPointF(x + part.width, middle))
    painter.restore()


def _found_marks(doc: QTextDocument, text: str, theme: Theme) -> list[QAbstractTextDocumentLayout.Selection]:
    """Every case-blind match of ``text`` in ``doc``, on the soft accent the search dialog marks them with."""
    look = QTextCharFormat()
    mark = QColor(theme.accent)
    mark.setAlpha(72)
    look.setBackground(mark)
    marks = []
    found = doc.find(text)
    while not found.isNull():
        selection = QAbstractTextDocumentLayout.Selection()
        selection.cursor, selection.format = found, look
        marks.append(selection)
        found = doc.find(text, found)
    return marks


def match_top(rendered: RenderedRow, text: str) -> float | None:
    """How far below the row's top the first line showing ``text`` (case-blind) begins; None when no text
    of the row shows it (it may sit in a folded thought or tool output)."""
    for part in rendered.parts:
        if part.kind not in FOUND_IN:
            continue
        found = part.doc.find(text)
        if found.isNull():
            continue
        block = found.block()
        line = block.layout().lineForTextPosition(found.selectionStart() - block.position())
        top = part.doc.documentLayout().blockBoundingRect(block).top() + (line.y() if line.isValid() else 0.0)
        return part.y + part.pad + top
    return None


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
