"""The durable inbox (spec 004, section 4.14).

One row per terminal turn outcome the person did not already see, and one
unread row per chat: a chat's newer outcome supersedes its unread older rows
(five replies in one chat are one thing to look at). Rows are structured data
only (no prose); a global cap keeps the newest 200. None of these commands
touches sessions, turns or transcripts.
"""

from __future__ import annotations

import uuid
from typing import Any

import apsw

from pidesktop.bus import topics
from pidesktop.bus.errors import ErrorCode, HostError
from pidesktop.formats.index.sql_rows import one_row
from pidesktop.host.commands import command
from pidesktop.host.context import HostContext
from pidesktop.host.params import Params, decimal, invalid

KEEP = 200
KINDS = {"completed": "task.completed", "error": "task.failed"}

_COLUMNS = "id, kind, session_id, session_title, turn_id, error_code, created_at, read_at"


def to_wire(row: tuple[Any, ...]) -> dict[str, Any]:
    nid, kind, session_id, title, turn_id, error_code, created, read = row
    return {
        "id": nid,
        "kind": kind,
        "sessionId": session_id,
        "sessionTitle": title,
        "turnId": turn_id,
        "errorCode": error_code,
        "createdAt": created,
        "readAt": read,
    }


# A chat in the trash takes its rows out of the inbox until it is restored (they are kept, not deleted).
VISIBLE = "session_id NOT IN (SELECT id FROM sessions WHERE deleted_at IS NOT NULL)"


def unread_count(conn: apsw.Connection) -> int:
    sql = f"SELECT count(*) FROM notifications WHERE read_at IS NULL AND {VISIBLE}"
    count: int = one_row(conn.execute(sql))[0]
    return count


def insert_for_turn(
    conn: apsw.Connection, session_id: str, turn_id: str, status: str, error_code: str | None, now: int
) -> dict[str, Any] | None:
    """Insert the turn's one inbox row and prune to the cap; None when it already existed.

    The chat's older unread rows go: their ids are the row's ``replaces`` (not stored). Runs inside the
    caller's transaction (the one that ends the turn).
    """
    kind = KINDS.get(status)
    if kind is None:
        return None
    (title,) = one_row(conn.execute("SELECT title FROM sessions WHERE id = ?", (session_id,)))
    row = conn.execute(
        f"INSERT INTO notifications(id, kind, session_id, session_title, turn_id, error_code, created_at) "
        f"VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT(turn_id) DO NOTHING RETURNING {_COLUMNS}",
        (str(uuid.uuid4()), kind, session_id, title, turn_id, error_code if status == "error" else None, now),
    ).fetchone()
    if row is None:
        return None
    replaced = [
        nid
        for (nid,) in conn.execute(
            "DELETE FROM notifications WHERE session_id = ? AND read_at IS NULL AND id != ? RETURNING id",
            (session_id, row[0]),
        )
    ]
    prune(conn)
    return to_wire(row) | ({"replaces": replaced} if replaced else {})


def prune(conn: apsw.Connection, keep: int = KEEP) -> int:
    # Rows made in the same millisecond are told apart by insertion order (rowid), so the
    # oldest really goes first; a random id would drop an arbitrary one of them.
    conn.execute(
        "DELETE FROM notifications WHERE rowid IN (SELECT rowid FROM notifications "
        "ORDER BY created_at DESC, rowid DESC LIMIT -1 OFFSET ?)",
        (keep,),
    )
    return conn.changes()


@command("notifications.list", emits=[])
def notifications_list(ctx: HostContext, p: Params) -> dict[str, Any]:
    limit = p.integer("limit", required=False, default=50, minimum=1, maximum=KEEP)
    unread_only = p.boolean("unreadOnly")
    cursor = p.text("cursor", required=False)
    where, args = [VISIBLE], []
    if unread_only:
        where.append("read_at IS NULL")
    if cursor:
        created, _, after_row = cursor.partition(":")
        if decimal(created) is None or decimal(after_row) is None:
            raise invalid(f"notifications.list: 'cursor' is not a cursor this host handed out: {cursor!r}.", "cursor")
        where.append("(created_at < ? OR (created_at = ? AND rowid < ?))")
        args += [int(created), int(created), int(after_row)]
    sql = f"SELECT {_COLUMNS}, rowid FROM notifications"
    if where:
        sql += " WHERE " + " AND ".join(where)
    sql += " ORDER BY created_at DESC, rowid DESC LIMIT ?"
    rows = ctx.conn.execute(sql, (*args, limit + 1)).fetchall()
    items = [to_wire(r[:-1]) for r in rows[:limit]]
    next_cursor = f"{items[-1]['createdAt']}:{rows[limit - 1][-1]}" if len(rows) > limit else None
    return {"notifications": items, "unreadCount": unread_count(ctx.conn), "nextCursor": next_cursor}


@command("notifications.markRead", emits=[topics.NOTIFICATION_CHANGED])
def notifications_mark_read(ctx: HostContext, p: Params) -> dict[str, Any]:
    nid = p.text("id", nonempty=True)
    with ctx.conn:
        ctx.conn.execute("UPDATE notifications SET read_at = ? WHERE id = ? AND read_at IS NULL", (ctx.clock(), nid))
        changed = ctx.conn.changes()
        row = ctx.conn.execute(f"SELECT {_COLUMNS} FROM notifications WHERE id = ?", (nid,)).fetchone()
    if row is None:
        raise HostError(ErrorCode.NOT_FOUND, f"There is no notification with id {nid!r}.")
    notification = to_wire(row)
    if changed:
        ctx.emit(topics.NOTIFICATION_CHANGED, {"notification": notification, "unreadCount": unread_count(ctx.conn)})
    return {"notification": notification}


@command("notifications.markAllRead", emits=[topics.NOTIFICATION_CHANGED])
def notifications_mark_all_read(ctx: HostContext, p: Params) -> dict[str, Any]:
    """Every unread notification, or with ``sessionId`` only that chat's (reading a chat reads them)."""
    session_id = p.text("sessionId", required=False, nonempty=True)
    with ctx.conn:
        if session_id is None:
            ctx.conn.execute("UPDATE notifications SET read_at = ? WHERE read_at IS NULL", (ctx.clock(),))
        else:
            ctx.conn.execute(
                "UPDATE notifications SET read_at = ? WHERE read_at IS NULL AND session_id = ?",
                (ctx.clock(), session_id),
            )
        updated = ctx.conn.changes()
        unread = unread_count(ctx.conn)
    if updated:
        scope = {"allRead": True} if session_id is None else {"sessionId": session_id}
        ctx.emit(topics.NOTIFICATION_CHANGED, {**scope, "unreadCount": unread})
    return {"updated": updated}


@command("notifications.clear", emits=[topics.NOTIFICATION_CHANGED])
def notifications_clear(ctx: HostContext, p: Params) -> dict[str, Any]:
    with ctx.conn:
        ctx.conn.execute("DELETE FROM notifications")
        deleted = ctx.conn.changes()
    if deleted:
        ctx.emit(topics.NOTIFICATION_CHANGED, {"cleared": True, "unreadCount": 0})
    return {"deleted": deleted}
