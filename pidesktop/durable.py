"""Durable small-file writes shared by every part of pidesktop.

A file that must survive a crash is replaced through a sibling temporary file
that is fsync-ed and renamed over the original, then the directory is
fsync-ed: readers see the old bytes or the new, never a mix, and the rename
itself survives a power cut.
"""

from __future__ import annotations

import os
import tempfile
from array import array
from collections.abc import Iterable
from pathlib import Path

FILE_MODE = 0o600  # every file pidesktop writes is private to the person


def fsync_dir(directory: Path) -> None:
    """Make entries created, renamed or removed in ``directory`` durable."""
    flags = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0)
    try:
        fd = os.open(directory, flags)
    except (PermissionError, IsADirectoryError):
        return  # platforms that cannot open a directory cannot fsync one either
    try:
        os.fsync(fd)
    except OSError:
        pass  # some filesystems refuse fsync on directories; nothing more we can do
    finally:
        os.close(fd)


def write_all(fd: int, data: bytes | array[int]) -> None:
    view = memoryview(data).cast("B")  # counted in bytes, whatever the item size of ``data``
    while view:
        written = os.write(fd, view)
        view = view[written:]


def atomic_write(path: Path, data: bytes, *, durable: bool = True) -> None:
    """Replace ``path`` with ``data`` all at once, via a sibling temporary file.

    ``durable=False`` skips the fsyncs, for files that are only caches.
    """
    atomic_write_pieces(path, (data,), durable=durable)


def atomic_write_pieces(path: Path, pieces: Iterable[bytes | array[int]], *, durable: bool = True) -> None:
    """:func:`atomic_write` of the concatenation of ``pieces``, written one after the other (never joined)."""
    fd, temp_name = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")  # mode 0600
    try:
        try:
            for piece in pieces:
                write_all(fd, piece)
            if durable:
                os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(temp_name, path)
    except BaseException:
        _unlink_quietly(Path(temp_name))
        raise
    if durable:
        fsync_dir(path.parent)


def _unlink_quietly(path: Path) -> None:
    try:
        os.unlink(path)
    except OSError:
        pass
