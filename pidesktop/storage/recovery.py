"""Start-up recovery: finish interrupted work, and the missing-default-root choice.

Call :func:`before_host_start` (or :func:`resume_pending`) before any host
opens a data root. A journal left by a move that died mid-way is completed
there - recopied and re-verified from the untouched source - or, when that is
impossible (the source is gone, a host holds it), start-up is refused with a
:class:`RecoveryError` that says what to do. A root pinned by
``PI_DESKTOP_DATA_DIR`` stays outside this flow.

:func:`check_default_root` tells a front end whether the installation's
default data root has gone missing (as opposed to a first run); the front end
then offers "create a fresh data folder" (:func:`create_fresh_default`) or
"select an existing one" (:func:`select_existing`). Dismissing changes nothing.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from pidesktop import paths
from pidesktop.formats.index.schema import DB_NAME
from pidesktop.storage import cache_request, journal
from pidesktop.storage.errors import (
    RecoveryError as RecoveryError,  # raised here; callers catch it as recovery.RecoveryError
)
from pidesktop.storage.errors import StorageJobError
from pidesktop.storage.fsutil import absolute, read_json, write_json_atomic
from pidesktop.storage.journal import PendingMove
from pidesktop.storage.progress import Progress, StderrProgress

if TYPE_CHECKING:
    from pidesktop.storage import move

INSTALLATION_FILE = "installation.json"  # records that the default data root has been in use

CREATE_FRESH = "create-fresh"
SELECT_EXISTING = "select-existing"


def pending() -> PendingMove | None:
    return journal.read()


def resume_pending(progress: Progress | None = None, cancel: threading.Event | None = None) -> move.MoveResult | None:
    """Complete a pending move; None when nothing is pending. Raises ``RecoveryError`` when it cannot."""
    job = journal.read()
    if job is None:
        return None
    from pidesktop.storage import move  # the copy machinery, imported only when a move is pending (not at every start)

    try:
        return move.resume(job, progress=progress, cancel=cancel, keep_journal=True)
    except StorageJobError as exc:
        raise RecoveryError(
            f"An interrupted move of the data folder to {job.destination} could not be completed: {exc}"
        ) from exc


def abandon_pending() -> PendingMove | None:
    """Forget a pending move; the old root stays active and the partial copy stays where it is."""
    job = journal.read()
    if job is None:
        return None
    from pidesktop.storage import move

    if not move.published(job):
        journal.clear()
        return job
    move.resume(job)  # already published: finishing is all that is left
    return None


def before_host_start(location: paths.StorageLocation, progress: Progress | None = None) -> paths.StorageLocation:
    """The start-up hook: resume pending work, then the location to open (it may have moved)."""
    if location.source == "env":
        return location
    refuse_maintenance_without_root(location)
    if journal.read() is not None:
        resume_pending(progress or StderrProgress("pidesktop: resuming the data folder move"))
        try:
            location = paths.resolve()
        except paths.StorageLocationError as exc:
            raise RecoveryError(str(exc)) from exc
    if location.source == "default" and location.data_root.is_dir():
        _note_default_root_in_use()
    if location.data_root.is_dir():
        cache_request.run_if_requested(location)
    return location


def location_for_host(data_dir: str | None) -> paths.StorageLocation:
    """The data root a window-less host opens: resolved, any pending move finished, prepared.

    Every host without a start-up window (``pidesktop host --stdio``, ``chat``,
    ``export``, ``import``, ``automations run-due``) opens its folder through
    this, so none of them can open the old root while a move is journalled. The
    window does the same steps with its progress shown (``ui/startup/move_window.py``).
    Raises ``StorageLocationError``, ``RecoveryError`` or ``OSError`` with the reason.
    """
    location = before_host_start(paths.resolve(data_dir=data_dir))
    paths.prepare_data_root(location)
    return location


def refuse_maintenance_without_root(location: paths.StorageLocation) -> None:
    """Maintenance waiting for a data folder that is gone refuses start-up (spec 004, section 2).

    A cache cleanup is asked for one data folder and done at the next start. When that folder
    has gone missing, neither "create a fresh one" nor a silent new profile may take its place
    while the job still waits: the person brings the folder back, or cancels the cleanup.
    (Old roots kept after a move are deleted while the app runs, so no such job waits at start.)
    """
    if location.data_root.is_dir() or not cache_request.pending(location):
        return
    raise RecoveryError(
        f"A cleanup of the caches in {location.data_root} is waiting, but that data folder is gone. "
        f"Reconnect or restore it and start pidesktop again, or cancel the cleanup by deleting "
        f"{cache_request.request_path()}."
    )


# -- missing default root ------------------------------------------------------------------
@dataclass(frozen=True)
class DefaultRootCheck:
    """``state``: ``present``, ``first-run``, ``missing`` or ``not-default`` (env or pointer)."""

    state: str
    data_root: Path
    choices: tuple[str, ...] = ()


def check_default_root(env: dict[str, str] | None = None) -> DefaultRootCheck:
    try:
        location = paths.resolve(env)
    except paths.StorageLocationError:
        return DefaultRootCheck("not-default", paths.anchor_dir())
    if location.source != "default":
        return DefaultRootCheck("not-default", location.data_root)
    if location.data_root.is_dir():
        return DefaultRootCheck("present", location.data_root)
    if not (paths.anchor_dir() / INSTALLATION_FILE).exists():
        return DefaultRootCheck("first-run", location.data_root)
    return DefaultRootCheck("missing", location.data_root, (CREATE_FRESH, SELECT_EXISTING))


def create_fresh_default() -> paths.StorageLocation:
    """The "create fresh" choice: an empty default data root (the host fills it on start)."""
    location = paths.resolve({})
    if location.source != "default":
        raise RecoveryError(f"The installation uses {location.data_root}, not the default data folder.")
    paths.prepare_data_root(location)
    return location


def validate_existing(folder: str | Path) -> Path:
    """The storage location to point at for a chosen ``folder``; ``RecoveryError`` if it is not one.

    ``folder`` must contain ``data/pi.sqlite``, or be that ``data`` folder itself.
    """
    chosen = absolute(folder)
    if (chosen / "data" / DB_NAME).is_file():
        return chosen
    if chosen.name == "data" and (chosen / DB_NAME).is_file():
        return chosen.parent
    if (chosen / DB_NAME).is_file():
        raise RecoveryError(
            f'{chosen} holds {DB_NAME} but is not named "data". Choose the folder that '
            f'contains it inside a "data" folder, or rename it to "data".'
        )
    raise RecoveryError(f"{chosen} is not a pidesktop storage location: it has no data/{DB_NAME}.")


def select_existing(folder: str | Path) -> paths.StorageLocation:
    """The "select existing" choice: validate, then publish the pointer; returns the new location."""
    root = validate_existing(folder)
    paths.write_pointer(root)
    return paths.resolve({})


def _note_default_root_in_use() -> None:
    marker = paths.anchor_dir() / INSTALLATION_FILE
    try:
        if read_json(marker) is None:
            write_json_atomic(marker, {"version": 1, "defaultRootInUse": True})
    except (OSError, ValueError):
        pass  # only a hint for check_default_root; never a reason to stop start-up
