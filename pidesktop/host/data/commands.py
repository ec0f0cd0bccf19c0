"""``data.*``: maintenance of the data root while the host runs (status, verify, back up, caches, old copies,
the database copies kept by schema migrations).

Every long piece runs as a *job* on a thread the host owns, so the host thread
keeps serving other commands meanwhile. A job command checks its params on
the host thread and answers at once with ``{job, kind}``; the job then
reports ``data.progress {job, kind, phase, done, total}`` and ends with one
``data.finished {job, kind, status, result | error}`` (``status`` is
``done``, ``failed`` or ``cancelled``). ``data.cancel {job}`` stops a job
between two steps.

Why threads and not chunks: the work is the storage layer's own cold code
(``pidesktop.storage``: verify, backup, status, cache sizes, kept-root
cleanup), which the command line runs when no host is there. Those functions
only *read* the database, each through its own read-only connection (a WAL
reader never blocks the host's writer, and the host's commits never tear its
snapshot), and only the storage layer's allowlisted folders are removed. So
they are safe beside the host thread, and running them as they are keeps one
copy of each. Chunking them into host-thread slices would have meant a second,
resumable copy of every one. No job ever uses the host's write connection.

The running jobs are stopped (cancelled and joined) when the host closes.
"""

from __future__ import annotations

import logging
import stat
import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pidesktop import paths
from pidesktop.bus import topics
from pidesktop.bus.errors import ErrorCode, HostError
from pidesktop.formats.index import migrations
from pidesktop.host import storage_errors
from pidesktop.host.commands import command
from pidesktop.host.context import HostContext
from pidesktop.host.params import Params, invalid
from pidesktop.storage import backup as db_backup
from pidesktop.storage import cache, cache_request, cleanup, old_roots, verify
from pidesktop.storage import status as data_status
from pidesktop.storage.errors import Cancelled, Refused, StorageJobError

log = logging.getLogger("pidesktop.host.data")

PROGRESS = topics.DATA_PROGRESS
FINISHED = topics.DATA_FINISHED
PROGRESS_INTERVAL = 0.1  # seconds between two progress events of one phase
CLOSE_WAIT = 10.0  # seconds the host waits for a cancelled job when it closes

# A job's progress report: (phase, done, total); it raises Cancelled once the job is cancelled.
JobProgress = Callable[[str, int, int], None]
Work = Callable[[JobProgress], dict[str, Any]]


@dataclass
class Job:
    id: str
    kind: str
    cancel: threading.Event = field(default_factory=threading.Event)
    thread: threading.Thread | None = None


class Jobs:
    """The data jobs of one host: at most one of each kind at a time."""

    def __init__(self, ctx: HostContext) -> None:
        self.ctx = ctx
        self._lock = threading.Lock()
        self.running: dict[str, Job] = {}
        self._closed = False

    def start(self, kind: str, work: Work) -> dict[str, Any]:
        with self._lock:
            if self._closed:
                raise HostError(ErrorCode.STORAGE_UNAVAILABLE, "The host is shutting down.")
            busy = next((job for job in self.running.values() if job.kind == kind), None)
            if busy is not None:
                raise HostError(
                    ErrorCode.CONFLICT,
                    f"A data {kind} job is already running ({busy.id}); wait for it to finish or cancel it.",
                    {"job": busy.id},
                )
            job = Job(f"job-{uuid.uuid4().hex[:12]}", kind)
            job.thread = threading.Thread(
                target=self._run, args=(job, work), name=f"pidesktop-data-{kind}", daemon=True
            )
            self.running[job.id] = job
        job.thread.start()
        return {"job": job.id, "kind": kind}

    def cancel(self, job_id: str) -> bool:
        with self._lock:
            job = self.running.get(job_id)
        if job is None:
            return False
        job.cancel.set()
        return True

    def close(self) -> None:
        with self._lock:
            self._closed = True
            jobs = list(self.running.values())
        for job in jobs:
            job.cancel.set()
        deadline = time.monotonic() + CLOSE_WAIT
        for job in jobs:
            if job.thread is not None:
                job.thread.join(max(0.0, deadline - time.monotonic()))
                if job.thread.is_alive():
                    log.warning("data job %s (%s) still running as the host closes", job.id, job.kind)

    def _run(self, job: Job, work: Work) -> None:
        base = {"job": job.id, "kind": job.kind}
        last: dict[str, Any] = {"phase": None, "at": 0.0}

        def progress(phase: str, done: int, total: int) -> None:
            if job.cancel.is_set():
                raise Cancelled("Cancelled.")
            now = time.monotonic()
            if phase == last["phase"] and done < total and now - last["at"] < PROGRESS_INTERVAL:
                return
            last["phase"], last["at"] = phase, now
            self._emit(PROGRESS, {**base, "phase": phase, "done": done, "total": total})

        try:
            result = work(progress)
            finished = {**base, "status": "done", "result": result}
        except Cancelled:
            finished = {**base, "status": "cancelled"}
        except HostError as exc:
            finished = {**base, "status": "failed", "error": _error(exc)}
        except Refused as exc:
            finished = {**base, "status": "failed", "error": _error(HostError(ErrorCode.CONFLICT, str(exc)))}
        except (StorageJobError, OSError) as exc:
            finished = {**base, "status": "failed", "error": _error(_disk_failure(exc))}
        except Exception as exc:
            log.exception("data job %s (%s) failed", job.id, job.kind)
            finished = {
                **base,
                "status": "failed",
                "error": _error(HostError(ErrorCode.INTERNAL, f"data.{job.kind} failed unexpectedly: {exc}")),
            }
        with self._lock:
            self.running.pop(job.id, None)
        self._emit(FINISHED, finished)

    def _emit(self, topic: str, payload: dict[str, Any]) -> None:
        try:
            self.ctx.emit(topic, payload)
        except Exception:
            log.exception("emitting %s failed", topic)


