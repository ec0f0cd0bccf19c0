"""``search.sessions`` for a phrase in a large share of all messages: the chats asked newest first for their
own matches, until the page is full.

A chat's rows are a range of row ids, so each chat is one FTS query narrowed
to its range. An FTS query has a fixed cost (each trigram of the phrase is
looked up in every segment) that is most of what a small chat's query costs,
so the chats of a batch that are small enough for their matches never to pass
the count's cap, and whose ranges lie together, are asked in one query over
their joined ranges, their matches told apart by chat. A larger chat is asked
alone, stopping at the cap.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator
from itertools import islice
from typing import Any

import apsw

from pidesktop.formats.index.sql_rows import all_rows
from pidesktop.host.search.chat_page import CHAT_MATCHES
from pidesktop.host.search.roles import SPOKEN

GAP = 2000  # row ids between two small chats' ranges still read in one query (cheaper than a query's setup)

Hits = list[tuple[int, int]]  # (seq, mid) of a chat's matches


def walked_page(
    conn: apsw.Connection,
    rows: str,
    phrase: str,
    named: dict[str, Any],
    after: tuple[int, str] | None,
    limit: int,
    page_hits: dict[str, Hits],
    cap: int,
) -> tuple[list[tuple[Any, ...]], bool] | None:
    """The page after ``after`` (chats as ``rows`` selects them, ``named`` the chats whose title or project
    matched) and whether another chat follows it; each listed chat's matches, up to ``cap + 1``, go into
    ``page_hits``.

    For a phrase in a large share of all messages most chats match, so the
    page fills after about ``limit`` chats. None when ``2 * limit`` chats were
    asked without filling it: the matches are not that dense after all.
    """
    page: list[tuple[Any, ...]] = []
    window = " AND (s.updated_at, s.id) < (?, ?)" if after else ""
    chats: Iterator[tuple[Any, ...]] = conn.execute(
        f"{rows}{window} ORDER BY s.updated_at DESC, s.id DESC", after or ()
    )
    asked = 0
    while True:
        if len(page) == limit:
            return page, next(chats, None) is not None  # the next page finds out whether that one matches
        if asked == 2 * limit:
            return None if next(chats, None) is not None else (page, False)
        batch = list(islice(chats, min(limit - len(page), 2 * limit - asked)))  # never more than can be listed
        if not batch:
            return page, False
        asked += len(batch)
        found = chats_hits(conn, phrase, [row[0] for row in batch], cap)
        for row in batch:
            hits = found.get(row[0], [])
            if hits or row[0] in named:
                page.append(row)
                page_hits[row[0]] = hits


def chats_hits(conn: apsw.Connection, phrase: str, session_ids: list[str], cap: int) -> dict[str, Hits]:
    """Each chat's matches of ``phrase`` (user and assistant messages), up to ``cap + 1`` of them."""
    ranges = all_rows(
        conn.execute(
            "SELECT session_id, min(mid), max(mid) FROM messages WHERE session_id IN carray(?) GROUP BY session_id",
            (apsw.carray(tuple(session_ids)),),
        )
    )
    hits: defaultdict[str, Hits] = defaultdict(list)
    small: list[tuple[int, int, str]] = []
    for sid, low, high in ranges:
        if high - low + 1 <= cap + 1:  # its range holds no more rows than are counted: all its matches are wanted
            small.append((low, high, sid))
        else:
            hits[sid] = _one_chat(conn, phrase, sid, low, high, cap)
    for low, high, sids in _spans(sorted(small)):
        for sid, seq, mid in conn.execute(
            "SELECT m.session_id, m.seq, m.mid FROM messages_fts f JOIN messages m ON m.mid = f.rowid "
            f"WHERE messages_fts MATCH ? AND f.rowid BETWEEN ? AND ? AND m.session_id IN carray(?) AND {SPOKEN}",
            (phrase, low, high, apsw.carray(tuple(sids))),
        ):
            hits[sid].append((seq, mid))
    return hits


def _spans(ranges: list[tuple[int, int, str]]) -> list[tuple[int, int, list[str]]]:
    """Row id ranges (sorted by their start) joined where they overlap or lie within ``GAP`` of each other."""
    spans: list[tuple[int, int, list[str]]] = []
    for low, high, sid in ranges:
        if spans and low <= spans[-1][1] + GAP:
            start, end, sids = spans[-1]
            sids.append(sid)
            spans[-1] = (start, max(end, high), sids)
        else:
            spans.append((low, high, [sid]))
    return spans


def _one_chat(conn: apsw.Connection, phrase: str, session_id: str, low: int, high: int, cap: int) -> Hits:
    """Up to ``cap + 1`` matches of one chat, newest first: the FTS query narrowed to its row ids."""
    return all_rows(conn.execute(f"{CHAT_MATCHES} LIMIT ?", (phrase, low, high, session_id, cap + 1)))
