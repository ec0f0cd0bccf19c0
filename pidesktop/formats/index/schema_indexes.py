"""Secondary indexes are derived data: put back the v27 ones, drop foreign ones (spec 004, section 7).

A database another implementation wrote may lack an index the v27 DDL names
(spec 004 does not name every one, e.g. the one-in-progress index of
``session_todo``) or carry the same index under another name. Neither is a
reason to refuse it: ``reconcile_indexes`` creates every missing v27 index and
drops every other index on a v27 table, each with a log line. Only data that
breaks a UNIQUE index refuses (``BrokenIndexData``).
Indexes on tables v27 does not know are left alone.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from functools import lru_cache

import apsw

from pidesktop.formats.index.schema import ddl

log = logging.getLogger("pidesktop.formats.index.schema_indexes")


class BrokenIndexData(Exception):
    """Rows break a UNIQUE index of v27: the data, not the index, is wrong; ``where`` names the index."""

    def __init__(self, name: str, table: str) -> None:
        super().__init__(
            f"the index {name} of schema v27 cannot be created: rows of {table} break its uniqueness (broken data)"
        )
        self.reason = str(self)
        self.where = name


@dataclass
class IndexRepair:
    created: list[str] = field(default_factory=list)
    dropped: list[str] = field(default_factory=list)


@lru_cache(maxsize=1)
def v27_indexes() -> dict[str, tuple[str, str]]:
    """name -> (table, CREATE INDEX text) of every index the v27 DDL creates."""
    conn = apsw.Connection(":memory:")
    try:
        conn.execute(ddl())
        rows = conn.execute("SELECT name, tbl_name, sql FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL")
        return {str(name): (str(table), str(sql)) for name, table, sql in rows}
    finally:
        conn.close()


@lru_cache(maxsize=1)
def _v27_tables() -> frozenset[str]:
    conn = apsw.Connection(":memory:")
    try:
        conn.execute(ddl())
        return frozenset(str(name) for (name,) in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'"))
    finally:
        conn.close()


def index_drift(conn: apsw.Connection) -> tuple[list[str], list[str]]:
    """``(missing v27 indexes whose table exists, unknown indexes on v27 tables)``, both sorted."""
    present = {
        str(name): str(table)
        for name, table in conn.execute(
            "SELECT name, tbl_name FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL"
        )
    }
    tables = {str(name) for (name,) in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    expected = v27_indexes()
    missing = sorted(name for name, (table, _sql) in expected.items() if name not in present and table in tables)
    unknown = sorted(name for name, table in present.items() if name not in expected and table in _v27_tables())
    return missing, unknown


def reconcile_indexes(conn: apsw.Connection) -> IndexRepair:
    """Drop unknown indexes on v27 tables, then create the missing v27 ones; the caller holds a transaction.

    A missing UNIQUE index whose rows collide raises ``BrokenIndexData``:
    that is broken data, which the caller refuses.
    """
    missing, unknown = index_drift(conn)
    repair = IndexRepair()
    for name in unknown:
        conn.execute(f'DROP INDEX "{name}"')
        log.warning("dropped index %s: schema v27 does not define it (indexes are derived, nothing is lost)", name)
        repair.dropped.append(name)
    for name in missing:
        table, sql = v27_indexes()[name]
        try:
            conn.execute(sql)
        except apsw.ConstraintError as exc:
            raise BrokenIndexData(name, table) from exc
        log.warning("created index %s of schema v27, which this database lacked", name)
        repair.created.append(name)
    return repair
