"""``pidesktop export SESSION_ID --format md|json [--output PATH]``: a chat to stdout or a file, no window.

An in-process host (as ``pidesktop chat`` runs one) serves the windowed reads;
``agent.export`` writes the chat. A file is written beside its destination and
moved into place when complete, so a failed export never leaves half a file
where the old one was. Exit 0 when written; 1 when the chat cannot be read;
2 when the command line or the data folder cannot be used.
"""

from __future__ import annotations

import asyncio
import os
import sys
import tempfile
from pathlib import Path

from pidesktop.agent import export
from pidesktop.bus import ErrorCode, HostClient, HostError, HostThread
from pidesktop.commands.command_host import start_host


def run_export(session_id: str, fmt: str, output: str | None, data_dir: str | None) -> int:
    target = Path(output).expanduser() if output else None
    if target is not None and target.is_dir():
        print(f"pidesktop export: --output {output} is a folder; give a file name", file=sys.stderr)
        return 2
    if target is not None and not target.parent.is_dir():
        print(f"pidesktop export: the folder {target.parent} does not exist", file=sys.stderr)
        return 2
    host = start_host(data_dir, "pidesktop export", "export")
    if host is None:
        return 2
    try:
        return asyncio.run(_export(host, session_id, fmt, target))
    finally:
        host.stop()


async def _export(host: HostThread, session_id: str, fmt: str, target: Path | None) -> int:
    client = HostClient(host, asyncio.get_running_loop())
    try:
        if target is None:
            await export.export(client, session_id, fmt, sys.stdout.write)
            sys.stdout.flush()
            return 0
        handle, temporary = tempfile.mkstemp(prefix=f".{target.name}.", dir=target.parent)
        try:
            with os.fdopen(handle, "w", encoding="utf-8", newline="\n") as out:
                await export.export(client, session_id, fmt, out.write)
            umask = os.umask(0)
            os.umask(umask)
            os.chmod(temporary, 0o666 & ~umask)  # an ordinary file, not mkstemp's owner-only one
            os.replace(temporary, target)
        except BaseException:
            Path(temporary).unlink(missing_ok=True)
            raise
        print(f"exported to {target}", file=sys.stderr)
        return 0
    except HostError as exc:
        print(f"pidesktop export: {exc.message}", file=sys.stderr)
        return 1 if exc.code == ErrorCode.NOT_FOUND else 2  # 1 is "that chat cannot be read", as documented
    finally:
        client.close()
