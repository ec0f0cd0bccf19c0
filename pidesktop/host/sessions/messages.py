"""Transcript commands: ``session.appendMessage``, ``session.get``, ``session.appendCompaction``.

Writes follow spec 004 section 5: the transcript line first (fsync'd), the
index transaction second. A crash between the two costs one index row, never
content; the next rewrite or replay heals it.
"""

from __future__ import annotations

import logging
from typing import Any

import orjson

from pidesktop.bus import topics
from pidesktop.bus.errors import ErrorCode, HostError
from pidesktop.formats.index.sql_rows import all_rows, one_row
from pidesktop.host.commands import command
from pidesktop.host.context import HostContext
from pidesktop.host.json_values import object_at
from pidesktop.host.native import reading as native_reading
from pidesktop.host.params import Params, invalid
from pidesktop.host.sessions import (
    audit_rows,
    delegation,
    index_sync,
    inflight,
    message_index,
    queue,
    review_files,
    revisions,
)
from pidesktop.host.sessions import commands as sessions
from pidesktop.host.transcripts import MessageNotFound, Transcript
from pidesktop.host.transcripts.window_params import cap_block, window_request
from pidesktop.host.transcripts.windows import Window

log = logging.getLogger("pidesktop.host.sessions.messages")

MESSAGE_ID_MAX = 256
# Keys of the UI projection that never belong in a stored record.
_PROJECTION_KEYS = ("type", "seq", "index")


# -- params ------------------------------------------------------------------------
def message_param(p: Params, field: str = "message") -> dict[str, Any]:
    """A wire ``Message`` as a transcript record (without its ``type``), or INVALID_PARAMS."""
    raw = p.obj(field)
    where = f"{p.method}: '{field}"
    message_id = raw.get("id")
    if not isinstance(message_id, str) or not message_id.strip() or len(message_id) > MESSAGE_ID_MAX:
        raise invalid(f"{where}.id' must be a non-empty string of at most {MESSAGE_ID_MAX} characters.", f"{field}.id")
    if raw.get("role") not in message_index.ROLES:
        raise invalid(
            f"{where}.role' must be one of {', '.join(message_index.ROLES)}; got {raw.get('role')!r}.", f"{field}.role"
        )
    blocks = raw.get("blocks")
    if not isinstance(blocks, list):
        raise invalid(f"{where}.blocks' must be an array.", f"{field}.blocks")
    for number, block in enumerate(blocks):
        if not isinstance(block, dict) or not isinstance(block.get("type"), str):
            raise invalid(
                f"{where}.blocks[{number}]' must be an object with a string 'type'.", f"{field}.blocks[{number}]"
            )
        if block["type"] == "tool_call" and (problem := audit_rows.block_problem(block)) is not None:
            raise invalid(f"{where}.blocks[{number}]': {problem}.", f"{field}.blocks[{number}].audit")
    if "createdAt" in raw and not isinstance(raw["createdAt"], str):
        raise invalid(f"{where}.createdAt' must be an RFC3339 string.", f"{field}.createdAt")
    if raw.get("meta") is not None and not isinstance(raw["meta"], dict):
        raise invalid(f"{where}.meta' must be an object.", f"{field}.meta")
    record = {"id": message_id, "role": raw["role"]}
    record.update((k, v) for k, v in raw.items() if k not in _PROJECTION_KEYS and k not in record)
    return record


def is_streaming(message: dict[str, Any]) -> bool:
    meta = message.get("meta")
    return isinstance(meta, dict) and meta.get("status") == "streaming"


# -- session.appendMessage ------------------------------------------------------------
@command(
    "session.appendMessage",
    emits=[topics.QUEUE_CHANGED, topics.SESSION_CHANGED, topics.INDEX_PROGRESS, topics.REVIEW_CHANGED],
)
def append_message(ctx: HostContext, p: Params) -> dict[str, Any]:
    session_id = sessions.session_id_param(p)
    message = message_param(p)
    turn_id = p.text("turnId", required=False, max_chars=MESSAGE_ID_MAX)
    queue_entry_id = p.text("queueEntryId", required=False, nonempty=True)
    result = append(ctx, session_id, message, turn_id, queue_entry_id)
    ctx.emit(
        topics.SESSION_CHANGED,
        {
            "sessionId": session_id,
            "reason": "message",
            "messageId": result["message"]["id"],
            "session": sessions.summary(ctx.conn, session_id),
        },
    )
    if result.pop("dequeued", False):
        queue.changed(ctx, session_id)
    if result.pop("artifactsChanged", False):  # Files changed lists what this round's results stored
        ctx.emit(topics.REVIEW_CHANGED, {"sessionId": session_id})
    return result


