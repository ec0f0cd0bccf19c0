"""Query results as the schema shapes them.

apsw types a fetched value as any SQLite value; the schema (NOT NULL columns,
aggregates, PRAGMAs) is what says which one a column holds, so rows are read
as ``tuple[Any, ...]`` and each caller names the types it relies on.
"""

from __future__ import annotations

from typing import Any

import apsw


def one_row(cursor: apsw.Cursor) -> tuple[Any, ...]:
    """The row of a query that always yields one: an aggregate, a PRAGMA, or a row the caller knows exists."""
    row: tuple[Any, ...] | None = cursor.fetchone()
    assert row is not None, "the query yielded no row"
    return row


def all_rows(cursor: apsw.Cursor) -> list[tuple[Any, ...]]:
    """Every row the query yields."""
    return cursor.fetchall()
