"""Which other computer an automation is armed on, as settings sync last said.

Settings sync carries each automation with ``armedOn`` (the machine id it runs on)
and ``armedOnName`` (that computer's name, as typed in Settings > Sync). A task
armed on another computer is switched off here, and that computer is kept in
``kv(configSyncS3, armedElsewhere)`` = ``{taskId: {machine, name}}``: the
automations list says where the task runs, and the next sync sends the task as
armed there (not as switched off here, which would switch it off there too).
Switching a task on or off here, or deleting it, forgets the entry: the task is
then armed here, or nowhere until a sync says otherwise.
"""

from __future__ import annotations

from typing import Any

import apsw

from pidesktop.host import kv
from pidesktop.storage.sync_settings import NS

KEY = "armedElsewhere"


def all_entries(conn: apsw.Connection) -> dict[str, dict[str, str]]:
    """``{taskId: {machine, name}}`` for every task armed on another computer."""
    stored = kv.get(conn, NS, KEY, {})
    if not isinstance(stored, dict):
        return {}
    return {
        str(task_id): {"machine": str(entry.get("machine", "")), "name": str(entry.get("name", ""))}
        for task_id, entry in stored.items()
        if isinstance(entry, dict) and entry.get("machine")
    }


def name_of(conn: apsw.Connection, task_id: str) -> str | None:
    entry = all_entries(conn).get(task_id)
    return None if entry is None else entry["name"]


def remember(conn: apsw.Connection, task_id: str, machine: str | None, name: str, now: int) -> None:
    """Keep ``machine`` (and its ``name``) as the computer ``task_id`` runs on, or forget it (``machine`` None);
    inside the caller's transaction."""
    entries: dict[str, Any] = all_entries(conn)
    if machine is None:
        if task_id not in entries:
            return
        entries.pop(task_id)
    else:
        entries[task_id] = {"machine": machine, "name": name}
    if entries:
        kv.put(conn, NS, KEY, entries, now)
    else:
        kv.delete(conn, NS, KEY)
