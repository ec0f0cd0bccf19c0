"""A host thread for a command that runs without the window (chat, export, import, automations).

Each command resolves the data root the way the app does, prepares it, logs
into it, and starts its own host thread on it; a folder that cannot be used is
said on stderr in one line, and the command exits 2.
"""

from __future__ import annotations

import sys

from . import logs, paths
from .bus import HostThread


def start_host(data_dir: str | None, prog: str, log_name: str) -> HostThread | None:
    """The started host thread on the data root, or None once the reason is on stderr."""
    from .host.core import opener  # the host loads only when a command needs it

    try:
        location = paths.resolve(data_dir=data_dir)
        paths.prepare_data_root(location)
    except (paths.StorageLocationError, OSError) as exc:
        print(f"{prog}: {exc}", file=sys.stderr)
        return None
    logs.configure(location.data_root, log_name)
    return HostThread(opener(location, role=prog)).start()
