"""``session_row`` lines: rows of a chat's turns and plan approvals, kept in its transcript too.

Spec 004 makes the transcript the source of truth. A turn (status, model,
tokens, usage) and a plan or goal approval (the proposal, the answer, its
execution) are rows of ``pi.sqlite`` alone; each change also appends one line
with the row as it stands, so a rebuilt index gets them back. The window and
the model never see these lines; a rewrite keeps one folded line per row
(``transcripts/info.py``).

A turn's line is written before its row changes (file first, like a
message). A plan approval's line is written right after its commit: its
rows change in several places and a kill between the two loses that change
only if the database is lost as well.
"""

from __future__ import annotations

import logging
from typing import Any

import apsw

from pidesktop.formats.transcript.records import now_rfc3339
from pidesktop.host import kv
from pidesktop.host.context import HostContext
from pidesktop.host.transcripts import info as info_lines

log = logging.getLogger("pidesktop.host.sessions.session_rows")

ROW = info_lines.ROW
INDEXED_LENGTH_NS = "transcriptIndex"  # index_sync.NS: each transcript's length its index matches
KEYS = {"turns": "id", "plan_approvals": "request_id"}  # table -> primary key column
# What a restart does to a row that was mid-way (boot.boot_pass): a rebuilt row gets the same.
SETTLED = {
    "turns": {"status": {"running": "aborted"}},
    "plan_approvals": {
        "status": {"pending": "interrupted"},
        "execution_state": {"queued": "interrupted", "running": "interrupted"},
    },
}


def record(ctx: HostContext, session_id: str, table: str, row: dict[str, Any]) -> None:
    """Append the ``row`` of ``table`` (column names as keys, its key column included)."""
    append_in_step(
        ctx, session_id, {"type": ROW, "table": table, "key": str(row[KEYS[table]]), "row": row, "at": now_rfc3339()}
    )


def append_in_step(ctx: HostContext, session_id: str, line: dict[str, Any]) -> None:
    """Append a line that is not a message; when the index matched the file before it, it still does.

    The recorded length (``index_sync``) moves with the line, so the next start
    finds nothing to reconcile for it: one ``stat``, no read of the file.
    """
    before = ctx.transcripts.length(session_id)
    appended = ctx.transcripts.append_line(session_id, line)
    if before is None or kv.get(ctx.conn, INDEXED_LENGTH_NS, session_id) != {"bytes": before}:
        return
    with ctx.conn:
        kv.put(ctx.conn, INDEXED_LENGTH_NS, session_id, {"bytes": appended.end}, ctx.clock())


def current(conn: apsw.Connection, table: str, key: str) -> dict[str, Any] | None:
    """The row of ``table`` whose key is ``key``, by column name."""
    cursor = conn.execute(f"SELECT * FROM {table} WHERE {KEYS[table]} = ?", (key,))
    values = cursor.fetchone()
    if values is None:
        return None
    names = [column[0] for column in cursor.getdescription()]
    return dict(zip(names, values, strict=True))


def record_current(ctx: HostContext, session_id: str, table: str, key: str) -> None:
    """Append the row as the database holds it now (after a commit); a failure is logged, the row stays."""
    row = current(ctx.conn, table, key)
    if row is None:
        return
    try:
        record(ctx, session_id, table, row)
    except OSError:
        log.exception("could not keep %s row %s in the transcript of %s", table, key, session_id)


def restore(conn: apsw.Connection, session_id: str, rows: dict[tuple[str, str], dict[str, Any]], now: int) -> int:
    """Insert the rows a transcript's ``session_row`` lines hold (``info.fold_file``), in the caller's
    transaction; rows inserted.

    A row that was mid-way is settled as a restart settles it; a row that does
    not fit (another chat's id, a column this schema lacks) is skipped.
    """
    restored = 0
    columns = {table: {str(c[1]) for c in conn.execute(f"PRAGMA table_info({table})")} for table in KEYS}
    for (table, key), row in rows.items():
        if table not in KEYS:
            continue
        row = {name: value for name, value in row.items() if name in columns[table]}
        row[KEYS[table]], row["session_id"] = key, session_id
        for column, moves in SETTLED[table].items():
            if row.get(column) in moves:
                row[column] = moves[row[column]]
                if table == "turns":
                    row["ended_at"] = max(now, int(row.get("started_at") or 0))
                else:
                    row["updated_at"] = now
        names = list(row)
        sql = f"INSERT OR IGNORE INTO {table}({', '.join(names)}) VALUES ({', '.join('?' for _ in names)})"
        try:
            conn.execute(sql, [row[name] for name in names])
        except (apsw.Error, TypeError):
            log.warning("skipped a %s row of session %s that does not fit", table, session_id)
            continue
        restored += conn.changes()
    return restored
