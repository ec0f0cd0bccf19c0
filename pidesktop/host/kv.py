"""The namespaced key-value store (spec 004, section 4.1)."""

from __future__ import annotations

from typing import Any

import apsw
import orjson


def get(conn: apsw.Connection, ns: str, key: str, default: Any = None) -> Any:
    row = conn.execute("SELECT value_json FROM kv WHERE ns = ? AND key = ?", (ns, key)).fetchone()
    if row is None:
        return default
    try:
        return orjson.loads(row[0])
    except orjson.JSONDecodeError:
        return default


def put(conn: apsw.Connection, ns: str, key: str, value: Any, now: int) -> None:
    conn.execute(
        "INSERT INTO kv(ns, key, value_json, updated_at) VALUES (?, ?, ?, ?) "
        "ON CONFLICT(ns, key) DO UPDATE SET value_json = excluded.value_json, updated_at = excluded.updated_at",
        (ns, key, orjson.dumps(value).decode(), now),
    )


def delete(conn: apsw.Connection, ns: str, key: str) -> None:
    conn.execute("DELETE FROM kv WHERE ns = ? AND key = ?", (ns, key))
