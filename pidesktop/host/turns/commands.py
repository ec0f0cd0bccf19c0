"""Turns: one row per agent run (spec 004, sections 4.6 and 5), usage, and the in-flight checkpoint.

``session.startTurn`` opens a ``running`` turn once the user line is durable;
``session.endTurn`` settles it and, for a completed or failed turn the person
did not watch, inserts its one inbox row in the same transaction.
"""

from __future__ import annotations

import uuid
from typing import Any

import orjson

from pidesktop.bus import topics
from pidesktop.bus.errors import ErrorCode, HostError
from pidesktop.host import state_snapshot as snapshot
from pidesktop.host.commands import command
from pidesktop.host.context import HostContext
from pidesktop.host.inbox import notifications
from pidesktop.host.params import Params, invalid
from pidesktop.host.sessions import commands as sessions
from pidesktop.host.sessions import inflight, message_index, session_rows
from pidesktop.host.sessions.messages import MESSAGE_ID_MAX as ID_MAX
from pidesktop.host.sessions.messages import message_param
from pidesktop.host.sessions.turn_rows import load
from pidesktop.host.settings import model_cache

TERMINAL = ("completed", "aborted", "error")


@command("session.startTurn", emits=[topics.SESSION_CHANGED, topics.TURN_CHANGED])
def start_turn(ctx: HostContext, p: Params) -> dict[str, Any]:
    session_id = sessions.session_id_param(p)
    turn_id = p.text("turnId", required=False, nonempty=True, max_chars=ID_MAX) or str(uuid.uuid4())
    provider_id = p.text("providerId", required=False)
    model_id = p.text("modelId", required=False)
    sessions.require(ctx.conn, session_id)
    with ctx.conn:
        existing = ctx.conn.execute("SELECT session_id, status FROM turns WHERE id = ?", (turn_id,)).fetchone()
        if existing is not None:
            if existing[0] != session_id:
                raise HostError(ErrorCode.CONFLICT, f"Turn {turn_id} belongs to another session.")
            return {"turn": load(ctx.conn, session_id, turn_id)}  # a retried start
        running = ctx.conn.execute(
            "SELECT id FROM turns WHERE session_id = ? AND status = 'running'", (session_id,)
        ).fetchone()
        if running is not None:
            raise HostError(
                ErrorCode.CONFLICT, f"Session {session_id} already has a running turn ({running[0]}); end it first."
            )
        started = ctx.clock()
        row = {"id": turn_id, "session_id": session_id, "status": "running", "provider_id": provider_id}
        session_rows.record(ctx, session_id, "turns", {**row, "model_id": model_id, "started_at": started})
        ctx.conn.execute(
            "INSERT INTO turns(id, session_id, status, provider_id, model_id, started_at) "
            "VALUES (?, ?, 'running', ?, ?, ?)",
            (turn_id, session_id, provider_id, model_id, started),
        )
        if provider_id and model_id:
            model_cache.remember_use(ctx.conn, provider_id, model_id, ctx.clock())
    ctx.turn_clocks[turn_id] = (started, ctx.monotonic())
    turn = load(ctx.conn, session_id, turn_id)
    ctx.emit(topics.TURN_CHANGED, {"sessionId": session_id, "turn": turn})
    ctx.emit(
        topics.SESSION_CHANGED,
        {"sessionId": session_id, "reason": "turn", "session": sessions.summary(ctx.conn, session_id)},
    )
    return {"turn": {"id": turn["id"], "status": turn["status"], "startedAt": turn["startedAt"]}}


@command("session.endTurn", emits=[topics.NOTIFICATION_CREATED, topics.SESSION_CHANGED, topics.TURN_CHANGED])
def end_turn(ctx: HostContext, p: Params) -> dict[str, Any]:
    session_id = sessions.session_id_param(p)
    turn_id = p.text("turnId", nonempty=True, max_chars=ID_MAX)
    status = p.choice("status", TERMINAL, required=True)
    error_code = p.text("errorCode", required=False)
    notify = p.boolean("createNotification", required=True)
    usage = p.obj("usage", required=False)
    result = settle(ctx, session_id, turn_id, status, error_code, notify, usage)
    return result


