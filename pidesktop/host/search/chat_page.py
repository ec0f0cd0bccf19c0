"""``search.query`` in one chat: its newest matches, read from the index backwards only as far as the page needs.

FTS5 yields a chat's candidates by row id, highest first, and stops when the
caller stops reading. A row id is the order rows were written in, which is the
chat's order (``seq``) except where rows were written again (an edit, a chat
indexed anew), so the walk does not rely on it: after each chunk it asks the
``(session_id, seq)`` index for the highest ``seq`` among the rows not reached
yet, and a candidate is placed only once it is above that bound. The page is
done when ``limit`` verified matches are placed; the count goes on along the
same walk up to a cap, so a page of a word in most messages costs what the
page holds, not what every match holds. Where the bound does not come down
(rows written far out of order), the rest of the candidates are read at once
and sorted, as a whole read would.
"""

from __future__ import annotations

from itertools import islice
from typing import Any

import apsw

from pidesktop.formats.index.sql_rows import all_rows, one_row
from pidesktop.host.search.roles import SPOKEN
from pidesktop.host.search.verified_rows import verified_rows

CHUNK = 64  # candidates read from the index between two looks at the bound
# Past this many candidates more than the page, the bound has not come down (rows written far out of the chat's
# order): each look would walk more of the seq index, so the rest are read at once and sorted instead.
STRAY_CANDIDATES = 4 * CHUNK
# (seq, mid) of one chat's candidates for a phrase, newest row first: the index asked for the chat's range of row
# ids only (phrase, lowest and highest row id, chat).
CHAT_MATCHES = (
    "SELECT m.seq, m.mid FROM messages_fts f JOIN messages m ON m.mid = f.rowid WHERE messages_fts MATCH ? "
    f"AND f.rowid BETWEEN ? AND ? AND m.session_id = ? AND {SPOKEN} ORDER BY f.rowid DESC"
)


def newest_matches(
    conn: apsw.Connection, phrase: str, needle: str, session_id: str, limit: int, cap: int
) -> tuple[list[tuple[Any, ...]], int]:
    """``(session_id, message_id, role, seq, text, created_at)`` of the last ``limit`` messages of the chat
    whose text contains ``needle`` (lowercase; ``phrase`` is it as an FTS5 phrase), last first, and how many
    candidates the index has for the chat, counted up to ``cap + 1``. A deleted chat has none."""
    listed = conn.execute("SELECT 1 FROM sessions WHERE id = ? AND deleted_at IS NULL", (session_id,)).fetchone()
    low, high = one_row(conn.execute("SELECT min(mid), max(mid) FROM messages WHERE session_id = ?", (session_id,)))
    if listed is None or low is None:
        return [], 0
    walk = conn.execute(CHAT_MATCHES, (phrase, low, high, session_id))
    page: list[tuple[Any, ...]] = []
    waiting: list[tuple[int, int]] = []  # (seq, mid) read, not yet known to be above every row not read
    counted = 0
    try:
        while len(page) < limit:
            if counted > STRAY_CANDIDATES + limit:
                chunk = all_rows(walk)  # rows far out of order: read the rest and sort them, as a whole read does
                bound = -1
            else:
                chunk = list(islice(walk, CHUNK))
                bound = -1 if len(chunk) < CHUNK else _highest_seq_below(conn, session_id, chunk[-1][1])
            counted += len(chunk)
            waiting += chunk
            placed = sorted((c for c in waiting if c[0] > bound), reverse=True)
            waiting = [c for c in waiting if c[0] <= bound]
            _verify_in_order(conn, placed, needle, limit, page)
            if bound < 0:
                break
        counted += sum(1 for _row in islice(walk, max(0, cap + 1 - counted)))
    finally:
        walk.close()
    return page, min(counted, cap + 1)


def _highest_seq_below(conn: apsw.Connection, session_id: str, mid: int) -> int:
    """The highest ``seq`` of the chat's rows written before row ``mid`` (-1: none): no candidate the walk
    has still to read is later in the chat than that. Walks the chat's ``seq`` index from its end, past the
    rows the index walk has already gone by."""
    row = conn.execute(
        "SELECT seq FROM messages WHERE session_id = ? AND mid < ? ORDER BY seq DESC LIMIT 1", (session_id, mid)
    ).fetchone()
    return -1 if row is None else row[0]


def _verify_in_order(
    conn: apsw.Connection, placed: list[tuple[int, int]], needle: str, limit: int, page: list[tuple[Any, ...]]
) -> None:
    """Add to ``page``, in ``placed``'s order, those whose text contains ``needle``, until it holds ``limit``;
    text is read for as many as may still be needed at a time."""
    start = 0
    while start < len(placed) and len(page) < limit:
        batch = placed[start : start + limit - len(page)]
        start += len(batch)
        page += verified_rows(conn, (mid for _seq, mid in batch), needle, None)
