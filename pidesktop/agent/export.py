"""Export a chat through the bus, page by page: the same bytes as the host's ``session.export``.

Reads the transcript through windowed ``session.get`` pages from the first
message on and writes each page before the next is read, so a long chat is
never held in memory at once. ``pidesktop export`` and the chat menu's
"Export..." ask the host to write the file itself (``session.export``, one
streamed pass on the host thread); this stays for a caller that wants the text
rather than a file. What the formats hold: :mod:`pidesktop.formats.chat_export`.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from typing import Any

from pidesktop.bus import HostClient
from pidesktop.formats.chat_export import (
    FORMATS,
    Cleaner,
    compaction_markdown,
    demote_headings,
    json_head,
    json_tail,
    markdown_head,
    message_markdown,
    stored,
    suggested_name,
)

__all__ = ["FORMATS", "PAGE", "demote_headings", "export", "message_markdown", "pages", "suggested_name"]

PAGE = 1000  # messages per session.get window: a few MB, and few round trips

Write = Callable[[str], Any]


async def pages(client: HostClient, session_id: str, page: int = PAGE) -> AsyncIterator[dict[str, Any]]:
    """Every window of the transcript, oldest first."""
    start = 0
    while True:
        window = await client.call(
            "session.get", {"sessionId": session_id, "messageStart": start, "messageLimit": page}
        )
        yield window
        if not window["hasMoreAfter"] or window["messageEnd"] <= start:
            return
        start = window["messageEnd"]


async def export(client: HostClient, session_id: str, fmt: str, write: Write, page: int = PAGE) -> dict[str, Any]:
    """Write the chat in ``fmt`` ("md" or "json") through ``write``; returns the session summary."""
    if fmt not in FORMATS:
        raise ValueError(f"unknown export format {fmt!r}; use md or json")
    hello = await client.call("app.handshake", {"protocolVersion": 1})
    cleaner = Cleaner(hello.get("dataRoot"))
    writer = _json if fmt == "json" else _markdown
    return await writer(client, session_id, write, cleaner, page)


async def _json(client: HostClient, session_id: str, write: Write, cleaner: Cleaner, page: int) -> dict[str, Any]:
    session: dict[str, Any] | None = None
    compactions: list[dict[str, Any]] = []
    first = True
    async for window in pages(client, session_id, page):
        if session is None:
            session = window["session"]
            write(json_head(session, cleaner))
        compactions = window.get("compactions") or compactions  # every window carries the whole chain
        for message in window["messages"]:
            write(("" if first else ",") + cleaner.dumps(stored(message)))
            first = False
    write(json_tail(compactions, cleaner))
    assert session is not None  # pages() yields at least the first window
    return session


async def _markdown(client: HostClient, session_id: str, write: Write, cleaner: Cleaner, page: int) -> dict[str, Any]:
    session: dict[str, Any] | None = None
    summaries: dict[str, list[dict[str, Any]]] = {}
    async for window in pages(client, session_id, page):
        if session is None:
            session = window["session"]
            write(markdown_head(session, window["totalMessages"], cleaner))
            for record in window.get("compactions") or []:
                summaries.setdefault(record.get("throughMessageId"), []).append(record)
        for message in window["messages"]:
            write(cleaner.text(message_markdown(message)))
            for record in summaries.get(message.get("id"), []):
                write(cleaner.text(compaction_markdown(record)))
    assert session is not None  # pages() yields at least the first window
    return session
