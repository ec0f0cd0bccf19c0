"""The boot pass: runs once before the host serves its first command.

Spec 004, sections 3 and 8. A crash can leave work that was running when the
process died; nothing from before a restart is replayed. One transaction marks
it interrupted, then retention runs and freed pages go back to the file system.
"""

from __future__ import annotations

import contextlib
import logging
import os
import shutil
import time
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import apsw
import orjson

from . import attachments, history, inflight, kv, message_index, messages, scheduled, sessions, settings
from .context import HostContext
from .sql_rows import one_row

log = logging.getLogger("pidesktop.host.boot")

AUDIT_RETENTION_DAYS = 90
TASK_RUNS_KEEP = 100
NOTIFICATIONS_KEEP = 200
_DAY_MS = 86_400_000
# kv(host, run): {"since": wall-clock ms, "clean": bool}. ``clean`` turns true
# only in Host.close; ``since`` is when the transcripts were last known to be
# fully indexed, so a start after a crash checks only files written since then.
RUN_NS, RUN_KEY = "host", "run"
MTIME_SLACK_MS = 2_000  # file-system timestamp granularity and small clock steps


def boot_pass(ctx: HostContext, audit_retention_days: int | None = None) -> dict[str, Any]:
    """The start-up pass; ``audit_retention_days`` None: the ``auditRetentionDays`` setting (default 90)."""
    conn = ctx.conn
    if audit_retention_days is None:
        audit_retention_days = settings.read(ctx)["auditRetentionDays"]
    now = ctx.clock()
    report: dict[str, int] = {}
    with conn:
        report["approvalsInterrupted"] = _changes(
            conn, ("UPDATE plan_approvals SET status = 'interrupted', updated_at = ? WHERE status = 'pending'"), (now,)
        )
        report["executionsInterrupted"] = _changes(
            conn,
            (
                "UPDATE plan_approvals SET execution_state = 'interrupted', updated_at = ? "
                "WHERE execution_state IN ('queued', 'running')"
            ),
            (now,),
        )
        report["turnsAborted"] = _changes(
            conn, ("UPDATE turns SET status = 'aborted', ended_at = ? WHERE status = 'running'"), (now,)
        )
        if report["turnsAborted"] or report["approvalsInterrupted"] or report["executionsInterrupted"]:
            conn.execute(
                "INSERT INTO audit_log(ts, kind, payload_json) VALUES (?, 'boot_recovery', ?)",
                (now, orjson.dumps(report).decode()),
            )
    report["rewritesFinished"] = history.finish_interrupted(ctx, now)
    report["tempFilesRemoved"] = sweep_temp_files(ctx)
    report["incomingAttachmentsRemoved"] = sweep_incoming_attachments(ctx)
    report["sessionsRestored"] = restore_orphans(ctx, now)
    report["unindexedLinesIndexed"] = index_unindexed_tails(ctx, now)
    closers = getattr(ctx, "on_close", None)
    if closers is not None:
        closers.insert(0, lambda: record_clean_close(ctx))  # run last: after every other close hook
    report["checkpointsPromoted"] = promote_checkpoints(ctx, now)
    with conn:
        report["auditPruned"] = _changes(
            conn, "DELETE FROM audit_log WHERE ts < ?", (now - audit_retention_days * _DAY_MS,)
        )
        report["taskRunsInterrupted"] = scheduled.settle_interrupted(conn, now)
        report["taskRunsPruned"] = scheduled.prune_runs(conn, keep=TASK_RUNS_KEEP)
        report["notificationsPruned"] = _changes(
            conn,
            (
                "DELETE FROM notifications WHERE id NOT IN (SELECT id FROM notifications "
                "ORDER BY created_at DESC, id DESC LIMIT ?)"
            ),
            (NOTIFICATIONS_KEEP,),
        )
        report["tombstonesPruned"] = sessions.prune_tombstones(conn, now)
    report["foldersSwept"] = sweep_orphan_folders(ctx)
    live = [(str(row[0]), int(row[1] or 0)) for row in ctx.conn.execute("SELECT id, updated_at FROM sessions")]
    report["staleScratchSwept"] = sweep_stale_scratch(ctx.data_root, live, now)
    conn.execute("PRAGMA incremental_vacuum")
    log.info("boot pass done", extra={"fields": report})
    return report


