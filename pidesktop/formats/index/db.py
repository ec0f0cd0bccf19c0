"""Opening ``pi.sqlite``: version check, migration, pragmas, and the fresh-install DDL.

The version is read first without writing anything (``migrations.needs_migration``):
a newer database, or one this build cannot read, is refused and left
byte-identical; an older one is migrated (``migrations.migrate``: backup,
one transaction) before the host serves anything. At every start a v27
database that lacks a table, view, trigger or column of the v27 DDL is refused
(the migration's final check), and a missing v27 index is created and an
unknown one dropped (``schema_indexes``): indexes are derived, never a reason
to refuse.
"""

from __future__ import annotations

import logging
import os
from pathlib import Path

import apsw

from pidesktop.bus.errors import ErrorCode, HostError
from pidesktop.durable import FILE_MODE
from pidesktop.formats.index import migrations
from pidesktop.formats.index.migrations import MigrationReport
from pidesktop.formats.index.schema import SCHEMA_VERSION, create_fresh
from pidesktop.formats.index.schema_indexes import (
    BrokenIndexData,
    index_drift,
    missing_structure,
    reconcile_indexes,
)
from pidesktop.formats.index.sql_rows import one_row

log = logging.getLogger("pidesktop.formats.index.db")


# Spec 004, section 3, in order. auto_vacuum is set only at creation.
PRAGMAS = (
    "PRAGMA journal_mode = WAL",
    "PRAGMA synchronous = NORMAL",
    "PRAGMA foreign_keys = ON",
    "PRAGMA busy_timeout = 5000",
    "PRAGMA temp_store = MEMORY",
    "PRAGMA cache_size = -16000",
    "PRAGMA trusted_schema = ON",
)


def open_database(path: Path, progress: migrations.Progress | None = None) -> apsw.Connection:
    """Open (or create, or migrate) the index database at ``path``, ready for the host."""
    return open_migrated(path, progress)[0]


def open_migrated(
    path: Path, progress: migrations.Progress | None = None
) -> tuple[apsw.Connection, MigrationReport | None]:
    """``open_database``, also returning what a migration did (None when none ran)."""
    report = None
    try:
        if migrations.needs_migration(path) is not None:
            report = migrations.migrate(path, progress)
        fresh = migrations.probe(path)[1] == 0  # missing, empty, or no tables yet
    except HostError as exc:
        if isinstance(exc.__cause__, apsw.CorruptError):
            raise exc.__cause__ from None  # a damaged schema page: the host sets the file aside and rebuilds it
        raise
    if fresh and not path.exists():
        # Create the file owner-only before SQLite touches it; an empty file
        # is a new database to SQLite.
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT, FILE_MODE))
    try:
        conn = apsw.Connection(str(path))
    except apsw.Error as exc:
        raise HostError(ErrorCode.STORAGE_UNAVAILABLE, f"Cannot open {path}: {exc}") from exc
    try:
        if fresh:
            create_fresh(conn)
        for pragma in PRAGMAS:
            conn.execute(pragma)
        if fresh:
            log.info("created a fresh schema v%s database at %s", SCHEMA_VERSION, path)
        found = user_version(conn)
        if found != SCHEMA_VERSION:
            raise HostError(
                ErrorCode.SCHEMA_INCOMPATIBLE,
                f"{path} has schema v{found} after opening; this version reads v{SCHEMA_VERSION}.",
                {"schemaVersion": found},
            )
        if not fresh:
            _check_structure(conn, path)
            _repair_indexes(conn, path)
    except BaseException:
        conn.close()
        raise
    os.chmod(path, FILE_MODE)
    return conn, report


def _check_structure(conn: apsw.Connection, path: Path) -> None:
    """Every start: a v27 database lacking a table or column of v27 is refused, as a migration's check does."""
    problem = missing_structure(conn)
    if problem is None:
        return
    reason, where = problem
    log.error("%s cannot be opened: %s", path, reason)
    raise HostError(
        ErrorCode.SCHEMA_INCOMPATIBLE,
        f"{path.name} cannot be opened: {reason}. Nothing was changed.",
        {"schemaVersion": SCHEMA_VERSION, "reason": reason, "where": where},
    )


def _repair_indexes(conn: apsw.Connection, path: Path) -> None:
    """Every start: put back a missing v27 index, drop a foreign one (derived data; see ``schema_indexes``)."""
    missing, unknown = index_drift(conn)
    if not missing and not unknown:
        return  # the usual case: no write at all
    try:
        with conn:
            reconcile_indexes(conn)
    except BrokenIndexData as exc:
        raise HostError(
            ErrorCode.SCHEMA_INCOMPATIBLE,
            f"{path.name} cannot be opened: {exc.reason}. Nothing was changed.",
            {"schemaVersion": SCHEMA_VERSION, "reason": exc.reason, "where": exc.where},
        ) from exc


def user_version(conn: apsw.Connection) -> int:
    version: int = one_row(conn.execute("PRAGMA user_version"))[0]
    return version
