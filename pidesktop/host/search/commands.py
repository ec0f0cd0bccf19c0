"""Message search: ``search.sessions`` and ``search.query`` (spec 004, section 4.8).

Queries are literal text: ``%``, ``_``, quotes and backslashes mean
themselves. Three characters or more without a non-ASCII case mapping go
through the FTS5 trigram index as a quoted phrase; every candidate is then
verified with the host's own Unicode-lowercase substring test, which is also
what shorter queries and queries like "Straße"/"ÉTÉ" use directly, so what is
counted is exactly what the UI highlights.

``search.sessions`` answers its first page without reading every hit: the
FTS index gives the candidate messages (row ids only, no text), text is read
only for the three snippets of each chat on the page, and a chat's matches
are counted up to ``COUNT_CAP`` ("1,000+"). When the phrase is so common that
the candidates pass ``SPARSE_LIMIT``, the chats are walked newest first and
asked for their own matches until the page is full (``walked_page.py``), so
the first page costs what its chats hold, not what the whole history holds.
Past ``PROBE`` candidates the rest are counted in the index before their rows
are read, so a phrase past the switch does not read thousands of rows to
learn it. ``search.query`` in one chat reads the index backwards from the
chat's end (``chat_page.py``).
"""

from __future__ import annotations

from array import array
from collections.abc import Sequence
from itertools import islice
from operator import itemgetter
from typing import Any

import apsw

from pidesktop.formats.index.session_summary import LISTED, SCHEDULED
from pidesktop.formats.index.sql_rows import all_rows, one_row
from pidesktop.host.commands import command
from pidesktop.host.context import HostContext
from pidesktop.host.native import text_search as native_text
from pidesktop.host.params import Params, decimal, invalid
from pidesktop.host.search import chat_page
from pidesktop.host.search.roles import SPOKEN
from pidesktop.host.search.verified_rows import verified_rows
from pidesktop.host.search.walked_page import walked_page

# With the automation-runs filter: the listed chats and the chats automation runs made (never deleted ones).
WITH_RUNS = "s.deleted_at IS NULL"

SNIPPET_BEFORE = 40
SNIPPET_AFTER = 100
SNIPPETS_PER_SESSION = 3
QUERY_MAX = 500
COUNT_CAP = 1000  # a chat's matches are counted up to this many; more reads "1,000+"
PAGE_CHUNK = 200  # search.query reads message text for this many ordered candidates at a time
SPARSE_LIMIT = 5000  # more FTS candidates than this: walk the chats instead of placing every hit
# This many candidates are read with their rows before the rest are counted in the index first. Small: a
# phrase past the switch then reads few rows for nothing (each a page of the table, which pushes others out
# of the page cache), and a rarer one pays only for counting its candidates twice in the index.
PROBE = SPARSE_LIMIT // 50
NON_ASCII = "*[^\x01-\x7f]*"  # GLOB: text with a character whose lowercase may be ASCII ("K" Kelvin -> "k")


def register_functions(conn: apsw.Connection) -> None:
    """``pi_contains(text, needle)``: Unicode-lowercase substring test used in SQL."""
    # apsw types a scalar function as taking any SQLite values; SQL calls this one with text (or NULL) and text.
    conn.create_scalar_function("pi_contains", _contains, 2, deterministic=True)  # type: ignore[arg-type]


def _contains(text: str | None, needle: str) -> int:
    return int(text is not None and needle in text.lower())


def uses_fts(query: str) -> bool:
    if len(query) < 3 or "\0" in query:  # FTS5 reads a NUL as the end of the query
        return False
    return not any(not ch.isascii() and (ch.lower() != ch or ch.upper() != ch) for ch in query)


def fts_phrase(query: str) -> str:
    """``query`` as one quoted FTS5 phrase: on the trigram index, a case-folded substring match."""
    return '"' + query.replace('"', '""') + '"'


def _source(query: str) -> tuple[str, tuple[str, ...]]:
    """FROM/WHERE selecting the messages that contain ``query`` (user and assistant text only)."""
    if uses_fts(query):
        return (
            f"FROM messages_fts f JOIN messages m ON m.mid = f.rowid WHERE messages_fts MATCH ? AND {SPOKEN}",
            (fts_phrase(query),),
        )
    return (f"FROM messages m WHERE m.text IS NOT NULL AND {SPOKEN} AND pi_contains(m.text, ?)", (query.lower(),))


