"""Short relative times for lists ("now", "5m", "3h", "Yesterday", "Mon", "Nov 3")."""

from __future__ import annotations

from datetime import datetime


def relative(then_ms: int, now_ms: int) -> str:
    delta = max(0, now_ms - then_ms) // 1000
    if delta < 60:
        return "now"
    if delta < 3600:
        return f"{delta // 60}m"
    then = datetime.fromtimestamp(then_ms / 1000)
    now = datetime.fromtimestamp(now_ms / 1000)
    days = (now.date() - then.date()).days
    if days == 0:
        return f"{delta // 3600}h"
    if days == 1:
        return "Yesterday"
    if days < 7:
        return then.strftime("%a")
    if then.year == now.year:
        return f"{then.strftime('%b')} {then.day}"
    return then.strftime("%Y-%m-%d")
