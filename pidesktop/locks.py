"""Advisory file locks that say who holds them.

Two locks keep pidesktop honest:

- the installation's single-instance lock (one GUI per installation), in the
  installation anchor;
- the writer lock on a data root, held by every host (GUI or ``host --stdio``),
  so two hosts never write one database.

Both are ``flock`` locks: the kernel drops them when the holder dies, so a
crash never leaves a stale lock behind. The file also records the holder's pid
and role, which is what a refused second process is told.
"""

from __future__ import annotations

import fcntl
import os
import sys
from pathlib import Path

from pidesktop import small_json
from pidesktop.clock import now_ms
from pidesktop.durable import FILE_MODE

WRITER_LOCK = "host.lock"  # the writer lock's file name in a data root


class LockHeld(Exception):
    """Someone else holds the lock; ``holder`` describes them."""

    def __init__(self, path: Path, holder: str):
        super().__init__(f"{path} is held by {holder}")
        self.path = path
        self.holder = holder


class FileLock:
    """An exclusive, non-blocking lock on ``path`` for this process's lifetime."""

    def __init__(self, path: Path, role: str):
        self.path = path
        self.role = role
        self._fd: int | None = None

    def acquire(self) -> FileLock:
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, FILE_MODE)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = _describe_holder(fd)
            os.close(fd)
            raise LockHeld(self.path, holder) from None
        record = {"pid": os.getpid(), "role": self.role, "argv": sys.argv[:3], "since": now_ms()}
        os.ftruncate(fd, 0)
        os.pwrite(fd, small_json.dumps(record), 0)
        self._fd = fd
        return self

    def release(self) -> None:
        if self._fd is None:
            return
        try:
            os.ftruncate(self._fd, 0)
        finally:
            fcntl.flock(self._fd, fcntl.LOCK_UN)
            os.close(self._fd)
            self._fd = None

    @property
    def held(self) -> bool:
        return self._fd is not None


def _describe_holder(fd: int) -> str:
    try:
        info = small_json.loads(os.pread(fd, 4096, 0))
        return f"{info.get('role', 'another process')} (pid {info.get('pid', '?')})"
    except (OSError, small_json.DecodeError, AttributeError):
        return "another process"