def _scoped(query: str, session_id: str | None) -> tuple[str, tuple[Any, ...]]:
    """``_source`` narrowed to ``session_id`` (when given) and to chats not deleted."""
    source, text_args = _source(query)
    args: tuple[Any, ...] = text_args
    if session_id is not None:
        source += " AND m.session_id = ?"
        args = (*args, session_id)
    return source + " AND m.session_id IN (SELECT id FROM sessions WHERE deleted_at IS NULL)", args


def matching_messages(
    conn: apsw.Connection, query: str, session_id: str | None = None, limit: int | None = None
) -> tuple[list[tuple[Any, ...]], int]:
    """``(session_id, message_id, role, seq, text, created_at)`` of verified matches, newest first (in one
    chat: in its own order, the last first), and how many messages match in all.

    The order is decided on the rows' ids and times alone, in the same pass
    that counts them (on the FTS path as the index finds them: no text is
    read to count); text is read a chunk at a time for the matches about to
    be returned, so the first ``limit`` cost what they hold, not what every
    hit holds."""
    source, args = _scoped(query, session_id)
    order = "m.created_at DESC, m.seq DESC" if session_id is None else "m.seq DESC"
    ordered = conn.execute(f"SELECT m.mid, count(*) OVER () {source} ORDER BY {order}", args)
    needle = query.lower()
    chunk = max(16, min(limit or PAGE_CHUNK, PAGE_CHUNK))
    verified: list[tuple[Any, ...]] = []
    total = 0
    try:
        while limit is None or len(verified) < limit:
            candidates = list(islice(ordered, chunk))
            if not candidates:
                break
            total = candidates[0][1]
            room = None if limit is None else limit - len(verified)
            verified += verified_rows(conn, (mid for mid, _total in candidates), needle, room)
    finally:
        ordered.close()
    return verified, (len(verified) if limit is None or len(verified) < limit else max(total, len(verified)))


def snippet(text: str, query: str) -> dict[str, Any]:
    """Text around the first match, with every match inside it marked as ``[start, end)``."""
    lowered, origin = _lower_with_origin(text)
    return _snippet_in(text, query, lowered, origin)


def matching_snippet(text: str, query: str, needle: str) -> dict[str, Any] | None:
    """``snippet`` when ``text`` contains ``needle`` (``query`` lowercased) as it is or lowercased, else None;
    the text is lowercased once for both."""
    lowered = text.lower()
    first = lowered.find(needle)
    if first < 0 and needle not in text:
        return None
    if first >= 0 and len(lowered) == len(text):
        return _snippet_one_to_one(text, len(query), lowered, needle, first)
    return snippet(text, query)


def _snippet_one_to_one(text: str, query_chars: int, lowered: str, needle: str, first: int) -> dict[str, Any]:
    """``_snippet_in`` for text whose lowercase has one character per character (the origin of each is
    itself) and its first match at ``first``: the same snippet without an origin looked up per match and
    without finding the first match again."""
    begin = first - SNIPPET_BEFORE if first > SNIPPET_BEFORE else 0
    end = min(len(text), first + query_chars + SNIPPET_AFTER)
    prefix = "…" if begin > 0 else ""
    shift = len(prefix) - begin
    width = len(needle)
    last_start = end + width - 1  # a match starting before ``end`` is marked, cut at ``end``
    highlights = []
    position = first
    while position >= 0:
        stop = position + width
        highlights.append([position + shift, (stop if stop < end else end) + shift])
        position = lowered.find(needle, stop, last_start)
    return {"text": prefix + text[begin:end] + ("…" if end < len(text) else ""), "highlights": highlights}


