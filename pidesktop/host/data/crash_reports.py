"""``data.crashDumps`` / ``data.removeCrashDumps``: the crash dumps kept in ``crash-dumps/`` (never uploaded).

The dumps themselves are written by each process (``pidesktop.crash_dumps``);
listing and removing them goes through the host, which owns the data root.
"""

from __future__ import annotations

from typing import Any

from pidesktop import crash_dumps
from pidesktop.host.commands import command
from pidesktop.host.context import HostContext
from pidesktop.host.params import Params


@command("data.crashDumps", emits=[])
def crash_dump_list(ctx: HostContext, p: Params) -> dict[str, Any]:
    """The kept dumps, newest first; ``markReported`` records that the person has now seen them."""
    root = ctx.data_root
    found = crash_dumps.dumps(root)
    reported = crash_dumps.last_reported(root)
    listed = [{**dump, "new": dump["mtime"] > reported} for dump in found]
    if p.boolean("markReported") and found and found[0]["mtime"] > reported:
        crash_dumps.mark_reported(root, found[0]["mtime"])
    return {"dumps": listed, "folder": str(root / crash_dumps.FOLDER)}


@command("data.removeCrashDumps", emits=[])
def crash_dump_remove(ctx: HostContext, p: Params) -> dict[str, Any]:
    return {"removed": crash_dumps.remove(ctx.data_root), "dumps": crash_dumps.dumps(ctx.data_root)}