def _changes(conn: apsw.Connection, sql: str, args: tuple[Any, ...]) -> int:
    conn.execute(sql, args)
    return conn.changes()


def sweep_temp_files(ctx: HostContext) -> int:
    """Remove temporary files a crash left in ``sessions/`` mid-rewrite (``.<name>.<random>.tmp``).

    They are never a transcript: a rewrite's file only counts once renamed.
    """
    removed = 0
    for temp in ctx.sessions_dir.glob(".*.tmp"):
        if temp.is_file() and not temp.is_symlink():
            temp.unlink(missing_ok=True)
            removed += 1
    return removed


def sweep_incoming_attachments(ctx: HostContext) -> int:
    """Remove ``attachments/.incoming-*`` files a crash left mid-import.

    They are never a blob: only a complete, fsync-ed copy is renamed to its digest.
    """
    removed = 0
    for temp in attachments.directory(ctx).glob(f"{attachments.TEMP_PREFIX}*"):
        if temp.is_file() or temp.is_symlink():
            temp.unlink(missing_ok=True)
            removed += 1
    return removed


def restore_orphans(ctx: HostContext, now: int) -> int:
    """D318: a transcript whose session row is gone gets its row and index back.

    Unless ``session.delete`` removed that row and a crash stopped it before the
    files went: then the delete is finished, never undone.
    """
    known = {row[0] for row in ctx.conn.execute("SELECT id FROM sessions")}
    restored = 0
    for path in sorted(ctx.sessions_dir.glob("*.jsonl")):
        session_id = path.name[: -len(".jsonl")]
        if session_id in known or path.name.endswith(".revisions.jsonl"):
            continue
        try:
            sessions.check_id(session_id)
            if sessions.was_deleted(ctx.conn, session_id):
                sessions.remove_session_files(ctx, session_id)
                log.info("finished deleting session %s (its files outlived its row)", session_id)
                continue
            sessions.restore_orphan(ctx, session_id, now)
            restored += 1
        except Exception:  # one unreadable file must not stop the host from starting
            log.exception("could not restore orphaned transcript %s", path.name)
    return restored


def index_unindexed_tails(ctx: HostContext, now: int) -> int:
    """Index message lines a crash left in a transcript without their index row.

    An append writes (and fsyncs) its line before the index transaction; a
    kill between the two leaves a line that renders but that search and
    ``messageCount`` never see. Bounded: nothing is read after a clean close;
    after a crash only the transcripts modified since the last point they were
    known to be indexed are checked, each through its layout (the cached
    offsets plus a scan of the new tail), walking back from the last line only
    until a line that has its row. Returns the number of lines indexed.
    """
    wall = time.time_ns() // 1_000_000
    previous = kv.get(ctx.conn, RUN_NS, RUN_KEY)
    if isinstance(previous, dict) and previous.get("clean") is True:
        since = None  # the last run closed cleanly: every append committed
    elif isinstance(previous, dict) and isinstance(previous.get("since"), int):
        since = previous["since"] - MTIME_SLACK_MS
    else:
        since = 0  # first start with this check (or an unreadable marker): look at every transcript once
    indexed = 0
    if since is not None:
        known = {row[0] for row in ctx.conn.execute("SELECT id FROM sessions")}
        for entry in sorted(os.scandir(ctx.sessions_dir), key=lambda e: e.name) if ctx.sessions_dir.is_dir() else []:
            session_id = entry.name[: -len(".jsonl")]
            if not entry.name.endswith(".jsonl") or session_id not in known:
                continue
            try:
                if entry.stat().st_mtime_ns // 1_000_000 < since:
                    continue
                indexed += index_tail(ctx, session_id, now)
            except Exception:  # one unreadable file must not stop the host from starting
                log.exception("could not check transcript %s for unindexed lines", entry.name)
    with ctx.conn:
        kv.put(ctx.conn, RUN_NS, RUN_KEY, {"since": wall, "clean": False}, now)
    return indexed


