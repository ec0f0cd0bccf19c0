"""``state-snapshot.json``: what lives only in the database, kept beside it so a lost index gets it back.

Transcripts give back every chat (``session_info`` and ``session_row``
lines), but app settings, providers, models, projects, project memory,
automations, their runs and the inbox are rows of ``pi.sqlite`` alone. After
every command that changes them the host rewrites this small file atomically
(durable rename); a start that finds a fresh database (no kv row at all) and
this file loads it before it restores the chats, and the rows that name
chats (``LATE_TABLES``) once they are back. Provider keys are never in it:
providers keep only ``secret_ref``, the name of their encrypted key file
under ``secrets/``.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

import apsw
import orjson

from pidesktop.durable import atomic_write
from pidesktop.host.context import HostContext

log = logging.getLogger("pidesktop.host.state_snapshot")

FILE = "state-snapshot.json"
VERSION = 1
TABLES = ("projects", "providers", "models", "scheduled_tasks")  # in an order their references allow
# Rows that name chats: loaded once the chats are back (the inbox, automation runs).
LATE_TABLES = ("notifications", "task_runs")
KV_NAMESPACES = ("app", "ui", "projectMemory", "projectGroups", "projectGroupMemory", "projectGroupInstructions")
# Commands after which the snapshot is written again.
COMMANDS = frozenset(
    {
        "settings.set",
        "providers.upsert",
        "providers.delete",
        "providers.reorder",
        "providers.setDefault",
        "models.upsert",
        "models.setPrice",
        "models.delete",
        "models.applyDiscovery",
        "projects.upsert",
        "projects.update",
        "projects.memorySet",
        "projects.remove",
        "workspace.set",
        "projectGroups.set",
        "projectGroups.remove",
        "tasks.create",
        "tasks.update",
        "tasks.delete",
        "tasks.startRun",
        "tasks.finishRun",
        "notifications.markRead",
        "notifications.markAllRead",
        "notifications.clear",
    }
)


def write(ctx: HostContext) -> None:
    """Rewrite the snapshot from the database; a failure is logged (the database still holds it all)."""
    conn = ctx.conn
    try:
        tables: dict[str, Any] = {}
        for table in TABLES + LATE_TABLES:
            names = [str(row[1]) for row in conn.execute(f"PRAGMA table_info({table})")]
            rows = [list(row) for row in conn.execute(f"SELECT {', '.join(names)} FROM {table}")]
            tables[table] = {"columns": names, "rows": rows}
        marks = ", ".join("?" for _ in KV_NAMESPACES)
        kv_rows = [
            list(row)
            for row in conn.execute(
                f"SELECT ns, key, value_json, updated_at FROM kv WHERE ns IN ({marks})", KV_NAMESPACES
            )
        ]
        data = orjson.dumps({"version": VERSION, "tables": tables, "kv": kv_rows})
        atomic_write(ctx.data_root / FILE, data)
    except (OSError, apsw.Error):
        log.exception("could not write %s", FILE)


def _read(root: Path) -> dict[str, Any] | None:
    path = root / FILE
    try:
        data = orjson.loads(path.read_bytes())
    except FileNotFoundError:
        return None
    except (OSError, orjson.JSONDecodeError):
        log.exception("cannot read %s", path)
        return None
    if not isinstance(data, dict) or data.get("version") != VERSION:
        log.warning("ignoring %s: not a snapshot this version reads", path)
        return None
    return data


def _load_tables(conn: apsw.Connection, data: dict[str, Any], tables: tuple[str, ...]) -> list[str]:
    """INSERT OR IGNORE every row of ``tables`` the snapshot holds, in the caller's transaction."""
    restored: list[str] = []
    for table in tables:
        part = (data.get("tables") or {}).get(table)
        if not isinstance(part, dict):
            continue
        known = {row[1] for row in conn.execute(f"PRAGMA table_info({table})")}
        columns = [name for name in part.get("columns", []) if name in known]
        if not columns:
            continue
        positions = [part["columns"].index(name) for name in columns]
        sql = f"INSERT OR IGNORE INTO {table}({', '.join(columns)}) VALUES ({', '.join('?' for _ in columns)})"
        for row in part.get("rows", []):
            try:
                conn.execute(sql, [row[i] for i in positions])
            except (apsw.Error, IndexError, TypeError):  # a row of a chat that is gone, a shape that changed
                log.warning("skipped a %s row of %s that does not fit", table, FILE)
        restored.append(table)
    return restored


def restore(conn: apsw.Connection, root: Path) -> list[str]:
    """Load the snapshot into a fresh database, in one transaction; the parts it gave back."""
    data = _read(root)
    if data is None:
        return []
    with conn:
        restored = _load_tables(conn, data, TABLES)
        for entry in data.get("kv") or []:
            if isinstance(entry, list) and len(entry) == 4 and entry[0] in KV_NAMESPACES:
                conn.execute("INSERT OR IGNORE INTO kv(ns, key, value_json, updated_at) VALUES (?, ?, ?, ?)", entry)
        restored.append("kv")
    log.warning("loaded %s into a fresh database: %s", root / FILE, ", ".join(restored))
    return restored


def restore_late(conn: apsw.Connection, root: Path) -> list[str]:
    """Once chats were rebuilt: the snapshot's rows that name chats (rows already there are kept)."""
    data = _read(root)
    if data is None:
        return []
    with conn:
        restored = _load_tables(conn, data, LATE_TABLES)
    if restored:
        log.warning("loaded %s from %s after rebuilding chats", ", ".join(restored), root / FILE)
    return restored
