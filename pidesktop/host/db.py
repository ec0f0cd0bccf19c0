"""Opening ``pi.sqlite``: version check, pragmas, and the fresh-install DDL.

The version is read from a read-only handle first, so a database this build
cannot serve (newer, or an older schema that needs a migration this build does
not have) is refused with ``SCHEMA_INCOMPATIBLE`` and left byte-identical.
"""

from __future__ import annotations

import logging
import os
from pathlib import Path

import apsw

from ..bus.errors import ErrorCode, HostError
from ..paths import FILE_MODE
from .schema import SCHEMA_VERSION, ddl

log = logging.getLogger("pidesktop.host.db")

DB_NAME = "pi.sqlite"

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


def open_database(path: Path) -> apsw.Connection:
    """Open (or create) the index database at ``path``, ready for the host."""
    fresh = _is_fresh(path) or _check_version(path) == 0
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
            conn.execute("PRAGMA auto_vacuum = INCREMENTAL")
        for pragma in PRAGMAS:
            conn.execute(pragma)
        if fresh:
            with conn:
                conn.execute(ddl())
                conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
            log.info("created a fresh schema v%s database at %s", SCHEMA_VERSION, path)
    except BaseException:
        conn.close()
        raise
    os.chmod(path, FILE_MODE)
    return conn


def user_version(conn: apsw.Connection) -> int:
    return conn.execute("PRAGMA user_version").fetchone()[0]


def _is_fresh(path: Path) -> bool:
    try:
        return path.stat().st_size == 0
    except FileNotFoundError:
        return True


def _check_version(path: Path) -> int:
    """The schema version of an existing file, refusing any this build cannot serve.

    Returns 0 for a file with no tables (treated as a fresh database).
    """
    try:
        probe = apsw.Connection(str(path), flags=apsw.SQLITE_OPEN_READONLY)
    except apsw.Error as exc:
        raise HostError(ErrorCode.STORAGE_UNAVAILABLE, f"Cannot open {path}: {exc}") from exc
    try:
        version = user_version(probe)
        tables = probe.execute("SELECT count(*) FROM sqlite_master").fetchone()[0]
    except apsw.Error as exc:
        raise HostError(ErrorCode.STORAGE_UNAVAILABLE, f"{path} is not a readable SQLite database: {exc}") from exc
    finally:
        probe.close()
    if version == SCHEMA_VERSION:
        return version
    if version > SCHEMA_VERSION:
        raise HostError(
            ErrorCode.SCHEMA_INCOMPATIBLE,
            f"{path} was written by a newer pidesktop (schema v{version}); this version reads "
            f"v{SCHEMA_VERSION}. Nothing was changed. Update pidesktop to open it.",
            {"schemaVersion": version},
        )
    if version == 0 and tables == 0:
        return 0
    raise HostError(
        ErrorCode.SCHEMA_INCOMPATIBLE,
        f"{path} has schema v{version}, which this version cannot upgrade yet (it reads "
        f"v{SCHEMA_VERSION}). Nothing was changed.",
        {"schemaVersion": version},
    )