def _error(exc: HostError) -> dict[str, Any]:
    return {"code": exc.code, "message": exc.message, "data": exc.data}


def jobs_of(ctx: HostContext) -> Jobs:
    """This host's job table, made on first use (on the host thread) and stopped when the host closes."""
    jobs = ctx.data_jobs
    if jobs is None:
        jobs = ctx.data_jobs = Jobs(ctx)

        def close() -> None:
            jobs.close()
            if ctx.data_jobs is jobs:
                ctx.data_jobs = None

        ctx.on_close.append(close)
    return jobs


def location_of(ctx: HostContext) -> paths.StorageLocation:
    """The storage location this host serves: the installation's own when it is that one, else a pinned root."""
    try:
        installed = paths.resolve()
    except paths.StorageLocationError:
        installed = None
    if installed is not None and installed.data_root == ctx.data_root:
        return installed
    return paths.StorageLocation(ctx.data_root, ctx.data_root / "ui", "env")


# -- commands --------------------------------------------------------------------------------------
def _disk_failure(exc: Exception) -> HostError:
    """A job's read or write failure: STORAGE_FULL for a full disk (here or as the cause), else its own code."""
    for cause in (exc, exc.__cause__):
        if cause is not None and (coded := storage_errors.classify(cause)) is not None:
            if coded.code == ErrorCode.STORAGE_FULL:
                return HostError(
                    coded.code, f"The disk is full; nothing was written. Free some space ({exc}).", coded.data
                )
            return HostError(coded.code, str(exc), coded.data)
    return HostError(ErrorCode.STORAGE_UNAVAILABLE, str(exc))


@command("data.status", emits=[topics.DATA_FINISHED, topics.DATA_PROGRESS])
def status(ctx: HostContext, params: Params) -> dict[str, Any]:
    scan = params.boolean("scan", default=True)
    location = location_of(ctx)

    def work(progress: JobProgress) -> dict[str, Any]:
        progress("status", 0, 1)
        report = data_status.status(location, scan=scan)
        progress("status", 1, 1)
        return report

    return jobs_of(ctx).start("status", work)


@command("data.verify", emits=[topics.DATA_FINISHED, topics.DATA_PROGRESS])
def verify_data(ctx: HostContext, params: Params) -> dict[str, Any]:
    root = ctx.data_root

    def work(progress: JobProgress) -> dict[str, Any]:
        report = verify.verify(root, progress)
        return {
            "ok": report.ok,
            "sessions": report.sessions,
            "messages": report.messages,
            "problems": list(report.problems),
            "recoverable": list(report.recoverable),
        }

    return jobs_of(ctx).start("verify", work)


@command("data.backup", emits=[topics.DATA_FINISHED, topics.DATA_PROGRESS])
def backup(ctx: HostContext, params: Params) -> dict[str, Any]:
    raw = params.text("path")
    try:
        target = db_backup.check_target(raw, example=False)
    except Refused as exc:
        raise _bad_path(str(exc)) from None
    if _inside(target, ctx.data_root):
        raise _bad_path(f"{target} is inside the data folder {ctx.data_root}; a backup belongs somewhere else.")
    root = ctx.data_root

    def work(progress: JobProgress) -> dict[str, Any]:
        result = db_backup.backup(root, target, progress)
        return {
            "path": str(result.path),
            "bytes": result.bytes,
            "schemaVersion": result.schema_version,
            "rows": result.rows,
        }

    return jobs_of(ctx).start("backup", work)


