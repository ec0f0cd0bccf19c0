"""Rebuilding a damaged ``pi.sqlite``: shared by the start-up, a command that meets the damage, and ``data.repair``.

The damaged file is set aside (``repair.set_aside``), a fresh database gets
what the old one still yields (``repair.salvage``), and the boot pass rebuilds
every chat from its transcript. What a rebuild gave back is ``ctx.rebuilt``.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pidesktop.formats.index.db import open_migrated
from pidesktop.formats.index.schema import DB_NAME
from pidesktop.host import boot
from pidesktop.host.context import Emit, HostContext
from pidesktop.host.data import repair
from pidesktop.host.search import commands as search

log = logging.getLogger("pidesktop.host.data.index_rebuild")


def repair_and_boot(root: Path, emit: Emit, clock: Callable[[], int], reason: str) -> HostContext:
    """Set the damaged database aside, open a fresh one with what it still yields, rebuild from the transcripts."""
    db = root / DB_NAME
    damaged = repair.set_aside(db)
    log.error("the database was damaged (%s); set aside as %s, rebuilding from the transcripts", reason, damaged)
    report = repair.RepairReport(damaged, reason)
    conn, migration = open_migrated(db)
    try:
        repair.salvage(conn, damaged, report)
        search.register_functions(conn)
        ctx = HostContext(conn=conn, data_root=root, emit=emit, clock=clock, migration=migration)
        boot.boot_pass(ctx)
    except BaseException:
        conn.close()
        raise
    # what neither the damaged file nor state-snapshot.json gave back
    lost = sorted({"settings" if t == "kv" else t for t in report.lost if t not in ctx.from_snapshot})
    ctx.rebuilt = {**(ctx.rebuilt or {"sessions": 0}), "notRecovered": lost, "repaired": report.to_json()}
    return ctx


def repair_in_place(ctx: HostContext, reason: str) -> dict[str, Any]:
    """Swap the running host's damaged database for a rebuilt one; what was rebuilt (``ctx.rebuilt``).

    On the host thread only. The old connection is closed first: the damaged
    file must not be written any more. Raises when the rebuild fails.
    """
    ctx.conn.close(True)
    rebuilt = repair_and_boot(ctx.data_root, ctx.emit, ctx.clock, reason)
    ctx.conn = rebuilt.conn
    ctx.rebuilt = rebuilt.rebuilt
    return dict(rebuilt.rebuilt or {})
