"""The compiled schema: its DDL, its digest, and the exact shape it produces.

``schema.sql`` is the only DDL. Its SHA-256 is written to ``schema_meta`` when
a database is created, and opening code compares both that digest and the
file's actual shape (tables, columns, indexes, foreign keys, triggers) with a
copy of the DDL built in memory. Any difference refuses the file.
"""

from __future__ import annotations

import functools
import hashlib
from importlib import resources
from typing import Any

import apsw

SCHEMA_VERSION = 1
APPLICATION_ID = 0x50495746  # "PIWF"
FORMAT = "pi-workflows-state"
META_KEYS = ("format", "schema_version", "ddl_sha256", "created_at")

# Statistics tables that ANALYZE may add are not schema.
_IGNORED = "sqlite_stat%"


@functools.cache
def ddl() -> str:
    return resources.files(__package__).joinpath("schema.sql").read_text(encoding="utf-8")


@functools.cache
def ddl_digest() -> str:
    return hashlib.sha256(ddl().encode("utf-8")).hexdigest()


def table_names() -> list[str]:
    return sorted(expected_shape()["tables"])


def meta_rows(created_at: int) -> list[tuple[str, str]]:
    return [
        ("format", FORMAT),
        ("schema_version", str(SCHEMA_VERSION)),
        ("ddl_sha256", ddl_digest()),
        ("created_at", str(created_at)),
    ]


def shape(conn: apsw.Connection) -> dict:
    """Everything SQLite knows about the schema, in a comparable form."""
    objects = [
        tuple(row)
        for row in conn.execute(
            "SELECT type, name, tbl_name, sql FROM sqlite_schema WHERE name NOT LIKE ? ORDER BY type, name",
            (_IGNORED,),
        )
    ]
    tables = {}
    for name, kind, without_rowid, strict in conn.execute(
        "SELECT name, type, wr, strict FROM pragma_table_list WHERE schema = 'main' ORDER BY name"
    ):
        if name.startswith("sqlite_"):
            continue
        indexes = {}
        for _, index, unique, origin, partial in conn.execute(
            'SELECT seq, name, "unique", origin, partial FROM pragma_index_list(?) ORDER BY name', (name,)
        ):
            columns = [tuple(r) for r in conn.execute("SELECT * FROM pragma_index_xinfo(?)", (index,))]
            indexes[index] = {"unique": unique, "origin": origin, "partial": partial, "columns": columns}
        tables[name] = {
            "type": kind,
            "strict": strict,
            "withoutRowid": without_rowid,
            "columns": [tuple(r) for r in conn.execute("SELECT * FROM pragma_table_xinfo(?)", (name,))],
            "foreignKeys": [tuple(r) for r in conn.execute("SELECT * FROM pragma_foreign_key_list(?)", (name,))],
            "indexes": indexes,
        }
    return {"objects": objects, "tables": tables}


@functools.cache
def expected_shape() -> dict:
    conn = apsw.Connection(":memory:")
    try:
        conn.execute(ddl())
        return shape(conn)
    finally:
        conn.close()


def shape_problems(actual: dict, expected: dict | None = None) -> list[str]:
    """Readable differences between a file's shape and the compiled one."""
    expected = expected_shape() if expected is None else expected
    problems = []
    want = {(t, n): (tbl, sql) for t, n, tbl, sql in expected["objects"]}
    have = {(t, n): (tbl, sql) for t, n, tbl, sql in actual["objects"]}
    for key in sorted(want.keys() - have.keys()):
        problems.append(f"missing {key[0]} {key[1]}")
    for key in sorted(have.keys() - want.keys()):
        problems.append(f"unexpected {key[0]} {key[1]}")
    for key in sorted(want.keys() & have.keys()):
        if want[key] != have[key]:
            problems.append(f"{key[0]} {key[1]} has a different definition")
    for name in sorted(expected["tables"].keys() & actual["tables"].keys()):
        problems.extend(_table_problems(name, actual["tables"][name], expected["tables"][name]))
    return problems


def _table_problems(name: str, have: dict, want: dict) -> list[str]:
    problems = []
    if have["strict"] != want["strict"]:
        problems.append(f"table {name} is {'not ' if want['strict'] else ''}STRICT")
    want_cols = {c[1]: c for c in want["columns"]}
    have_cols = {c[1]: c for c in have["columns"]}
    for col in sorted(want_cols.keys() - have_cols.keys()):
        problems.append(f"table {name} is missing column {col}")
    for col in sorted(have_cols.keys() - want_cols.keys()):
        problems.append(f"table {name} has unexpected column {col}")
    for col in sorted(want_cols.keys() & have_cols.keys()):
        if want_cols[col] != have_cols[col]:
            problems.append(f"table {name} column {col} differs")
    if [c[1] for c in have["columns"]] != [c[1] for c in want["columns"]] and not problems:
        problems.append(f"table {name} columns are in a different order")
    if have["foreignKeys"] != want["foreignKeys"]:
        problems.append(f"table {name} foreign keys differ")
    for index in sorted(want["indexes"].keys() ^ have["indexes"].keys()):
        side = "missing" if index in want["indexes"] else "unexpected"
        problems.append(f"table {name}: {side} index {index}")
    for index in sorted(want["indexes"].keys() & have["indexes"].keys()):
        if want["indexes"][index] != have["indexes"][index]:
            problems.append(f"table {name}: index {index} differs")
    return problems


def integer(conn: apsw.Connection, sql: str, params: tuple[Any, ...] = ()) -> int:
    """The one integer a query such as ``count(*)`` or ``PRAGMA user_version`` answers."""
    row = conn.execute(sql, params).fetchone()
    if row is None or not isinstance(row[0], int):
        raise TypeError(f"{sql!r} did not answer one integer")
    return row[0]


def problems(conn: apsw.Connection) -> list[str]:
    """Every reason ``conn``'s database is not this schema; empty when it is."""
    found = []
    app_id = integer(conn, "PRAGMA application_id")
    if app_id != APPLICATION_ID:
        found.append(f"application id is {app_id:#010x}, expected {APPLICATION_ID:#010x}")
    version = integer(conn, "PRAGMA user_version")
    if version != SCHEMA_VERSION:
        found.append(f"user version is {version}, expected {SCHEMA_VERSION}")
    if found:
        return found
    try:
        meta: dict[Any, Any] = {
            key: value for key, value in conn.execute("SELECT key, value FROM schema_meta").fetchall()
        }
    except apsw.SQLError:
        return found + ["schema_meta is missing"]
    expected = dict(meta_rows(0))
    if sorted(meta) != sorted(META_KEYS):
        found.append("schema_meta has different keys")
    for key in ("format", "schema_version"):
        if meta.get(key) != expected[key]:
            found.append(f"schema_meta {key} is {meta.get(key)!r}, expected {expected[key]!r}")
    if meta.get("ddl_sha256") != ddl_digest():
        found.append("compiled DDL digest differs from the one recorded in schema_meta")
    found.extend(shape_problems(shape(conn)))
    return found
