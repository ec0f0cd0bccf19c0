"""Schema history: every ``pi.sqlite`` from v1 to v27 opens (spec 004, section 7).

One ordered list of steps, each ``(from_version, to_version, function)``,
registered by ``@step`` beside each function in ``migration_steps``; see
``migrate`` for how they run. The API:

- ``STEPS``: the ordered list of ``Step``.
- ``needs_migration(path) -> int | None``: the version of an existing
  database that must be migrated before the host opens it; None when it is
  fresh or current. A newer version raises ``HostError(SCHEMA_INCOMPATIBLE)``
  and leaves the file byte-identical (it is read through an immutable handle:
  no ``-wal``/``-shm`` appears). A file that is not SQLite raises
  ``HostError(STORAGE_UNAVAILABLE)``, also untouched.
- ``migrate(path, progress=None) -> MigrationReport``: walk ``path`` to
  ``SCHEMA_VERSION`` in one call; ``progress(phase, done, total)`` as it goes
  (phases: ``checkpoint``, ``backup`` in bytes, ``migrate`` in steps,
  ``check``, ``archive``, ``done``).

How a walk runs (v7 and later):

1. ``PRAGMA wal_checkpoint(TRUNCATE)``, so the main file alone is the whole
   database, then an exact copy of it, ``pi.sqlite.v<old>.bak`` (mode 0600,
   fsynced, its folder fsynced, ``integrity_check`` on the copy). An existing
   backup of that name with the same bytes is kept and reused; one with other
   bytes is never overwritten: the copy goes to ``pi.sqlite.v<old>.<n>.bak``
   (n = 2, 3, ...).
2. Every step from ``old`` to ``SCHEMA_VERSION`` runs inside ONE transaction,
   each setting ``user_version`` to its ``to_version`` once its changes are in.
   ``user_version`` is transactional, so the file is the old version or v27,
   never in between, whatever kills the process. A step marked ``backup=True``
   has no file of its own "from" version to copy (that state is never
   committed); the initial backup is its pre-image: it was taken before any
   step ran and holds everything the step could change.
3. Before the commit: every missing index of the v27 DDL is created and
   every other index on a v27 table dropped (``schema_indexes``: indexes are
   derived, a database another implementation wrote may name them otherwise);
   then every table, column and trigger of the v27 DDL must be there, no
   UNIQUE index may be broken by the rows, and ``foreign_key_check`` must find no violation that was
   not there before. Then the commit, and a checkpoint.

Any failure rolls everything back: the old schema stays authoritative and
``HostError(SCHEMA_INCOMPATIBLE)`` says which step, why, which value and
where (when the step's exception carries ``where``/``value`` attributes), and
where the backup is.

v1-v6 are not migrated (D119): the file is checkpointed, renamed to
``pi.sqlite.v6.bak`` (whatever its version), its ``-wal``/``-shm`` removed,
and a fresh v27 database is created in its place. Nothing is carried over.
"""

from __future__ import annotations

import filecmp
import logging
import os
import re
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any
from urllib.parse import quote

import apsw

from pidesktop.bus.errors import ErrorCode, HostError
from pidesktop.durable import FILE_MODE, fsync_dir
from pidesktop.formats.index import migration_steps
from pidesktop.formats.index.migration_steps import Step
from pidesktop.formats.index.schema import SCHEMA_VERSION, create_fresh, ddl
from pidesktop.formats.index.schema_indexes import missing_structure, reconcile_indexes
from pidesktop.formats.index.sql_rows import one_row

log = logging.getLogger("pidesktop.formats.index.migrations")

FIRST_MIGRATED = 7  # below this a database is archived, not migrated (spec 004 section 7, D119)
ARCHIVE_VERSION = 6  # every pre-v7 file is archived as pi.sqlite.v6.bak
SQLITE_MAGIC = b"SQLite format 3\x00"
BACKUP_NAME = re.compile(r"(?P<db>.+)\.v(?P<version>[0-9]{1,6})(?:\.(?P<n>[0-9]{1,6}))?\.bak")


