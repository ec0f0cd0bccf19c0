"""``pidesktop data backup s3|folder``, ``data restore s3|folder`` and ``data snapshots s3|folder``.

The passphrase comes from ``PIDESKTOP_BACKUP_PASSPHRASE`` or a prompt on a terminal;
S3 credentials from ``AWS_ACCESS_KEY_ID``/``AWS_SECRET_ACCESS_KEY``, or else from the
connection saved in Settings > Sync (read-only from the data folder): without
``--bucket`` its bucket is the one used, and with neither a passphrase variable nor a
terminal its saved key opens (or starts) the backups there, as the app's Back up to S3
does. Saved keys are only sent to the saved endpoint. Backups read the
data root beside a running host (read-only, like ``data backup PATH``); a restore only
writes a new folder, so neither needs the host.
"""

from __future__ import annotations

import argparse
import getpass
import os
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from pidesktop.sizes import human_size
from pidesktop.storage.errors import Failed, Refused

if TYPE_CHECKING:  # boto3 is imported only when a snapshot command runs, not on every start
    from pidesktop.storage.blobstore import BlobStore
    from pidesktop.storage.snapshot_format import Repository
    from pidesktop.storage.sync_settings import SavedSync

ENV_PASSPHRASE = "PIDESKTOP_BACKUP_PASSPHRASE"
KINDS = ("s3", "folder")


def add_target_options(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("S3 (for s3)")
    group.add_argument("--endpoint", help="S3 endpoint URL (omit for AWS)")
    group.add_argument("--bucket", help="bucket name")
    group.add_argument("--prefix", default="", help="key prefix inside the bucket")
    group.add_argument("--region", help="S3 region")


def passphrase(confirm: bool = False) -> str:
    value = os.environ.get(ENV_PASSPHRASE, "")
    if value:
        return value
    if not can_prompt():
        raise Refused(f"No backup passphrase: set {ENV_PASSPHRASE} or run this on a terminal to be asked.")
    value = getpass.getpass("Backup passphrase: ")
    if confirm and value and getpass.getpass("Same passphrase again: ") != value:
        raise Refused("The two passphrases differ; nothing was backed up.")
    return value


@contextmanager
def plain_errors() -> Iterator[None]:
    """S3 and vault failures as the storage job errors ``data`` reports: a wrong passphrase is a refusal."""
    from pidesktop.storage.s3 import S3Problem
    from pidesktop.storage.vault import VaultError, WrongPassphrase

    try:
        yield
    except WrongPassphrase as exc:
        raise Refused(f"{exc} Nothing was changed.") from exc
    except (S3Problem, VaultError) as exc:
        raise Failed(str(exc)) from exc


def guarded(handler: Callable[..., int]) -> Callable[..., int]:
    def run(*args: object) -> int:
        with plain_errors():
            return handler(*args)

    return run


def can_prompt() -> bool:
    return sys.stdin.isatty()


def saved_sync(data_root: Path | None) -> SavedSync | None:
    """The Settings > Sync connection saved in ``data_root``, if there is one."""
    from pidesktop.storage.sync_settings import read_saved

    return read_saved(data_root) if data_root is not None else None


def store_for(kind: str, args: argparse.Namespace, folder: str | None, saved: SavedSync | None = None) -> BlobStore:
    from pidesktop.storage.blobstore import FolderStore, S3Store
    from pidesktop.storage.s3 import S3Credentials, S3Location, connect

    if kind == "s3":
        if args.bucket:
            location = S3Location(args.bucket, args.endpoint or None, args.region or None, args.prefix or "")
        elif saved is not None:
            location = saved.location
        else:
            raise Refused("Give the bucket with --bucket NAME, or save the connection in Settings > Sync.")
        credentials = S3Credentials.from_env()
        if credentials is None and saved is not None and saved.location.endpoint == location.endpoint:
            credentials = saved.credentials
        return S3Store(connect(location, credentials), location)
    if kind == "folder":
        if not folder or not os.path.isabs(folder):
            raise Refused(f"Give the backup folder as an absolute path (it was {folder!r}).")
        return FolderStore(Path(os.path.normpath(folder)))
    raise Refused(f"Back up to s3 or to a folder, not {kind!r}.")


@guarded
def run_backup(args: argparse.Namespace, data_root: Path, kind: str, folder: str | None) -> int:
    from pidesktop.storage.blobstore import FolderStore
    from pidesktop.storage.snapshot_backup import backup
    from pidesktop.storage.snapshot_format import open_repository

    saved = saved_sync(data_root) if kind == "s3" else None
    store = store_for(kind, args, folder, saved)
    new = isinstance(store, FolderStore) and not store.exists("backup.json")
    repo = _with_saved_key(store, saved, create=True) or open_repository(store, passphrase(confirm=new), create=True)
    started = time.monotonic()
    summary = backup(repo, data_root, include_secrets=args.secrets, keep=args.keep)
    pruned = f"; pruned {summary.snapshots_pruned} snapshots" if args.keep else ""
    print(
        f"snapshot {summary.snapshot_id}: {summary.files} files, {human_size(summary.bytes)}; "
        f"uploaded {summary.chunks_new} new chunks ({human_size(summary.bytes_uploaded)}), "
        f"reused {summary.chunks_reused}, in {time.monotonic() - started:.1f} s{pruned}"
    )
    return 0


@guarded
def run_restore(args: argparse.Namespace, kind: str, operands: list[str]) -> int:
    from pidesktop.storage.snapshot_restore import check_target, restore

    folder, target = (None, operands[0]) if kind == "s3" and len(operands) == 1 else _two(kind, operands)
    destination = Path(target)
    check_target(destination)  # refuse before asking for a passphrase
    repo = _open(args, kind, folder, _quiet_saved(args))
    manifest = restore(repo, destination, args.snapshot)
    print(f"restored snapshot {manifest.snapshot_id} ({len(manifest.files)} files) into {destination}")
    print(f"start pidesktop on it with: pidesktop --data-dir {destination}")
    return 0


@guarded
def run_list(args: argparse.Namespace, kind: str, folder: str | None) -> int:
    repo = _open(args, kind, folder, _quiet_saved(args) if kind == "s3" else None)
    ids = repo.snapshot_ids()
    for snapshot_id in ids:
        manifest = repo.manifest(snapshot_id)
        when = time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime(manifest.created_ms / 1000))
        print(f"{snapshot_id}  {when}  {len(manifest.files):>6} files  {human_size(manifest.total_bytes):>10}")
    if not ids:
        print("no snapshots")
    return 0


