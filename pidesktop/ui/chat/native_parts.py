"""What a pi session adds to a transcript row, as HTML for the message layout.

A pi session's entries that are not plain messages arrive as ``role: "system"``
messages (``meta.native.type``): a ``custom_message`` is context an extension
gave the model (a muted note), a ``branch_summary`` says what another branch
of the tree did (a divider whose summary unfolds). Labels a person set in pi
(``meta.labels``) are small chips over their message. Pictures pi stored
inline (``{"type": "image", "data": base64}``) are decoded here, bounded.
"""

from __future__ import annotations

import base64
import binascii
import html

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication, Qt
from PySide6.QtGui import QImage

from pidesktop.ui.kit.theme import Theme

CONTEXT = "NativeParts"
CONTEXT_NOTE = QT_TRANSLATE_NOOP("NativeParts", "Context given to the model")
BRANCH_SUMMARY = QT_TRANSLATE_NOOP("NativeParts", "Summary of another branch")
IMAGE_EDGE = 320  # a picture shows at most this wide or high
IMAGE_BYTES = 20 * 1024 * 1024  # larger inline pictures are named, not decoded


def native_type(message: dict) -> str | None:
    meta = message.get("meta")
    native = meta.get("native") if isinstance(meta, dict) else None
    return native.get("type") if isinstance(native, dict) else None


def is_divider(message: dict) -> bool:
    """A system row drawn as a divider (a branch summary) rather than a note."""
    return message.get("role") == "system" and native_type(message) == "branch_summary"


def text_of(message: dict) -> str:
    return "\n\n".join(
        b.get("text", "")
        for b in message.get("blocks", [])
        if isinstance(b, dict) and b.get("type") == "text" and b.get("text")
    )


def divider_label(message: dict) -> str:
    return QCoreApplication.translate(CONTEXT, BRANCH_SUMMARY)


def note_heading(message: dict, theme: Theme) -> str:
    """The muted first line of a context note: what it is, and which extension gave it."""
    meta = message.get("meta") or {}
    native = meta.get("native") if isinstance(meta.get("native"), dict) else {}
    label = QCoreApplication.translate(CONTEXT, CONTEXT_NOTE)
    kind = native.get("customType")
    source = f" · {html.escape(str(kind), quote=False)}" if isinstance(kind, str) and kind else ""
    return f'<div style="color:{theme.muted}; font-size: small;">{html.escape(label, quote=False)}{source}</div>'


def labels_of(message: dict) -> list[str]:
    meta = message.get("meta")
    labels = meta.get("labels") if isinstance(meta, dict) else None
    return [str(label) for label in labels if isinstance(label, str) and label] if isinstance(labels, list) else []


def chips_html(labels: list[str], theme: Theme) -> str:
    """One small rounded-looking chip per label (a table cell each: QTextDocument has no border-radius)."""
    cells = "".join(
        f'<td style="background:{theme.selected}; color:{theme.text}; padding: 1px 6px;">'
        f'{html.escape(label, quote=False)}</td><td width="4"></td>'
        for label in labels
    )
    return f'<table cellspacing="0" cellpadding="0" style="font-size: small;"><tr>{cells}</tr></table>'


def inline_images(blocks: list[dict]) -> list[QImage]:
    """The pictures of ``image`` blocks that carry base64 data, scaled down to IMAGE_EDGE."""
    images = []
    for block in blocks:
        data = block.get("data") if isinstance(block, dict) and block.get("type") == "image" else None
        if not isinstance(data, str) or not data or len(data) > IMAGE_BYTES * 4 // 3 + 4:
            continue
        try:
            raw = base64.b64decode(data, validate=False)
        except (binascii.Error, ValueError):
            continue
        image = QImage.fromData(raw)
        if image.isNull():
            continue
        if image.width() > IMAGE_EDGE or image.height() > IMAGE_EDGE:
            image = image.scaled(
                IMAGE_EDGE, IMAGE_EDGE, Qt.AspectRatioMode.KeepAspectRatio, Qt.TransformationMode.SmoothTransformation
            )
        images.append(image)
    return images