@dataclass
class MigrationReport:
    from_version: int
    to_version: int
    backups: list[Path] = field(default_factory=list)  # every .bak this migration wrote (or found identical)
    archived: Path | None = None  # v1-6: where the old file went (nothing carried over)
    seconds: float = 0.0

    @property
    def migrated(self) -> bool:
        return self.from_version != self.to_version or self.archived is not None

    def to_json(self) -> dict[str, Any]:
        """The shape ``app.handshake`` returns as ``migration``."""
        return {
            "fromVersion": self.from_version,
            "toVersion": self.to_version,
            "backups": [str(p) for p in self.backups],
            "archived": str(self.archived) if self.archived else None,
        }


Progress = Callable[[str, int, int], None]

# The steps, each registered beside its function in ``migration_steps``; read through this name, so a test
# can run a walk with steps of its own.
STEPS: list[Step] = list(migration_steps.STEPS)


def _no_progress(phase: str, done: int, total: int) -> None:
    return None


# -- reading the version without touching the file ------------------------------------------------
def probe(path: Path) -> tuple[int, int]:
    """``(user_version, number of schema objects)``; ``(0, 0)`` for a missing or empty file."""
    try:
        size = path.stat().st_size
    except FileNotFoundError:
        return 0, 0
    except OSError as exc:
        raise HostError(ErrorCode.STORAGE_UNAVAILABLE, f"Cannot read {path}: {exc}") from exc
    if size == 0:
        return 0, 0
    try:
        with open(path, "rb") as handle:
            magic = handle.read(len(SQLITE_MAGIC))
    except OSError as exc:
        raise HostError(ErrorCode.STORAGE_UNAVAILABLE, f"Cannot read {path}: {exc}") from exc
    if magic != SQLITE_MAGIC:
        raise HostError(
            ErrorCode.STORAGE_UNAVAILABLE,
            f"{path} is not a SQLite database, so pidesktop cannot open it. Nothing was changed; "
            f"move it aside to start with an empty database.",
            {"reason": "notSqlite"},
        )
    conn = _open_probe(path)
    try:
        version = one_row(conn.execute("PRAGMA user_version"))[0]
        objects = one_row(conn.execute("SELECT count(*) FROM sqlite_master"))[0]
    except apsw.Error as exc:
        raise HostError(
            ErrorCode.STORAGE_UNAVAILABLE,
            f"{path} is not a readable SQLite database: {exc}. Nothing was changed.",
            {"reason": "unreadable"},
        ) from exc
    finally:
        conn.close()
    return version, objects


def _open_probe(path: Path) -> apsw.Connection:
    """Read-only; immutable (no lock files, no sidecars) unless a ``-wal`` with content may hold the truth."""
    uri = f"file:{quote(str(path))}?mode=ro"
    if not _has_content(_sidecar(path, "-wal")) and not _has_content(_sidecar(path, "-journal")):
        uri += "&immutable=1"
    try:
        return apsw.Connection(uri, flags=apsw.SQLITE_OPEN_READONLY | apsw.SQLITE_OPEN_URI)
    except apsw.Error as exc:
        raise HostError(ErrorCode.STORAGE_UNAVAILABLE, f"Cannot open {path}: {exc}") from exc


def _sidecar(path: Path, suffix: str) -> Path:
    return path.with_name(path.name + suffix)


def _has_content(path: Path) -> bool:
    try:
        return path.stat().st_size > 0
    except OSError:
        return False


def needs_migration(path: Path) -> int | None:
    """The version to migrate from, or None (missing, empty, or current). Refusals leave the file as it was."""
    version, objects = probe(path)
    if version == SCHEMA_VERSION or (version == 0 and objects == 0):
        return None
    if version > SCHEMA_VERSION:
        raise HostError(
            ErrorCode.SCHEMA_INCOMPATIBLE,
            f"{path} was written by a newer pidesktop (schema v{version}); this version reads "
            f"v{SCHEMA_VERSION}. Nothing was changed. Update pidesktop to open it.",
            {"schemaVersion": version, "reason": "newer"},
        )
    if version < 1:
        raise HostError(
            ErrorCode.SCHEMA_INCOMPATIBLE,
            f"{path} has tables but no schema version (v{version}); it is not a database pidesktop wrote. "
            f"Nothing was changed.",
            {"schemaVersion": version, "reason": "unversioned"},
        )
    return version