@command("data.snapshot", emits=[topics.DATA_FINISHED, topics.DATA_PROGRESS])
def snapshot(ctx: HostContext, params: Params) -> dict[str, Any]:
    """An encrypted, incremental snapshot of the whole data root into a backup folder (storage.snapshot_backup)."""
    from pidesktop.storage import snapshot_backup, snapshot_format, vault
    from pidesktop.storage.blobstore import FolderStore

    raw = params.text("folder", nonempty=True)
    passphrase = params.text("passphrase", nonempty=True)
    keep = params.integer("keep", required=False, default=0, minimum=0)
    include_secrets = params.boolean("secrets", default=False)
    folder = Path(raw)
    if not folder.is_absolute():
        raise _bad_field("data.snapshot", "folder", f"The backup folder must be an absolute path (it was {raw!r}).")
    if _inside(folder, ctx.data_root) or _inside(ctx.data_root, folder):
        raise _bad_field("data.snapshot", "folder", f"{folder} overlaps the data folder; choose a folder elsewhere.")
    if not folder.parent.is_dir():
        raise _bad_field("data.snapshot", "folder", f"The folder {folder.parent} does not exist.")
    root = ctx.data_root

    def work(progress: JobProgress) -> dict[str, Any]:
        progress("snapshot", 0, 1)
        try:
            repo = snapshot_format.open_repository(FolderStore(folder), passphrase, create=True)
        except vault.WrongPassphrase as exc:
            raise Refused(f"{exc} This folder already holds backups made with another passphrase.") from exc
        except vault.VaultError as exc:
            raise StorageJobError(str(exc)) from exc
        summary = snapshot_backup.backup(
            repo,
            root,
            include_secrets=include_secrets,
            keep=keep or None,
            progress=lambda done, total: progress("snapshot", done, total),
        )
        return {
            "folder": str(folder),
            "snapshot": summary.snapshot_id,
            "files": summary.files,
            "bytes": summary.bytes,
            "bytesUploaded": summary.bytes_uploaded,
            "chunksNew": summary.chunks_new,
            "chunksReused": summary.chunks_reused,
            "snapshotsPruned": summary.snapshots_pruned,
        }

    return jobs_of(ctx).start("snapshot", work)


@command("data.caches", emits=[topics.DATA_FINISHED, topics.DATA_PROGRESS])
def caches(ctx: HostContext, params: Params) -> dict[str, Any]:
    location = location_of(ctx)

    def work(progress: JobProgress) -> dict[str, Any]:
        progress("caches", 0, 1)
        folders = cache.sizes(location)
        last = cache_request.last_report()
        if last is not None and last.get("dataRoot") != str(location.data_root):
            last = None
        progress("caches", 1, 1)
        return {
            "dataRoot": str(location.data_root),
            "uiRoot": str(location.ui_root),
            "folders": [
                {
                    "path": str(f.path),
                    "area": "ui" if _inside(f.path, location.ui_root) else "data",
                    "state": f.state,
                    "bytes": f.bytes,
                    "files": f.files,
                }
                for f in folders
            ],
            "totalBytes": sum(f.bytes for f in folders),
            "cleanPending": cache_request.pending(location),
            "lastClean": last,
        }

    return jobs_of(ctx).start("caches", work)


@command("data.cleanCaches", emits=[])
def clean_caches(ctx: HostContext, params: Params) -> dict[str, Any]:
    """Cache cleanup is a cold operation (spec 004, section 2): recorded now, done at the next start."""
    location = location_of(ctx)
    try:
        cache_request.request(location)
    except OSError as exc:
        raise HostError(
            ErrorCode.STORAGE_UNAVAILABLE, f"Cannot record the cache cleanup in {paths.anchor_dir()}: {exc}"
        ) from exc
    return {"scheduled": True, "dataRoot": str(location.data_root)}


