"""Keeping the index in step with the transcripts by their content, not by clocks or flags.

Spec 004: the transcripts are the truth and the index is derived and
self-healing. ``kv(transcriptIndex, <session id>)`` holds ``{"bytes": n}``,
the transcript's length when its index last matched it; an append records the
new length in the transaction that indexes its line. Any transcript whose
length differs (one ``stat``) is reconciled, whichever way it moved:

- longer: lines a failed or lost index commit left behind (disk full between
  the line and the commit, a kill, a lost WAL) are indexed, wherever they sit;
- shorter or rewritten: when the indexed ids no longer match the file's, the
  session's index is rebuilt from the file (a cut transcript), so
  ``messageCount``, search and the next ``seq`` follow the file.

A kv namespace rather than a column keeps the v27 table shapes (spec 004,
section 4.1: new config domains start as a namespace).
"""

from __future__ import annotations

import logging
import os
from itertools import zip_longest

import apsw

from pidesktop.formats.index.sql_rows import one_row
from pidesktop.host import kv
from pidesktop.host.context import HostContext
from pidesktop.host.sessions import audit_rows, index_build, inflight, message_index, session_rows
from pidesktop.host.sessions import commands as sessions
from pidesktop.host.sessions.index_progress import IndexProgress

log = logging.getLogger("pidesktop.host.sessions.index_sync")

NS = session_rows.INDEXED_LENGTH_NS


def recorded_length(conn: apsw.Connection, session_id: str) -> int | None:
    value = kv.get(conn, NS, session_id)
    length = value.get("bytes") if isinstance(value, dict) else None
    return length if type(length) is int else None


def record_length(conn: apsw.Connection, session_id: str, length: int, now: int) -> None:
    """Inside the transaction that made the index match ``length`` bytes of the transcript."""
    kv.put(conn, NS, session_id, {"bytes": length}, now)


def catch_up(ctx: HostContext, session_id: str, now: int, turns: dict[str, str] | None = None) -> int:
    """Reconcile one session when its transcript's length is not the one its index matched; lines indexed."""
    length = ctx.transcripts.length(session_id)
    if length is None or length == recorded_length(ctx.conn, session_id):
        return 0
    return reconcile(ctx, session_id, now, turns)


def reconcile_all(ctx: HostContext, now: int) -> int:
    """At open: one ``stat`` per session, a reconcile for each transcript whose length moved; lines indexed."""
    conn = ctx.conn
    recorded = {key: value for key, value in conn.execute("SELECT key, value_json FROM kv WHERE ns = ?", (NS,))}
    known = [row[0] for row in conn.execute("SELECT id FROM sessions ORDER BY id")]
    indexed = 0
    directory = os.fspath(ctx.transcripts.sessions_dir)  # plain strings: a Path per chat cost ~40 ms at 10,000
    for session_id in known:
        try:
            length = os.stat(os.path.join(directory, ctx.transcripts.file_name(session_id))).st_size
        except (FileNotFoundError, ValueError):
            continue
        except OSError:
            log.exception("could not look at the transcript of session %s", session_id)
            continue
        if recorded.get(session_id) == f'{{"bytes":{length}}}':
            continue
        try:
            indexed += reconcile(ctx, session_id, now)
        except Exception:  # one unreadable file must not stop the host from starting
            log.exception("could not reconcile the index of session %s with its transcript", session_id)
    with conn:  # entries of sessions that are gone
        conn.execute("DELETE FROM kv WHERE ns = ? AND key NOT IN (SELECT id FROM sessions)", (NS,))
    return indexed


