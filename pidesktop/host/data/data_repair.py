"""``data.repair``: Settings > Data > Repair, the running host's ``pidesktop data repair``.

A job: ``PRAGMA integrity_check`` runs on the job thread through a read-only
connection of its own (the host keeps serving meanwhile). Then, on the host
thread, either the damaged database is set aside and rebuilt from the
transcripts with what it still yields (``index_rebuild.repair_in_place``), or,
when it is sound, the index is reconciled with the transcripts: lines without
an index row are indexed and transcripts without a chat row get one back.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from concurrent.futures import Future
from concurrent.futures import TimeoutError as FutureTimeout
from pathlib import Path
from typing import Any

import apsw

from pidesktop.bus import topics
from pidesktop.bus.errors import ErrorCode, HostError
from pidesktop.formats.index.schema import DB_NAME
from pidesktop.host import boot
from pidesktop.host.commands import command
from pidesktop.host.context import HostContext, Post
from pidesktop.host.data.commands import JobProgress, jobs_of
from pidesktop.host.data.index_rebuild import repair_in_place
from pidesktop.host.params import Params
from pidesktop.host.sessions import index_sync

log = logging.getLogger("pidesktop.host.data.data_repair")

PROBLEMS_SHOWN = 20  # integrity_check's complaints kept in the result
WAIT_STEP = 0.1  # seconds between two looks at a cancel while the host thread works


def integrity_problems(db: Path) -> list[str]:
    """What ``PRAGMA integrity_check`` says is wrong with ``db`` (empty when it is sound)."""
    try:
        conn = apsw.Connection(str(db), flags=apsw.SQLITE_OPEN_READONLY)
    except apsw.Error as exc:
        return [str(exc)]
    try:
        rows = [str(row[0]) for row in conn.execute(f"PRAGMA integrity_check({PROBLEMS_SHOWN})")]
    except apsw.Error as exc:
        return [str(exc)]
    finally:
        conn.close()
    return [] if rows == ["ok"] else rows


def _repair_or_reconcile(ctx: HostContext, problems: list[str]) -> dict[str, Any]:
    if problems:
        reason = f"integrity_check: {'; '.join(problems)}"
        try:
            rebuilt = repair_in_place(ctx, reason)
        except Exception as exc:
            ctx.damaged = True  # the next start checks and repairs
            log.exception("repairing the damaged database failed")
            raise HostError(
                ErrorCode.STORAGE_UNAVAILABLE,
                "The database is damaged and could not be rebuilt now. Restart pidesktop: it rebuilds the "
                "database from your chat files when it starts.",
                {"reason": reason, "damaged": True, "error": str(exc)},
            ) from exc
        ctx.emit(topics.DATA_REPAIRED, {"rebuilt": rebuilt})
        return {"damaged": True, "problems": problems, "rebuilt": rebuilt}
    now = ctx.clock()
    restored = boot.restore_orphans(ctx, now)
    indexed = index_sync.reconcile_all(ctx, now)
    if restored or indexed:
        ctx.emit(topics.DATA_REPAIRED, {"rebuilt": {"sessions": restored, "linesIndexed": indexed}})
    return {"damaged": False, "problems": [], "sessionsRestored": restored, "linesIndexed": indexed}


def _on_host_thread(post: Post | None, fn: Callable[[], dict[str, Any]], progress: Callable[[], None]) -> Any:
    """Run ``fn`` on the host thread and wait for it, calling ``progress`` (which raises on a cancel) meanwhile."""
    if post is None:
        raise HostError(ErrorCode.STORAGE_UNAVAILABLE, "The host cannot take this job now; try again.")
    future: Future[dict[str, Any]] = Future()

    def run() -> None:
        if not future.set_running_or_notify_cancel():
            return
        try:
            future.set_result(fn())
        except BaseException as exc:
            future.set_exception(exc)

    if not post(run):
        raise HostError(ErrorCode.STORAGE_UNAVAILABLE, "The host is shutting down.")
    while True:
        try:
            return future.result(WAIT_STEP)
        except FutureTimeout:
            try:
                progress()
            except BaseException:
                future.cancel()  # not started yet: it never will; started: it finishes on its own
                raise


@command("data.repair", emits=[topics.DATA_PROGRESS, topics.DATA_FINISHED, topics.DATA_REPAIRED, topics.INDEX_PROGRESS])
def repair_data(ctx: HostContext, params: Params) -> dict[str, Any]:
    db = ctx.data_root / DB_NAME

    def work(progress: JobProgress) -> dict[str, Any]:
        progress("check", 0, 1)
        problems = integrity_problems(db)
        progress("check", 1, 1)
        phase = "rebuild" if problems else "reconcile"
        progress(phase, 0, 1)
        result: dict[str, Any] = _on_host_thread(
            ctx.post, lambda: _repair_or_reconcile(ctx, problems), lambda: progress(phase, 0, 1)
        )
        progress(phase, 1, 1)
        return result

    return jobs_of(ctx).start("repair", work)
