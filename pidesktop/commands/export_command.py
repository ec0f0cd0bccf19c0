"""``pidesktop export SESSION_ID --format md|json [--output PATH]``: a chat to stdout or a file, no window.

An in-process host (as ``pidesktop chat`` runs one) writes the file itself
(``session.export``: one streamed pass over the transcript, written beside its
destination and moved into place when complete, so a failed export never
leaves half a file where the old one was). For stdout the host writes into a
temporary folder and the file is copied out. Exit 0 when written; 1 when the
chat cannot be read; 2 when the command line or the data folder cannot be used.
"""

from __future__ import annotations

import shutil
import sys
import tempfile
from pathlib import Path

from pidesktop.bus import ErrorCode, HostClient, HostError, HostThread
from pidesktop.commands.command_host import start_host
from pidesktop.formats.chat_export import FORMATS

# A whole chat written on the host: longer than the bus's usual deadline for one command.
EXPORT_TIMEOUT = 24 * 3600


def run_export(session_id: str, fmt: str, output: str | None, data_dir: str | None) -> int:
    target = Path(output).expanduser().absolute() if output else None
    if fmt not in FORMATS:
        print(f"pidesktop export: unknown format {fmt!r}; use md or json", file=sys.stderr)
        return 2
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
        return _export(host, session_id, fmt, target)
    finally:
        host.stop()


def _export(host: HostThread, session_id: str, fmt: str, target: Path | None) -> int:
    client = HostClient(host)
    try:
        if target is None:
            with tempfile.TemporaryDirectory(prefix="pidesktop-export-") as folder:
                path = Path(folder) / f"chat.{fmt}"
                _call(client, session_id, fmt, path)
                sys.stdout.flush()
                with open(path, "rb") as exported:
                    shutil.copyfileobj(exported, sys.stdout.buffer)
                sys.stdout.buffer.flush()
            return 0
        _call(client, session_id, fmt, target)
        print(f"exported to {target}", file=sys.stderr)
        return 0
    except HostError as exc:
        print(f"pidesktop export: {exc.message}", file=sys.stderr)
        return 1 if exc.code == ErrorCode.NOT_FOUND else 2  # 1 is "that chat cannot be read", as documented
    finally:
        client.close()


def _call(client: HostClient, session_id: str, fmt: str, path: Path) -> None:
    client.call_blocking(
        "session.export", {"sessionId": session_id, "format": fmt, "path": str(path)}, timeout=EXPORT_TIMEOUT
    )
