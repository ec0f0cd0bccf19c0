"""Message search: ``search.query`` and ``search.sessions`` (spec 004, section 4.8).

Queries are literal text: ``%``, ``_``, quotes and backslashes mean
themselves. Three characters or more without a non-ASCII case mapping go
through the FTS5 trigram index as a quoted phrase; every candidate is then
verified with the host's own Unicode-lowercase substring test, which is also
what shorter queries and queries like "Straße"/"ÉTÉ" use directly, so what is
counted is exactly what the UI highlights.
"""

from __future__ import annotations


import apsw

from .commands import command
from .context import HostContext
from .params import Params, decimal, invalid

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
    if len(query) < 3 or "\0" in query:  # FTS5 reads a NUL as the end of the query
        return False
    return not any(not ch.isascii() and (ch.lower() != ch or ch.upper() != ch) for ch in query)


def _source(query: str) -> tuple[str, tuple]:
    """FROM/WHERE selecting the messages that contain ``query`` (user and assistant text only)."""
    roles = "m.role IN ('user', 'assistant')"
    if uses_fts(query):
        phrase = '"' + query.replace('"', '""') + '"'
        return (f"FROM messages_fts f JOIN messages m ON m.mid = f.rowid WHERE messages_fts MATCH ? AND {roles}",
                (phrase,))
    return (f"FROM messages m WHERE m.text IS NOT NULL AND {roles} AND pi_contains(m.text, ?)", (query.lower(),))


def match_counts(conn: apsw.Connection, query: str) -> dict[str, int]:
    """Matching messages per session, counted before any paging.

    On the FTS path the trigram index answers a quoted phrase with the same
    case-folded literal match the predicate applies, so counting needs no
    message text; the predicate decides alone on the other path.
    """
    source, args = _source(query)
    return dict(conn.execute(f"SELECT m.session_id, count(*) {source} GROUP BY m.session_id", args).fetchall())


def matching_messages(conn: apsw.Connection, query: str, session_ids: list[str] | None = None,
                      limit: int | None = None) -> list[tuple]:
    """``(session_id, message_id, role, seq, text, created_at)`` of verified matches, newest first."""
    source, args = _source(query)
    if session_ids is not None:
        source += f" AND m.session_id IN ({','.join('?' * len(session_ids))})"
        args = (*args, *session_ids)
    source += " AND m.session_id IN (SELECT id FROM sessions WHERE deleted_at IS NULL)"
    sql = f"SELECT m.session_id, m.id, m.role, m.seq, m.text, m.created_at {source} ORDER BY m.created_at DESC, m.seq DESC"
    needle = query.lower()
    verified = []
    for row in conn.execute(sql, args):
        if needle in row[4] or needle in row[4].lower():
            verified.append(row)
            if limit is not None and len(verified) >= limit:
                break
    return verified


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
        raise invalid(f"{p.method}: 'query' must not be empty.", "query")
    return query


def _offset_cursor(p: Params) -> int:
    cursor = p.text("cursor", required=False)
    if cursor is None:
        return 0
    if not cursor.startswith("o:") or decimal(cursor[2:]) is None:
        raise invalid(f"{p.method}: 'cursor' is not a cursor this host handed out: {cursor!r}.", "cursor")
    return int(cursor[2:])


@command("search.sessions")
def search_sessions(ctx: HostContext, p: Params) -> dict:
    query = _query_param(p)
    limit = p.integer("limit", required=False, default=20, minimum=1, maximum=200)
    offset = _offset_cursor(p)
    conn = ctx.conn
    needle = query.lower()
    counts = match_counts(conn, query)
    named = {sid: (title_hit, project_hit) for sid, title_hit, project_hit in conn.execute(
        "SELECT s.id, pi_contains(s.title, ?), pi_contains(p.path, ?) FROM sessions s "
        "LEFT JOIN projects p ON p.id = s.project_id WHERE s.deleted_at IS NULL "
        "AND (pi_contains(s.title, ?) OR pi_contains(p.path, ?))", (needle,) * 4)}
    wanted = set(counts) | set(named)
    if not wanted:
        return {"results": [], "nextCursor": None, "totalSessions": 0}
    ordered = [row for row in conn.execute(
        "SELECT s.id, s.title, p.path, s.updated_at FROM sessions s LEFT JOIN projects p ON p.id = s.project_id "
        "WHERE s.deleted_at IS NULL ORDER BY s.updated_at DESC, s.id DESC") if row[0] in wanted]
    page = ordered[offset: offset + limit]
    snippets: dict[str, list[dict]] = {}
    with_hits = [row[0] for row in page if counts.get(row[0])]
    if with_hits:
        for sid, mid, role, _seq, text, _created in matching_messages(conn, query, with_hits):
            found = snippets.setdefault(sid, [])
            if len(found) < SNIPPETS_PER_SESSION:
                found.append({"messageId": mid, "role": role, **snippet(text, query)})
    results = []
    for sid, title, path, updated in page:
        title_hit, project_hit = named.get(sid, (0, 0))
        results.append({
            "sessionId": sid, "title": title, "projectPath": path, "updatedAt": updated,
            "matchCount": counts.get(sid, 0), "titleMatch": bool(title_hit), "projectMatch": bool(project_hit),
            "snippets": snippets.get(sid, []),
        })
    more = offset + limit < len(ordered)
    return {"results": results, "nextCursor": f"o:{offset + limit}" if more else None,
            "totalSessions": len(ordered)}


@command("search.query")
def search_query(ctx: HostContext, p: Params) -> dict:
    query = _query_param(p)
    limit = p.integer("limit", required=False, default=50, minimum=1, maximum=500)
    session_id = p.text("sessionId", required=False)
    rows = matching_messages(ctx.conn, query, [session_id] if session_id else None)
    results = [{"sessionId": sid, "messageId": mid, "role": role, "seq": seq, "createdAt": created,
                "snippet": snippet(text, query)} for sid, mid, role, seq, text, created in rows[:limit]]
    return {"results": results, "total": len(rows)}
