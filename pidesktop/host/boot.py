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
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import apsw
import orjson

from pidesktop.formats.index import free_pages
from pidesktop.formats.index.sql_rows import one_row
from pidesktop.host import kv
from pidesktop.host import state_snapshot as snapshot
from pidesktop.host.automations import scheduled
from pidesktop.host.context import HostContext
from pidesktop.host.search import fts_segments
from pidesktop.host.sessions import attachments, history, index_build, index_sync, inflight, messages, revisions
from pidesktop.host.sessions import commands as sessions
from pidesktop.host.sessions.index_progress import IndexProgress
from pidesktop.host.settings import commands as settings
from pidesktop.host.tools import review

log = logging.getLogger("pidesktop.host.boot")

AUDIT_RETENTION_DAYS = 90
TASK_RUNS_KEEP = 100
NOTIFICATIONS_KEEP = 200
_DAY_MS = 86_400_000


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
    (settings_kept,) = one_row(conn.execute("SELECT count(*) FROM kv"))
    # An empty kv: a new or lost database. The snapshot beside it gives back what only the database held.
    from_snapshot = [] if settings_kept else snapshot.restore(conn, ctx.data_root)
    ctx.from_snapshot = from_snapshot
    before_builds = conn.total_changes()
    report["sessionsRestored"] = restore_orphans(ctx, now)
    if report["sessionsRestored"]:
        snapshot.restore_late(conn, ctx.data_root)  # the inbox and automation runs name the chats just rebuilt
        lost = [] if settings_kept or from_snapshot else ["settings", "providers", "projectMemory"]
        ctx.rebuilt = {"sessions": report["sessionsRestored"], "notRecovered": lost}
    report["ghostsRemoved"] = remove_ghosts(ctx)
    report["unindexedLinesIndexed"] = index_sync.reconcile_all(ctx, now)
    if fts_segments.settle_after_build(conn, before_builds):  # a search pays for every segment a build left
        index_build.truncate_wal(conn)
    with conn:  # the clock-and-flag marker an earlier version kept for the same purpose
        kv.delete(conn, "host", "run")
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
    if report["turnsAborted"]:  # the last run ended mid-turn: a snapshot may be torn (tools.review)
        report["tornSnapshotsSwept"] = review.sweep_torn(ctx)
    live = [(str(row[0]), int(row[1] or 0)) for row in ctx.conn.execute("SELECT id, updated_at FROM sessions")]
    report["staleScratchSwept"] = sweep_stale_scratch(ctx.data_root, live, now)
    report["freePagesGivenBack"] = free_pages.give_back(conn)
    log.info("boot pass done", extra={"fields": report})
    return report


def _changes(conn: apsw.Connection, sql: str, args: tuple[Any, ...]) -> int:
    conn.execute(sql, args)
    return conn.changes()


def names_ending(directory: Path, suffix: str) -> list[str]:
    """The names in ``directory`` that end with ``suffix``, sorted (none if it is missing).

    One listing and plain strings: with 10,000 chats, ``Path.glob`` and sorting
    its paths took 100-200 ms of every start, before the chat list could be read.
    """
    try:
        with os.scandir(directory) as entries:
            return sorted(entry.name for entry in entries if entry.name.endswith(suffix))
    except FileNotFoundError:
        return []


def sweep_temp_files(ctx: HostContext) -> int:
    """Remove temporary files a crash left in ``sessions/`` mid-rewrite (``.<name>.<random>.tmp``).

    They are never a transcript: a rewrite's file only counts once renamed.
    """
    removed = 0
    for name in names_ending(ctx.sessions_dir, ".tmp"):
        temp = ctx.sessions_dir / name
        if name.startswith(".") and temp.is_file() and not temp.is_symlink():
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
    files went: then the delete is finished, never undone. Clients follow the
    restore through ``index.progress`` events (phase ``restore``).
    """
    known = {row[0] for row in ctx.conn.execute("SELECT id FROM sessions")}
    orphans: dict[str, int] = {}
    for name in names_ending(ctx.sessions_dir, ".jsonl"):
        session_id = name[: -len(".jsonl")]
        if session_id in known or name.endswith(".revisions.jsonl"):
            continue
        try:
            orphans[session_id] = (ctx.sessions_dir / name).stat().st_size
        except OSError:
            orphans[session_id] = 0
    if not orphans:
        return 0
    progress = IndexProgress(ctx.emit, "restore", orphans)
    progress.start()
    restored = 0
    for session_id in orphans:
        try:
            sessions.check_id(session_id)
            if sessions.was_deleted(ctx.conn, session_id):
                sessions.remove_session_files(ctx, session_id)
                log.info("finished deleting session %s (its files outlived its row)", session_id)
                continue
            sessions.restore_orphan(ctx, session_id, now, progress.for_chat(session_id))
            revisions.restore_rows(ctx, session_id)  # the regenerate pager's rows, from the revisions file
            restored += 1
            layout = ctx.transcripts.layout(session_id)
            if layout is not None:  # the index matches the file as read: the reconcile below need not look again
                with ctx.conn:
                    index_sync.record_length(ctx.conn, session_id, layout.prefix_len, now)
        except Exception:  # one unreadable file must not stop the host from starting
            log.exception("could not restore orphaned transcript %s.jsonl", session_id)
        finally:
            progress.chat_done(session_id)
    return restored


def remove_ghosts(ctx: HostContext) -> int:
    """Drop rows of chats that had messages but whose transcript is gone (an older ``pi.sqlite`` put back).

    The transcript is the truth: a chat deleted after that copy was made would
    otherwise come back as an empty ghost. A row without messages may simply
    not have its file yet, so it stays.
    """
    ghosts = [
        session_id
        for (session_id,) in ctx.conn.execute("SELECT id FROM sessions WHERE last_seq > 0")
        if not ctx.transcripts.exists(session_id)
    ]
    if ghosts:
        with ctx.conn:
            ctx.conn.executemany("DELETE FROM sessions WHERE id = ?", [(session_id,) for session_id in ghosts])
        log.warning("removed %d chat row(s) whose transcript is gone: %s", len(ghosts), ", ".join(ghosts))
    return len(ghosts)


def promote_checkpoints(ctx: HostContext, now: int) -> int:
    """Settle every leftover in-flight checkpoint (D299/D327).

    Its final row never landed: append it as complete when its turn had
    completed, otherwise as an aborted assistant message under an aborted turn,
    marked ``meta.stopReason: "crash"`` so the transcript can tell it from a
    reply the person stopped. No notification: aborted turns are not an inbox
    source (spec 004, section 4.14 and the acceptance list).
    """
    promoted = 0
    for name in names_ending(ctx.sessions_dir, inflight.SUFFIX):
        path = ctx.sessions_dir / name
        session_id = name[: -len(inflight.SUFFIX)]
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
            # a write or edit that changed its file before the crash is recorded like any stored change
            message["blocks"] = review.settle_aborted_calls(ctx, session_id, turn_id, message["blocks"])
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
    try:
        present = set(os.listdir(base))  # one listing, not a look per chat (10,000 at every start)
    except OSError:
        return 0
    swept = 0
    for session_id, updated_at in chats:
        if updated_at > limit or session_id not in present:
            continue
        folder = base / session_id
        if not folder.is_dir() or folder.is_symlink():
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
