"""Repairing a damaged ``pi.sqlite``: set it aside, start a fresh index, salvage what it still yields.

The index is derived (spec 004): chats, messages, titles, projects and modes
come back from the transcripts (``boot.restore_orphans`` and the
``session_info`` lines). What lives only in the database (app settings,
providers without their keys, models, projects, project memory) is copied
from the damaged file table by table where its pages still read.

The damaged file is never deleted: it is renamed ``pi.sqlite.damaged-<UTC
date and time>`` beside the new one, with its ``-wal`` if any.

A host that was not closed cleanly leaves ``pi.sqlite.open`` behind (a file,
so a lost WAL cannot take the mark with it); the next start then runs
``PRAGMA quick_check`` before serving.
"""

from __future__ import annotations

import logging
import os
import time
from dataclasses import dataclass, field
from pathlib import Path

import apsw

from pidesktop.durable import FILE_MODE
from pidesktop.formats.index.sql_rows import one_row

log = logging.getLogger("pidesktop.host.data.repair")

OPEN_MARK = "pi.sqlite.open"
DAMAGED_INFIX = ".damaged-"
# Tables whose rows exist only in the database, in an order their references allow.
SALVAGED_TABLES = ("kv", "providers", "models", "projects", "scheduled_tasks")


@dataclass
class RepairReport:
    damaged: Path  # where the damaged file now is
    reason: str
    salvaged: dict[str, int] = field(default_factory=dict)  # table -> rows copied
    lost: list[str] = field(default_factory=list)  # tables that could not be read

    def to_json(self) -> dict[str, object]:
        return {"damagedFile": str(self.damaged), "reason": self.reason, "salvaged": self.salvaged, "lost": self.lost}


def mark_open(root: Path) -> bool:
    """Mark the data root as in use; True when the previous run left its mark (it did not close cleanly)."""
    mark = root / OPEN_MARK
    unclean = mark.exists()
    mark.touch(mode=FILE_MODE)
    return unclean


def mark_closed(root: Path) -> None:
    (root / OPEN_MARK).unlink(missing_ok=True)


def quick_check(conn: apsw.Connection) -> str | None:
    """None when ``PRAGMA quick_check`` says ok, else its first complaint."""
    try:
        first = str(one_row(conn.execute("PRAGMA quick_check(1)"))[0])
    except apsw.Error as exc:
        return str(exc)
    return None if first == "ok" else first


def set_aside(db: Path, now: float | None = None) -> Path:
    """Rename the damaged database (and its WAL) out of the way; the new name."""
    stamp = time.strftime("%Y%m%d-%H%M%S", time.gmtime(now))
    target = db.with_name(f"{db.name}{DAMAGED_INFIX}{stamp}")
    n = 1
    while target.exists():
        n += 1
        target = db.with_name(f"{db.name}{DAMAGED_INFIX}{stamp}-{n}")
    os.replace(db, target)
    for suffix in ("-wal", "-shm"):
        side = db.with_name(db.name + suffix)
        if side.exists():
            if suffix == "-wal":
                os.replace(side, target.with_name(target.name + suffix))
            else:
                side.unlink()
    return target


def salvage(conn: apsw.Connection, damaged: Path, report: RepairReport) -> None:
    """Copy the rows of ``SALVAGED_TABLES`` that still read from ``damaged`` into the fresh ``conn``."""
    try:
        conn.execute("ATTACH DATABASE ? AS damaged", (str(damaged),))
    except apsw.Error as exc:
        report.lost = list(SALVAGED_TABLES)
        log.warning("cannot open the damaged database %s to salvage from it: %s", damaged, exc)
        return
    try:
        for table in SALVAGED_TABLES:
            try:
                with conn:
                    columns = [row[1] for row in conn.execute(f"PRAGMA main.table_info({table})")]
                    names = ", ".join(columns)
                    conn.execute(f"INSERT OR IGNORE INTO main.{table}({names}) SELECT {names} FROM damaged.{table}")
                    report.salvaged[table] = conn.changes()
            except apsw.Error as exc:
                report.lost.append(table)
                log.warning("could not salvage %s from %s: %s", table, damaged, exc)
    finally:
        conn.execute("DETACH DATABASE damaged")
