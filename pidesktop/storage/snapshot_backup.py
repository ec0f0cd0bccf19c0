"""Back up the whole data root as one snapshot: new chunks uploaded, known ones named again.

The database is copied first through SQLite's online backup (one consistent read,
safe beside a running host); the transcripts are read after it, so they hold at least
every line the copied index names (extra lines at a tail are indexed again at the next
start). Caches, logs, scratch, crash reports (``crash-dumps/`` and its marker: spec 004
section 2, never uploaded) and the writer lock are left out; ``secrets/`` only when asked.
Chunks go up in parallel; the manifest goes last, so a backup stopped half way leaves
the earlier snapshots as they were and its uploaded chunks for the next run to reuse.
"""

from __future__ import annotations

import hashlib
import os
import stat
import tempfile
import threading
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from pidesktop.clock import now_ms
from pidesktop.formats.index.schema import DB_NAME
from pidesktop.storage.backup import copy_database
from pidesktop.storage.errors import Refused
from pidesktop.storage.snapshot_format import (
    FileEntry,
    Manifest,
    Repository,
    chunk_aad,
    chunk_bytes_for,
    chunk_name,
    new_snapshot_id,
)
from pidesktop.storage.sqlite_ro import open_readonly, user_version

LEFT_OUT = {
    "host.lock",
    "cache",
    "logs",
    "scratch",
    "crash-dumps",
    "crash-dumps.json",
    f"{DB_NAME}-wal",
    f"{DB_NAME}-shm",
    f"{DB_NAME}-journal",
}
SECRETS = "secrets"
PARALLEL = 16  # uploads in flight; S3 rewards many at once
_READ_AHEAD = PARALLEL + 4  # chunks read but not yet stored: bounds memory to about 80 MiB

# ``progress(done_bytes, total_bytes)`` while files are read and chunks stored.
BackupProgress = Callable[[int, int], None]


@dataclass(frozen=True)
class BackupSummary:
    snapshot_id: str
    files: int
    bytes: int
    chunks_new: int
    chunks_reused: int
    bytes_uploaded: int
    snapshots_pruned: int = 0
    chunks_pruned: int = 0


def backup(
    repo: Repository,
    data_root: Path,
    *,
    include_secrets: bool = False,
    keep: int | None = None,
    progress: BackupProgress | None = None,
) -> BackupSummary:
    if keep is not None and keep < 1:
        raise Refused(f"--keep must be at least 1 (it was {keep}).")
    db = data_root / DB_NAME
    if not db.is_file():
        raise Refused(f"There is no pidesktop data folder at {data_root} (no {DB_NAME}).")
    with tempfile.TemporaryDirectory(prefix="pidesktop-backup-") as scratch:
        db_copy = Path(scratch) / DB_NAME
        copy_database(db, db_copy)
        conn = open_readonly(db_copy)
        try:
            schema = user_version(conn)
        finally:
            conn.close()
        sources = [(DB_NAME, db_copy), *_data_files(data_root, include_secrets)]
        uploader = _Uploader(repo, _previous_files(repo))
        entries = uploader.store_files(sources, progress)
    manifest = Manifest(new_snapshot_id(), now_ms(), schema, entries)
    repo.save_manifest(manifest)
    pruned_snapshots, pruned_chunks = prune(repo, keep) if keep is not None else (0, 0)
    return BackupSummary(
        manifest.snapshot_id,
        len(entries),
        manifest.total_bytes,
        uploader.new,
        uploader.reused,
        uploader.uploaded_bytes,
        pruned_snapshots,
        pruned_chunks,
    )


def prune(repo: Repository, keep: int) -> tuple[int, int]:
    """Drop all but the newest ``keep`` snapshots, then every chunk no remaining snapshot names."""
    ids = repo.snapshot_ids()
    old = ids[:-keep] if len(ids) > keep else []
    from pidesktop.storage.snapshot_format import snapshot_name

    repo.store.delete([snapshot_name(snapshot_id) for snapshot_id in old])
    used: set[str] = set()
    for snapshot_id in ids[len(old) :]:
        for entry in repo.manifest(snapshot_id).files:
            used.update(entry.chunks)
    unused = sorted(repo.chunk_ids() - used)
    repo.store.delete([chunk_name(chunk_id) for chunk_id in unused])
    return len(old), len(unused)


