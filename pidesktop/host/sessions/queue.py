"""The host-owned turn queue (spec 004, section 4.6b).

Prompts sent while a turn runs wait here, at most eight per session. A
position only grows, so removing an entry never reorders the rest; "send
now" gives an entry a priority (``MAX(priority) + 1``), and promoted entries
go first in the order they were promoted. The store never starts a turn:
after a restart entries are held until the person resumes them.

An entry leaves the queue when its user line is stored (``session.appendMessage``
with ``queueEntryId``, in the append's own index transaction) or when the
person removes it. A start that failed before that is recorded on the entry
(``session.queueMarkFailed``) so the strip can offer Retry.

Two host-owned kv namespaces keep what the spec's columns do not: the highest
position a session ever handed out (``queuePosition``), so a position is never
reused after removals, and the last failed start of an entry (``queueFailure``).
"""

from __future__ import annotations

import hashlib
import uuid
from typing import Any

import apsw
import orjson

from pidesktop.bus import topics
from pidesktop.bus.errors import ErrorCode, HostError
from pidesktop.formats.index.sql_rows import one_row
from pidesktop.host import kv
from pidesktop.host.commands import command
from pidesktop.host.context import HostContext
from pidesktop.host.params import Params, invalid
from pidesktop.host.sessions import commands as sessions
from pidesktop.host.sessions.queue_marks import FAILURE_NS, POSITION_NS

MAX_ENTRIES = 8
PERMISSION_MODES = ("inherit", "ask", "accept-edits", "auto")
_COLUMNS = (
    "q.id, q.session_id, q.principal, q.idempotency_key, q.content, q.attachments_json, "
    "q.user_message_id, q.permission_mode, q.position, q.priority, q.created_at, f.value_json"
)
_FROM = f"turn_queue q LEFT JOIN kv f ON f.ns = '{FAILURE_NS}' AND f.key = q.id"
_ORDER = "ORDER BY q.priority IS NULL, q.priority, q.position"


def to_wire(row: tuple[Any, ...]) -> dict[str, Any]:
    (
        eid,
        sid,
        principal,
        key,
        content,
        attachments,
        user_message_id,
        permission,
        position,
        priority,
        created,
        failure,
    ) = row
    failed = orjson.loads(failure) if failure else None
    return {
        "id": eid,
        "sessionId": sid,
        "principal": principal,
        "idempotencyKey": key,
        "content": content,
        "attachments": orjson.loads(attachments) if attachments else [],
        "userMessageId": user_message_id,
        "permissionMode": permission,
        "position": position,
        "priority": priority,
        "createdAt": created,
        "lastError": {"code": failed["code"], "message": failed["message"]} if failed else None,
        "failedAt": failed["failedAt"] if failed else None,
    }


def entries(conn: apsw.Connection, session_id: str) -> list[dict[str, Any]]:
    rows = conn.execute(f"SELECT {_COLUMNS} FROM {_FROM} WHERE q.session_id = ? {_ORDER}", (session_id,))
    return [to_wire(r) for r in rows]


def consume(conn: apsw.Connection, session_id: str, entry_id: str) -> bool:
    """Take an entry out of the queue because its turn started; inside the caller's transaction."""
    conn.execute("DELETE FROM turn_queue WHERE id = ? AND session_id = ?", (entry_id, session_id))
    removed = conn.changes() > 0
    kv.delete(conn, FAILURE_NS, entry_id)
    return removed


def changed(ctx: HostContext, session_id: str) -> dict[str, Any]:
    return _changed(ctx, session_id)


def _entry(conn: apsw.Connection, session_id: str, entry_id: str) -> dict[str, Any]:
    row = conn.execute(
        f"SELECT {_COLUMNS} FROM {_FROM} WHERE q.id = ? AND q.session_id = ?", (entry_id, session_id)
    ).fetchone()
    if row is None:
        raise HostError(ErrorCode.NOT_FOUND, f"Session {session_id} has no queued prompt {entry_id!r}.")
    return to_wire(row)


def _changed(ctx: HostContext, session_id: str) -> dict[str, Any]:
    listed = entries(ctx.conn, session_id)
    ctx.emit(topics.QUEUE_CHANGED, {"sessionId": session_id, "entries": listed})
    return {"entries": listed}


