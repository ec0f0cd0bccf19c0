"""Moving the data folder to a location the user picks (spec 004, section 2).

The job, in order; each step runs only when the previous one succeeded:

1. preflight, creating nothing: the root is not pinned by
   ``PI_DESKTOP_DATA_DIR``; the destination does not overlap the current data
   root, front-end root, selected folder or installation anchor (either way
   round); it is absent, empty, or left by an earlier attempt from this same
   source (its ownership marker says so); it can be created and written; it
   has room for the copy;
2. take the source's writer lock (a running host refuses the move);
3. journal the job in the installation anchor;
4. create the destination (with missing parents) and its ownership marker;
5. stream-copy ``data/`` and ``ui/``, then read every copy back and compare
   SHA-256 digests (:mod:`copy`);
6. relocate paths in the copy (:mod:`relocate`), then validate it (:mod:`validate`);
7. flush the destination's file system, then publish: atomically replace the
   installation's storage pointer;
8. record the old folders as kept backups and clear the journal.

A crash anywhere before step 7 leaves the old root active and untouched and
the journal pending; :func:`resume` (called at the next start-up) recopies
and finishes. A crash after step 7 is harmless: the pointer already names the
verified copy, and resuming only does step 8. Cancelling (``cancel.set()``) or
an error before publication clears the journal and leaves the partial
destination, marker included, for a later retry of the same folder.

A front end calls :func:`preflight` to check a chosen folder, then :func:`run`
on a worker thread with a progress callback and a ``threading.Event``.
"""

from __future__ import annotations

import os
import threading
import uuid
from dataclasses import dataclass
from pathlib import Path

from pidesktop import paths
from pidesktop.clock import now_ms
from pidesktop.locks import WRITER_LOCK
from pidesktop.storage import inventory, journal, marker, old_roots, validate
from pidesktop.storage.copy import Pair, TreeCopy
from pidesktop.storage.errors import Cancelled, Failed, Refused, StorageJobError
from pidesktop.storage.fsutil import absolute, nearest_existing, overlaps, read_json, sync_filesystem, tree_size
from pidesktop.storage.journal import PendingMove
from pidesktop.storage.locking import writer_lock
from pidesktop.storage.old_roots import KeptRoot
from pidesktop.storage.progress import Progress, ignore
from pidesktop.storage.relocate import RelocationReport, relocate

ROLE = "pidesktop data move"
SPACE_MARGIN = 16 << 20  # room for the database's journal and the relocated files' temporaries


@dataclass(frozen=True)
class MovePlan:
    """A checked destination, ready for :func:`run`."""

    destination: Path
    source_data_root: Path
    source_ui_root: Path
    resolved_by: str
    selected_root: Path | None
    job_id: str
    retry: bool  # the destination holds an earlier attempt from this source

    def journal_entry(self) -> PendingMove:
        """The journal of this move before its first file is copied (what a crash here leaves)."""
        now = now_ms()
        return PendingMove(
            self.job_id,
            self.source_data_root,
            self.source_ui_root,
            self.resolved_by,
            self.selected_root,
            self.destination,
            "copy",
            now,
            now,
        )


def data_root_at(destination: Path) -> Path:
    """The data folder a move to ``destination`` ends in (its front-end folder is the sibling ``ui``)."""
    return destination / "data"


@dataclass(frozen=True)
class MoveResult:
    destination: Path
    data_root: Path
    ui_root: Path
    job_id: str
    bytes_copied: int
    files_copied: int
    relocation: RelocationReport | None
    kept: KeptRoot