def _snippet_in(text: str, query: str, lowered: str, origin: Sequence[int]) -> dict[str, Any]:
    needle = query.lower()
    first = lowered.find(needle)
    if first < 0:
        return {"text": text[: SNIPPET_BEFORE + SNIPPET_AFTER], "highlights": []}
    start_char = origin[first]
    begin = max(0, start_char - SNIPPET_BEFORE)
    end = min(len(text), start_char + len(query) + SNIPPET_AFTER)
    prefix = "…" if begin > 0 else ""
    suffix = "…" if end < len(text) else ""
    highlights = []
    position = first
    while position >= 0:
        a, b = origin[position], origin[position + len(needle) - 1] + 1
        if a >= end:
            break
        if a >= begin:
            highlights.append([a - begin + len(prefix), min(b, end) - begin + len(prefix)])
        position = lowered.find(needle, position + len(needle))
    return {"text": prefix + text[begin:end] + suffix, "highlights": highlights}


def _lower_with_origin(text: str) -> tuple[str, Sequence[int]]:
    """``text.lower()`` and, for each lowered character, the index of the character it came from."""
    lowered = text.lower()
    if len(lowered) == len(text):
        return lowered, range(len(text))  # one to one: no list of a long message's every index
    parts: list[str] = []
    origin: list[int] = []
    for index, ch in enumerate(text):
        low = ch.lower()
        parts.append(low)
        origin.extend([index] * len(low))
    return "".join(parts), origin


def query_param(p: Params) -> str:
    query = p.text("query", strip=True, max_chars=QUERY_MAX)
    if not query:
        raise invalid(f"{p.method}: 'query' must not be empty.", "query")
    return query


def _named(conn: apsw.Connection, needle: str, where: str = LISTED) -> dict[str, tuple[int, int]]:
    """Chats whose title or project path contains ``needle``: ``{id: (title hit, project hit)}``.

    SQLite's ``lower`` folds ASCII only, so for an ASCII needle it rules out
    pure-ASCII titles and paths in C; the rest get the Unicode test.
    """
    if needle.isascii():
        test = "(instr(lower({0}), :n) > 0 OR ({0} GLOB :wide AND pi_contains({0}, :n)))"
    else:
        test = "pi_contains({0}, :n)"
    title, path = test.format("s.title"), test.format("p.path")
    return {
        sid: (title_hit, project_hit)
        for sid, title_hit, project_hit in conn.execute(
            f"SELECT s.id, coalesce({title}, 0), coalesce({path}, 0) FROM sessions s "
            f"LEFT JOIN projects p ON p.id = s.project_id WHERE {where} AND ({title} OR {path})",
            {"n": needle, "wide": NON_ASCII},
        )
    }


def _all_hits(conn: apsw.Connection, query: str, cap: int | None) -> dict[str, list[tuple[int, int]]] | None:
    """``{chat id: [(seq, mid), ...]}`` of every matching message; None past ``cap`` FTS candidates.

    On the FTS path the candidates are row ids from the index; their rows are
    then read by row id for the chat and role, never for their text.
    """
    hits: dict[str, list[tuple[int, int]]] = {}
    if uses_fts(query):
        # One statement: the candidates as the index yields them, each joined to its row by row id; a
        # candidate of another role still counts towards the cap. Past ``PROBE`` of them the rest are
        # counted from the index alone first: a phrase past the cap is walked instead, and reading its
        # candidates' rows (most of the cost at 100k messages) would be for nothing.
        phrase = fts_phrase(query)
        limit = "" if cap is None else f" LIMIT {int(cap) + 1}"
        joined = conn.execute(
            f"SELECT m.session_id, m.seq, m.mid, {SPOKEN} FROM (SELECT rowid AS hit FROM messages_fts "
            f"WHERE messages_fts MATCH ?{limit}) JOIN messages m ON m.mid = hit",
            (phrase,),
        )
        if cap is None:
            candidates = all_rows(joined)
        else:
            candidates = list(islice(joined, PROBE))
            if len(candidates) == PROBE:
                # The index yields row ids in order: only those after the probe's are counted. Were they
                # not in order, the count would fall short and the rows be read; the check below still
                # walks a phrase past the cap.
                later = one_row(
                    conn.execute(
                        "SELECT count(*) FROM (SELECT 1 FROM messages_fts WHERE messages_fts MATCH ? AND rowid > ? "
                        f"LIMIT {int(cap) + 1 - PROBE})",
                        (phrase, max(candidates, key=itemgetter(2))[2]),
                    )
                )[0]
                if PROBE + later > cap:
                    joined.close()
                    return None
                candidates += all_rows(joined)
            if len(candidates) > cap:  # past the cap all the same (or a cap below the probe)
                return None
        for sid, seq, mid, spoken in candidates:
            if spoken:
                found = hits.get(sid)
                if found is None:
                    hits[sid] = [(seq, mid)]
                else:
                    found.append((seq, mid))
        return hits
    rows = conn.execute(
        f"SELECT m.session_id, m.seq, m.mid FROM messages m WHERE m.text IS NOT NULL AND {SPOKEN} "
        "AND pi_contains(m.text, ?)",
        (query.lower(),),
    )
    for sid, seq, mid in rows:
        hits.setdefault(sid, []).append((seq, mid))
    return hits


