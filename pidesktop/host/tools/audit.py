"""``audit_log`` (spec 004, 4.13) and ``artifacts`` (4.10) rows, and the commands that list them.

``record`` and ``touch_artifact`` expect to run inside ``with conn:``.
Writes into the chat's scratch folder are not artifacts: they list the
workspace's deliverables only.

A tool call's ``tool_execute`` or ``tool_denied`` row is written in the same
transaction as the call's result (spec 004, 4.13): the tool commands do not
write it but answer with a ``pending`` record, which the runtime puts in the
call's ``tool_call`` block (``audit``); the transaction that indexes the
message holding that block writes it (``record_blocks``). An append that is
refused writes none; a line whose index commit was lost gets its row when the
line is indexed later, never twice (only a message without an index row gets
its rows).
"""

from __future__ import annotations

from typing import Any

import orjson

from pidesktop.host.commands import command
from pidesktop.host.context import HostContext
from pidesktop.host.params import Params
from pidesktop.host.sessions import commands as sessions

LIST_DEFAULT, LIST_MAX = 100, 1000


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