def preflight(destination: str | os.PathLike[str], *, env: dict[str, str] | None = None) -> MovePlan:
    """Every check that needs no lock; creates nothing. Raises ``Refused`` with the reason."""
    dest = absolute(destination)
    try:
        location = paths.resolve(env)
    except paths.StorageLocationError as exc:
        raise Refused(str(exc)) from exc
    if location.source == "env":
        raise Refused(
            f"The data folder is pinned to {location.data_root} by {paths.ENV_DATA_DIR} "
            f"(or --data-dir); such a folder is managed by whoever set it and cannot be moved "
            f"here. Unset it to move this installation's data folder."
        )
    pending = journal.read()
    if pending is not None and pending.destination != dest:
        raise Refused(
            f"A move to {pending.destination} is still pending. Finish it first with "
            f"`pidesktop data move {pending.destination}`, or abandon it with "
            f"`pidesktop data move --abandon`."
        )
    data_root, ui_root = location.data_root, location.ui_root
    selected = data_root.parent if location.source == "pointer" else None
    if not data_root.is_dir():
        raise Refused(f"There is no data folder at {data_root} to move.")
    guarded = [
        ("the current data folder", data_root),
        ("the current front-end folder", ui_root),
        ("the installation folder", paths.anchor_dir()),
    ]
    if selected is not None:
        guarded.append(("the current storage location", selected))
    for label, root in guarded:
        if overlaps(dest, root):
            raise Refused(f"{dest} overlaps {label} {root}. Choose a folder that is neither inside it nor contains it.")
    job_id, retry = _check_destination(dest, data_root, pending)
    return MovePlan(dest, data_root, ui_root, location.source, selected, job_id, retry)


def run(
    destination: str | os.PathLike[str],
    *,
    progress: Progress | None = None,
    cancel: threading.Event | None = None,
    env: dict[str, str] | None = None,
) -> MoveResult:
    """Move the data folder to ``destination``; returns once the new location is published."""
    pending = journal.read()
    if pending is not None and pending.destination == absolute(destination) and published(pending):
        return _finish(pending, None, 0, 0, progress or ignore)
    plan = preflight(destination, env=env)
    return _execute(plan, progress or ignore, cancel or threading.Event(), keep_journal=False)


def resume(
    job: PendingMove,
    *,
    progress: Progress | None = None,
    cancel: threading.Event | None = None,
    keep_journal: bool = True,
) -> MoveResult:
    """Complete a journalled move (recopy and re-verify unless it was already published)."""
    progress = progress or ignore
    if published(job):
        return _finish(job, None, 0, 0, progress)
    if not job.source_data_root.is_dir():
        raise Failed(
            f"The pending move from {job.source_data_root} to {job.destination} cannot be "
            f"completed: {job.source_data_root} is no longer there. Reconnect it, or abandon "
            f"the move with `pidesktop data move --abandon`."
        )
    try:
        location = paths.resolve({})
    except paths.StorageLocationError as exc:
        raise Failed(str(exc)) from exc
    if location.data_root != job.source_data_root:
        raise Failed(
            f"The pending move was from {job.source_data_root}, but the active data folder is "
            f"now {location.data_root}. Abandon it with `pidesktop data move --abandon`."
        )
    plan = preflight(job.destination, env={})
    return _execute(plan, progress, cancel or threading.Event(), keep_journal=keep_journal)


def published(job: PendingMove) -> bool:
    """True when the storage pointer already names the job's destination."""
    try:
        value = read_json(paths.pointer_path())
    except (OSError, ValueError):
        return False
    return isinstance(value, dict) and value.get("root") == str(job.destination)


