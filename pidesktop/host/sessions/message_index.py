"""The ``messages`` table: the derived index of transcript lines (spec 004, section 4.7).

One row per message with its ordinal, promoted filter columns and the plain
text search sees. The transcript file is the truth; everything here can be
rebuilt from it (``rebuild``), which is how replays after a failed index
commit, rewrites and orphan restores heal the index.
"""

from __future__ import annotations

import logging
from typing import Any

import apsw
import orjson

from pidesktop.formats.index.sql_rows import all_rows, one_row
from pidesktop.formats.transcript.records import parse_rfc3339
from pidesktop.formats.transcript.records import rfc3339 as rfc3339  # the host's callers name rfc3339 here
from pidesktop.host.json_values import object_at

log = logging.getLogger("pidesktop.host.index")

ROLES = ("user", "assistant", "tool", "system")

_COLUMNS = "id, session_id, turn_id, seq, role, tool_name, is_error, text, created_at"
_INSERT_ROW = f"INSERT INTO messages({_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)"
# Many rows as one statement: value->>n is the n-th field of each row of a JSON array of rows.
_INSERT_JSON_ROWS = (
    f"INSERT INTO messages({_COLUMNS}) SELECT value->>0, value->>1, value->>2, value->>3, value->>4, "
    "value->>5, value->>6, value->>7, value->>8 FROM json_each(?)"
)
# (id, session_id, turn_id, seq, role, tool_name, is_error, text, created_at)
Row = tuple[str, str, str | None, int, str, str | None, int, str | None, int]


def extract_text(message: dict[str, Any]) -> str | None:
    """The final-answer text search and previews see; never thinking or tool output.

    Tool rows and internal model-state system rows have no text.
    """
    role = message.get("role")
    if role == "tool":
        return None
    meta = object_at(message, "meta")
    if role == "system" and meta.get("modelSystem") is not None:
        return None
    parts = [
        block["text"]
        for block in message.get("blocks", [])
        if isinstance(block, dict) and block.get("type") == "text" and isinstance(block.get("text"), str)
    ]
    text = "\n\n".join(part for part in parts if part)
    return text or None


def tool_name(message: dict[str, Any]) -> str | None:
    if isinstance(name := message.get("toolName"), str):
        return name
    for block in message.get("blocks", []):
        if isinstance(block, dict) and block.get("type") == "tool_call" and isinstance(name := block.get("name"), str):
            return name
    return None


def is_error(message: dict[str, Any]) -> bool:
    meta = object_at(message, "meta")
    if meta.get("status") == "error" or meta.get("error"):
        return True
    return any(
        isinstance(b, dict) and b.get("type") == "tool_call" and b.get("status") == "error"
        for b in message.get("blocks", [])
    )


def created_ms(message: dict[str, Any], fallback: int) -> int:
    stamp = parse_rfc3339(message.get("createdAt"))
    return fallback if stamp is None else stamp


def valid_turn(conn: apsw.Connection, session_id: str, turn_id: str | None) -> str | None:
    """``turn_id`` when that turn exists in this session; otherwise None and a warning (spec 004, section 5)."""
    if turn_id is None:
        return None
    row = conn.execute("SELECT session_id FROM turns WHERE id = ?", (turn_id,)).fetchone()
    if row is None or row[0] != session_id:
        log.warning(
            "message kept without its turn link: turn %s is %s",
            turn_id,
            "unknown" if row is None else "from another session",
            extra={"fields": {"sessionId": session_id, "turnId": turn_id}},
        )
        return None
    return turn_id


def insert(conn: apsw.Connection, session_id: str, message: dict[str, Any], turn_id: str | None, now: int) -> int:
    """Allocate the next ``seq`` (O(1), RETURNING) and index ``message``; touches the session."""
    seq: int = one_row(
        conn.execute(
            "UPDATE sessions SET last_seq = last_seq + 1, updated_at = ? WHERE id = ? RETURNING last_seq",
            (now, session_id),
        )
    )[0]
    conn.execute(
        "INSERT INTO messages(id, session_id, turn_id, seq, role, tool_name, is_error, text, created_at) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (
            message["id"],
            session_id,
            turn_id,
            seq,
            message["role"],
            tool_name(message),
            int(is_error(message)),
            extract_text(message),
            created_ms(message, now),
        ),
    )
    return seq


