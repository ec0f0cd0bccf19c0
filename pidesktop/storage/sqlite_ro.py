"""Read-only access to a ``pi.sqlite`` that never writes the file itself.

A read-only handle works beside a running host (WAL readers do not block the
writer) and cannot change the database, which is what status, verify, backup
and the copy's validation need.
"""

from __future__ import annotations

from pathlib import Path
from urllib.parse import quote

import apsw


def open_readonly(db: Path) -> apsw.Connection:
    conn = apsw.Connection(f"file:{quote(str(db))}?mode=ro", flags=apsw.SQLITE_OPEN_READONLY | apsw.SQLITE_OPEN_URI)
    conn.execute("PRAGMA busy_timeout = 5000")
    return conn


def integrity_problems(conn: apsw.Connection) -> list[str]:
    """What ``integrity_check`` and ``foreign_key_check`` report; empty when both are clean."""
    problems = [row[0] for row in conn.execute("PRAGMA integrity_check") if row[0] != "ok"]
    for table, rowid, parent, _fk in conn.execute("PRAGMA foreign_key_check"):
        problems.append(f"foreign key: {table} row {rowid} points at a missing {parent} row")
    return problems


def table_counts(conn: apsw.Connection) -> dict[str, int]:
    names = [
        row[0]
        for row in conn.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name"
        )
    ]
    return {name: conn.execute(f'SELECT count(*) FROM "{name}"').fetchone()[0] for name in names}


def user_version(conn: apsw.Connection) -> int:
    return conn.execute("PRAGMA user_version").fetchone()[0]