# -- the job -----------------------------------------------------------------------------
def _execute(plan: MovePlan, progress: Progress, cancel: threading.Event, keep_journal: bool) -> MoveResult:
    with writer_lock(plan.source_data_root, ROLE):
        progress("inventory", 0, 0, 0, 0, str(plan.source_data_root))
        trees = [
            inventory.scan(plan.source_data_root, exclude_top=frozenset({WRITER_LOCK})),
            inventory.scan(plan.source_ui_root),
        ]
        _check_space(plan, sum(t.bytes for t in trees))
        job = plan.journal_entry()
        journal.write(job)
        try:
            dest = plan.destination
            dest.mkdir(mode=0o700, parents=True, exist_ok=True)
            marker.write(dest, plan.job_id, plan.source_data_root)
            copier = TreeCopy([Pair(trees[0], dest / "data"), Pair(trees[1], dest / "ui")], progress, cancel)
            copier.copy()
            journal.write(job := job.at("verify"))
            copier.verify()
            expected = validate.counts(dest / "data")
            journal.write(job := job.at("relocate"))
            report = relocate(
                plan.source_data_root,
                dest / "data",
                old_ui_root=plan.source_ui_root,
                new_ui_root=dest / "ui",
                progress=progress,
                cancel=cancel,
                sync=False,
            )
            journal.write(job := job.at("validate"))
            progress("validate", 0, 0, 0, 1, str(dest / "data"))
            validate.validate(dest / "data", expected)
            copier.finish_dirs()
            sync_filesystem(dest)
            progress("validate", 0, 0, 1, 1, str(dest / "data"))
            if cancel.is_set():
                raise Cancelled("The move was cancelled. The active data folder was not changed.")
            journal.write(job := job.at("publish"))
            progress("publish", 0, 0, 0, 1, str(dest))
            paths.write_pointer(dest)
        except Cancelled:
            journal.clear()  # the user chose to stay where they are
            raise
        except StorageJobError:
            if not keep_journal:
                journal.clear()
            raise
        except OSError as exc:
            if not keep_journal:
                journal.clear()
            raise Failed(
                f"Moving the data folder to {plan.destination} failed: {exc}. The active data "
                f"folder {plan.source_data_root} was not changed."
            ) from exc
    return _finish(job, report, copier.bytes_total, copier.files_total, progress)


def _finish(
    job: PendingMove, report: RelocationReport | None, copied_bytes: int, copied_files: int, progress: Progress
) -> MoveResult:
    kept = KeptRoot(
        job.job_id, (job.source_data_root, job.source_ui_root), job.selected_root, job.destination, now_ms()
    )
    old_roots.add(kept)
    journal.clear()
    progress("done", 0, 0, 1, 1, str(job.destination))
    return MoveResult(
        job.destination,
        data_root_at(job.destination),
        job.destination / "ui",
        job.job_id,
        copied_bytes,
        copied_files,
        report,
        kept,
    )


# -- preflight helpers -------------------------------------------------------------------
def _check_destination(dest: Path, data_root: Path, pending: PendingMove | None) -> tuple[str, bool]:
    """(job id, is a retry) for an acceptable destination; ``Refused`` otherwise."""
    if os.path.lexists(dest) and not dest.is_dir():
        raise Refused(f"{dest} exists and is not a folder.")
    if dest.is_dir():
        if not _writable(dest):
            raise Refused(f"{dest} is not writable.")
        if not os.listdir(dest):
            return (pending.job_id if pending else str(uuid.uuid4())), False
        earlier = marker.matching_job(dest, data_root)
        if earlier is not None:
            return earlier, True
        if pending is not None and marker.only_marker_debris(dest):
            return pending.job_id, True
        raise Refused(
            f"{dest} is not empty. Choose an empty folder, or a new folder name; pidesktop "
            f"never mixes its data with other files."
        )
    ancestor = nearest_existing(dest)
    if not ancestor.is_dir():
        raise Refused(f"Cannot create {dest}: {ancestor} is not a folder.")
    if not _writable(ancestor):
        raise Refused(f"Cannot create {dest}: {ancestor} is not writable.")
    return (pending.job_id if pending else str(uuid.uuid4())), False


def _writable(folder: Path) -> bool:
    try:
        if os.statvfs(folder).f_flag & os.ST_RDONLY:
            return False
    except OSError:
        return False
    return os.access(folder, os.W_OK | os.X_OK)


def _check_space(plan: MovePlan, needed: int) -> None:
    already = tree_size(plan.destination)[0] if plan.retry else 0
    free = inventory.free_bytes(plan.destination)
    if free + already < needed + SPACE_MARGIN:
        raise Refused(
            f"{plan.destination} has {free >> 20} MiB free; the data folder needs "
            f"{(needed + SPACE_MARGIN - already) >> 20} MiB. Nothing was changed."
        )
