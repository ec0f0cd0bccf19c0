"""Holding a data root's writer lock for the length of a cold job.

The writer lock (``host.lock``) is the one every host takes before it opens
the database, so a job that holds it knows no host is writing the root, and no
host can start on it until the job is done.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from pidesktop.locks import WRITER_LOCK, FileLock, LockHeld
from pidesktop.storage.errors import Refused


@contextmanager
def writer_lock(data_root: Path, role: str) -> Iterator[FileLock]:
    try:
        lock = FileLock(data_root / WRITER_LOCK, role).acquire()
    except LockHeld as exc:
        raise Refused(
            f"pidesktop is using the data folder {data_root} ({exc.holder}). Close pidesktop first, then try again."
        ) from None
    except FileNotFoundError:
        raise Refused(f"There is no data folder at {data_root}.") from None
    except OSError as exc:
        raise Refused(f"Cannot lock the data folder {data_root}: {exc}") from None
    try:
        yield lock
    finally:
        lock.release()


def is_in_use(data_root: Path) -> str | None:
    """Who holds ``data_root``'s writer lock right now, or None.

    A holder always leaves its record in the file and a release empties it,
    so an empty file needs no probe; only a non-empty one (a running host, or
    one that crashed) is confirmed by trying the lock, which keeps the window
    in which a starting host could meet our probe as small as possible.
    """
    path = data_root / WRITER_LOCK
    try:
        if path.stat().st_size == 0:
            return None
    except OSError:
        return None
    try:
        FileLock(path, "pidesktop maintenance probe").acquire().release()
    except LockHeld as exc:
        return exc.holder
    except OSError:
        return None
    return None