def record_clean_close(ctx: HostContext) -> None:
    """At Host.close: every append of this run committed, so the next start need not check transcripts."""
    try:
        with ctx.conn:
            previous = kv.get(ctx.conn, RUN_NS, RUN_KEY) or {}
            kv.put(ctx.conn, RUN_NS, RUN_KEY, {**previous, "clean": True}, ctx.clock())
    except Exception:  # the next start then checks the recent transcripts: slower, never wrong
        log.exception("could not record the clean close")


def index_tail(ctx: HostContext, session_id: str, now: int) -> int:
    """Index the visible message lines after the last indexed one, like their appends would have.

    One transaction, the shape of an append's: ``seq`` allocated from
    ``last_seq``, the row with its search text, the fallback title for a first
    prompt. Should the index still disagree with the file afterwards (lines
    missing in the middle), the session's index is rebuilt from the file.
    """
    layout = ctx.transcripts.layout(session_id)
    if layout is None:
        return 0
    conn = ctx.conn
    (rows,) = one_row(conn.execute("SELECT count(*) FROM messages WHERE session_id = ?", (session_id,)))
    (last_seq,) = one_row(conn.execute("SELECT last_seq FROM sessions WHERE id = ?", (session_id,)))
    visible = layout.visible_count()
    missing: list[str] = []
    for position in range(layout.total - 1, -1, -1):
        message_id = layout.message_ids[position]
        if message_id is None or layout.is_hidden(position):
            continue
        owner = conn.execute("SELECT session_id FROM messages WHERE id = ?", (message_id,)).fetchone()
        if owner is not None:
            break  # indexed (here, or an id another session owns: never ours to take)
        missing.append(message_id)
    if not missing and rows == visible == last_seq:
        return 0
    records = []
    for message_id in reversed(missing):
        found = ctx.transcripts.find(session_id, message_id)
        if found is not None:
            records.append({k: v for k, v in found[1].items() if k != "type"})
    checkpoint = inflight.read(ctx, session_id)
    with conn:
        (updated,) = one_row(conn.execute("SELECT updated_at FROM sessions WHERE id = ?", (session_id,)))
        for message in records:
            turn_id = checkpoint.get("turnId") if checkpoint and checkpoint["message"]["id"] == message["id"] else None
            stamp = message_index.created_ms(message, now)
            message_index.insert(conn, session_id, message, message_index.valid_turn(conn, session_id, turn_id), stamp)
            if message["role"] == "user":
                sessions.apply_fallback_title(conn, session_id, message)
            updated = max(updated, stamp)
        # insert() stamps the row's time on the session; the recent list never goes back in time
        conn.execute("UPDATE sessions SET updated_at = ? WHERE id = ?", (updated, session_id))
        if not message_index.in_step(conn, session_id, visible):
            transcript = ctx.transcripts.read_all(session_id)
            message_index.rebuild(
                conn,
                session_id,
                [{k: v for k, v in record.items() if k != "type"} for _position, record in transcript.messages],
                now,
            )
            log.warning("rebuilt the index of session %s from its transcript", session_id)
    if records:
        log.warning(
            "indexed %d message line(s) of session %s that a crash left without their index row",
            len(records),
            session_id,
        )
    return len(records)


def promote_checkpoints(ctx: HostContext, now: int) -> int:
    """Settle every leftover in-flight checkpoint (D299/D327).

    Its final row never landed: append it as complete when its turn had
    completed, otherwise as an aborted assistant message under an aborted turn,
    marked ``meta.stopReason: "crash"`` so the transcript can tell it from a
    reply the person stopped. No notification: aborted turns are not an inbox
    source (spec 004, section 4.14 and the acceptance list).
    """
    promoted = 0
    for path in sorted(ctx.sessions_dir.glob("*.inflight.json")):
        session_id = path.name[: -len(".inflight.json")]
        checkpoint = inflight.read(ctx, session_id)
        exists = ctx.conn.execute("SELECT 1 FROM sessions WHERE id = ?", (session_id,)).fetchone()
        if checkpoint is None or not exists:
            log.warning(
                "dropping in-flight checkpoint %s: %s",
                path.name,
                "unreadable" if checkpoint is None else "its session is gone",
            )
            path.unlink(missing_ok=True)
            continue
        message = dict(checkpoint["message"])
        turn_id = checkpoint.get("turnId") if isinstance(checkpoint.get("turnId"), str) else None
        status = _turn_status(ctx, session_id, turn_id, now)
        meta = dict(message.get("meta") or {})
        meta["status"] = "completed" if status == "completed" else "aborted"
        if status != "completed":
            meta["recoveredFrom"] = "inflight"
            meta["stopReason"] = "crash"  # a Stop appends its own final row; only a quit or crash leaves this
        message["meta"] = meta
        message.setdefault("role", "assistant")
        message.setdefault("blocks", [])
        if status != "completed":  # a tool call still waiting or running when the app went away never finished
            message["blocks"] = [
                {**block, "status": "aborted"}
                if isinstance(block, dict) and block.get("type") == "tool_call" and block.get("status") == "pending"
                else block
                for block in message["blocks"]
            ]
        try:
            messages.append(ctx, session_id, message, turn_id)
            promoted += 1
            if status != "completed":
                (title,) = one_row(ctx.conn.execute("SELECT title FROM sessions WHERE id = ?", (session_id,)))
                ctx.interrupted_replies.append(
                    {"sessionId": session_id, "sessionTitle": title or "", "messageId": message.get("id")}
                )
        except Exception:
            log.exception("could not promote in-flight checkpoint %s", path.name)
        inflight.remove(ctx, session_id)
    return promoted


