"""Message search: ``search.query`` and ``search.sessions`` (spec 004, section 4.8).

Queries are literal text: ``%``, ``_``, quotes and backslashes mean
themselves. Three characters or more without a non-ASCII case mapping go
through the FTS5 trigram index as a quoted phrase; every candidate is then
verified with the host's own Unicode-lowercase substring test, which is also
what shorter queries and queries like "Straße"/"ÉTÉ" use directly, so what is
counted is exactly what the UI highlights.
"""

from __future__ import annotations

from collections.abc import Iterator

import apsw

from .commands import command
from .context import HostContext
from .params import Params, invalid

SNIPPET_BEFORE = 40
SNIPPET_AFTER = 100
SNIPPETS_PER_SESSION = 3
QUERY_MAX = 500


def register_functions(conn: apsw.Connection) -> None:
    """``pi_contains(text, needle)``: Unicode-lowercase substring test used in SQL."""
    conn.create_scalar_function("pi_contains", _contains, 2, deterministic=True)


def _contains(text: str | None, needle: str) -> int:
    return int(text is not None and needle in text.lower())


def uses_fts(query: str) -> bool:
    if len(query) < 3:
        return False
    return not any(not ch.isascii() and (ch.lower() != ch or ch.upper() != ch) for ch in query)


def matching_messages(conn: apsw.Connection, query: str, session_id: str | None = None) -> Iterator[tuple]:
    """``(session_id, message_id, role, seq, text, created_at)`` of every verified match in live sessions."""
    needle = query.lower()
    scope = " AND m.session_id = ?" if session_id else ""
    extra = (session_id,) if session_id else ()
    columns = "m.session_id, m.id, m.role, m.seq, m.text, m.created_at"
    live = "JOIN sessions s ON s.id = m.session_id AND s.deleted_at IS NULL"
    roles = "m.role IN ('user', 'assistant')"
    if uses_fts(query):
        phrase = '"' + query.replace('"', '""') + '"'
        rows = conn.execute(
            f"SELECT {columns} FROM messages_fts f JOIN messages m ON m.mid = f.rowid {live} "
            f"WHERE messages_fts MATCH ? AND {roles}{scope}", (phrase, *extra))
        return (row for row in rows if needle in row[4].lower())
    return iter(conn.execute(
        f"SELECT {columns} FROM messages m {live} WHERE m.text IS NOT NULL AND {roles} "
        f"AND pi_contains(m.text, ?){scope}", (needle, *extra)))


def snippet(text: str, query: str) -> dict:
    """Text around the first match, with every match inside it marked as ``[start, end)``."""
    lowered, origin = _lower_with_origin(text)
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


def _lower_with_origin(text: str) -> tuple[str, list[int]]:
    """``text.lower()`` and, for each lowered character, the index of the character it came from."""
    lowered = text.lower()
    if len(lowered) == len(text):
        return lowered, list(range(len(text)))
    parts, origin = [], []
    for index, ch in enumerate(text):
        low = ch.lower()
        parts.append(low)
        origin.extend([index] * len(low))
    return "".join(parts), origin


def _query_param(p: Params) -> str:
    query = p.text("query", strip=True, max_chars=QUERY_MAX)
    if not query:
        raise invalid(f"{p.method}: 'query' must not be empty.")
    return query


def _offset_cursor(p: Params) -> int:
    cursor = p.text("cursor", required=False)
    if cursor is None:
        return 0
    if not cursor.startswith("o:") or not cursor[2:].isdigit():
        raise invalid(f"{p.method}: 'cursor' is not a cursor this host handed out: {cursor!r}.")
    return int(cursor[2:])


@command("search.sessions")
def search_sessions(ctx: HostContext, p: Params) -> dict:
    query = _query_param(p)
    limit = p.integer("limit", required=False, default=20, minimum=1, maximum=200)
    offset = _offset_cursor(p)
    conn = ctx.conn
    needle = query.lower()
    hits: dict[str, list[tuple]] = {}
    for row in matching_messages(conn, query):
        hits.setdefault(row[0], []).append(row)
    named = {sid: (pi_title, pi_project) for sid, pi_title, pi_project in conn.execute(
        "SELECT s.id, pi_contains(s.title, ?), pi_contains(p.path, ?) FROM sessions s "
        "LEFT JOIN projects p ON p.id = s.project_id WHERE s.deleted_at IS NULL "
        "AND (pi_contains(s.title, ?) OR pi_contains(p.path, ?))", (needle,) * 4)}
    wanted = set(hits) | set(named)
    if not wanted:
        return {"results": [], "nextCursor": None, "totalSessions": 0}
    ordered = [row for row in conn.execute(
        "SELECT s.id, s.title, p.path, s.updated_at FROM sessions s LEFT JOIN projects p ON p.id = s.project_id "
        "WHERE s.deleted_at IS NULL ORDER BY s.updated_at DESC, s.id DESC") if row[0] in wanted]
    page = ordered[offset: offset + limit]
    results = []
    for sid, title, path, updated in page:
        messages = sorted(hits.get(sid, []), key=lambda r: r[3], reverse=True)
        results.append({
            "sessionId": sid, "title": title, "projectPath": path, "updatedAt": updated,
            "matchCount": len(messages), "titleMatch": bool(named.get(sid, (0, 0))[0]),
            "projectMatch": bool(named.get(sid, (0, 0))[1]),
            "snippets": [{"messageId": r[1], "role": r[2], **snippet(r[4], query)}
                         for r in messages[:SNIPPETS_PER_SESSION]],
        })
    more = offset + limit < len(ordered)
    return {"results": results, "nextCursor": f"o:{offset + limit}" if more else None,
            "totalSessions": len(ordered)}


@command("search.query")
def search_query(ctx: HostContext, p: Params) -> dict:
    query = _query_param(p)
    limit = p.integer("limit", required=False, default=50, minimum=1, maximum=500)
    session_id = p.text("sessionId", required=False)
    rows = sorted(matching_messages(ctx.conn, query, session_id), key=lambda r: (r[5], r[3]), reverse=True)
    results = []
    for sid, mid, role, seq, text, created in rows[:limit]:
        results.append({"sessionId": sid, "messageId": mid, "role": role, "seq": seq, "createdAt": created,
                        "snippet": snippet(text, query)})
    return {"results": results, "total": len(rows)}