def chain(version: int) -> list[Step]:
    """The steps from ``version`` to ``SCHEMA_VERSION``; refuses (nothing touched) when one is missing."""
    by_from = {step.from_version: step for step in STEPS}
    steps, at = [], version
    while at < SCHEMA_VERSION:
        step = by_from.get(at)
        if step is None or step.to_version <= at:
            raise HostError(
                ErrorCode.SCHEMA_INCOMPATIBLE,
                f"pi.sqlite has schema v{version}, which this version cannot upgrade (it has no step from "
                f"v{at}; it reads v{SCHEMA_VERSION}). Nothing was changed.",
                {"schemaVersion": version, "reason": "noStep", "failedStep": f"v{at}->?"},
            )
        steps.append(step)
        at = step.to_version
    if at != SCHEMA_VERSION:
        raise HostError(
            ErrorCode.SCHEMA_INCOMPATIBLE,
            f"The steps from v{version} end at v{at}, not v{SCHEMA_VERSION}. Nothing was changed.",
            {"schemaVersion": version, "reason": "noStep"},
        )
    return steps


# -- the walk -------------------------------------------------------------------------------------
def migrate(path: Path, progress: Progress | None = None) -> MigrationReport:
    """Bring ``path`` to ``SCHEMA_VERSION``; the caller holds the data root's writer lock."""
    progress = progress or _no_progress
    started = time.perf_counter()
    version = needs_migration(path)
    if version is None:
        current = SCHEMA_VERSION if path.exists() and path.stat().st_size else 0
        return MigrationReport(current, current)
    if version < FIRST_MIGRATED:
        report = _archive_and_reset(path, version, progress)
    else:
        steps = chain(version)
        report = _walk(path, version, steps, progress)
    report.seconds = time.perf_counter() - started
    progress("done", 1, 1)
    log.info(
        "pi.sqlite migrated from v%s to v%s in %.2fs; backups %s; archived %s",
        report.from_version,
        report.to_version,
        report.seconds,
        [str(p) for p in report.backups],
        report.archived,
    )
    return report


def _walk(path: Path, version: int, steps: list[Step], progress: Progress) -> MigrationReport:
    _remove_stale_temporaries(path)
    try:
        conn = apsw.Connection(str(path))
    except apsw.Error as exc:
        raise HostError(ErrorCode.STORAGE_UNAVAILABLE, f"Cannot open {path}: {exc}") from exc
    try:
        conn.execute("PRAGMA busy_timeout = 5000")
        progress("checkpoint", 0, 1)
        _checkpoint(conn, path)
        progress("checkpoint", 1, 1)
        found = one_row(conn.execute("PRAGMA user_version"))[0]
        if found != version:  # another writer moved it between the probe and now: start over cleanly
            raise HostError(
                ErrorCode.STORAGE_UNAVAILABLE,
                f"{path} changed from v{version} to v{found} while it was being opened.",
                {"schemaVersion": found},
            )
        pending = start_backup(path, version, progress)  # copied and fsynced; its check runs alongside
        try:
            if one_row(conn.execute("PRAGMA journal_mode"))[0] != "wal":
                conn.execute("PRAGMA journal_mode = WAL")
            _run_steps(conn, path, version, steps, pending, progress)
        finally:
            pending.discard()
        report = MigrationReport(version, SCHEMA_VERSION, [pending.target])
        try:
            _checkpoint(conn, path)
        except HostError:  # committed already; the WAL is folded in by the next checkpoint
            log.warning("checkpoint after the migration of %s did not complete", path)
    finally:
        conn.close()
    os.chmod(path, FILE_MODE)
    return report


def _checkpoint(conn: apsw.Connection, path: Path) -> None:
    busy, _frames, _done = one_row(conn.execute("PRAGMA wal_checkpoint(TRUNCATE)"))
    if busy:
        raise HostError(
            ErrorCode.STORAGE_UNAVAILABLE,
            f"{path} is in use by another program, so its journal cannot be folded in before the "
            f"upgrade. Nothing was changed; close the other program and start again.",
        )


