"""The v27 DDL, shipped as a SQL file next to this module, and the database's file name and version."""

import apsw

DB_NAME = "pi.sqlite"
SCHEMA_VERSION = 27


def ddl() -> str:
    from importlib import resources  # when a database is made or migrated, not at every start

    return resources.files(__package__).joinpath("v27.sql").read_text(encoding="utf-8")


def create_fresh(conn: apsw.Connection) -> None:
    """Make an empty database a v27 one: incremental auto-vacuum before any table, WAL, the DDL.

    The DDL and ``user_version`` go in one transaction, so a file killed half-way
    has no tables and is still "fresh" to the next open.
    """
    conn.execute("PRAGMA auto_vacuum = INCREMENTAL")
    conn.execute("PRAGMA journal_mode = WAL")
    with conn:
        conn.execute(ddl())
        conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