def append(
    ctx: HostContext, session_id: str, message: dict[str, Any], turn_id: str | None, queue_entry_id: str | None = None
) -> dict[str, Any]:
    """Store one message durably and index it; idempotent for a replayed id.

    ``queue_entry_id`` names the queued prompt this user line starts: the entry
    leaves the queue in the same transaction as the line's index row (or, for a
    replay, once the line is known to be stored). ``dequeued`` in the result
    says whether it did; ``artifactsChanged``, whether its tool results upserted
    ``artifacts`` rows.
    """
    conn = ctx.conn
    now = ctx.clock()
    sessions.ensure_row(ctx, session_id, now)
    message.setdefault("createdAt", message_index.rfc3339(now))
    original_id = message["id"]
    indexed = conn.execute("SELECT session_id, seq FROM messages WHERE id = ?", (original_id,)).fetchone()
    if indexed is not None and indexed[0] != session_id:
        message["id"] = f"{session_id}:{original_id}"  # D444: remap before any write
        indexed = conn.execute("SELECT session_id, seq FROM messages WHERE id = ?", (message["id"],)).fetchone()
    remapped = {"remappedId": message["id"]} if message["id"] != original_id else {}

    dequeued = False
    if indexed is not None:
        touched = _settle_replay(ctx, session_id, message)
        inflight.remove_if_message(ctx, session_id, message["id"])
        if queue_entry_id is not None:
            with conn:
                dequeued = queue.consume(conn, session_id, queue_entry_id)
        reply = {"message": {"id": message["id"], "seq": indexed[1]}, **remapped, "dequeued": dequeued}
        return {**reply, "artifactsChanged": touched > 0}

    if ctx.transcripts.find(session_id, message["id"]) is not None:
        # An earlier append wrote the line but its index commit never landed:
        # update the line(s) in place and rebuild the index from the file.
        seq, touched = _replace_lines_and_reindex(ctx, session_id, message, turn_id, now)
        if queue_entry_id is not None:
            with conn:
                dequeued = queue.consume(conn, session_id, queue_entry_id)
    else:
        message = revisions.stamp_edited_prompt(ctx, session_id, message)
        index_sync.catch_up(ctx, session_id, now)  # lines an earlier failed commit left unindexed come first
        review_files.make_durable(ctx, session_id, message)  # a snapshot the line names is on disk before the line
        appended = ctx.transcripts.append_line(session_id, {"type": "message", **message})
        try:
            with conn:
                seq = message_index.insert(
                    conn, session_id, message, message_index.valid_turn(conn, session_id, turn_id), now
                )
                # a tool call's audit row (and a changed file's artifacts row) goes with its result
                touched = audit_rows.record_blocks(conn, session_id, message).artifacts
                index_sync.record_length(conn, session_id, appended.end, now)
                if message["role"] == "user":
                    sessions.apply_fallback_title(conn, session_id, message)
                if queue_entry_id is not None:
                    dequeued = queue.consume(conn, session_id, queue_entry_id)
        except Exception:
            _take_back(ctx, session_id, appended.start)  # an error reply means "not stored"
            raise
    inflight.remove_if_message(ctx, session_id, message["id"])
    reply = {"message": {"id": message["id"], "seq": seq}, **remapped, "dequeued": dequeued}
    return {**reply, "artifactsChanged": touched > 0}


def _take_back(ctx: HostContext, session_id: str, start: int) -> None:
    """Remove the line an append wrote when its index commit failed (a full disk, most often)."""
    try:
        ctx.transcripts.take_back(session_id, start)
    except OSError:  # the line stays; the next append or start indexes it (index_sync)
        log.exception("could not take back the line of a failed append to session %s", session_id)


