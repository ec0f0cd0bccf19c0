"""``pidesktop data status``: where the data is, how big, and what the database holds."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import apsw

from .. import paths
from ..locks import WRITER_LOCK
from ..host.db import DB_NAME
from . import inventory, journal, old_roots
from .errors import StorageJobError
from .locking import is_in_use
from .sqlite_ro import open_readonly, user_version

COUNTED = (("sessions", "sessions"), ("messages", "messages"), ("projects", "projects"),
           ("providers", "providers"), ("turns", "turns"), ("scheduledTasks", "scheduled_tasks"),
           ("notifications", "notifications"))


def status(location: paths.StorageLocation, scan: bool = True) -> dict[str, Any]:
    """The report; ``scan=False`` leaves out the walk of both folders (``categories``, ``dataBytes``,
    ``uiBytes`` are then absent), which is the only part whose cost grows with the number of files."""
    root = location.data_root
    report: dict[str, Any] = {
        "dataRoot": str(root), "uiRoot": str(location.ui_root), "resolvedBy": location.source,
        "anchor": str(paths.anchor_dir()), "exists": root.is_dir(),
        "freeBytes": inventory.free_bytes(root), "inUseBy": is_in_use(root) if root.is_dir() else None,
        "schemaVersion": None, "counts": {},
    }
    if scan:
        data_tree = inventory.scan(root, exclude_top=frozenset({WRITER_LOCK}))
        ui_tree = inventory.scan(location.ui_root)
        report.update({"categories": inventory.by_category(data_tree), "dataBytes": data_tree.bytes,
                       "uiBytes": ui_tree.bytes})
    report.update(_database(root / DB_NAME))
    if location.source != "env":
        try:
            pending = journal.read()
            report["pendingMove"] = pending.to_json() if pending else None
            report["keptBackups"] = [item.to_json() for item in old_roots.entries()]
        except StorageJobError as exc:
            report["anchorProblem"] = str(exc)
    return report


def _database(db: Path) -> dict[str, Any]:
    if not db.is_file():
        return {}
    try:
        conn = open_readonly(db)
        try:
            counts = {label: conn.execute(f"SELECT count(*) FROM {table}").fetchone()[0] for label, table in COUNTED}
            return {"schemaVersion": user_version(conn), "counts": counts}
        finally:
            conn.close()
    except apsw.Error as exc:
        return {"databaseProblem": str(exc)}
