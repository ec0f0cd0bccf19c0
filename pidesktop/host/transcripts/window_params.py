"""``session.get``'s window params, read and applied the same way for the app's own chats and for pi sessions."""

from __future__ import annotations

from typing import Any

import orjson

from pidesktop.host.params import Params, invalid
from pidesktop.host.transcripts.windows import WindowRequest

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
    anchors = [
        name
        for name, value in (
            ("messageBefore", before),
            ("messageAround", around),
            ("messageEnd", after),
            ("messageStart", start),
        )
        if value is not None
    ]
    if len(anchors) > 1:
        raise invalid(f"session.get: give at most one of {', '.join(anchors)}.", anchors[1])
    request = WindowRequest(before=before, limit=limit, around=around, start=after if after is not None else start)
    return request, content_limit


def cap_block(block: Any, limit: int) -> Any:
    """``contentLimit`` on one block: long text, thinking and tool results cut for display, marked
    ``truncated`` (a result that is not a string is cut as its JSON text)."""
    if not isinstance(block, dict):
        return block
    capped = dict(block)
    if block.get("type") in ("text", "thinking") and isinstance(block.get("text"), str) and len(block["text"]) > limit:
        capped["text"] = block["text"][:limit]
        capped["truncated"] = True
    elif block.get("type") == "tool_call" and "result" in block:
        result = block["result"]
        text = result if isinstance(result, str) else _json_text(result)
        if len(text) > limit:
            capped["result"] = text[:limit]
            capped["truncated"] = True
    return capped


def _json_text(value: Any) -> str:
    try:
        return orjson.dumps(value).decode()
    except TypeError:
        return str(value)