def _snippets(
    conn: apsw.Connection, query: str, hits: dict[str, list[tuple[int, int]]]
) -> dict[str, list[dict[str, Any]]]:
    """The newest ``SNIPPETS_PER_SESSION`` matches of each chat given, the only message text read."""
    newest = {
        sid: [mid for _seq, mid in sorted(found, reverse=True)[:SNIPPETS_PER_SESSION]]
        for sid, found in hits.items()
        if found
    }
    wanted = array("q", (mid for mids in newest.values() for mid in mids))
    if not wanted:
        return {}
    texts = {
        mid: (message_id, role, text)
        for mid, message_id, role, text in conn.execute(
            "SELECT mid, id, role, text FROM messages WHERE mid IN carray(?)", (apsw.carray(wanted),)
        )
    }
    needle = query.lower()
    out: dict[str, list[dict[str, Any]]] = {}
    for sid, mids in newest.items():
        for mid in mids:
            message_id, role, text = texts.get(mid, (None, None, None))
            found = None if text is None else matching_snippet(text, query, needle)
            if found is not None:
                out.setdefault(sid, []).append({"messageId": message_id, "role": role, **found})
    return out


def _session_cursor(p: Params) -> tuple[tuple[int, str], int] | None:
    """``s:<updatedAt>:<chats listed before>:<id>``: continue after that chat in newest-first order."""
    cursor = p.text("cursor", required=False)
    if cursor is None:
        return None
    kind, updated, listed, sid = (cursor.split(":", 3) + ["", "", "", ""])[:4]
    if kind != "s" or decimal(updated) is None or decimal(listed) is None or not sid:
        raise invalid(f"{p.method}: 'cursor' is not a cursor this host handed out: {cursor!r}.", "cursor")
    return (int(updated), sid), int(listed)


def session_rows(where: str = LISTED) -> str:
    """The chats session search answers with: by default those the session list shows (no deleted ones, no
    automation runs); ``WITH_RUNS`` adds the automation run chats. The last column says whether it is one."""
    return (
        f"SELECT s.id, s.title, p.path, s.updated_at, {SCHEDULED} FROM sessions s "
        f"LEFT JOIN projects p ON p.id = s.project_id WHERE {where}"
    )


def _exact_page(
    conn: apsw.Connection,
    rows: str,
    hits: dict[str, Any],
    named: dict[str, Any],
    after: tuple[int, str] | None,
    limit: int,
) -> tuple[list[tuple[Any, ...]], bool, int]:
    """The page after ``after`` from every hit placed: (chats, more after them, matching chats in all)."""
    wanted = tuple(set(hits) | set(named))
    ordered = sorted(
        conn.execute(f"{rows} AND s.id IN carray(?)", (apsw.carray(wanted),)).fetchall() if wanted else [],
        key=lambda row: (row[3], row[0]),
        reverse=True,
    )
    total = len(ordered)
    if after is not None:
        ordered = [row for row in ordered if (row[3], row[0]) < after]
    return ordered[:limit], len(ordered) > limit, total


def _native_results(
    ctx: HostContext, query: str, after: tuple[int, str] | None
) -> tuple[int, list[dict[str, Any]], bool]:
    """Matching pi sessions (read in place, not in the database): how many in all, those after ``after``
    as results, newest first, and whether every pi file was searched (a first search reads for a while)."""
    results = []
    hits, complete = native_text.search(ctx, query)
    for hit in hits:
        row = hit.row
        if after is not None and (row["updatedAt"], row["id"]) >= after:
            continue
        count = len(hit.entries)
        results.append(
            {
                "sessionId": row["id"],
                "title": row["title"],
                "projectPath": row.get("projectPath"),
                "updatedAt": row["updatedAt"],
                "matchCount": min(count, COUNT_CAP),
                "matchCountCapped": count > COUNT_CAP,
                "titleMatch": hit.title_match,
                "projectMatch": hit.project_match,
                "snippets": [
                    {"messageId": eid, "role": role, **snippet(text, query)}
                    for eid, role, text in hit.entries[:SNIPPETS_PER_SESSION]
                ],
                "automationRun": False,
                "native": True,
            }
        )
    return len(hits), results, complete