def _previous_files(repo: Repository) -> dict[str, FileEntry]:
    """The newest snapshot's files by path: a file with the same size and mtime is not read again."""
    ids = repo.snapshot_ids()
    if not ids:
        return {}
    known = repo.chunk_ids()
    files = repo.manifest(ids[-1]).files
    # Only entries whose chunks are all still stored (a prune by another run could have removed some).
    return {f.path: f for f in files if f.mtime_ns and f.path != DB_NAME and all(c in known for c in f.chunks)}


def _data_files(data_root: Path, include_secrets: bool) -> list[tuple[str, Path]]:
    found: list[tuple[str, Path]] = []
    for top in sorted(os.listdir(data_root)):
        if top in LEFT_OUT or top == DB_NAME or (top == SECRETS and not include_secrets) or top.startswith("."):
            continue
        path = data_root / top
        if path.is_dir() and not path.is_symlink():
            for folder, dirs, files in os.walk(path):
                dirs.sort()
                for name in sorted(files):
                    full = Path(folder) / name
                    if _wanted(full):
                        found.append((full.relative_to(data_root).as_posix(), full))
        elif _wanted(path):
            found.append((top, path))
    return found


def _wanted(path: Path) -> bool:
    # A layout file is a cache the host rebuilds; partial files belong to a write in progress.
    if path.name.endswith(".layout") or ".partial" in path.name or path.name.endswith(".tmp"):
        return False
    try:
        return stat.S_ISREG(os.lstat(path).st_mode)
    except FileNotFoundError:
        return False


class _Uploader:
    def __init__(self, repo: Repository, previous: dict[str, FileEntry]) -> None:
        self.repo = repo
        self.previous = previous
        self.known = repo.chunk_ids()  # chunks already stored, by earlier or stopped runs
        self.new = self.reused = self.uploaded_bytes = 0
        self._lock = threading.Lock()
        self._slots = threading.Semaphore(_READ_AHEAD)

    def store_files(self, sources: list[tuple[str, Path]], progress: BackupProgress | None) -> list[FileEntry]:
        total = sum(_size(path) for _, path in sources)
        done = 0
        entries: list[FileEntry] = []
        pending: list[Future[None]] = []
        with ThreadPoolExecutor(PARALLEL, thread_name_prefix="backup-upload") as pool:
            try:
                for relative, path in sources:
                    try:
                        entry, read = self._store_file(relative, path, pool, pending)
                    except FileNotFoundError:
                        continue  # removed while the backup ran (a deleted chat): not part of this snapshot
                    entries.append(entry)
                    done += read
                    if progress is not None:
                        progress(done, total)
                    pending = [f for f in pending if not f.done() or f.result() is not None]
                for future in pending:
                    future.result()
            except BaseException:
                for future in pending:
                    future.cancel()
                raise
        return entries

    def _store_file(
        self, relative: str, path: Path, pool: ThreadPoolExecutor, pending: list[Future[None]]
    ) -> tuple[FileEntry, int]:
        digest = hashlib.sha256()
        chunks: list[str] = []
        size = 0
        with open(path, "rb") as source:
            info = os.fstat(source.fileno())
            mode = stat.S_IMODE(info.st_mode)
            earlier = self.previous.get(relative)
            if earlier is not None and earlier.size == info.st_size and earlier.mtime_ns == info.st_mtime_ns:
                self.reused += len(earlier.chunks)
                return FileEntry(
                    relative, earlier.size, mode, earlier.sha256, earlier.chunks, earlier.mtime_ns
                ), earlier.size
            step = chunk_bytes_for(relative)
            while block := source.read(step):
                digest.update(block)
                size += len(block)
                chunk_id = self.repo.key.content_id(block)
                chunks.append(chunk_id)
                with self._lock:
                    fresh = chunk_id not in self.known
                    self.known.add(chunk_id)
                if not fresh:
                    self.reused += 1
                    continue
                self._slots.acquire()
                pending.append(pool.submit(self._upload, chunk_id, block))
        # An mtime from before the read: a write during the read changes it, so the next run reads again.
        return FileEntry(relative, size, mode, digest.hexdigest(), chunks, info.st_mtime_ns), size

    def _upload(self, chunk_id: str, block: bytes) -> None:
        try:
            self.repo.store.put(chunk_name(chunk_id), self.repo.key.seal(block, chunk_aad(chunk_id)))
            with self._lock:
                self.new += 1
                self.uploaded_bytes += len(block)
        finally:
            self._slots.release()


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except FileNotFoundError:
        return 0