def _turn_status(ctx: HostContext, session_id: str, turn_id: str | None, now: int) -> str | None:
    if turn_id is None:
        return None
    row = ctx.conn.execute("SELECT session_id, status FROM turns WHERE id = ?", (turn_id,)).fetchone()
    if row is None:
        with ctx.conn:
            ctx.conn.execute(
                "INSERT INTO turns(id, session_id, status, started_at, ended_at) VALUES (?, ?, 'aborted', ?, ?)",
                (turn_id, session_id, now, now),
            )
        return "aborted"
    return row[1] if row[0] == session_id else None


STALE_SCRATCH_DAYS = 30
STALE_SCRATCH = ("tool-output", "replayed")  # what a chat's tools and image fallbacks leave, all re-creatable


def sweep_stale_scratch(data_root: Path, chats: Iterable[tuple[str, int]], now: int) -> int:
    """Remove the disposable folders of chats idle for ``STALE_SCRATCH_DAYS``: how many went.

    Only ``scratch/<sid>/tool-output/`` (full outputs of cut tool results) and
    ``scratch/<sid>/replayed/`` (image files for models that read paths) go,
    once both the chat (``updated_at``) and every file in the folder are older
    than the limit: a live chat's folders are never touched. The rest of
    ``scratch/<sid>/`` is the workspace of a chat without a project (the
    person's files, ``.pi/plan``) and ``pasted/`` holds files its messages
    point to: those stay while the chat exists. A chat folder left empty goes too.
    """
    limit = now - STALE_SCRATCH_DAYS * _DAY_MS
    base = data_root / "scratch"
    swept = 0
    for session_id, updated_at in chats:
        folder = base / session_id
        if updated_at > limit or not folder.is_dir() or folder.is_symlink():
            continue
        for name in STALE_SCRATCH:
            target = folder / name
            if target.is_dir() and not target.is_symlink() and _newest_mtime_ms(target) <= limit:
                shutil.rmtree(target, ignore_errors=True)
                swept += 1
        with contextlib.suppress(OSError):
            folder.rmdir()  # only when nothing else is in it
    return swept


def _newest_mtime_ms(folder: Path) -> int:
    newest = folder.stat().st_mtime_ns // 1_000_000
    for root, dirs, files in os.walk(folder):
        for name in dirs + files:
            with contextlib.suppress(OSError):
                newest = max(newest, os.lstat(os.path.join(root, name)).st_mtime_ns // 1_000_000)
    return newest


def sweep_orphan_folders(ctx: HostContext) -> int:
    """Remove per-session scratch/visualization/review folders whose session is gone (never by age)."""
    known = {row[0] for row in ctx.conn.execute("SELECT id FROM sessions")}
    swept = 0
    for name in sessions.SESSION_DIRS:
        base = ctx.data_root / name
        if not base.is_dir() or base.is_symlink():
            continue
        for child in base.iterdir():
            if child.name in known or child.is_symlink() or not child.is_dir():
                continue
            shutil.rmtree(child, ignore_errors=True)
            swept += 1
    return swept
