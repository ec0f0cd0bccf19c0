"""Short relative times for lists ("now", "5m", "3h", "Yesterday", "Mon", "Nov 3"), in the UI's language."""

from __future__ import annotations

from datetime import datetime

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication

from pidesktop.ui.kit.i18n import arg

CONTEXT = "RelativeTime"
WEEKDAYS = (
    QT_TRANSLATE_NOOP("RelativeTime", "Mon"),
    QT_TRANSLATE_NOOP("RelativeTime", "Tue"),
    QT_TRANSLATE_NOOP("RelativeTime", "Wed"),
    QT_TRANSLATE_NOOP("RelativeTime", "Thu"),
    QT_TRANSLATE_NOOP("RelativeTime", "Fri"),
    QT_TRANSLATE_NOOP("RelativeTime", "Sat"),
    QT_TRANSLATE_NOOP("RelativeTime", "Sun"),
)
MONTHS = (
    QT_TRANSLATE_NOOP("RelativeTime", "Jan"),
    QT_TRANSLATE_NOOP("RelativeTime", "Feb"),
    QT_TRANSLATE_NOOP("RelativeTime", "Mar"),
    QT_TRANSLATE_NOOP("RelativeTime", "Apr"),
    QT_TRANSLATE_NOOP("RelativeTime", "May"),
    QT_TRANSLATE_NOOP("RelativeTime", "Jun"),
    QT_TRANSLATE_NOOP("RelativeTime", "Jul"),
    QT_TRANSLATE_NOOP("RelativeTime", "Aug"),
    QT_TRANSLATE_NOOP("RelativeTime", "Sep"),
    QT_TRANSLATE_NOOP("RelativeTime", "Oct"),
    QT_TRANSLATE_NOOP("RelativeTime", "Nov"),
    QT_TRANSLATE_NOOP("RelativeTime", "Dec"),
)


def _tr(text: str) -> str:
    return QCoreApplication.translate(CONTEXT, text)


def relative(then_ms: int, now_ms: int) -> str:
    delta = max(0, now_ms - then_ms) // 1000
    if delta < 60:
        return QCoreApplication.translate("RelativeTime", "now")
    if delta < 3600:
        return arg(QCoreApplication.translate("RelativeTime", "%1m", "minutes ago"), delta // 60)
    then = datetime.fromtimestamp(then_ms / 1000)
    now = datetime.fromtimestamp(now_ms / 1000)
    days = (now.date() - then.date()).days
    if days == 0:
        return arg(QCoreApplication.translate("RelativeTime", "%1h", "hours ago"), delta // 3600)
    if days == 1:
        return QCoreApplication.translate("RelativeTime", "Yesterday")
    if days < 7:
        return _tr(WEEKDAYS[then.weekday()])
    if then.year == now.year:
        # %1 the month's short name, %2 the day, %3 the month's number
        pattern = QCoreApplication.translate("RelativeTime", "%1 %2", "month name, day of month")
        return arg(pattern, _tr(MONTHS[then.month - 1]), then.day, then.month)
    return then.strftime("%Y-%m-%d")