def reconcile(ctx: HostContext, session_id: str, now: int, turns: dict[str, str] | None = None) -> int:
    """Make the session's index match its transcript, then record the length it matches; lines indexed."""
    ctx.transcripts.mend_unterminated_tail(session_id)
    layout = ctx.transcripts.layout(session_id)
    if layout is None:
        return 0
    indexed = index_tail(ctx, session_id, now, turns)
    conn = ctx.conn
    visible = (
        message_id
        for position, message_id in enumerate(layout.message_ids)
        if message_id is not None and not layout.is_hidden(position)
    )
    cursor = conn.execute("SELECT id FROM messages WHERE session_id = ? ORDER BY seq", (session_id,))
    missing = object()  # one side ran out first
    differs = any(a != b for a, b in zip_longest((row[0] for row in cursor), visible, fillvalue=missing))
    cursor.close()  # it may have stopped early; the rebuild writes to the same rows
    if differs:
        _rebuild(ctx, session_id, now)
    with conn:
        record_length(conn, session_id, layout.prefix_len, now)
    return indexed


def _rebuild(ctx: HostContext, session_id: str, now: int) -> None:
    """Index the whole transcript again, a batch at a time (outside any transaction: each batch commits).

    Clients follow it through ``index.progress`` events (phase ``reindex``).
    """
    progress = IndexProgress(ctx.emit, "reindex", {session_id: ctx.transcripts.length(session_id) or 0})
    progress.start()
    try:
        index_build.build(ctx, session_id, now, progress.for_chat(session_id))
    finally:
        progress.chat_done(session_id)
    log.warning("rebuilt the index of session %s from its transcript", session_id)


def index_tail(ctx: HostContext, session_id: str, now: int, turns: dict[str, str] | None = None) -> int:
    """Index the visible message lines after the last indexed one, like their appends would have.

    One transaction, the shape of an append's: ``seq`` allocated from
    ``last_seq``, the row with its search text, the fallback title for a first
    prompt, the turn link from ``turns`` or the in-flight checkpoint. Should
    the index still disagree with the file afterwards (lines missing in the
    middle), the session's index is rebuilt from the file.
    """
    layout = ctx.transcripts.layout(session_id)
    if layout is None:
        return 0
    conn = ctx.conn
    (rows,) = one_row(conn.execute("SELECT count(*) FROM messages WHERE session_id = ?", (session_id,)))
    (last_seq,) = one_row(conn.execute("SELECT last_seq FROM sessions WHERE id = ?", (session_id,)))
    visible = layout.visible_count()
    missing: list[str] = []
    for position in range(layout.total - 1, -1, -1):
        message_id = layout.message_ids[position]
        if message_id is None or layout.is_hidden(position):
            continue
        owner = conn.execute("SELECT session_id FROM messages WHERE id = ?", (message_id,)).fetchone()
        if owner is not None:
            break  # indexed (here, or an id another session owns: never ours to take)
        missing.append(message_id)
    if not missing and rows == visible == last_seq:
        return 0
    records = []
    for message_id in reversed(missing):
        found = ctx.transcripts.find(session_id, message_id)
        if found is not None:
            records.append({k: v for k, v in found[1].items() if k != "type"})
    links = dict(turns or {})
    checkpoint = inflight.read(ctx, session_id)
    if checkpoint and isinstance(checkpoint.get("turnId"), str):
        links.setdefault(checkpoint["message"]["id"], checkpoint["turnId"])
    with conn:
        (updated,) = one_row(conn.execute("SELECT updated_at FROM sessions WHERE id = ?", (session_id,)))
        for message in records:
            stamp = message_index.created_ms(message, now)
            turn = message_index.valid_turn(conn, session_id, links.get(message["id"]))
            message_index.insert(conn, session_id, message, turn, stamp)
            audit_rows.record_blocks(conn, session_id, message)  # the audit rows its lost commit was to write
            if message["role"] == "user":
                sessions.apply_fallback_title(conn, session_id, message)
            updated = max(updated, stamp)
        # insert() stamps the row's time on the session; the recent list never goes back in time
        conn.execute("UPDATE sessions SET updated_at = ? WHERE id = ?", (updated, session_id))
        steady = message_index.in_step(conn, session_id, visible)
    if not steady:
        _rebuild(ctx, session_id, now)
    if records:
        log.warning("indexed %d message line(s) of session %s that had no index row", len(records), session_id)
    return len(records)
