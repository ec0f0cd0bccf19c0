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

from pathlib import Path
from typing import Any

import apsw
import orjson

from pidesktop.host.commands import command
from pidesktop.host.context import HostContext
from pidesktop.host.params import Params
from pidesktop.host.sessions import commands as sessions

TOOL_EXECUTE, TOOL_DENIED, REVIEW_REVERT = "tool_execute", "tool_denied", "review_revert"
CALL_KINDS = (TOOL_EXECUTE, TOOL_DENIED)  # the rows a tool call's block may carry
LIST_DEFAULT, LIST_MAX = 100, 1000
PAYLOAD_MAX = 64 * 1024  # a block's audit payload, as JSON: the commands' own payloads are far smaller


def record(conn: apsw.Connection, ts: int, kind: str, session_id: str | None, payload: dict[str, Any]) -> int:
    conn.execute(
        "INSERT INTO audit_log(ts, kind, session_id, payload_json) VALUES (?, ?, ?, ?)",
        (ts, kind, session_id, orjson.dumps(payload, default=str).decode()),
    )
    return int(conn.last_insert_rowid())


def pending(kind: str, ts: int, payload: dict[str, Any]) -> dict[str, Any]:
    """A call's audit row, written later with the call's result (``record_blocks``)."""
    return {"kind": kind, "ts": ts, "payload": payload}


def block_problem(block: dict[str, Any]) -> str | None:
    """Why a ``tool_call`` block's ``audit`` cannot be written, or None when it can (or there is none)."""
    entry = block.get("audit")
    if entry is None:
        return None
    if not isinstance(entry, dict) or entry.get("kind") not in CALL_KINDS:
        return f"'audit.kind' must be one of {', '.join(CALL_KINDS)}"
    if not isinstance(entry.get("payload"), dict):
        return "'audit.payload' must be an object"
    ts = entry.get("ts")
    if isinstance(ts, bool) or not isinstance(ts, int) or ts < 0:
        return "'audit.ts' must be a time in milliseconds"
    if len(orjson.dumps(entry["payload"], default=str)) > PAYLOAD_MAX:
        return f"'audit.payload' must be at most {PAYLOAD_MAX} bytes as JSON"
    return None


def record_blocks(
    conn: apsw.Connection, session_id: str, message: dict[str, Any], stored: dict[str, Any] | None = None
) -> int:
    """The audit rows the ``tool_call`` blocks of a newly indexed message carry; how many were written.

    Runs inside the transaction that inserts the message's index row (or,
    with ``stored``, replaces that message's content: only the blocks whose
    record ``stored`` did not carry yet). A block whose record is malformed
    (a line edited by hand) is skipped: the message itself still counts.
    """
    written = 0
    done = {
        block.get("callId")
        for block in (stored or {}).get("blocks") or []
        if isinstance(block, dict) and block.get("type") == "tool_call" and "audit" in block
    }
    for block in message.get("blocks") or []:
        if not isinstance(block, dict) or block.get("type") != "tool_call" or "audit" not in block:
            continue
        if block_problem(block) is not None or block.get("callId") in done:
            continue
        entry = block["audit"]
        payload = {**entry["payload"], "callId": block.get("callId") or entry["payload"].get("callId")}
        record(conn, entry["ts"], entry["kind"], session_id, payload)
        written += 1
    return written


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