def update_content(conn: apsw.Connection, message_id: str, message: dict[str, Any]) -> None:
    """Refresh a row's derived columns in place (same mid, same seq); FTS follows by trigger."""
    conn.execute(
        "UPDATE messages SET role = ?, tool_name = ?, is_error = ?, text = ? WHERE id = ?",
        (message["role"], tool_name(message), int(is_error(message)), extract_text(message), message_id),
    )


def rebuild(conn: apsw.Connection, session_id: str, messages: list[dict[str, Any]], now: int) -> int:
    """Replace the session's rows with ``messages`` (transcript order, deduplicated).

    Each surviving message keeps its owning turn when that turn still belongs to
    this session; ``last_seq`` is reseated to the message count. Run inside the
    caller's transaction.
    """
    turns: dict[str, str | None] = dict(
        all_rows(conn.execute("SELECT id, turn_id FROM messages WHERE session_id = ?", (session_id,)))
    )
    conn.execute("DELETE FROM messages WHERE session_id = ?", (session_id,))
    taken = {
        row[0]
        for row in conn.execute(
            "SELECT id FROM messages WHERE session_id != ? AND id IN (SELECT value FROM json_each(?))",
            (session_id, _json_ids(messages)),
        )
    }
    rows = []
    for seq, message in enumerate(messages, start=1):
        if message["id"] in taken:
            log.warning("not indexing %s: the id belongs to another session", message["id"])
            continue
        turn = turns.get(message["id"])
        rows.append(row_of(session_id, message, valid_turn(conn, session_id, turn) if turn else None, seq, now))
    insert_rows(conn, rows)
    conn.execute("UPDATE sessions SET last_seq = ? WHERE id = ?", (len(messages), session_id))
    return len(messages)


def row_of(session_id: str, message: dict[str, Any], turn_id: str | None, seq: int, now: int) -> Row:
    """The index row of ``message`` at ``seq``."""
    return row_at(session_id, message, turn_id, seq, created_ms(message, now))


def row_at(session_id: str, message: dict[str, Any], turn_id: str | None, seq: int, created: int) -> Row:
    """The index row of ``message`` at ``seq`` whose time the caller has already read."""
    name, error, text = derived_columns(message)
    return (message["id"], session_id, turn_id, seq, message["role"], name, error, text, created)


def derived_columns(message: dict[str, Any]) -> tuple[str | None, int, str | None]:
    """``(tool_name, is_error, text)`` of :func:`tool_name`, :func:`is_error` and :func:`extract_text`, in one
    pass over the blocks: a rebuild derives them for every line of a transcript."""
    role = message.get("role")
    meta = object_at(message, "meta")
    name = message.get("toolName")
    if not isinstance(name, str):
        name = None
    error = meta.get("status") == "error" or bool(meta.get("error"))
    wants_text = role != "tool" and not (role == "system" and meta.get("modelSystem") is not None)
    parts = []
    for block in message.get("blocks", []):
        if not isinstance(block, dict):
            continue
        kind = block.get("type")
        if kind == "text":
            if wants_text and isinstance(text := block.get("text"), str) and text:
                parts.append(text)
        elif kind == "tool_call":
            if name is None and isinstance(found := block.get("name"), str):
                name = found
            if block.get("status") == "error":
                error = True
    return name, int(error), "\n\n".join(parts) or None


