"""The database's schema version before any host runs: look, and migrate with progress.

For the start-up window: :func:`schema_state` says whether the data root's
``pi.sqlite`` needs a migration (it reads without writing anything), and
:func:`migrate` runs the same engine the host runs when it opens the database
(``pidesktop.formats.index.migrations``: backup, one transaction, old-or-v27), under the
data root's writer lock, reporting through the storage jobs' ``Progress``.
A refusal or failure raises :class:`MigrationError` (a ``StorageJobError``)
whose ``code`` and ``data`` are the host's (``SCHEMA_INCOMPATIBLE`` or
``STORAGE_UNAVAILABLE``); the database is then exactly as it was.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pidesktop import paths
from pidesktop.bus.errors import HostError
from pidesktop.formats.index import migrations
from pidesktop.formats.index.db import open_database
from pidesktop.formats.index.schema import DB_NAME, SCHEMA_VERSION
from pidesktop.locks import WRITER_LOCK, FileLock, LockHeld
from pidesktop.storage.errors import StorageJobError
from pidesktop.storage.progress import Progress

# Phases reported by :func:`migrate`, in order (``archive`` instead of the middle three for v1-v6).
PHASES = ("checkpoint", "backup", "migrate", "check", "archive", "done")


class MigrationError(StorageJobError):
    """The migration was refused or failed; the database is unchanged. ``code``/``data`` as the host's error."""

    def __init__(self, message: str, code: str, data: dict[str, Any] | None = None):
        super().__init__(message)
        self.code = code
        self.data = data or {}


def database_path(location: paths.StorageLocation) -> Path:
    return location.data_root / DB_NAME


def schema_state(location: paths.StorageLocation) -> dict[str, Any]:
    """``{version, needsMigration, archive, supported, backups: [str], problem}`` without writing anything.

    ``version`` is None when there is no database yet; ``archive`` is true for
    v1-v6 (archived as ``pi.sqlite.v6.bak``, a fresh database replaces it);
    ``problem`` is the refusal's message (a newer version, not SQLite), else None.
    """
    db = database_path(location)
    state: dict[str, Any] = {
        "version": None,
        "needsMigration": False,
        "archive": False,
        "supported": SCHEMA_VERSION,
        "backups": [str(p) for p in migrations.list_backups(db)],
        "problem": None,
    }
    try:
        version, objects = migrations.probe(db)
        if objects or version:
            state["version"] = version
        state["needsMigration"] = migrations.needs_migration(db) is not None
        state["archive"] = state["needsMigration"] and version < migrations.FIRST_MIGRATED
    except HostError as exc:
        state["problem"] = exc.message
    return state


def migrate(location: paths.StorageLocation, progress: Progress | None = None) -> dict[str, Any]:
    """Migrate the data root's database to v27 now, without opening a host.

    Returns ``{fromVersion, toVersion, backups: [str], archived: str | None}``
    (``fromVersion == toVersion`` when there was nothing to do). ``progress``
    gets ``(phase, done, total, 0, 0, "")`` for ``checkpoint``/``check``/
    ``archive``, bytes for ``backup``, and ``(phase, 0, 0, steps_done, steps_total, "")``
    for ``migrate``. Raises :class:`MigrationError` when refused or failed.
    """
    db = database_path(location)
    if not db.exists():
        return migrations.MigrationReport(0, 0).to_json()
    report_progress = _adapter(progress)
    try:
        lock = FileLock(location.data_root / WRITER_LOCK, "migration").acquire()
    except LockHeld as exc:
        raise MigrationError(
            f"The data folder {location.data_root} is in use by {exc.holder}; it cannot be upgraded now.",
            "STORAGE_UNAVAILABLE",
            {"inUseBy": str(exc.holder)},
        ) from exc
    except OSError as exc:
        raise MigrationError(f"Cannot lock the data folder {location.data_root}: {exc}", "STORAGE_UNAVAILABLE") from exc
    try:
        report = migrations.migrate(db, report_progress)
        if report.archived is not None:
            open_database(db).close()  # the fresh v27 file is already there; this is a plain open
    except HostError as exc:
        raise MigrationError(exc.message, exc.code, dict(exc.data)) from exc
    finally:
        lock.release()
    return report.to_json()


def _adapter(progress: Progress | None) -> migrations.Progress | None:
    if progress is None:
        return None

    def report(phase: str, done: int, total: int) -> None:
        if phase == "migrate":
            progress(phase, 0, 0, done, total, "")
        else:
            progress(phase, done, total, 0, 0, "")

    return report