@command("data.keptRoots", emits=[topics.DATA_FINISHED, topics.DATA_PROGRESS])
def kept_roots(ctx: HostContext, params: Params) -> dict[str, Any]:
    location = location_of(ctx)

    def work(progress: JobProgress) -> dict[str, Any]:
        progress("measure", 0, 1)
        found = cleanup.list_kept(location)
        progress("measure", 1, 1)
        return {
            "keptRoots": [
                {**info.entry.to_json(), "bytes": info.bytes, "present": info.present, "problems": list(info.problems)}
                for info in found
            ]
        }

    return jobs_of(ctx).start("keptRoots", work)


@command("data.removeKeptRoot", emits=[topics.DATA_FINISHED, topics.DATA_PROGRESS])
def remove_kept_root(ctx: HostContext, params: Params) -> dict[str, Any]:
    entry_id = params.text("id", strip=True, nonempty=True)
    try:
        known = [entry.id for entry in old_roots.entries()]
    except StorageJobError as exc:
        raise HostError(ErrorCode.STORAGE_UNAVAILABLE, str(exc)) from exc
    if entry_id not in known:
        raise HostError(ErrorCode.NOT_FOUND, f"There is no kept data folder with id {entry_id!r}.", {"field": "id"})
    location = location_of(ctx)

    def work(progress: JobProgress) -> dict[str, Any]:
        progress("delete", 0, 1)
        result = cleanup.delete(entry_id, location)
        progress("delete", 1, 1)
        return {
            "id": result.id,
            "ok": result.ok,
            "deleted": [str(p) for p in result.deleted],
            "alreadyGone": [str(p) for p in result.already_gone],
            "failures": list(result.failures),
        }

    return jobs_of(ctx).start("removeKeptRoot", work)


@command("data.schemaBackups", emits=[])
def schema_backups(ctx: HostContext, params: Params) -> dict[str, Any]:
    """The copies of ``pi.sqlite`` kept by schema migrations (a directory listing: not a job)."""
    return {"backups": data_status.schema_backups(ctx.data_root)}


@command("data.removeSchemaBackup", emits=[])
def remove_schema_backup(ctx: HostContext, params: Params) -> dict[str, Any]:
    """Delete one ``pi.sqlite.v<n>.bak`` directly in the data folder; never the live database or anything else."""
    name = params.text("name")
    if migrations.backup_version(name) is None:
        raise invalid(
            f"data.removeSchemaBackup: field 'name': {name!r} is not the name of a database backup "
            f"(pi.sqlite.v<version>.bak) in the data folder.",
            "name",
        )
    path = ctx.data_root / name  # the pattern has no separator: nothing outside the data folder is reachable
    try:
        info = path.lstat()
    except FileNotFoundError:
        raise HostError(
            ErrorCode.NOT_FOUND, f"There is no database backup {name} in {ctx.data_root}.", {"field": "name"}
        ) from None
    except OSError as exc:
        raise HostError(ErrorCode.STORAGE_UNAVAILABLE, f"Cannot read {path}: {exc.strerror or exc}.") from exc
    if not stat.S_ISREG(info.st_mode):
        raise invalid(
            f"data.removeSchemaBackup: field 'name': {name} in the data folder is not a regular file; "
            f"it is left alone.",
            "name",
        )
    try:
        path.unlink()
    except FileNotFoundError:
        pass  # removed meanwhile: the outcome asked for
    except OSError as exc:
        raise HostError(
            ErrorCode.STORAGE_UNAVAILABLE,
            f"Could not remove {path}: {exc.strerror or exc}. Check the folder's permissions.",
        ) from exc
    log.info("removed the schema backup %s (%d bytes)", path, info.st_size)
    return {"name": name, "path": str(path), "bytes": info.st_size}


@command("data.cancel", emits=[topics.DATA_FINISHED])
def cancel(ctx: HostContext, params: Params) -> dict[str, Any]:
    job_id = params.text("job", nonempty=True)
    return {"cancelled": jobs_of(ctx).cancel(job_id)}


def _bad_path(reason: str) -> HostError:
    """``INVALID_PARAMS`` about ``path``; ``data.sentence`` is the reason alone, for a dialog's report line."""
    return _bad_field("data.backup", "path", reason)


def _bad_field(method: str, name: str, reason: str) -> HostError:
    error = invalid(f"{method}: field {name!r}: {reason}", name)
    error.data["sentence"] = reason
    return error


def _inside(path: Path, root: Path) -> bool:
    try:
        path.resolve().relative_to(root.resolve())
    except (ValueError, OSError):
        return False
    return True


def running(ctx: HostContext) -> dict[str, Any]:
    """The jobs running now (tests)."""
    return {job.id: job.kind for job in jobs_of(ctx).running.values()}