def _run_steps(
    conn: apsw.Connection, path: Path, version: int, steps: list[Step], pending: PendingBackup, progress: Progress
) -> None:
    """All ``steps`` in one transaction, committed only once the backup is checked and published."""
    conn.execute("PRAGMA foreign_keys = OFF")  # a table rebuild must not cascade; checked before the commit
    conn.execute("PRAGMA synchronous = FULL")
    label = f"v{version}->v{SCHEMA_VERSION}"
    conn.execute("BEGIN IMMEDIATE")
    try:
        try:
            violations_before = _foreign_key_violations(conn)
            for done, step in enumerate(steps):
                label = f"v{step.from_version}->v{step.to_version}"
                progress("migrate", done, len(steps))
                step.apply(conn)
                if conn.getautocommit():
                    raise RuntimeError(f"step {label} ended the migration's transaction; steps must not commit")
                conn.execute(f"PRAGMA user_version = {int(step.to_version)}")
            progress("migrate", len(steps), len(steps))
            label = f"v{version}->v{SCHEMA_VERSION}"
            progress("check", 0, 1)
            _check_result(conn, violations_before)
        except Exception as exc:
            _rollback(conn)
            backup = pending.finish()  # the error names it, so it must be there (or this raises instead)
            raise _step_failed(path, version, label, backup, exc) from exc
        pending.finish()  # nothing is committed before the pre-migration copy is sound and in place
        conn.execute("COMMIT")
        progress("check", 1, 1)
    except BaseException:
        _rollback(conn)
        raise
    finally:
        conn.execute("PRAGMA foreign_keys = ON")


def _rollback(conn: apsw.Connection) -> None:
    if not conn.getautocommit():
        conn.execute("ROLLBACK")


class CheckFailed(Exception):
    """The walked schema is not v27, or it broke a reference; ``where`` names what."""

    def __init__(self, reason: str, where: str | None = None, value: object = None):
        super().__init__(reason)
        self.where = where
        self.value = value


def _check_result(conn: apsw.Connection, violations_before: int) -> None:
    reconcile_indexes(conn)  # derived: created or dropped, never a reason to refuse
    problem = missing_structure(conn)  # the check every start of a v27 database makes too (db.py)
    if problem is not None:
        reason, where = problem
        raise CheckFailed(f"after the steps {reason}", where=where)
    extra = sorted(_shape(conn)["objects"] - _v27_shape()["objects"])
    if extra:
        log.warning("after the migration, objects the v%s DDL does not have remain: %s", SCHEMA_VERSION, extra)
    violations = _foreign_key_violations(conn)
    if violations > violations_before:
        table, rowid, parent, _ = next(iter(conn.execute("PRAGMA foreign_key_check")))
        raise CheckFailed(
            f"after the steps a {table} row points at a missing {parent} row",
            where=f"{table} rowid {rowid}",
            value=rowid,
        )


def _foreign_key_violations(conn: apsw.Connection) -> int:
    return sum(1 for _ in conn.execute("PRAGMA foreign_key_check"))


def _shape(conn: apsw.Connection) -> dict[str, Any]:
    objects = {
        (kind, name)
        for kind, name in conn.execute("SELECT type, name FROM sqlite_master WHERE name NOT LIKE 'sqlite_%'")
    }
    columns = {
        name: frozenset(row[1] for row in conn.execute(f'PRAGMA table_info("{name}")'))
        for kind, name in objects
        if kind == "table"
    }
    return {"objects": objects, "columns": columns}


@lru_cache(maxsize=1)
def _v27_shape() -> dict[str, Any]:
    conn = apsw.Connection(":memory:")
    try:
        conn.execute(ddl())
        return _shape(conn)
    finally:
        conn.close()


