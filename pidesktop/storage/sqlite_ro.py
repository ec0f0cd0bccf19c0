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
    return {name: integer(conn, f'SELECT count(*) FROM "{name}"') for name in names}


def user_version(conn: apsw.Connection) -> int:
    return integer(conn, "PRAGMA user_version")


def integer(conn: apsw.Connection, sql: str) -> int:
    """The one integer a query such as ``count(*)`` or ``PRAGMA user_version`` answers."""
    row = conn.execute(sql).fetchone()
    if row is None or not isinstance(row[0], int):
        raise TypeError(f"{sql!r} did not answer one integer")
    return row[0]
