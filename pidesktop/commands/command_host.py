"""A host thread for a command that runs without the window (chat, export, import, automations).

Each command resolves the data root the way the app does (finishing a pending
data-folder move first), prepares it, logs
into it, and starts its own host thread on it; a folder that cannot be used is
said on stderr in one line, and the command exits 2.
"""

from __future__ import annotations

import sys

from pidesktop import crash_dumps, logs, paths
from pidesktop.bus import HostThread
from pidesktop.storage.progress import IndexProgressLines


def start_host(data_dir: str | None, prog: str, log_name: str) -> HostThread | None:
    """The started host thread on the data root, or None once the reason is on stderr."""
    from pidesktop.host.core import opener  # the host loads only when a command needs it
    from pidesktop.storage import recovery

    try:
        location = recovery.location_for_host(data_dir)  # a pending move finishes before any host opens
    except (paths.StorageLocationError, recovery.RecoveryError, OSError) as exc:
        print(f"{prog}: {exc}", file=sys.stderr)
        return None
    logs.configure(location.data_root, log_name)
    crash_dumps.arm(location.data_root)
    host = HostThread(opener(location, role=prog))
    host.subscribe(IndexProgressLines(prog))  # a long rebuild of the index at open, as lines on stderr
    return host.start()
