"""``pidesktop data status``: where the data is, how big, and what the database holds.

``schema_backups(root)`` lists the copies of ``pi.sqlite`` a schema migration
keeps beside it (``pi.sqlite.v<n>.bak``, ``n`` the version it had): the status
report, the command line and the host's ``data.schemaBackups`` share it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import apsw

from pidesktop import paths
from pidesktop.formats.index import migrations
from pidesktop.formats.index.schema import DB_NAME, SCHEMA_VERSION
from pidesktop.locks import WRITER_LOCK
from pidesktop.storage import inventory, journal, old_roots
from pidesktop.storage.errors import StorageJobError
from pidesktop.storage.locking import is_in_use
from pidesktop.storage.sqlite_ro import integer, open_readonly, user_version

# As the migration engine names them: ``.v<version>.bak``, or ``.v<version>.<n>.bak`` beside an older copy of
# the same version with other bytes.

COUNTED = (
    ("sessions", "sessions"),
    ("messages", "messages"),
    ("projects", "projects"),
    ("providers", "providers"),
    ("turns", "turns"),
    ("scheduledTasks", "scheduled_tasks"),
    ("notifications", "notifications"),
)


def status(location: paths.StorageLocation, scan: bool = True) -> dict[str, Any]:
    """The report; ``scan=False`` leaves out the walk of both folders (``categories``, ``dataBytes``,
    ``uiBytes``, ``uiFiles`` are then absent), which is the only part whose cost grows with the number of files."""
    root = location.data_root
    report: dict[str, Any] = {
        "dataRoot": str(root),
        "uiRoot": str(location.ui_root),
        "resolvedBy": location.source,
        "anchor": str(paths.anchor_dir()),
        "exists": root.is_dir(),
        "freeBytes": inventory.free_bytes(root),
        "inUseBy": is_in_use(root) if root.is_dir() else None,
        "schemaVersion": None,
        "schemaSupported": SCHEMA_VERSION,
        "counts": {},
    }
    if scan:
        data_tree = inventory.scan(root, exclude_top=frozenset({WRITER_LOCK}))
        ui_tree = inventory.scan(location.ui_root)
        report.update(
            {
                "categories": inventory.by_category(data_tree),
                "dataBytes": data_tree.bytes,
                "uiBytes": ui_tree.bytes,
                "uiFiles": ui_tree.files,
            }
        )
    report.update(_database(root / DB_NAME))
    report["schemaBackups"] = schema_backups(root)
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
            version = user_version(conn)
            tables = {row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
            # An older schema may lack some tables (it is migrated when pidesktop opens it): count what is there.
            counts = {
                label: integer(conn, f"SELECT count(*) FROM {table}") for label, table in COUNTED if table in tables
            }
            return {"schemaVersion": version, "counts": counts}
        finally:
            conn.close()
    except apsw.Error as exc:
        return {"databaseProblem": str(exc)}


def schema_backups(root: Path) -> list[dict[str, Any]]:
    """``[{name, path, version, bytes, modifiedAt}]`` of the regular ``pi.sqlite.v<n>[.<k>].bak`` files directly
    in ``root``, oldest version first (then by ``k``); ``modifiedAt`` in epoch milliseconds.

    Links and folders are not listed.
    """
    found = []
    for entry in migrations.list_backups(root / DB_NAME):
        try:
            info = entry.lstat()
        except OSError:
            continue  # removed meanwhile
        found.append(
            {
                "name": entry.name,
                "path": str(entry),
                "version": migrations.backup_version(entry.name),
                "bytes": info.st_size,
                "modifiedAt": int(info.st_mtime * 1000),
            }
        )
    return found
