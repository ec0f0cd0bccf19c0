"""``pidesktop data backup PATH``: a consistent copy of ``pi.sqlite``, safe beside a running host.

SQLite's online backup API reads the database through a separate read-only
connection in one read transaction, so a host that keeps writing is neither
blocked nor able to tear the copy. The copy is written next to the target
under a temporary name (mode 0600), switched to a self-contained rollback
journal, reopened read-only and checked (``integrity_check``,
``foreign_key_check``), and only then renamed to ``PATH``.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import apsw

from ..host.db import DB_NAME
from ..paths import FILE_MODE, fsync_dir
from .errors import Failed, Refused
from .sqlite_ro import integrity_problems, open_readonly, table_counts, user_version


@dataclass(frozen=True)
class BackupResult:
    path: Path
    bytes: int
    schema_version: int
    rows: dict[str, int]


def backup(data_root: Path, target: str | os.PathLike) -> BackupResult:
    raw = os.fspath(target)
    if not os.path.isabs(raw):
        raise Refused(f"The backup path must be absolute (it was {raw!r}); for example "
                      f"{os.path.join(os.getcwd(), raw)}.")
    dest = Path(os.path.normpath(raw))
    if os.path.lexists(dest):
        raise Refused(f"{dest} already exists; choose a new file name.")
    if not dest.parent.is_dir():
        raise Refused(f"The folder {dest.parent} does not exist.")
    db = data_root / DB_NAME
    if not db.is_file():
        raise Refused(f"There is no database at {db}.")
    tmp = dest.with_name(f".{dest.name}.partial-{os.getpid()}")
    try:
        os.close(os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, FILE_MODE))
        _copy(db, tmp)
        os.chmod(tmp, FILE_MODE)
        result = _check(tmp, dest)
        os.replace(tmp, dest)
        fsync_dir(dest.parent)
        return result
    except apsw.Error as exc:
        raise Failed(f"Backing up {db} to {dest} failed: {exc}") from exc
    except OSError as exc:
        raise Failed(f"Backing up {db} to {dest} failed: {exc}") from exc
    finally:
        for leftover in (tmp, Path(f"{tmp}-journal"), Path(f"{tmp}-wal"), Path(f"{tmp}-shm")):
            try:
                leftover.unlink()
            except FileNotFoundError:
                pass


def _copy(db: Path, tmp: Path) -> None:
    source = open_readonly(db)
    try:
        target = apsw.Connection(str(tmp))
        try:
            with target.backup("main", source, "main") as job:
                job.step(-1)  # all pages in one read transaction: a consistent snapshot
            # The pages carry the source's WAL flag; a backup file should stand alone.
            target.execute("PRAGMA journal_mode = DELETE")
            fd = os.open(tmp, os.O_RDONLY)
            try:
                os.fsync(fd)
            finally:
                os.close(fd)
        finally:
            target.close()
    finally:
        source.close()


def _check(tmp: Path, dest: Path) -> BackupResult:
    conn = open_readonly(tmp)
    try:
        problems = integrity_problems(conn)
        version = user_version(conn)
        rows = table_counts(conn)
    finally:
        conn.close()
    if problems:
        raise Failed(f"The backup failed its check and was not kept: {'; '.join(problems[:5])}")
    return BackupResult(dest, tmp.stat().st_size, version, rows)
