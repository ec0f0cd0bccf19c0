"""The per-project host lock and child-process registry (spec 000, "Projects and concurrency").

``workflows/hosts/<project hash>.lock`` is held with ``flock`` for as long
as a standalone host runs for that project, so hosts of different projects
run side by side while a second host of one project is refused, told who
holds the lock. The kernel drops the lock when its holder dies, so a crash
never leaves a stale lock. ``<project hash>.children.json`` lists the
child processes the host started; it is read and written only under that
lock (atomically: temporary file, fsync, rename), so a successor that takes
the lock after a crash reads exactly what the crashed host left. Neither
file is state: nothing here touches ``state.sqlite``.
"""

from __future__ import annotations

import os
import secrets
from pathlib import Path
from typing import Any

import orjson

from pidesktop import locks
from pidesktop.durable import FILE_MODE
from pidesktop.workflows import paths
from pidesktop.workflows.credentials import require_nonsecret
from pidesktop.workflows.errors import HostBusy, StorageError


class HostLock:
    """One project's host lock, held by this process until ``release``."""

    def __init__(self, project: str, lock_path: Path, registry_path: Path):
        self.project = project
        self.lock_path = lock_path
        self.registry_path = registry_path
        self._lock = locks.FileLock(lock_path, f"Pi Workflows host for {project}")

    @property
    def held(self) -> bool:
        return self._lock.held

    def release(self) -> None:
        self._lock.release()

    def __enter__(self) -> HostLock:
        return self

    def __exit__(self, *exc) -> None:
        self.release()

    def read_children(self) -> list[dict[str, Any]]:
        """The registry as the last holder wrote it; empty when there is none."""
        self._require_held("read")
        try:
            raw = self.registry_path.read_bytes()
        except FileNotFoundError:
            return []
        except OSError as exc:
            raise StorageError(f"Cannot read {self.registry_path}: {exc}") from exc
        try:
            children = orjson.loads(raw)
        except orjson.JSONDecodeError as exc:
            raise StorageError(
                f"{self.registry_path} is not a child-process list ({exc}); move it away to start with an empty one."
            ) from exc
        if not isinstance(children, list):
            raise StorageError(f"{self.registry_path} is not a child-process list; move it away to start afresh.")
        return children

    def write_children(self, children: list[dict[str, Any]]) -> None:
        """Replace the registry (pids and kinds; nothing secret) while holding the lock."""
        self._require_held("write")
        require_nonsecret(children, "the child-process registry")
        data = orjson.dumps(list(children))
        temp = self.registry_path.with_name(f".{self.registry_path.name}.{os.getpid()}-{secrets.token_hex(4)}")
        try:
            fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, FILE_MODE)
            try:
                os.write(fd, data)
                os.fsync(fd)
            finally:
                os.close(fd)
            os.replace(temp, self.registry_path)
            paths.fsync_dir(self.registry_path.parent)
        except OSError as exc:
            try:
                temp.unlink()
            except OSError:
                pass
            raise StorageError(f"Cannot write {self.registry_path}: {exc}") from exc

    def _require_held(self, doing: str) -> None:
        if not self.held:
            raise HostBusy(
                f"The host lock {self.lock_path} is not held by this host; it may not {doing} "
                f"{self.registry_path.name}."
            )


def acquire(canonical_project_path: str, *, env: dict[str, str] | None = None) -> HostLock:
    """Take the project's host lock, or raise ``HostBusy`` naming the current holder."""
    lock_path, registry_path = paths.host_files(canonical_project_path, env)
    try:
        paths.ensure_private_dir(lock_path.parent.parent)
        paths.ensure_private_dir(lock_path.parent)
    except OSError as exc:
        raise StorageError(f"Cannot create the folder {lock_path.parent}: {exc}") from exc
    host = HostLock(canonical_project_path, lock_path, registry_path)
    try:
        host._lock.acquire()
    except locks.LockHeld as exc:
        raise HostBusy(
            f"Another Pi Workflows host already runs for {canonical_project_path}: {exc.holder} holds "
            f"{lock_path}. Stop that host or wait for it to exit (the lock is released when its process ends)."
        ) from None
    except OSError as exc:
        raise StorageError(f"Cannot open the host lock {lock_path}: {exc}") from exc
    return host
