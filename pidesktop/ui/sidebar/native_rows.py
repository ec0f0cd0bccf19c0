"""Native pi sessions in the sidebar: which rows they are, where they show, and their badge.

The host lists the pi coding agent's own session files beside the app's chats
(``origin: "native-pi"``, ``readOnly: true``). A native row goes to its
project's group when its ``cwd`` is a known project; otherwise to a group of
its working folder ("work · pi"), after the app's own chats. The "Show pi
sessions" filter is a front-end preference (``sessionView.native``) and only
hides rows; nothing is asked of the host again.
"""

from __future__ import annotations

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication, QRectF, Qt
from PySide6.QtGui import QColor, QFont, QFontMetricsF, QPainter, QPainterPath

from pidesktop.ui.kit.session_rows import is_native

GROUP_PREFIX = "pi:"  # a group key: "pi:<cwd>"
CONTEXT = "NativeRows"
GROUP_LABEL = QT_TRANSLATE_NOOP("NativeRows", "%1 · pi")
NO_FOLDER = QT_TRANSLATE_NOOP("NativeRows", "pi sessions")
BADGE = "pi"
COPY_BADGE = QT_TRANSLATE_NOOP("NativeRows", "pi copy")
COPY_TIP = QT_TRANSLATE_NOOP("NativeRows", "%1\nA copy imported from pi: the pi session itself is the row tagged “pi”.")
BADGE_GAP = 6


def shown(prefs) -> bool:
    """Whether the sidebar shows pi sessions (the "Show pi sessions" filter; on by default)."""
    return bool(prefs.sidebar["sessionView"].get("native", True))


def group_key(session: dict) -> str | None:
    """The folder group of a native row outside every project; None for the app's own chats."""
    if not is_native(session):
        return None
    return GROUP_PREFIX + (session.get("cwd") or "")


def is_group_key(key: str) -> bool:
    return key.startswith(GROUP_PREFIX)


def group_folder(key: str) -> str:
    return key[len(GROUP_PREFIX) :]


def group_label(key: str) -> str:
    folder = group_folder(key).rstrip("/").rsplit("/", 1)[-1]
    if not folder:
        return QCoreApplication.translate(CONTEXT, str(NO_FOLDER))
    return QCoreApplication.translate(CONTEXT, str(GROUP_LABEL)).replace("%1", folder)


def is_fork(session: dict) -> bool:
    """A pi session forked from another listed one (its header names the parent)."""
    return is_native(session) and bool(session.get("parentSessionId"))


def is_pi_copy(session: dict | None) -> bool:
    """A chat of this app imported from a pi session file (the file itself is also listed, as a native row)."""
    return session is not None and not is_native(session) and session.get("source") == "pi"


def badge(session: dict) -> str | None:
    """The tag a row wears so that a pi session and its imported copy are never two look-alike rows."""
    if is_native(session):
        return BADGE
    if is_pi_copy(session):
        return QCoreApplication.translate(CONTEXT, str(COPY_BADGE))
    return None


def copy_tooltip(title: str) -> str:
    return QCoreApplication.translate(CONTEXT, str(COPY_TIP)).replace("%1", title)


def paint_badge(painter: QPainter, font: QFont, right: float, middle: float, color: str, text: str = BADGE) -> float:
    """A small outlined tag ("pi", "pi copy") ending at ``right``; returns its left edge."""
    small, metrics = _badge_font(font)
    width = metrics.horizontalAdvance(text) + 10
    height = metrics.height() + 2
    rect = QRectF(right - width, middle - height / 2, width, height)
    painter.save()
    pen = QColor(color)
    painter.setPen(pen)
    painter.setBrush(Qt.BrushStyle.NoBrush)
    path = QPainterPath()
    path.addRoundedRect(rect.adjusted(0.5, 0.5, -0.5, -0.5), 4, 4)
    painter.drawPath(path)
    painter.setFont(small)
    painter.drawText(rect, Qt.AlignmentFlag.AlignCenter, text)
    painter.restore()
    return rect.left()


def _badge_font(font: QFont) -> tuple[QFont, QFontMetricsF]:
    small = QFont(font)
    small.setPointSizeF(max(7.0, font.pointSizeF() * 0.8))
    small.setWeight(QFont.Weight.DemiBold)
    return small, QFontMetricsF(small)
