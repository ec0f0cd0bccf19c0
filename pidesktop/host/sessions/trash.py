"""The trash of every chat: list, restore, purge, empty (spec 004, sections 4.5 and 11 item 20).

``session.delete`` of a chat (the app's own or an imported one) only sets
``deleted_at``: the chat leaves the list and search, its transcript (and an
import's origin row) stay. From here it comes back (``session.restore``) or goes for
good (``session.purge``, ``session.emptyTrash``): the row (its origin row
and index rows cascade), a deletion tombstone, then its files, exactly as a
plain ``session.delete`` removes a chat of the app's own.
"""

from __future__ import annotations

from typing import Any

from pidesktop.bus import topics
from pidesktop.bus.errors import ErrorCode, HostError
from pidesktop.formats.index.sql_rows import all_rows, one_row
from pidesktop.host.commands import command
from pidesktop.host.context import HostContext
from pidesktop.host.params import Params
from pidesktop.host.sessions import commands as sessions

LIST_LIMIT_MAX = 500


@command("session.listTrash", emits=[])
def list_trash(ctx: HostContext, p: Params) -> dict[str, Any]:
    limit = p.integer("limit", required=False, default=200, minimum=1, maximum=LIST_LIMIT_MAX)
    rows = all_rows(
        ctx.conn.execute(
            "SELECT id FROM sessions WHERE deleted_at IS NOT NULL ORDER BY deleted_at DESC, id DESC LIMIT ?",
            (limit + 1,),
        )
    )
    (total,) = one_row(ctx.conn.execute("SELECT count(*) FROM sessions WHERE deleted_at IS NOT NULL"))
    return {"sessions": [sessions.summary(ctx.conn, row[0]) for row in rows[:limit]], "total": total}


@command("session.restore", emits=[topics.SESSION_CHANGED])
def restore(ctx: HostContext, p: Params) -> dict[str, Any]:
    session_id = sessions.session_id_param(p)
    with ctx.conn:
        row = ctx.conn.execute(
            "UPDATE sessions SET deleted_at = NULL WHERE id = ? RETURNING id", (session_id,)
        ).fetchone()
    if row is None:
        raise HostError(ErrorCode.NOT_FOUND, f"There is no session with id {session_id!r}.")
    session = sessions.summary(ctx.conn, session_id)
    ctx.emit(topics.SESSION_CHANGED, {"sessionId": session_id, "reason": "restored", "session": session})
    return {"session": session}


@command("session.purge", emits=[topics.SESSION_CHANGED])
def purge(ctx: HostContext, p: Params) -> dict[str, Any]:
    session_id = sessions.session_id_param(p)
    if not purge_one(ctx, session_id):
        raise HostError(ErrorCode.NOT_FOUND, f"There is no session with id {session_id!r}.")
    return {"purged": True}


@command("session.emptyTrash", emits=[topics.SESSION_CHANGED])
def empty_trash(ctx: HostContext, p: Params) -> dict[str, Any]:
    ids = [row[0] for row in ctx.conn.execute("SELECT id FROM sessions WHERE deleted_at IS NOT NULL")]
    purged = sum(1 for session_id in ids if purge_one(ctx, session_id))
    return {"purged": purged}


def purge_one(ctx: HostContext, session_id: str) -> bool:
    """Remove a chat for good, like ``session.delete`` of the app's own chats; False when there is none."""
    return sessions.delete_for_good(ctx, session_id, purged=True)