def _step_failed(path: Path, version: int, label: str, backup: Path, exc: BaseException) -> HostError:
    if isinstance(exc, HostError):
        reason = exc.message
    else:  # a step's refusal carries reason/where/value (migration_steps.StepRefused); anything else its text
        reason = str(getattr(exc, "reason", None) or exc) or type(exc).__name__
    data = {"schemaVersion": version, "failedStep": label, "backup": str(backup), "reason": reason}
    detail = ""
    where, value = getattr(exc, "where", None), getattr(exc, "value", None)
    if where is not None:
        data["where"] = str(where)
        detail += f" (at {where}"
        if value is not None:
            data["value"] = value if isinstance(value, (str, int, float, bool)) else repr(value)
            detail += f", value {value!r}"
        detail += ")"
    elif value is not None:
        data["value"] = value if isinstance(value, (str, int, float, bool)) else repr(value)
        detail += f" (value {value!r})"
    log.error("migration of %s failed at %s: %s%s", path, label, reason, detail)
    return HostError(
        ErrorCode.SCHEMA_INCOMPATIBLE,
        f"{path.name} could not be upgraded from schema v{version} to v{SCHEMA_VERSION}: step {label} failed: "
        f"{reason}{detail}. Nothing was changed: the database is still v{version}, and an exact copy of it "
        f"is at {backup}.",
        data,
    )


# -- backups --------------------------------------------------------------------------------------
def backup_path(path: Path, version: int, n: int = 1) -> Path:
    """``pi.sqlite.v<version>.bak``; the n-th distinct one (n >= 2) is ``pi.sqlite.v<version>.<n>.bak``."""
    return path.with_name(f"{path.name}.v{version}.bak" if n == 1 else f"{path.name}.v{version}.{n}.bak")


def backup_version(name: str, db_name: str = "pi.sqlite") -> int | None:
    """The version in a backup's file name (``pi.sqlite.v14.bak``, ``pi.sqlite.v14.2.bak`` -> 14); None for any
    other name, the live database's included."""
    match = BACKUP_NAME.fullmatch(name)
    return int(match["version"]) if match and match["db"] == db_name else None


def list_backups(path: Path) -> list[Path]:
    """Every regular ``pi.sqlite.v<n>[.<k>].bak`` beside ``path`` (no links, no folders), by version then number."""
    found = []
    try:
        entries = list(path.parent.iterdir())
    except OSError:
        return []
    for entry in entries:
        match = BACKUP_NAME.fullmatch(entry.name)
        if match and match["db"] == path.name and entry.is_file() and not entry.is_symlink():
            found.append((int(match["version"]), int(match["n"] or 1), entry))
    return [entry for _v, _n, entry in sorted(found)]


def start_backup(path: Path, version: int, progress: Progress | None = None) -> PendingBackup:
    """Copy ``path`` to a hidden temporary and fsync it; its ``integrity_check`` starts on a thread.

    ``finish()`` waits for the check and publishes the copy under its name
    (``os.link``: never over another file), then fsyncs the folder.
    """
    progress = progress or _no_progress
    n = 1
    while True:
        target = backup_path(path, version, n)
        if not os.path.lexists(target):
            break
        if target.is_file() and not target.is_symlink() and filecmp.cmp(path, target, shallow=False):
            log.info("kept the existing identical backup %s", target)
            progress("backup", 1, 1)
            return PendingBackup(path, version, target, None)
        n += 1
    temporary = path.with_name(f".{target.name}.tmp")
    try:
        _copy_durably(path, temporary, progress)
    except OSError as exc:
        _unlink_quietly(temporary)
        raise _backup_failed(path, version, target, str(exc)) from exc
    pending = PendingBackup(path, version, target, temporary)
    pending.start()
    return pending


class PendingBackup:
    def __init__(self, path: Path, version: int, target: Path, temporary: Path | None) -> None:
        self.path, self.version, self.target, self.temporary = path, version, target, temporary
        self._problems: list[str] = []
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        temporary = self.temporary
        if temporary is None:
            return  # an identical backup was already there: nothing to check

        def check() -> None:
            self._problems = _integrity_problems(temporary)

        self._thread = threading.Thread(target=check, name="pi.sqlite backup check", daemon=True)
        self._thread.start()

    def finish(self) -> Path:
        if self.temporary is None:
            return self.target  # an identical backup was already there
        if self._thread is not None:
            self._thread.join()
        if self._problems:
            raise _backup_failed(self.path, self.version, self.target, f"the copy is not sound: {self._problems[0]}")
        try:
            os.link(self.temporary, self.target)  # never replaces a file that appeared meanwhile
            fsync_dir(self.path.parent)
        except OSError as exc:
            raise _backup_failed(self.path, self.version, self.target, str(exc)) from exc
        _unlink_quietly(self.temporary)
        self.temporary = None
        log.info("backed up %s (v%s) to %s", self.path, self.version, self.target)
        return self.target

    def discard(self) -> None:
        """Remove the temporary copy if it was not published (waits for the check first)."""
        if self._thread is not None:
            self._thread.join()
        if self.temporary is not None:
            _unlink_quietly(self.temporary)


