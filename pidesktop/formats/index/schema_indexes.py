"""Secondary indexes are derived data: put back the v27 ones, drop foreign ones (spec 004, section 7).

A database another implementation wrote may lack an index the v27 DDL names
(spec 004 does not name every one, e.g. the one-in-progress index of
``session_todo``) or carry the same index under another name. Neither is a
reason to refuse it: ``reconcile_indexes`` creates every missing v27 index and
drops every other index on a v27 table, each with a log line. Only data that
breaks a UNIQUE index refuses (``BrokenIndexData``).
Indexes on tables v27 does not know are left alone.

What does refuse is structure: ``missing_structure`` names the first v27
table, view, trigger or column a database lacks. The migration's final check
and every start of a v27 database ask it, so both refuse for the same things.
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


@dataclass(frozen=True)
class _Catalog:
    indexes: dict[str, tuple[str, str]]  # name -> (table, CREATE INDEX text)
    objects: frozenset[tuple[str, str]]  # (type, name) of every table, view and trigger
    columns: dict[str, frozenset[str]]  # table -> its column names


@lru_cache(maxsize=1)
def _v27() -> _Catalog:
    """The v27 DDL's catalogue, read once from an in-memory database."""
    conn = apsw.Connection(":memory:")
    try:
        conn.execute(ddl())
        rows = conn.execute("SELECT name, tbl_name, sql FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL")
        indexes = {str(name): (str(table), str(sql)) for name, table, sql in rows}
        objects, columns = _structure(conn)
        return _Catalog(indexes, objects, columns)
    finally:
        conn.close()


def _structure(conn: apsw.Connection) -> tuple[frozenset[tuple[str, str]], dict[str, frozenset[str]]]:
    objects = frozenset(
        (str(kind), str(name))
        for kind, name in conn.execute(
            "SELECT type, name FROM sqlite_master WHERE type IN ('table', 'view', 'trigger') "
            "AND name NOT LIKE 'sqlite_%'"
        )
    )
    columns: dict[str, set[str]] = {}
    for table, column in conn.execute(
        "SELECT m.name, p.name FROM sqlite_master AS m JOIN pragma_table_info(m.name) AS p "
        "WHERE m.type = 'table' AND m.name NOT LIKE 'sqlite_%'"
    ):
        columns.setdefault(str(table), set()).add(str(column))
    return objects, {table: frozenset(names) for table, names in columns.items()}


def v27_indexes() -> dict[str, tuple[str, str]]:
    """name -> (table, CREATE INDEX text) of every index the v27 DDL creates."""
    return _v27().indexes


def _v27_tables() -> frozenset[str]:
    return frozenset(name for kind, name in _v27().objects if kind == "table")


def missing_structure(conn: apsw.Connection) -> tuple[str, str] | None:
    """``(reason, where)`` for the first v27 table, view, trigger or column ``conn`` lacks; None when none is.

    Tables come first, then views and triggers, then columns. Indexes are not
    asked about: they are derived (``reconcile_indexes``). Objects v27 does
    not have are not a problem either.
    """
    expected = _v27()
    objects, columns = _structure(conn)
    missing = sorted(expected.objects - objects, key=lambda o: (o[0] != "table", o))
    if missing:
        kind, name = missing[0]
        return f"the {kind} {name} of schema v27 is missing", name
    for table, names in sorted(expected.columns.items()):
        lacking = sorted(names - columns.get(table, frozenset()))
        if lacking:
            return f"table {table} lacks column {lacking[0]} of schema v27", f"{table}.{lacking[0]}"
    return None


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