def settle(
    ctx: HostContext,
    session_id: str,
    turn_id: str,
    status: str,
    error_code: str | None,
    notify: bool,
    usage: dict[str, Any] | None,
) -> dict[str, Any]:
    """End a turn once; a repeated terminal update changes nothing and never duplicates the inbox row."""
    conn = ctx.conn
    now = ctx.clock()
    ending = load(conn, session_id, turn_id)
    ended = _end_time(ctx, turn_id, ending["startedAt"], now)
    if ending["status"] == "running":  # file first: the row as it will stand, in the chat's transcript
        _keep_ended(ctx, ending, status, error_code, _merge_usage(ending["usage"], usage), ended)
    with conn:
        turn = load(conn, session_id, turn_id)
        changed = turn["status"] == "running"
        if changed:
            merged = _merge_usage(turn["usage"], usage)
            conn.execute(
                "UPDATE turns SET status = ?, ended_at = ?, error_code = ?, input_tokens = ?, output_tokens = ?, "
                "usage_json = ? WHERE id = ?",
                (
                    status,
                    ended,
                    error_code if status != "completed" else None,
                    _total(merged, "inputTokens"),
                    _total(merged, "outputTokens"),
                    orjson.dumps(merged).decode() if merged else None,
                    turn_id,
                ),
            )
            turn = load(conn, session_id, turn_id)
            ctx.turn_clocks.pop(turn_id, None)
        notification = None
        if notify and changed:  # once, when the turn ends (a superseded row never comes back on a repeat)
            notification = notifications.insert_for_turn(
                conn, session_id, turn_id, turn["status"], turn["errorCode"], now
            )
    if turn["status"] in ("completed", "error"):
        _drop_indexed_checkpoint(ctx, session_id)
    if changed:
        ctx.emit(topics.TURN_CHANGED, {"sessionId": session_id, "turn": turn})
        ctx.emit(
            topics.SESSION_CHANGED,
            {"sessionId": session_id, "reason": "turn", "session": sessions.summary(conn, session_id)},
        )
    if notification is not None:
        snapshot.write(ctx)  # the inbox lives in the database alone: kept beside it (snapshot.py)
        replaces = notification.pop("replaces", [])  # the chat's older unread rows, gone in the same transaction
        ctx.emit(
            topics.NOTIFICATION_CREATED,
            {"notification": notification, "unreadCount": notifications.unread_count(conn)}
            | ({"replaces": replaces} if replaces else {}),
        )
    return {"turn": turn} | ({"notification": notification} if notification else {})


def _keep_ended(
    ctx: HostContext,
    turn: dict[str, Any],
    status: str,
    error_code: str | None,
    usage: dict[str, Any] | None,
    ended: int,
) -> None:
    """The ``session_row`` line of a turn about to end with these values (the same ones ``settle`` stores)."""
    session_rows.record(
        ctx,
        turn["sessionId"],
        "turns",
        {
            "id": turn["id"],
            "session_id": turn["sessionId"],
            "status": status,
            "provider_id": turn["providerId"],
            "model_id": turn["modelId"],
            "error_code": error_code if status != "completed" else None,
            "input_tokens": _total(usage, "inputTokens"),
            "output_tokens": _total(usage, "outputTokens"),
            "usage_json": orjson.dumps(usage).decode() if usage else None,
            "started_at": turn["startedAt"],
            "ended_at": ended,
        },
    )


def _end_time(ctx: HostContext, turn_id: str, started_at: int, now: int) -> int:
    """When a turn ends: its start plus the time that really passed (a monotonic clock), so a wall clock stepped
    back or forward during the turn changes neither its order nor its length. A turn this host did not start
    (before a restart) ends at the wall clock's time, never before it started."""
    started = ctx.turn_clocks.get(turn_id)
    if started is None or started[0] != started_at:
        return max(now, started_at)
    return started_at + max(0, round((ctx.monotonic() - started[1]) * 1000))


