"""Rebuild a data root from a snapshot, into an empty or new folder only, on any machine.

Everything is written into a hidden sibling folder (``.<name>.restoring``) first:
each file from its chunks, checked against the SHA-256 the manifest recorded, then
the whole folder through ``data verify``; only then is it renamed to the folder asked
for. A restore that is killed leaves just the hidden sibling, which the next restore
removes: nothing a host would open.
"""

from __future__ import annotations

import hashlib
import os
import shutil
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from pidesktop.durable import FILE_MODE, write_all
from pidesktop.paths import DATA_SUBDIRS, DIR_MODE, fsync_dir
from pidesktop.storage.errors import Failed, Refused
from pidesktop.storage.snapshot_format import FileEntry, Manifest, Repository
from pidesktop.storage.verify import verify

PARALLEL = 16
RestoreProgress = Callable[[int, int], None]


def check_target(target: Path) -> Path:
    """``target`` if a restore may write there (absolute; missing or an empty folder), else ``Refused``."""
    if not target.is_absolute():
        raise Refused(f"The folder to restore into must be an absolute path (it was {str(target)!r}).")
    target = Path(os.path.normpath(target))
    if target.exists():
        if not target.is_dir():
            raise Refused(f"{target} is a file; restore into a new or empty folder.")
        if any(target.iterdir()):
            raise Refused(f"{target} is not empty; restore into a new or empty folder so nothing is overwritten.")
    elif not target.parent.is_dir():
        raise Refused(f"The folder {target.parent} does not exist.")
    return target


def staging_folder(target: Path) -> Path:
    return target.with_name(f".{target.name}.restoring")


def restore(
    repo: Repository, target: Path, snapshot_id: str | None = None, progress: RestoreProgress | None = None
) -> Manifest:
    """Restore ``snapshot_id`` (default: the newest) into ``target``; returns its manifest."""
    target = check_target(target)
    if snapshot_id is None:
        ids = repo.snapshot_ids()
        if not ids:
            raise Refused(f"There are no snapshots in {repo.store.describe()}.")
        snapshot_id = ids[-1]
    manifest = repo.manifest(snapshot_id)
    staging = staging_folder(target)
    shutil.rmtree(staging, ignore_errors=True)  # left by a restore that was stopped
    staging.mkdir(mode=DIR_MODE)
    try:
        for name in DATA_SUBDIRS:
            (staging / name).mkdir(mode=DIR_MODE, exist_ok=True)
        _write_files(repo, staging, manifest, progress)
        report = verify(staging)
        if not report.ok:
            raise Failed(f"The restored data did not pass its check: {'; '.join(report.problems[:3])}")
        fsync_dir(staging)
        os.replace(staging, target)  # an empty target folder is replaced in one step
        fsync_dir(target.parent)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return manifest


def _write_files(repo: Repository, root: Path, manifest: Manifest, progress: RestoreProgress | None) -> None:
    total, done = manifest.total_bytes, 0
    with ThreadPoolExecutor(PARALLEL, thread_name_prefix="restore-download") as pool:
        for entry in manifest.files:
            path = _inside(root, entry.path)
            path.parent.mkdir(mode=DIR_MODE, parents=True, exist_ok=True)
            _write_file(path, entry, pool.map(repo.read_chunk, entry.chunks))
            done += entry.size
            if progress is not None:
                progress(done, total)


def _write_file(path: Path, entry: FileEntry, blocks: Iterable[bytes]) -> None:
    digest = hashlib.sha256()
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, entry.mode & 0o777 or FILE_MODE)
    try:
        for block in blocks:
            digest.update(block)
            write_all(fd, block)
        os.fsync(fd)
    finally:
        os.close(fd)
    if digest.hexdigest() != entry.sha256:
        raise Failed(f"{entry.path} came back different from what was backed up; the backup may be damaged.")


def _inside(root: Path, relative: str) -> Path:
    """``root/relative``, refusing a manifest path that would leave ``root``."""
    parts = relative.split("/")
    if not relative or relative.startswith("/") or any(part in ("", ".", "..") for part in parts):
        raise Failed(f"The backup names an unsafe path {relative!r}; nothing was restored.")
    return root.joinpath(*parts)
