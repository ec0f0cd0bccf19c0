"""``pidesktop import claude-code|codex|pi [PATH ...]``: bring other agents' sessions in without the window.

Runs the host's own ``import.run`` job on an in-process host (the same code
the File > Import... dialog uses) over the given files and folders, or the
tool's own folder under HOME. Prints one line,
``imported N, updated N, unchanged N, failed N``, with each file that could
not be read on stderr. Exit 0 unless nothing could be read (1), 2 when the
command line or the data folder cannot be used, 130 on Ctrl+C (what was
already imported stays).
"""

from __future__ import annotations

import argparse
import os
import sys
import threading
from typing import TYPE_CHECKING

from pidesktop.bus import HostError, topics

if TYPE_CHECKING:
    from pidesktop.bus import HostClient

PROG = "pidesktop import"
SOURCES = ("claude-code", "codex", "pi")
NAMES = {"claude-code": "Claude Code", "codex": "Codex", "pi": "pi"}


def add_parser(sub: argparse._SubParsersAction) -> None:
    command = sub.add_parser("import", help="import Claude Code, Codex or pi sessions as chats (no window)")
    command.add_argument("import_source", metavar="SOURCE", choices=SOURCES, help="claude-code, codex or pi")
    command.add_argument(
        "import_paths",
        metavar="PATH",
        nargs="*",
        help="session files or folders (default: the tool's own folder under HOME)",
    )
    command.add_argument("--data-dir", dest="import_data_dir", help="use this data folder")


def run(args: argparse.Namespace) -> int:
    return run_import(args.import_source, args.import_paths, args.import_data_dir or args.data_dir)


def summary_line(result: dict) -> str:
    return (
        f"imported {result.get('imported', 0) + result.get('copied', 0)}, updated {result.get('updated', 0)}, "
        f"unchanged {result.get('unchanged', 0)}, failed {result.get('failed', 0)}"
    )


def run_import(source: str, raw_paths: list[str], data_dir: str | None) -> int:
    chosen = [os.path.abspath(os.path.expanduser(p)) for p in raw_paths]
    for path in chosen:
        if not os.path.exists(path):
            print(f"{PROG}: {path} does not exist", file=sys.stderr)
            return 2
    from pidesktop.bus import HostClient  # the host loads only when this command runs, not for every `pidesktop`
    from pidesktop.commands.command_host import start_host

    host = start_host(data_dir, PROG, "host")
    if host is None:
        return 2
    client = HostClient(host)
    try:
        return _run(client, source, chosen)
    finally:
        client.close()
        host.stop()


def _run(client: HostClient, source: str, chosen: list[str]) -> int:
    finished = threading.Event()
    job: dict = {"id": None, "early": [], "end": None}
    lock = threading.Lock()

    def on_event(topic: str, payload: dict) -> None:  # on the host's threads: no loop here
        if topic != topics.DATA_FINISHED:
            return
        with lock:
            if job["id"] is None:
                job["early"].append(payload)
            elif payload.get("job") == job["id"]:
                job["end"] = payload
                finished.set()

    client.subscribe(on_event)
    params: dict = {"source": source}
    if chosen:
        params["paths"] = chosen
    try:
        client.call_blocking("app.handshake", {"protocolVersion": 1})
        started = client.call_blocking("import.run", params)
    except HostError as exc:
        print(f"{PROG}: {exc.message}", file=sys.stderr)
        return 2
    with lock:
        job["id"] = started["job"]
        for payload in job["early"]:
            if payload.get("job") == job["id"]:
                job["end"] = payload
                finished.set()
    try:
        while not finished.wait(0.2):
            pass
    except KeyboardInterrupt:
        try:
            client.call_blocking("data.cancel", {"job": job["id"]}, timeout=10)
            finished.wait(10)
        except HostError:
            pass
        print(f"{PROG}: stopped; what was already imported stays", file=sys.stderr)
        return 130
    end = job["end"]
    if end.get("status") != "done":
        error = end.get("error") or {}
        print(f"{PROG}: {error.get('message') or 'the import stopped'}", file=sys.stderr)
        return 1
    result = end["result"]
    for failure in result.get("failures", []):
        print(f"{PROG}: could not read {failure['path']}: {failure['reason']}", file=sys.stderr)
    for copy in result.get("copies", []):
        print(
            f"{PROG}: {copy['path']} changed after its chat was edited here; the chat was kept "
            f"and the source came in as a new chat ({copy['sessionId']})",
            file=sys.stderr,
        )
    print(summary_line(result))
    if result.get("files", 0) == 0:
        where = ", ".join(chosen or _default(source))
        print(f"{PROG}: found no {NAMES[source]} sessions in {where}", file=sys.stderr)
        return 1
    return 1 if result.get("nothingRead") else 0


def _default(source: str) -> list[str]:
    from pidesktop.host.imports import default_folders

    return [str(folder) for folder in default_folders(source)]
