"""The chat's checklist (spec 004, "Session Todo checklist", schema v21).

The model's ``TodoWrite`` tool sends the whole list every time; the host
replaces the rows in one transaction and advances ``sessions.todo_revision``
(also for an empty list), so a reader can tell a newer checklist from an
older one. Content is trimmed, at most 500 characters, without NUL; at most
one item is in progress (also a unique index); at most 50 items.
"""

from __future__ import annotations

from typing import Any

from pidesktop.bus import topics
from pidesktop.bus.errors import ErrorCode, HostError
from pidesktop.formats.index.sql_rows import one_row
from pidesktop.host.commands import command
from pidesktop.host.context import HostContext
from pidesktop.host.params import Params, invalid
from pidesktop.host.sessions import commands as sessions

STATUSES = ("pending", "in_progress", "completed", "cancelled")
PRIORITIES = ("high", "medium", "low")
MAX_ITEMS = 50
CONTENT_MAX = 500


def read(ctx: HostContext, session_id: str) -> dict[str, Any]:
    row = one_row(ctx.conn.execute("SELECT todo_revision, todo_updated_at FROM sessions WHERE id = ?", (session_id,)))
    items = [
        {"content": content, "status": status, "priority": priority}
        for content, status, priority in ctx.conn.execute(
            "SELECT content, status, priority FROM session_todo WHERE session_id = ? ORDER BY position", (session_id,)
        )
    ]
    return {"sessionId": session_id, "revision": row[0], "updatedAt": row[1], "items": items}


@command("todo.get", emits=[])
def todo_get(ctx: HostContext, p: Params) -> dict[str, Any]:
    session_id = sessions.session_id_param(p)
    sessions.require(ctx.conn, session_id)
    return {"todo": read(ctx, session_id)}


@command("todo.set", emits=[topics.SESSION_CHANGED])
def todo_set(ctx: HostContext, p: Params) -> dict[str, Any]:
    """Replace the whole checklist; the revision grows by one."""
    session_id = sessions.session_id_param(p)
    raw = p.array("items")
    expected = p.integer("expectedRevision", required=False, minimum=0)
    items = [_item(index, value) for index, value in enumerate(raw)]
    if len(items) > MAX_ITEMS:
        raise invalid(f"todo.set: a checklist holds at most {MAX_ITEMS} items; this one has {len(items)}.", "items")
    active = [index for index, item in enumerate(items) if item["status"] == "in_progress"]
    if len(active) > 1:
        raise invalid(
            f"todo.set: only one item can be in progress; items {active[0]} and {active[1]} both are.",
            f"items[{active[1]}].status",
        )
    conn = ctx.conn
    sessions.require(conn, session_id)
    now = ctx.clock()
    with conn:
        revision = one_row(conn.execute("SELECT todo_revision FROM sessions WHERE id = ?", (session_id,)))[0]
        if expected is not None and expected != revision:
            raise HostError(
                ErrorCode.CONFLICT,
                f"The checklist changed meanwhile (revision {revision}, not {expected}); read it again.",
                {"revision": revision},
            )
        conn.execute("DELETE FROM session_todo WHERE session_id = ?", (session_id,))
        for position, item in enumerate(items):
            conn.execute(
                "INSERT INTO session_todo(session_id, position, content, status, priority, updated_at) "
                "VALUES (?, ?, ?, ?, ?, ?)",
                (session_id, position, item["content"], item["status"], item["priority"], now),
            )
        conn.execute(
            "UPDATE sessions SET todo_revision = todo_revision + 1, todo_updated_at = ? WHERE id = ?", (now, session_id)
        )
    todo = read(ctx, session_id)
    ctx.emit(topics.SESSION_CHANGED, {"sessionId": session_id, "reason": "todo", "todo": todo})
    return {"todo": todo}


def _item(index: int, value: object) -> dict[str, Any]:
    field = f"items[{index}]"
    if not isinstance(value, dict):
        raise invalid(f"todo.set: {field} must be an object with content and status.", field)
    content = value.get("content")
    if not isinstance(content, str) or not content.strip():
        raise invalid(f"todo.set: {field}.content must be a non-empty string.", f"{field}.content")
    content = content.strip()
    if "\x00" in content:
        raise invalid(f"todo.set: {field}.content must not contain a NUL character.", f"{field}.content")
    if len(content) > CONTENT_MAX:
        raise invalid(f"todo.set: {field}.content is longer than {CONTENT_MAX} characters.", f"{field}.content")
    status = value.get("status", "pending")
    if status not in STATUSES:
        raise invalid(
            f"todo.set: {field}.status must be one of {', '.join(STATUSES)}, not {status!r}.", f"{field}.status"
        )
    priority = value.get("priority") or "medium"
    if priority not in PRIORITIES:
        raise invalid(
            f"todo.set: {field}.priority must be one of {', '.join(PRIORITIES)}, not {priority!r}.", f"{field}.priority"
        )
    return {"content": content, "status": status, "priority": priority}
