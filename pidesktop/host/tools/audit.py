"""``audit_log`` (spec 004, 4.13) and ``artifacts`` (4.10) rows, and the commands that list them.

Rows are written by the tool commands inside their own transaction
(``record`` and ``touch_artifact`` expect to run inside ``with conn:``).
Writes into the chat's scratch folder are not artifacts: they list the
workspace's deliverables only.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import apsw
import orjson

from pidesktop.host import sessions
from pidesktop.host.commands import command
from pidesktop.host.context import HostContext
from pidesktop.host.params import Params

TOOL_EXECUTE, TOOL_DENIED, REVIEW_REVERT = "tool_execute", "tool_denied", "review_revert"
LIST_DEFAULT, LIST_MAX = 100, 1000


def record(conn: apsw.Connection, ts: int, kind: str, session_id: str | None, payload: dict[str, Any]) -> int:
    conn.execute(
        "INSERT INTO audit_log(ts, kind, session_id, payload_json) VALUES (?, ?, ?, ?)",
        (ts, kind, session_id, orjson.dumps(payload, default=str).decode()),
    )
    return int(conn.last_insert_rowid())


def touch_artifact(conn: apsw.Connection, session_id: str, path: Path, op: str, turn_id: str | None, ts: int) -> None:
    conn.execute(
        "INSERT INTO artifacts(session_id, path, op, turn_id, updated_at) VALUES (?, ?, ?, ?, ?) "
        "ON CONFLICT(session_id, path) DO UPDATE SET op = excluded.op, turn_id = excluded.turn_id, "
        "updated_at = excluded.updated_at",
        (session_id, str(path), op, turn_id, ts),
    )


@command("audit.list", emits=[])
def audit_list(ctx: HostContext, p: Params) -> dict[str, Any]:
    """Audit rows, newest first; optionally one chat's, one kind's."""
    session_id = sessions.session_id_param(p) if p.has("sessionId") else None
    kind = p.text("kind", required=False, nonempty=True) if p.has("kind") else None
    limit = p.integer("limit", required=False, minimum=1, maximum=LIST_MAX, default=LIST_DEFAULT)
    where, args = [], []
    if session_id is not None:
        where.append("session_id = ?")
        args.append(session_id)
    if kind is not None:
        where.append("kind = ?")
        args.append(kind)
    sql = "SELECT id, ts, kind, session_id, payload_json FROM audit_log"
    if where:
        sql += " WHERE " + " AND ".join(where)
    rows = ctx.conn.execute(sql + " ORDER BY ts DESC, id DESC LIMIT ?", (*args, limit)).fetchall()
    return {
        "entries": [
            {"id": row_id, "ts": ts, "kind": row_kind, "sessionId": sid, "payload": orjson.loads(str(payload))}
            for row_id, ts, row_kind, sid, payload in rows
        ]
    }


@command("artifacts.list", emits=[])
def artifacts_list(ctx: HostContext, p: Params) -> dict[str, Any]:
    """The files a chat's tools wrote or edited in its workspace, newest change first."""
    session_id = sessions.session_id_param(p)
    sessions.require(ctx.conn, session_id)
    rows = ctx.conn.execute(
        "SELECT path, op, updated_at FROM artifacts WHERE session_id = ? ORDER BY updated_at DESC, path",
        (session_id,),
    ).fetchall()
    return {"artifacts": [{"path": path, "op": op, "updatedAt": updated} for path, op, updated in rows]}
