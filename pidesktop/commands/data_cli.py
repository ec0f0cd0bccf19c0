"""The ``pidesktop data ...`` and ``pidesktop --relocate-data`` commands: argument handling and output.

Exit codes: 0 done; 1 the job ran and found or hit a problem (``verify``
found inconsistencies, a copy or cleanup failed); 2 refused before anything
changed (a precondition, a bad argument, confirmation missing); 130 cancelled
with Ctrl-C. Reports go to stdout, progress and errors to stderr.
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
import threading
from typing import Any

import orjson

from pidesktop import paths
from pidesktop.commands import snapshot_cli
from pidesktop.locks import FileLock, LockHeld
from pidesktop.sizes import human_size
from pidesktop.storage.errors import Cancelled, Refused, StorageJobError
from pidesktop.storage.progress import IndexProgressLines, StderrProgress

OK, PROBLEM, REFUSED, CANCELLED = 0, 1, 2, 130
INSTANCE_LOCK = "instance.lock"  # the GUI's single-instance lock in the anchor


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    data = sub.add_parser("data", help="look after the local data folder (status, verify, backup, move, clean up)")
    data.add_argument("--data-dir", dest="data_data_dir", help="use this data folder")
    cmds = data.add_subparsers(dest="data_command", required=True, metavar="COMMAND")
    status = cmds.add_parser("status", help="where the data is, sizes per category, schema and counts")
    status.add_argument("--json", action="store_true", help="print the report as JSON")
    verify = cmds.add_parser("verify", help="check the database and transcripts (exit 1 on problems)")
    verify.add_argument("--json", action="store_true", help="print the report as JSON")
    cmds.add_parser("repair", help="check the database and, if it is damaged, rebuild it from the chat files (offline)")
    backup = cmds.add_parser(
        "backup",
        help="copy the database to an absolute PATH, or snapshot everything: backup s3 [options] | backup folder DIR",
    )
    backup.add_argument("path", help="absolute path of a new database copy, or s3, or folder")
    backup.add_argument("folder", nargs="?", help="with folder: the backup folder (absolute)")
    backup.add_argument("--keep", type=int, help="keep only the newest N snapshots (and the chunks they use)")
    backup.add_argument("--secrets", action="store_true", help="include the saved API keys (still encrypted)")
    snapshot_cli.add_target_options(backup)
    restore = cmds.add_parser(
        "restore", help="rebuild a data folder from a snapshot: restore s3 [options] DIR | restore folder BACKUP DIR"
    )
    restore.add_argument("kind", choices=snapshot_cli.KINDS)
    restore.add_argument("operands", nargs="+", metavar="DIR", help="(folder: the backup folder, then) the new DIR")
    restore.add_argument("--snapshot", help="the snapshot to restore (default: the newest)")
    snapshot_cli.add_target_options(restore)
    snapshots = cmds.add_parser("snapshots", help="list the snapshots: snapshots s3 [options] | snapshots folder DIR")
    snapshots.add_argument("kind", choices=snapshot_cli.KINDS)
    snapshots.add_argument("folder", nargs="?", help="with folder: the backup folder (absolute)")
    snapshot_cli.add_target_options(snapshots)
    move = cmds.add_parser("move", help="move the data folder to DEST (offline; the old one is kept)")
    move.add_argument("dest", nargs="?", help="the new storage location; omit to finish a pending move")
    move.add_argument("--abandon", action="store_true", help="forget a pending move and stay where you are")
    cache = cmds.add_parser("clean-cache", help="empty the cache folders (nothing else)")
    cache.add_argument("--dry-run", action="store_true", help="only show what the caches hold")
    backups = cmds.add_parser("clean-backups", help="list or delete old data folders kept after a move")
    backups.add_argument("ids", nargs="*", metavar="ID", help="kept folders to delete")
    backups.add_argument("--all", action="store_true", help="delete every kept folder")
    backups.add_argument("--yes", action="store_true", help="confirm the deletion")


def run(args: argparse.Namespace) -> int:
    handler = {
        "status": _status,
        "verify": _verify,
        "repair": _repair,
        "backup": _backup,
        "restore": _restore,
        "snapshots": _snapshots,
        "move": _move,
        "clean-cache": _clean_cache,
        "clean-backups": _clean_backups,
    }[args.data_command]
    try:
        return handler(args)
    except Refused as exc:
        return _say(exc, REFUSED)
    except Cancelled as exc:
        return _say(exc, CANCELLED)
    except StorageJobError as exc:
        return _say(exc, PROBLEM)
    except paths.StorageLocationError as exc:
        return _say(exc, REFUSED)


def relocate_data(old: str, new: str) -> int:
    """``--relocate-data OLD NEW``: relocate an already-copied data root in place."""
    from pidesktop.storage.fsutil import absolute, overlaps
    from pidesktop.storage.locking import writer_lock
    from pidesktop.storage.relocate import relocate

    old_root, new_root = absolute(old), absolute(new)
    if overlaps(old_root, new_root):
        return _say(f"{old_root} and {new_root} overlap; relocation needs a copy in a separate folder.", REFUSED)
    if not new_root.is_dir():
        return _say(f"There is no copied data folder at {new_root}.", REFUSED)
    ui = new_root.parent / "ui" if new_root.name == "data" else None
    try:
        with writer_lock(new_root, "pidesktop --relocate-data"):
            report = relocate(
                old_root,
                new_root,
                old_ui_root=old_root.parent / "ui" if ui else None,
                new_ui_root=ui if ui and ui.is_dir() else None,
            )
    except Refused as exc:
        return _say(exc, REFUSED)
    except StorageJobError as exc:
        return _say(exc, PROBLEM)
    print(
        f"relocated {report.fields_changed} fields in {len(report.files_rewritten)} files; "
        f"database rows: {report.rows_changed or 'none'}"
    )
    return OK


# -- commands ---------------------------------------------------------------------------
def _location(args: argparse.Namespace) -> paths.StorageLocation:
    return paths.resolve(data_dir=args.data_data_dir or getattr(args, "data_dir", None))


# The counts by the names a person knows them by (``--json`` keeps the report's own keys).
COUNT_WORDS = {"sessions": "chats", "turns": "replies", "scheduledTasks": "automations"}
STATUS_LABELS = (
    "data folder",
    "front end",
    "schema",
    "total",
    "in use by",
    "pending move",
    "kept backup",
    "schema backup",
)


def _status(args: argparse.Namespace) -> int:
    from pidesktop.storage.status import status

    report = status(_location(args))
    if args.json:
        return _print_json(report)
    counts = {COUNT_WORDS.get(name, name): value for name, value in report["counts"].items()}
    width = 1 + max(len(label) for label in [*STATUS_LABELS, *counts, *report["categories"]])

    def row(label: str, text: object) -> None:
        print(f"{label:<{width}}{text}")

    row("data folder", f"{report['dataRoot']}  ({report['resolvedBy']})")
    row("front end", report["uiRoot"])
    row("schema", _schema_line(report))
    for label, value in counts.items():
        row(label, value)
    for name, size in report["categories"].items():
        files = "1 file" if size["files"] == 1 else f"{size['files']} files"
        row(name, f"{human_size(size['bytes']):>10}  {files}")
    row("total", f"{human_size(report['dataBytes']):>10}  free {human_size(report['freeBytes'])}")
    if report.get("inUseBy"):
        row("in use by", report["inUseBy"])
    if report.get("pendingMove"):
        row("pending move", f"to {report['pendingMove']['destination']}")
    for kept in report.get("keptBackups") or []:
        row("kept backup", f"{kept['id']}  {', '.join(kept['paths'])}")
    for copy in report.get("schemaBackups") or []:
        row("schema backup", f"{human_size(copy['bytes']):>10}  {copy['path']}  (v{copy['version']})")
    return OK


def _schema_line(report: dict[str, Any]) -> str:
    version, supported = report["schemaVersion"], report["schemaSupported"]
    if report.get("databaseProblem"):
        return f"unreadable: {report['databaseProblem']}"
    if not version:
        return "(no database)"
    if version > supported:
        return f"v{version}, newer than this pidesktop (v{supported}); it will not open it"
    if version < supported:
        return f"v{version}; updated to v{supported} the next time pidesktop opens it"
    return f"v{version}"


def _repair(args: argparse.Namespace) -> int:
    from pidesktop.bus.errors import HostError
    from pidesktop.host.core import check_and_repair
    from pidesktop.storage import recovery

    try:
        # The repair opens the database as a host does, so a pending move finishes first, as for every host.
        location = recovery.location_for_host(args.data_data_dir or getattr(args, "data_dir", None))
        report = check_and_repair(location, emit=IndexProgressLines("pidesktop data repair"))
    except (HostError, recovery.RecoveryError) as exc:
        print(f"pidesktop data repair: {exc.message if isinstance(exc, HostError) else exc}", file=sys.stderr)
        return REFUSED
    if report is None:
        print("ok: the database is sound; nothing was changed")
        return OK
    repaired = report.get("repaired", {})
    print(f"repaired: the damaged database is kept as {repaired.get('damagedFile')}")
    print(f"rebuilt {report.get('sessions', 0)} chats from their files")
    for table, rows in (repaired.get("salvaged") or {}).items():
        print(f"salvaged {rows} rows of {table}")
    for table in repaired.get("lost") or []:
        print(f"could not salvage {table}")
    return OK


def _verify(args: argparse.Namespace) -> int:
    from pidesktop.storage.verify import verify

    report = verify(_location(args).data_root)
    if args.json:
        _print_json(
            {
                "dataRoot": str(report.data_root),
                "ok": report.ok,
                "problems": report.problems,
                "recoverable": report.recoverable,
                "sessions": report.sessions,
                "messages": report.messages,
            }
        )
    else:
        for problem in report.problems:
            print(f"problem: {problem}")
        for note in report.recoverable:
            print(f"recoverable: {note}")
        print(
            f"{'ok' if report.ok else 'PROBLEMS FOUND'}: {report.sessions} sessions, "
            f"{report.messages} indexed messages checked in {report.data_root}"
        )
    return OK if report.ok else PROBLEM


def _backup(args: argparse.Namespace) -> int:
    from pidesktop.storage.backup import backup

    if args.path in snapshot_cli.KINDS:
        return snapshot_cli.run_backup(args, _location(args).data_root, args.path, args.folder)
    if args.folder is not None:
        raise Refused(f"Unexpected {args.folder!r}: `data backup PATH` takes one path.")
    result = backup(_location(args).data_root, args.path)
    print(f"backed up schema v{result.schema_version} ({human_size(result.bytes)}) to {result.path}")
    return OK


def _restore(args: argparse.Namespace) -> int:
    return snapshot_cli.run_restore(args, args.kind, args.operands)


def _snapshots(args: argparse.Namespace) -> int:
    return snapshot_cli.run_list(args, args.kind, args.folder)


def _move(args: argparse.Namespace) -> int:
    from pidesktop.storage import move, recovery

    if args.data_data_dir or args.data_dir or os.environ.get(paths.ENV_DATA_DIR, "").strip():
        raise Refused(
            f"This data folder is pinned by --data-dir or {paths.ENV_DATA_DIR}; moving it is "
            f"turned off for such folders. Unset it to move this installation's data folder."
        )
    with _instance_lock(), _cancel_on_interrupt() as cancel:
        progress = StderrProgress()
        if args.abandon:
            job = recovery.abandon_pending()
            print(
                f"abandoned the move to {job.destination}; the data folder stays {job.source_data_root}"
                if job
                else "no move is pending"
            )
            return OK
        if args.dest is None:
            pending = recovery.pending()
            if pending is None:
                raise Refused("No move is pending; give the destination: `pidesktop data move DEST`.")
            result = move.resume(pending, progress=progress, cancel=cancel, keep_journal=False)
        else:
            result = move.run(args.dest, progress=progress, cancel=cancel)
    print(
        f"the data folder is now {result.data_root}; the old one is kept as backup {result.kept.id} "
        f"(`pidesktop data clean-backups` deletes it)"
    )
    return OK


def _clean_cache(args: argparse.Namespace) -> int:
    from pidesktop.storage import cache

    location = _location(args)
    if args.dry_run:
        for folder in cache.sizes(location):
            print(f"{human_size(folder.bytes):>10}  {folder.files:>6} files  {folder.path}  ({folder.state})")
        return OK
    report = cache.clean(location)
    for folder in report.folders:
        note = "" if folder.state == cache.PRESENT else f"  skipped: {folder.state}"
        print(f"{human_size(folder.bytes):>10}  {folder.files:>6} files  {folder.path}{note}")
    for failure in report.failures:
        print(f"failed: {failure}", file=sys.stderr)
    print(
        f"freed {human_size(report.freed_bytes)}"
        + ("" if report.ok else "; some entries could not be removed, run it again to retry")
    )
    return OK if report.ok else PROBLEM


def _clean_backups(args: argparse.Namespace) -> int:
    from pidesktop.storage import cleanup

    if args.data_data_dir or args.data_dir:
        raise Refused("Kept data folders belong to the installation; run this without --data-dir.")
    kept = cleanup.list_kept()
    chosen = [info for info in kept if args.all or info.entry.id in args.ids]
    unknown = set(args.ids) - {info.entry.id for info in kept}
    if unknown:
        raise Refused(f"No kept data folder has the id {', '.join(sorted(unknown))}.")
    if not chosen:
        for info in kept:
            state = "" if info.present else "  (already gone)"
            print(f"{info.entry.id}  {human_size(info.bytes):>10}  {', '.join(map(str, info.entry.paths))}{state}")
            for problem in info.problems:
                print(f"    cannot delete: {problem}")
        print("no kept data folders" if not kept else "delete with: pidesktop data clean-backups ID --yes")
        return OK
    if not args.yes:
        for info in chosen:
            print(f"would delete {', '.join(map(str, info.entry.paths))} ({human_size(info.bytes)})")
        raise Refused("Add --yes to delete these folders.")
    status = OK
    for info in chosen:
        result = cleanup.delete(info.entry.id)
        for path in result.deleted:
            print(f"deleted {path}")
        for path in result.already_gone:
            print(f"already gone {path}")
        for failure in result.failures:
            print(f"failed: {failure}", file=sys.stderr)
            status = PROBLEM
    return status


# -- helpers ----------------------------------------------------------------------------
class _instance_lock:
    """The GUI's single-instance lock, so no window starts on a root we are moving."""

    def __enter__(self) -> _instance_lock:
        paths.ensure_private_dir(paths.anchor_dir())
        try:
            self.lock = FileLock(paths.anchor_dir() / INSTANCE_LOCK, "pidesktop data move").acquire()
        except LockHeld as exc:
            raise Refused(f"pidesktop is running ({exc.holder}). Close pidesktop first, then try again.") from None
        return self

    def __exit__(self, *exc: object) -> None:
        self.lock.release()


class _cancel_on_interrupt:
    """Ctrl-C sets a cancellation event the job checks between files, instead of killing it mid-write."""

    def __enter__(self) -> threading.Event:
        self.event = threading.Event()
        self.previous = signal.signal(signal.SIGINT, lambda *_: self.event.set())
        return self.event

    def __exit__(self, *exc: object) -> None:
        signal.signal(signal.SIGINT, self.previous)


def _say(message: Any, code: int) -> int:
    print(f"pidesktop: {message}", file=sys.stderr)
    return code


def _print_json(value: Any) -> int:
    print(orjson.dumps(value, option=orjson.OPT_INDENT_2).decode())
    return OK
