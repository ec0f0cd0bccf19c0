"""``session.get``'s window params, read the same way for the app's own chats and for pi sessions."""

from __future__ import annotations

from .params import Params, invalid
from .transcripts.windows import WindowRequest

WINDOW_LIMIT_MAX = 10_000


def window_request(p: Params) -> tuple[WindowRequest, int | None]:
    """The window asked for (at most one anchor: ``messageBefore``, ``messageAround``, ``messageEnd``,
    ``messageStart``) and ``contentLimit``."""
    before = p.integer("messageBefore", required=False, minimum=0)
    limit = p.integer("messageLimit", required=False, minimum=1, maximum=WINDOW_LIMIT_MAX)
    content_limit = p.integer("contentLimit", required=False, minimum=1)
    around = p.text("messageAround", required=False, nonempty=True)
    after = p.integer("messageEnd", required=False, minimum=0)
    start = p.integer("messageStart", required=False, minimum=0)
    anchors = [name for name, value in (("messageBefore", before), ("messageAround", around),
                                        ("messageEnd", after), ("messageStart", start)) if value is not None]
    if len(anchors) > 1:
        raise invalid(f"session.get: give at most one of {', '.join(anchors)}.", anchors[1])
    request = WindowRequest(before=before, limit=limit, around=around, start=after if after is not None else start)
    return request, content_limit
