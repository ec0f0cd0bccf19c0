"""Candidates the index found, read by row id and kept when their text holds the query.

The trigram index finds candidates; what is counted and shown is what the
host's own Unicode-lowercase substring test accepts (``commands.py``).
"""

from __future__ import annotations

from array import array
from collections.abc import Iterable
from typing import Any

import apsw


def verified_rows(conn: apsw.Connection, mids: Iterable[int], needle: str, room: int | None) -> list[tuple[Any, ...]]:
    """``(session_id, message_id, role, seq, text, created_at)`` of the messages ``mids`` names, in that order,
    whose text contains ``needle`` (lowercase), at most ``room`` of them (None: all)."""
    wanted = array("q", mids)
    rows = {
        row[0]: row[1:]
        for row in conn.execute(
            "SELECT mid, session_id, id, role, seq, text, created_at FROM messages WHERE mid IN carray(?)",
            (apsw.carray(wanted),),
        )
    }
    kept: list[tuple[Any, ...]] = []
    for mid in wanted:
        row = rows.get(mid)
        if row is not None and row[4] is not None and (needle in row[4] or needle in row[4].lower()):
            kept.append(row)
            if room is not None and len(kept) >= room:
                break
    return kept
