"""Indexing a whole transcript from scratch, streamed: how a restore or a repair rebuilds a chat's rows.

The transcript is read a batch of lines at a time
(``TranscriptStore.stream_messages``) and each batch goes in as one statement
in its own transaction, so memory stays bounded whatever the length of the
chat and FTS5 writes one segment per batch rather than one per row. The next
batch is read on a helper thread while this one's inserts run
(``read_ahead``), and SQLite checkpoints its WAL less often while the build
lasts: the inserts with their trigram index are most of a build's time.

A build cut short (a crash, a full disk) leaves rows for part of the file and
no recorded transcript length: the next start's reconcile (``index_sync``)
finds the index out of step with the file and builds it again.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import apsw
import orjson

from pidesktop.formats.index import free_pages
from pidesktop.formats.index.sql_rows import all_rows, one_row
from pidesktop.formats.transcript.records import parse_rfc3339
from pidesktop.host.context import HostContext
from pidesktop.host.sessions import message_index
from pidesktop.host.transcripts.read_ahead import read_ahead
from pidesktop.host.transcripts.store import STREAM_BLOCK

log = logging.getLogger("pidesktop.host.sessions.index_build")

# A build that leaves a longer WAL behind truncates it: past SQLite's own checkpoints (1,000 pages),
# only a big build grows it, and the file would otherwise keep that size until the host closes.
WAL_LIMIT = 4 << 20
# SQLite's automatic checkpoint during a build, in pages (64 MiB at 4 KiB) instead of its usual 1,000: FTS5's
# merges write most pages several times over, and each checkpoint copies what the WAL holds and syncs both
# files. A build checkpoints a sixteenth as often (a rebuild of 220 MB of JSONL 3-7% sooner); the WAL is
# truncated once it ends.
BUILD_CHECKPOINT_PAGES = 16384

# Told after each batch: (bytes of the transcript done, its length).
Progress = Callable[[int, int], None]
# Run in the transaction of the batch holding the first user message (a restore names the chat after it).
FirstPrompt = Callable[[apsw.Connection, dict[str, Any]], None]


@dataclass
class Built:
    count: int  # messages read back from the file (last_seq)
    newest: int | None  # the latest time a message line carries, Unix ms


def build(
    ctx: HostContext,
    session_id: str,
    now: int,
    progress: Progress | None = None,
    on_first_prompt: FirstPrompt | None = None,
    block: int = STREAM_BLOCK,
) -> Built:
    """Replace the session's index rows by its transcript's messages; never inside a caller's transaction.

    What ``message_index.rebuild`` does with every record in hand: ``seq`` in
    file order (keep-last for a repeated id), turn links kept when the turn is
    still this session's, ids another session owns left out, ``last_seq`` the
    message count. The session's ``updated_at`` moves up to the newest message.
    """
    conn = ctx.conn
    layout = ctx.transcripts.layout(session_id)
    turns: dict[str, str] = dict(
        all_rows(
            conn.execute("SELECT id, turn_id FROM messages WHERE session_id = ? AND turn_id IS NOT NULL", (session_id,))
        )
    )
    with conn:
        conn.execute("DELETE FROM messages WHERE session_id = ?", (session_id,))
        conn.execute("UPDATE sessions SET last_seq = 0 WHERE id = ?", (session_id,))
    built = Built(0, None)
    if layout is None:
        return built
    with checkpoints_every(conn, BUILD_CHECKPOINT_PAGES):
        # The next batch is read and parsed while this one's inserts run (SQLite releases the GIL).
        for batch in read_ahead(lambda: ctx.transcripts.stream_messages(session_id, block)):
            if not batch:
                continue
            with conn:
                on_first_prompt = _insert_batch(ctx, session_id, now, turns, built, batch, on_first_prompt)
            if progress is not None:
                last = batch[-1][0]
                progress(layout.message_offsets[last] + layout.message_lengths[last], layout.prefix_len)
    free_pages.give_back(conn)  # the pages FTS5's merges freed during the build, before the WAL goes
    truncate_wal(conn)
    return built


def _insert_batch(
    ctx: HostContext,
    session_id: str,
    now: int,
    turns: dict[str, str],
    built: Built,
    batch: list[tuple[int, dict[str, Any]]],
    on_first_prompt: FirstPrompt | None,
) -> FirstPrompt | None:
    """One batch's rows, counted into ``built``. Returns ``on_first_prompt`` while no user message has come,
    None once it has run."""
    conn = ctx.conn
    messages = [message for _position, message in batch]
    taken = _owned_elsewhere(ctx, messages)
    rows = []
    for message in messages:
        built.count += 1
        stamp = parse_rfc3339(message.get("createdAt"))
        if stamp is not None and (built.newest is None or stamp > built.newest):
            built.newest = stamp
        if on_first_prompt is not None and message.get("role") == "user":
            on_first_prompt(conn, {k: v for k, v in message.items() if k != "type"})
            on_first_prompt = None
        if message["id"] in taken:
            log.warning("not indexing %s: the id belongs to another session", message["id"])
            continue
        turn = turns.get(message["id"])
        link = message_index.valid_turn(conn, session_id, turn) if turn else None
        created = now if stamp is None else stamp  # the time read once, for updated_at and the row
        rows.append(message_index.row_at(session_id, message, link, built.count, created))
    message_index.insert_rows(conn, rows)
    conn.execute(
        "UPDATE sessions SET last_seq = ?, updated_at = max(updated_at, coalesce(?, updated_at)) WHERE id = ?",
        (built.count, built.newest, session_id),
    )
    return on_first_prompt


@contextmanager
def checkpoints_every(conn: apsw.Connection, pages: int) -> Iterator[None]:
    """SQLite's automatic checkpoint every ``pages`` of WAL for a while, then back to the connection's own."""
    (usual,) = one_row(conn.execute("PRAGMA wal_autocheckpoint"))
    conn.execute(f"PRAGMA wal_autocheckpoint = {int(pages)}")
    try:
        yield
    finally:
        conn.execute(f"PRAGMA wal_autocheckpoint = {int(usual)}")


def truncate_wal(conn: apsw.Connection, limit: int = WAL_LIMIT) -> bool:
    """Checkpoint and truncate the WAL when it is over ``limit`` bytes; True when it did."""
    try:
        size = os.stat(conn.filename + "-wal").st_size
    except OSError:
        return False
    if size <= limit:
        return False
    busy, _frames, _done = one_row(conn.execute("PRAGMA wal_checkpoint(TRUNCATE)"))
    if busy:  # a reader held it back: the next build, or the host's close, tries again
        log.info("could not truncate the %d-byte WAL after a build: a reader was busy", size)
    return not busy


def _owned_elsewhere(ctx: HostContext, messages: list[dict[str, Any]]) -> set[str]:
    """The ids of ``messages`` that already have a row: this session's rows are gone, so another session's."""
    ids = orjson.dumps([message["id"] for message in messages]).decode()
    return {
        row[0]
        for row in ctx.conn.execute("SELECT id FROM messages WHERE id IN (SELECT value FROM json_each(?))", (ids,))
    }