@command("session.queuePush", emits=[topics.QUEUE_CHANGED])
def queue_push(ctx: HostContext, p: Params) -> dict[str, Any]:
    session_id = sessions.session_id_param(p)
    content = p.text("content")
    attachments = p.array("attachments", required=False) or []
    principal = p.text("principal", required=False, default="desktop", nonempty=True)
    key = p.text("idempotencyKey", required=False, nonempty=True)
    permission = p.choice("permissionMode", PERMISSION_MODES, default="inherit")
    user_message_id = p.text("userMessageId", required=False)
    if not content.strip() and not attachments:
        raise invalid("session.queuePush: 'content' must not be empty.", "content")
    attachments_json = orjson.dumps(attachments).decode()
    input_hash = hashlib.sha256(orjson.dumps([content, attachments])).hexdigest()
    sessions.require(ctx.conn, session_id)
    with ctx.conn:
        if key is not None:
            row = ctx.conn.execute(
                f"SELECT q.input_hash, {_COLUMNS} FROM {_FROM} WHERE q.session_id = ? AND q.principal = ? "
                "AND q.idempotency_key = ?",
                (session_id, principal, key),
            ).fetchone()
            if row is not None:
                if row[0] != input_hash:
                    raise HostError(
                        ErrorCode.IDEMPOTENCY_CONFLICT,
                        f"Idempotency key {key!r} was already used for a different prompt.",
                    )
                return {"entry": to_wire(row[1:]), "entries": entries(ctx.conn, session_id)}
        (count, last) = one_row(
            ctx.conn.execute(
                "SELECT count(*), COALESCE(MAX(position), 0) FROM turn_queue WHERE session_id = ?", (session_id,)
            )
        )
        if count >= MAX_ENTRIES:
            raise HostError(
                ErrorCode.LIMIT_EXCEEDED,
                f"At most {MAX_ENTRIES} prompts can wait in one chat; send or remove one first.",
            )
        # Never MAX(position) + 1 alone: after removals that repeats a position already handed out.
        last = max(last, kv.get(ctx.conn, POSITION_NS, session_id, 0))
        kv.put(ctx.conn, POSITION_NS, session_id, last + 1, ctx.clock())
        entry_id = str(uuid.uuid4())
        ctx.conn.execute(
            "INSERT INTO turn_queue(id, session_id, principal, idempotency_key, input_hash, content, "
            "attachments_json, user_message_id, permission_mode, position, created_at) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                entry_id,
                session_id,
                principal,
                key,
                input_hash,
                content,
                attachments_json,
                user_message_id,
                permission,
                last + 1,
                ctx.clock(),
            ),
        )
    entry = _entry(ctx.conn, session_id, entry_id)
    return {"entry": entry, **_changed(ctx, session_id)}


@command("session.queueList", emits=[])
def queue_list(ctx: HostContext, p: Params) -> dict[str, Any]:
    session_id = sessions.session_id_param(p)
    sessions.require(ctx.conn, session_id)
    return {"entries": entries(ctx.conn, session_id)}


@command("session.queueRemove", emits=[topics.QUEUE_CHANGED])
def queue_remove(ctx: HostContext, p: Params) -> dict[str, Any]:
    session_id = sessions.session_id_param(p)
    entry_id = p.text("entryId", nonempty=True)
    with ctx.conn:
        _entry(ctx.conn, session_id, entry_id)
        consume(ctx.conn, session_id, entry_id)
    return {"removed": True, **_changed(ctx, session_id)}


@command("session.queueMarkFailed", emits=[topics.QUEUE_CHANGED])
def queue_mark_failed(ctx: HostContext, p: Params) -> dict[str, Any]:
    """Record that starting this entry failed; it stays queued (its prompt is not stored yet)."""
    session_id = sessions.session_id_param(p)
    entry_id = p.text("entryId", nonempty=True)
    error = p.obj("error")
    code, message = error.get("code"), error.get("message")
    if not isinstance(code, str) or not code or not isinstance(message, str):
        raise invalid("session.queueMarkFailed: 'error' must be {code: non-empty string, message: string}.", "error")
    with ctx.conn:
        _entry(ctx.conn, session_id, entry_id)
        kv.put(
            ctx.conn,
            FAILURE_NS,
            entry_id,
            {"sessionId": session_id, "code": code, "message": message[:2000], "failedAt": ctx.clock()},
            ctx.clock(),
        )
    return _changed(ctx, session_id)


@command("session.queuePrioritize", emits=[topics.QUEUE_CHANGED])
def queue_prioritize(ctx: HostContext, p: Params) -> dict[str, Any]:
    """ "Send now": deliver this entry before every entry not promoted earlier."""
    session_id = sessions.session_id_param(p)
    entry_id = p.text("entryId", nonempty=True)
    with ctx.conn:
        entry = _entry(ctx.conn, session_id, entry_id)
        if entry["priority"] is None:
            ctx.conn.execute(
                "UPDATE turn_queue SET priority = (SELECT COALESCE(MAX(priority), 0) + 1 FROM turn_queue "
                "WHERE session_id = ?) WHERE id = ?",
                (session_id, entry_id),
            )
    return _changed(ctx, session_id)


@command("session.queueReorder", emits=[topics.QUEUE_CHANGED])
def queue_reorder(ctx: HostContext, p: Params) -> dict[str, Any]:
    """Swap an entry with its neighbour (``direction`` up or down) among the entries not promoted."""
    session_id = sessions.session_id_param(p)
    entry_id = p.text("entryId", nonempty=True)
    direction = p.choice("direction", ("up", "down"), required=True)
    with ctx.conn:
        entry = _entry(ctx.conn, session_id, entry_id)
        if entry["priority"] is not None:
            raise HostError(ErrorCode.CONFLICT, "A prompt marked “send now” cannot be moved.")
        compare, order = ("<", "DESC") if direction == "up" else (">", "ASC")
        neighbour = ctx.conn.execute(
            f"SELECT id, position FROM turn_queue WHERE session_id = ? AND priority IS NULL "
            f"AND position {compare} ? ORDER BY position {order} LIMIT 1",
            (session_id, entry["position"]),
        ).fetchone()
        if neighbour is not None:
            ctx.conn.execute("UPDATE turn_queue SET position = -1 WHERE id = ?", (entry_id,))
            ctx.conn.execute("UPDATE turn_queue SET position = ? WHERE id = ?", (entry["position"], neighbour[0]))
            ctx.conn.execute("UPDATE turn_queue SET position = ? WHERE id = ?", (neighbour[1], entry_id))
    return _changed(ctx, session_id)