def insert_rows(conn: apsw.Connection, rows: list[Row]) -> None:
    """Insert many index rows as one statement.

    FTS5 writes its pending terms out at every statement's savepoint, so a
    statement per row (``executemany``) leaves one tiny segment per row behind
    the insert trigger for merges to fold together: about twice the work of
    one statement for the lot. Rows orjson will not write (a lone surrogate)
    go in row by row.
    """
    if not rows:
        return
    try:
        payload = orjson.dumps(rows)
    except orjson.JSONEncodeError:
        conn.executemany(_INSERT_ROW, rows)
        return
    conn.execute(_INSERT_JSON_ROWS, (payload.decode(),))


def remove(conn: apsw.Connection, session_id: str, ids: list[str]) -> int:
    """Delete the rows of ``ids`` and close the gap they leave; returns the new message count.

    For a rewrite that only took messages out of a transcript whose rows were
    in step with it (``seq`` 1..n in file order): the rows after the first one
    removed move down, so ``seq`` stays dense and ``last_seq`` is reseated to
    the count, as :func:`rebuild` leaves them, without touching the rows before
    it or any surviving row's text (FTS follows the deletes by trigger). Run
    inside the caller's transaction.
    """
    wanted = orjson.dumps(ids).decode()
    first, last, removed = one_row(
        conn.execute(
            "SELECT min(seq), max(seq), count(*) FROM messages WHERE session_id = ? "
            "AND id IN (SELECT value FROM json_each(?))",
            (session_id, wanted),
        )
    )
    if removed:
        conn.execute(
            "DELETE FROM messages WHERE session_id = ? AND id IN (SELECT value FROM json_each(?))", (session_id, wanted)
        )
        # One run of rows left (a message, or a prompt and its reply): the rest moves down in one pass.
        if not (last - first + 1 == removed and _shift_down(conn, session_id, last, removed)):
            # Otherwise, as UNIQUE(session_id, seq) is checked row by row, the rows
            # that move step aside to negative numbers first, then take their places.
            conn.execute("UPDATE messages SET seq = -seq WHERE session_id = ? AND seq > ?", (session_id, first))
            conn.execute(
                "UPDATE messages SET seq = ? + moved.n FROM (SELECT mid, row_number() OVER "
                "(ORDER BY seq DESC) AS n FROM messages WHERE session_id = ? AND seq < 0) AS moved "
                "WHERE messages.mid = moved.mid",
                (first - 1, session_id),
            )
    count: int = one_row(conn.execute("SELECT count(*) FROM messages WHERE session_id = ?", (session_id,)))[0]
    conn.execute("UPDATE sessions SET last_seq = ? WHERE id = ?", (count, session_id))
    return count


def _shift_down(conn: apsw.Connection, session_id: str, after: int, by: int) -> bool:
    """Move the rows after ``after`` down by ``by`` in one pass; False (and nothing changed) if SQLite refused.

    Every row is rewritten once instead of twice (each carries its text, so a
    pass costs about as much as the file itself). The slots below are free, and
    SQLite walks the (session_id, seq) index upwards, so each row lands on a
    slot its predecessor has left; should it ever visit them in another order,
    the UNIQUE check refuses, the savepoint rolls back and the caller takes the
    two-pass way.
    """
    try:
        with conn:  # a savepoint inside the caller's transaction
            conn.execute("UPDATE messages SET seq = seq - ? WHERE session_id = ? AND seq > ?", (by, session_id, after))
        return True
    except apsw.ConstraintError:
        return False


def in_step(conn: apsw.Connection, session_id: str, messages: int) -> bool:
    """True when the session has ``messages`` rows numbered 1..``messages`` and ``last_seq`` agrees."""
    rows, top = one_row(
        conn.execute("SELECT count(*), coalesce(max(seq), 0) FROM messages WHERE session_id = ?", (session_id,))
    )
    row = conn.execute("SELECT last_seq FROM sessions WHERE id = ?", (session_id,)).fetchone()
    return rows == top == messages and row is not None and row[0] == messages


def _json_ids(messages: list[dict[str, Any]]) -> str:
    return orjson.dumps([m["id"] for m in messages]).decode()