@command("search.sessions", emits=[])
def search_sessions(ctx: HostContext, p: Params) -> dict[str, Any]:
    query = query_param(p)
    limit = p.integer("limit", required=False, default=20, minimum=1, maximum=200)
    assert limit is not None  # it has a default
    native = p.boolean("native", default=True)
    where = WITH_RUNS if p.boolean("automationRuns") else LISTED
    rows = session_rows(where)
    resume = _session_cursor(p)
    after, listed = resume if resume else (None, 0)
    conn = ctx.conn
    named = _named(conn, query.lower(), where)
    hits = _all_hits(conn, query, SPARSE_LIMIT)
    walked: tuple[list[tuple[Any, ...]], bool] | None = None
    page_hits: dict[str, list[tuple[int, int]]] = {}
    if hits is None:  # a phrase in a large share of all messages
        walked = walked_page(conn, rows, fts_phrase(query), named, after, limit, page_hits, COUNT_CAP)
        if walked is None:
            hits = _all_hits(conn, query, None)
    if walked is not None:
        page, more = walked
        total = listed + len(page)  # chats listed so far: the rest are not counted
    else:
        assert hits is not None
        page, more, total = _exact_page(conn, rows, hits, named, after, limit)
        page_hits = {row[0]: hits.get(row[0], []) for row in page}
    snippets = _snippets(conn, query, page_hits)
    results = []
    for sid, title, path, updated, automation_run in page:
        title_hit, project_hit = named.get(sid, (0, 0))
        count = len(page_hits[sid])
        results.append(
            {
                "sessionId": sid,
                "title": title,
                "projectPath": path,
                "updatedAt": updated,
                "matchCount": min(count, COUNT_CAP),
                "matchCountCapped": count > COUNT_CAP,
                "titleMatch": bool(title_hit),
                "projectMatch": bool(project_hit),
                "snippets": snippets.get(sid, []),
                "automationRun": bool(automation_run),
            }
        )
    complete = True
    if native:  # pi's own sessions, merged in the same newest-first order
        matching, found, complete = _native_results(ctx, query, after)
        total += matching if walked is None else 0
        if found:
            results = sorted(results + found, key=lambda r: (r["updatedAt"], r["sessionId"]), reverse=True)
            more = more or len(results) > limit
            results = results[:limit]
    if walked is not None:
        total = listed + len(results)
    last = results[-1] if results else None
    next_cursor = f"s:{last['updatedAt']}:{listed + len(results)}:{last['sessionId']}" if more and last else None
    return {
        "results": results,
        "nextCursor": next_cursor,
        "totalSessions": total,
        "totalSessionsExact": (walked is None or next_cursor is None) and complete,
    }


@command("search.query", emits=[])
def search_query(ctx: HostContext, p: Params) -> dict[str, Any]:
    query = query_param(p)
    limit = p.integer("limit", required=False, default=50, minimum=1, maximum=500)
    session_id = p.text("sessionId", required=False)
    assert limit is not None  # it has a default
    if session_id and uses_fts(query):  # one chat: its newest matches, walked from the index's end (chat_page.py)
        rows, total = chat_page.newest_matches(ctx.conn, fts_phrase(query), query.lower(), session_id, limit, COUNT_CAP)
    else:
        rows, total = matching_messages(ctx.conn, query, session_id, limit)
    results = [
        {
            "sessionId": sid,
            "messageId": mid,
            "role": role,
            "seq": seq,
            "createdAt": created,
            "snippet": snippet(text, query),
        }
        for sid, mid, role, seq, text, created in rows
    ]
    return {"results": results, "total": min(total, COUNT_CAP), "totalCapped": total > COUNT_CAP}