def _backup_failed(path: Path, version: int, target: Path, reason: str) -> HostError:
    return HostError(
        ErrorCode.STORAGE_UNAVAILABLE,
        f"Cannot make the backup {target} before upgrading {path.name} (v{version}): {reason}. Nothing was changed.",
        {"schemaVersion": version, "backup": str(target), "reason": reason},
    )


def _unlink_quietly(path: Path) -> None:
    try:
        os.unlink(path)
    except FileNotFoundError:
        pass


def _copy_durably(source: Path, target: Path, progress: Progress) -> None:
    total = source.stat().st_size
    progress("backup", 0, total)
    src = os.open(source, os.O_RDONLY)
    try:
        dst = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL, FILE_MODE)
        try:
            done = 0
            while done < total:
                sent = os.sendfile(dst, src, done, min(64 << 20, total - done))
                if sent == 0:
                    break
                done += sent
                progress("backup", done, total)
            if done != total:
                raise OSError(f"copied {done} of {total} bytes")
            os.fsync(dst)
        finally:
            os.close(dst)
    finally:
        os.close(src)
    os.chmod(target, FILE_MODE)


def _integrity_problems(copy: Path) -> list[str]:
    conn = apsw.Connection(
        f"file:{quote(str(copy))}?mode=ro&immutable=1", flags=apsw.SQLITE_OPEN_READONLY | apsw.SQLITE_OPEN_URI
    )
    try:
        return [row[0] for row in conn.execute("PRAGMA integrity_check") if row[0] != "ok"]
    except apsw.Error as exc:
        return [str(exc)]
    finally:
        conn.close()


def _remove_stale_temporaries(path: Path) -> None:
    """Half-made backup copies a killed migration left (hidden ``.pi.sqlite.v*.bak.tmp``)."""
    for entry in path.parent.glob(f".{path.name}.v*.bak.tmp"):
        try:
            entry.unlink()
        except OSError:
            pass


# -- v1-v6: archive and start fresh ---------------------------------------------------------------
def _archive_and_reset(path: Path, version: int, progress: Progress) -> MigrationReport:
    progress("archive", 0, 1)
    try:
        conn = apsw.Connection(str(path))
        try:
            conn.execute("PRAGMA busy_timeout = 5000")
            _checkpoint(conn, path)
        finally:
            conn.close()
    except apsw.Error as exc:
        raise HostError(ErrorCode.STORAGE_UNAVAILABLE, f"Cannot open {path} to archive it: {exc}") from exc
    n = 1
    while True:
        target = backup_path(path, ARCHIVE_VERSION, n)
        if not os.path.lexists(target) or (target.is_file() and filecmp.cmp(path, target, shallow=False)):
            break
        n += 1
    try:
        os.replace(path, target)  # onto nothing, or onto an identical file
        os.chmod(target, FILE_MODE)
        for suffix in ("-wal", "-shm", "-journal"):
            try:
                os.unlink(_sidecar(path, suffix))
            except FileNotFoundError:
                pass
        fsync_dir(path.parent)
    except OSError as exc:
        raise HostError(
            ErrorCode.STORAGE_UNAVAILABLE, f"Cannot archive {path} as {target}: {exc}", {"schemaVersion": version}
        ) from exc
    log.warning(
        "pi.sqlite had schema v%s (before v7): archived as %s; starting a fresh v%s database; nothing was carried over",
        version,
        target,
        SCHEMA_VERSION,
    )
    _create_fresh_file(path)
    progress("archive", 1, 1)
    return MigrationReport(version, SCHEMA_VERSION, [], target)


def _create_fresh_file(path: Path) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_CREAT, FILE_MODE)
    os.close(fd)
    conn = apsw.Connection(str(path))
    try:
        create_fresh(conn)
    finally:
        conn.close()
    os.chmod(path, FILE_MODE)
