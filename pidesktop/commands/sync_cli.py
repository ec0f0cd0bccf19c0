"""``pidesktop sync now``: one settings sync with the connection saved in Settings > Sync.

Prints what came in, what went out and any conflict (the newer change won),
then exits 0; a sync that could not finish prints one sentence and exits 1
(changes made here wait for the next run); 2 when the data folder cannot be used.
"""

from __future__ import annotations

import argparse
import sys
import threading
from typing import Any

from pidesktop.bus import ErrorCode, HostError, topics

PROG = "pidesktop sync"


def add_parser(sub: argparse._SubParsersAction) -> None:
    sync = sub.add_parser("sync", help="settings sync through S3")
    commands = sync.add_subparsers(dest="sync_command", required=True)
    now = commands.add_parser("now", help="sync settings once with the saved connection, then exit")
    now.add_argument("--data-dir", dest="sync_data_dir", help="use this data folder")


def run(args: argparse.Namespace) -> int:
    from pidesktop.bus import HostClient
    from pidesktop.commands.command_host import start_host

    host = start_host(args.sync_data_dir or args.data_dir, PROG, "sync")
    if host is None:
        return 2
    client = HostClient(host)
    finished: dict[str, dict[str, Any]] = {}
    arrived = threading.Event()

    def on_event(topic: str, payload: dict[str, Any]) -> None:
        if topic == topics.DATA_FINISHED and payload.get("kind") == "sync":
            finished[str(payload.get("job"))] = payload
            arrived.set()

    unsubscribe = host.subscribe(on_event)  # before the job starts: its end cannot be missed
    try:
        job = client.call_blocking("sync.run", {}, timeout=600)["job"]
        while job not in finished:
            if not arrived.wait(1.0) and not host.alive:
                raise HostError(ErrorCode.STORAGE_UNAVAILABLE, "The host stopped before the sync finished.")
            arrived.clear()
        outcome = finished[job]
        if outcome["status"] != "done":
            error = outcome.get("error") or {}
            raise HostError(error.get("code", "CONFLICT"), error.get("message", "The sync was stopped."))
        result = outcome["result"]
    except HostError as exc:
        print(f"{PROG}: {exc.message}", file=sys.stderr)
        return 1
    finally:
        unsubscribe()
        client.close()
        host.stop()
    print(f"Synced: revision {result['revision']}, {len(result['pushed'])} sent, {len(result['pulled'])} received.")
    for conflict in result["conflicts"]:
        print(f"Changed on both machines: {conflict['key']}; kept the {conflict['kept']} (newer) change.")
    return 0
