"""``state backup``: a verified copy made with the SQLite backup API.

The copy is written under a temporary name beside the destination (mode
0600), switched to a self-contained rollback-journal file, reopened
read-only and verified (integrity, foreign keys, schema). Only then is it
linked to the destination, which must not exist yet: a backup never
overwrites a file. A writer that opens a restored copy sets WAL again.
"""

from __future__ import annotations

import os
import secrets
from pathlib import Path

import apsw

from pidesktop.durable import FILE_MODE
from pidesktop.workflows import db, paths, status
from pidesktop.workflows.errors import StorageError, UsageError, VerificationFailed


def backup(path: str | os.PathLike | None, dest: str | os.PathLike) -> dict:
    """Back the database at ``path`` (None: the default) up to the absolute path ``dest``."""
    raw = os.fspath(dest)
    if not os.path.isabs(raw):
        raise UsageError(f"The backup destination must be an absolute path, not {raw!r}.")
    destination = Path(os.path.normpath(raw))
    if destination.exists() or any(p.exists() for p in paths.sidecars(destination)):
        raise StorageError(f"{destination} already exists; a backup never overwrites a file. Choose a new path.")
    if not destination.parent.is_dir():
        raise StorageError(f"The folder {destination.parent} does not exist.")
    source = db.open_reader(path)
    if source.path == destination:
        source.close()
        raise UsageError("The backup destination is the database itself.")
    temp = destination.with_name(f".{destination.name}.partial-{os.getpid()}-{secrets.token_hex(4)}")
    try:
        try:
            pages = _copy(source, temp)
        finally:
            source.close()
        report = status.verify(temp)
        if not report["ok"]:
            raise VerificationFailed(f"The backup did not verify; nothing was kept at {destination}.", report)
        try:
            os.link(temp, destination)
        except FileExistsError as exc:
            raise StorageError(f"{destination} appeared while backing up; nothing was overwritten.") from exc
        paths.fsync_dir(destination.parent)
    except OSError as exc:
        raise StorageError(f"Cannot write the backup {destination}: {exc}") from exc
    finally:
        paths.remove_with_sidecars(temp)
    report["path"] = str(destination)
    return {
        "ok": True,
        "source": str(source.path),
        "destination": str(destination),
        "pages": pages,
        "bytes": destination.stat().st_size,
        "verify": report,
    }


def _copy(source: db.Store, temp: Path) -> int:
    os.close(os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, FILE_MODE))
    target = apsw.Connection(str(temp), flags=apsw.SQLITE_OPEN_READWRITE)
    try:
        # One step: the whole copy is read in a single snapshot. Stepping in
        # slices would restart each time another process commits.
        with target.backup("main", source.conn, "main") as job:
            job.step(-1)
            pages = job.page_count
        target.execute("PRAGMA journal_mode = DELETE").fetchall()
    except apsw.Error as exc:
        raise StorageError(f"The SQLite backup failed: {exc}") from exc
    finally:
        target.close()
    os.chmod(temp, FILE_MODE)
    fd = os.open(temp, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
    return pages