def _settle_replay(ctx: HostContext, session_id: str, message: dict[str, Any]) -> int:
    """A replay of an indexed id is a no-op, except a terminal assistant replacing its streaming row, and a
    terminal snapshot of a running delegation replacing only that tool result (``delegation.settle``).
    How many ``artifacts`` rows it upserted."""
    if is_streaming(message):
        return 0
    found = ctx.transcripts.find(session_id, message["id"])
    if found is None:
        return 0
    if not is_streaming(found[1]):
        settled = delegation.settle(_strip_type(found[1]), message)
        if settled is None:
            return 0
        message = settled
    elif message["role"] != "assistant":
        return 0
    transcript = ctx.transcripts.read_all(session_id)
    records = _records_with(transcript, message)
    review_files.make_durable(ctx, session_id, message)
    ctx.transcripts.rewrite(session_id, records)
    with ctx.conn:
        message_index.update_content(ctx.conn, message["id"], message)
        # results the stored row lacked
        touched = audit_rows.record_blocks(ctx.conn, session_id, message, stored=found[1]).artifacts
    return touched


def _replace_lines_and_reindex(
    ctx: HostContext, session_id: str, message: dict[str, Any], turn_id: str | None, now: int
) -> tuple[int, int]:
    """The message's seq, and how many ``artifacts`` rows its tool results upserted."""
    transcript = ctx.transcripts.read_all(session_id)
    records = _records_with(transcript, message)
    review_files.make_durable(ctx, session_id, message)
    ctx.transcripts.rewrite(session_id, records)
    messages = [r for r in records if r.get("type") == "message"]
    with ctx.conn:
        message_index.rebuild(ctx.conn, session_id, [_strip_type(m) for m in messages], now)
        # its index row never landed, nor did its audit rows
        touched = audit_rows.record_blocks(ctx.conn, session_id, message).artifacts
        link = message_index.valid_turn(ctx.conn, session_id, turn_id)
        if link is not None:
            ctx.conn.execute("UPDATE messages SET turn_id = ? WHERE id = ?", (link, message["id"]))
        ctx.conn.execute("UPDATE sessions SET updated_at = ? WHERE id = ?", (now, session_id))
        seq: int = one_row(ctx.conn.execute("SELECT seq FROM messages WHERE id = ?", (message["id"],)))[0]
    return seq, touched


def _records_with(transcript: Transcript, message: dict[str, Any]) -> list[dict[str, Any]]:
    """The transcript's records in file order with every line of ``message``'s id replaced."""
    records: list[dict[str, Any]] = []
    for _position, record in transcript.messages:
        records.append({"type": "message", **message} if record["id"] == message["id"] else record)
    return records + [c for c in transcript.compactions]


def _strip_type(record: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in record.items() if k != "type"}


# -- session.get ---------------------------------------------------------------------
@command("session.get", emits=[])
def session_get(ctx: HostContext, p: Params) -> dict[str, Any]:
    session_id = sessions.session_id_param(p)
    if native_reading.is_native(session_id):
        return native_reading.session_get(ctx, p)
    request, content_limit = window_request(p)
    around = request.around
    summary = sessions.summary(ctx.conn, session_id)
    try:
        window = ctx.transcripts.window(
            session_id, before=request.before, limit=request.limit, around=around, start=request.start
        )
    except MessageNotFound:
        raise HostError(ErrorCode.NOT_FOUND, f"Session {session_id} has no message {around!r}.") from None
    seqs = _seqs(ctx, session_id, [record["id"] for _, record in window.messages])
    messages = [
        project(record, position, seqs.get(record["id"]), content_limit, whole_text=_is_target(record, around))
        for position, record in window.messages
    ]
    result = {
        "session": summary,
        "messages": messages,
        "messageStart": window.start,
        "messageEnd": window.end,
        "hasMoreBefore": window.has_more_before,
        "hasMoreAfter": window.has_more_after,
        "totalMessages": window.total,
        "compactions": live_compactions(ctx, session_id, window.compactions),
    }
    target = next((record for _, record in window.messages if record.get("id") == around), None)
    call_id = object_at(target, "meta").get("parentToolCallId") if target is not None else None
    if isinstance(call_id, str) and call_id:
        owner = owning_task(ctx, session_id, call_id, window)
        if owner is not None:
            position, record = owner
            seq = _seqs(ctx, session_id, [record["id"]]).get(record["id"])
            result["navigationParent"] = project(record, position, seq, content_limit)
    return result


TASK_SEARCH_PAGE = 200  # messages read at a time while looking back for a nested hit's Task call