def _open(args: argparse.Namespace, kind: str, folder: str | None, saved: SavedSync | None = None) -> Repository:
    from pidesktop.storage.snapshot_format import open_repository

    store = store_for(kind, args, folder, saved)
    return _with_saved_key(store, saved, create=False) or open_repository(store, passphrase())


def _with_saved_key(store: BlobStore, saved: SavedSync | None, create: bool) -> Repository | None:
    """The repository opened with the saved sync key, when that is how it is to be opened: the store is the
    saved bucket and prefix, and no passphrase is given (no variable, no terminal). Else None."""
    from pidesktop.storage.blobstore import S3Store
    from pidesktop.storage.snapshot_format import HEADER, open_repository_with_key
    from pidesktop.storage.sync_remote import Remote

    if saved is None or saved.vault_key is None or os.environ.get(ENV_PASSPHRASE) or can_prompt():
        return None
    if not isinstance(store, S3Store) or store.location != saved.location:
        return None
    if not create and not store.exists(HEADER):
        return None  # open_repository says there is no backup here
    params = Remote(store.client, saved.location).params() if create else None
    return open_repository_with_key(store, saved.vault_key, params)


def _quiet_saved(args: argparse.Namespace) -> SavedSync | None:
    """The saved connection of the data folder this command would use, if one is there (a new machine has none)."""
    from pidesktop import paths

    try:
        root = paths.resolve(data_dir=getattr(args, "data_data_dir", None) or getattr(args, "data_dir", None)).data_root
    except paths.StorageLocationError:
        return None
    return saved_sync(root)


def _two(kind: str, operands: list[str]) -> tuple[str | None, str]:
    if kind == "folder" and len(operands) == 2:
        return operands[0], operands[1]
    usage = "data restore s3 [options] DIR" if kind == "s3" else "data restore folder BACKUP_FOLDER DIR"
    raise Refused(f"Usage: pidesktop {usage}.")
