"""``pidesktop data backup PATH``: a consistent copy of ``pi.sqlite``, safe beside a running host.

SQLite's online backup API reads the database through a separate read-only
connection in one read transaction (held open across the copy's steps), so a
host that keeps writing is neither blocked nor able to tear the copy, and the
copy can report its progress (and be stopped) between steps. The copy is written next to the target
under a temporary name (mode 0600), switched to a self-contained rollback
journal, reopened read-only and checked (``integrity_check``,
``foreign_key_check``), and only then renamed to ``PATH``.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import apsw

from pidesktop.durable import FILE_MODE
from pidesktop.formats.index.schema import DB_NAME
from pidesktop.paths import fsync_dir
from pidesktop.storage.errors import Failed, Refused
from pidesktop.storage.sqlite_ro import integrity_problems, open_readonly, table_counts, user_version

STEP_PAGES = 1024  # pages copied between two progress reports

# ``progress(phase, done, total)``: ``copy`` (pages), then ``check``. It may raise
# (``errors.Cancelled``) to stop the copy between steps; nothing is kept then.
StepProgress = Callable[[str, int, int], None]


@dataclass(frozen=True)
class BackupResult:
    path: Path
    bytes: int
    schema_version: int
    rows: dict[str, int]


def check_target(target: str | os.PathLike[str], example: bool = True) -> Path:
    """The backup file ``target`` names, or ``Refused`` saying what is wrong with it (nothing is created).

    ``example`` adds the path relative to this process's working folder to the
    refusal of a relative path (useful on a command line, not in a window).
    """
    raw = os.fspath(target)
    if not raw.strip():
        raise Refused("The backup path is empty; give the full path of a new file.")
    if not os.path.isabs(raw):
        hint = f"; for example {os.path.join(os.getcwd(), raw)}" if example else ""
        raise Refused(f"The backup path must be absolute (it was {raw!r}){hint}.")
    dest = Path(os.path.normpath(raw))
    if os.path.lexists(dest):
        raise Refused(f"{dest} already exists; choose a new file name.")
    if not dest.parent.is_dir():
        raise Refused(f"The folder {dest.parent} does not exist.")
    return dest


def backup(data_root: Path, target: str | os.PathLike[str], progress: StepProgress | None = None) -> BackupResult:
    dest = check_target(target)
    db = data_root / DB_NAME
    if not db.is_file():
        raise Refused(f"There is no database at {db}.")
    tmp = dest.with_name(f".{dest.name}.partial-{os.getpid()}")
    try:
        os.close(os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, FILE_MODE))
        _copy(db, tmp, progress)
        os.chmod(tmp, FILE_MODE)
        if progress is not None:
            progress("check", 0, 1)
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


def _copy(db: Path, tmp: Path, progress: StepProgress | None = None) -> None:
    source = open_readonly(db)
    try:
        target = apsw.Connection(str(tmp))
        try:
            # One read transaction for every step: the copy is one consistent snapshot, and a
            # writer's commits between steps neither tear it nor make it start over.
            source.execute("BEGIN")
            source.execute("SELECT count(*) FROM sqlite_master").fetchall()
            try:
                with target.backup("main", source, "main") as job:
                    while not job.step(STEP_PAGES if progress is not None else -1):
                        assert progress is not None  # step(-1) copies every page at once
                        total = job.page_count
                        progress("copy", total - job.remaining, total)
                    if progress is not None:
                        progress("copy", job.page_count, job.page_count)
            finally:
                source.execute("COMMIT")
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


def copy_database(db: Path, target: Path, progress: StepProgress | None = None) -> None:
    """A consistent copy of ``db`` at ``target`` through SQLite's online backup (a standalone file)."""
    _copy(db, target, progress)