def owning_task(ctx: HostContext, session_id: str, call_id: str, window: Window) -> tuple[int, dict[str, Any]] | None:
    """The message holding the tool call ``call_id`` (a nested row's Task), at or before the window (W.24).

    Read-only and derived: the page is looked at first, then earlier pages, newest first.
    """
    page = window.messages
    start = window.start
    while True:
        for position, record in reversed(page):
            blocks = record.get("blocks")
            if isinstance(blocks, list) and any(
                isinstance(b, dict) and b.get("type") == "tool_call" and b.get("callId") == call_id for b in blocks
            ):
                return position, record
        if start == 0:
            return None
        earlier = ctx.transcripts.window(session_id, before=start, limit=TASK_SEARCH_PAGE)
        if earlier.start >= start:
            return None
        page, start = earlier.messages, earlier.start


def live_compactions(ctx: HostContext, session_id: str, compactions: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Checkpoints whose ``throughMessageId`` anchor still exists, oldest first (spec 004, section 2.1)."""
    if not compactions:
        return []
    layout = ctx.transcripts.layout(session_id)
    kept = []
    for record in compactions:
        anchor = record.get("throughMessageId")
        if anchor is None or (layout is not None and layout.last_position(anchor) is not None):
            kept.append(_strip_type(record))
    return kept


def _seqs(ctx: HostContext, session_id: str, ids: list[str]) -> dict[str, int]:
    """``seq`` of the window's messages, by the unique id index (one probe per id)."""
    if not ids:
        return {}
    # One JSON array parameter: a whole transcript can exceed SQLite's variable limit.
    rows = all_rows(
        ctx.conn.execute(
            "SELECT id, seq, session_id FROM messages WHERE id IN (SELECT value FROM json_each(?))",
            (orjson.dumps(ids).decode(),),
        )
    )
    return {mid: seq for mid, seq, owner in rows if owner == session_id}


def project(
    record: dict[str, Any], position: int, seq: int | None, content_limit: int | None, *, whole_text: bool = False
) -> dict[str, Any]:
    """The ``UiMessage``: the stored message plus ``seq`` and physical ``index``, capped for display only.

    ``whole_text``: the message's text blocks are not capped (the target of a jump; its other blocks are).
    """
    ui = _strip_type(record)
    ui["seq"] = seq
    ui["index"] = position
    if content_limit is not None:
        ui["blocks"] = [
            block
            if whole_text and isinstance(block, dict) and block.get("type") == "text"
            else cap_block(block, content_limit)
            for block in record.get("blocks", [])
        ]
    return ui


def _is_target(record: dict[str, Any], around: str | None) -> bool:
    """The message a window was opened around, when it is one a person reads whole (spec 004, W.23)."""
    return around is not None and record.get("id") == around and record.get("role") in ("user", "assistant")


# -- session.appendCompaction -----------------------------------------------------------
@command("session.appendCompaction", emits=[topics.SESSION_CHANGED])
def append_compaction(ctx: HostContext, p: Params) -> dict[str, Any]:
    session_id = sessions.session_id_param(p)
    compaction = p.obj("compaction")
    for key in ("id", "throughMessageId"):
        if not isinstance(compaction.get(key), str) or not compaction[key] or len(compaction[key]) > MESSAGE_ID_MAX:
            raise invalid(
                f"session.appendCompaction: 'compaction.{key}' must be a non-empty string of at most "
                f"{MESSAGE_ID_MAX} characters.",
                f"compaction.{key}",
            )
    if "summary" in compaction and not isinstance(compaction["summary"], str):
        raise invalid("session.appendCompaction: 'compaction.summary' must be a string.", "compaction.summary")
    sessions.require(ctx.conn, session_id)
    layout = ctx.transcripts.layout(session_id)
    if layout is None or layout.last_position(compaction["throughMessageId"]) is None:
        raise HostError(
            ErrorCode.NOT_FOUND,
            f"Session {session_id} has no message {compaction['throughMessageId']!r} to anchor the checkpoint.",
        )
    if compaction["id"] in layout.compaction_ids:
        return {"saved": True}  # a replay of a stored checkpoint
    record = {k: v for k, v in compaction.items() if k != "type"}
    record.setdefault("createdAt", message_index.rfc3339(ctx.clock()))
    ctx.transcripts.append(session_id, {"type": "compaction", **record})
    ctx.emit(topics.SESSION_CHANGED, {"sessionId": session_id, "reason": "compaction"})
    return {"saved": True}
