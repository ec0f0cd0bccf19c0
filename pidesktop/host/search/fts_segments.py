"""Folding the trigram index's segments together where a build ends.

A phrase search looks each of its trigrams up in every segment of
``messages_fts``. A build leaves 7-18 of them (FTS5 writes a segment per
batch and its automerge folds them four at a time), and the same search on
one segment is several times faster (docs/performance.md). ``settle`` merges
after a build, a bounded number of pages per statement, each in its own
transaction, so the WAL is checkpointed as it goes rather than growing to the
size of the index. FTS5's ``usermerge`` is 2 for these merges: a level is
folded as soon as it holds two segments, so the merges cascade into few
segments (one after a whole build). The setting is a row of the index's
config table (data, not DDL) and applies to explicit merges only, never to
the automerge every append does.
"""

from __future__ import annotations

import apsw

from pidesktop.formats.index.sql_rows import one_row

USERMERGE = 2
STEP_PAGES = 1000  # leaf pages one merge statement writes (about 4 MB of WAL)
BUILD_CHANGES = 1000  # rows a pass must have written to count as a build (a few appended lines do not)
PAGES_PER_CHANGE = 2  # the budget: a message row and its FTS row take about 0.6 pages of index; merges rewrite it


def settle_after_build(conn: apsw.Connection, changes_before: int) -> int:
    """``settle`` when the connection wrote a build's worth of rows since ``conn.total_changes()`` was
    ``changes_before``, within a budget in proportion to them (a small build into a large index does not
    rewrite it all); the pages asked for, 0 when it was no build."""
    written = conn.total_changes() - changes_before
    if written < BUILD_CHANGES:
        return 0
    return settle(conn, written * PAGES_PER_CHANGE)


def settle(conn: apsw.Connection, budget_pages: int) -> int:
    """Merge until FTS5 finds nothing more to merge or about ``budget_pages`` were written; the pages asked for.

    Never inside a caller's transaction: each statement commits on its own."""
    (usermerge,) = one_row(conn.execute("SELECT coalesce(max(v), 0) FROM messages_fts_config WHERE k = 'usermerge'"))
    if usermerge != USERMERGE:
        conn.execute("INSERT INTO messages_fts(messages_fts, rank) VALUES ('usermerge', ?)", (USERMERGE,))
    asked = 0
    while asked < budget_pages:
        before = conn.total_changes()
        conn.execute("INSERT INTO messages_fts(messages_fts, rank) VALUES ('merge', ?)", (STEP_PAGES,))
        asked += STEP_PAGES
        if conn.total_changes() - before < 2:  # FTS5's sign of a merge that found nothing to do
            break
    return asked


def segment_count(conn: apsw.Connection) -> int:
    """How many segments the index has: read from its structure record (row 10 of ``messages_fts_data``)."""
    row = conn.execute("SELECT block FROM messages_fts_data WHERE id = 10").fetchone()
    if row is None:
        return 0
    block: bytes = row[0]
    position = 4  # after the cookie

    def varint() -> int:
        nonlocal position
        value = 0
        for _ in range(9):
            byte = block[position]
            position += 1
            value = (value << 7) | (byte & 0x7F)
            if not byte & 0x80:
                break
        return value

    varint()  # levels
    return varint()


__all__ = ["USERMERGE", "segment_count", "settle", "settle_after_build"]