def _drop_indexed_checkpoint(ctx: HostContext, session_id: str) -> None:
    """D327: a completed/error end removes the checkpoint only once its message is indexed."""
    current = inflight.read(ctx, session_id)
    if current is None:
        return
    if ctx.conn.execute(
        "SELECT 1 FROM messages WHERE id = ? AND session_id = ?", (current["message"]["id"], session_id)
    ).fetchone():
        inflight.remove(ctx, session_id)


# -- usage ------------------------------------------------------------------------------
def _merge_usage(stored: dict[str, Any] | None, update: dict[str, Any] | None) -> dict[str, Any] | None:
    if not update:
        return stored
    merged = dict(stored or {})
    merged.update({k: v for k, v in update.items() if k != "operations"})
    return merged


def _total(usage: dict[str, Any] | None, key: str) -> int:
    """Turn totals: the identified operations' sum when there are any, else the plain field."""
    if not usage:
        return 0
    operations = usage.get("operations")
    if isinstance(operations, dict) and operations:
        return sum(
            op.get(key) or 0 for op in operations.values() if isinstance(op, dict) and isinstance(op.get(key) or 0, int)
        )
    value = usage.get(key)
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


@command("session.recordUsage", emits=[])
def record_usage(ctx: HostContext, p: Params) -> dict[str, Any]:
    """Merge identified usage records into the turn's ``usage_json``; replays change nothing.

    ``costUsd: null`` (unknown price) is kept distinct from ``0``. The turn's
    status is never changed: late usage does not revive a finished turn.
    """
    session_id = sessions.session_id_param(p)
    turn_id = p.text("turnId", nonempty=True, max_chars=ID_MAX)
    records = p.array("records")
    for number, record in enumerate(records):
        if not isinstance(record, dict) or not isinstance(record.get("id"), str) or not record["id"]:
            raise invalid(
                f"session.recordUsage: 'records[{number}].id' must be a non-empty string.", f"records[{number}].id"
            )
        for key in ("inputTokens", "outputTokens"):
            value = record.get(key)
            if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < 0):
                raise invalid(
                    f"session.recordUsage: 'records[{number}].{key}' must be a non-negative integer.",
                    f"records[{number}].{key}",
                )
    with ctx.conn:
        turn = load(ctx.conn, session_id, turn_id)
        usage = dict(turn["usage"] or {})
        operations = dict(usage.get("operations") or {})
        added = 0
        for record in records:
            if record["id"] not in operations:
                operations[record["id"]] = record
                added += 1
        usage["operations"] = operations
        ctx.conn.execute(
            "UPDATE turns SET usage_json = ?, input_tokens = ?, output_tokens = ? WHERE id = ?",
            (orjson.dumps(usage).decode(), _total(usage, "inputTokens"), _total(usage, "outputTokens"), turn_id),
        )
        turn = load(ctx.conn, session_id, turn_id)
    if added and turn["status"] != "running":  # late usage of an ended turn: its line carries it too
        session_rows.record_current(ctx, session_id, "turns", turn_id)
    return {"turn": turn, "added": added}


# -- in-flight checkpoints ---------------------------------------------------------------
@command("session.saveInflightMessage", emits=[])
def save_inflight(ctx: HostContext, p: Params) -> dict[str, Any]:
    session_id = sessions.session_id_param(p)
    turn_id = p.text("turnId", required=False, max_chars=ID_MAX)
    message = message_param(p)
    sessions.require(ctx.conn, session_id)
    if _is_empty(message):
        return {"saved": False}
    if ctx.conn.execute(
        "SELECT 1 FROM messages WHERE id = ? AND session_id = ?", (message["id"], session_id)
    ).fetchone():
        return {"saved": False}  # its final row already landed: a late checkpoint is dropped
    message.setdefault("createdAt", message_index.rfc3339(ctx.clock()))
    inflight.write(ctx, session_id, turn_id, message, message_index.rfc3339(ctx.clock()))
    return {"saved": True}


def _is_empty(message: dict[str, Any]) -> bool:
    for block in message.get("blocks", []):
        if block.get("type") in ("text", "thinking"):
            if isinstance(block.get("text"), str) and block["text"]:
                return False
        else:
            return False
    return True
