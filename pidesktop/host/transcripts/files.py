"""Durable file primitives: appends, exclusive creation, atomic replacement, reads.

A transcript must survive ``kill -9`` (or a power cut) at any instant, so:

- appends are written then ``fsync``-ed before they are acknowledged;
- a new file is ``fsync``-ed and so is its directory, so the name itself
  survives;
- a full rewrite goes to a sibling temporary file that is ``fsync``-ed and
  renamed over the original, then the directory is ``fsync``-ed: readers see
  either the old file or the new one, never a mix.

Reads go through :class:`ReadCounter` so callers can observe how many bytes an
operation really cost.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import BinaryIO

from pidesktop.durable import FILE_MODE, _unlink_quietly

# Re-exported for this package's writers.
from pidesktop.durable import atomic_write as atomic_write
from pidesktop.durable import fsync_dir as fsync_dir
from pidesktop.durable import write_all as write_all


class ReadCounter:
    """Counts the bytes read from transcript files."""

    def __init__(self) -> None:
        self.bytes_read = 0


def create_exclusive(path: Path, data: bytes) -> None:
    """Create ``path`` holding ``data``; ``FileExistsError`` if it already exists."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, FILE_MODE)
    try:
        write_all(fd, data)
        os.fsync(fd)
    except BaseException:
        os.close(fd)
        _unlink_quietly(path)
        raise
    os.close(fd)
    fsync_dir(path.parent)


@contextmanager
def atomic_stream(path: Path, buffer_size: int = 1 << 20) -> Iterator[BinaryIO]:
    """Write the replacement of ``path`` piece by piece, then swap it in as :func:`atomic_write` does.

    The same sibling temporary file (``.<name>.<random>.tmp``, mode 0600, swept
    at boot if a crash leaves it), ``fsync``, ``os.replace`` and directory
    ``fsync``, for content too large to hold in memory at once. An exception
    inside the block removes the temporary file and leaves ``path`` as it was.
    """
    fd, temp_name = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with open(fd, "wb", buffering=buffer_size) as out:
            yield out
            out.flush()
            os.fsync(out.fileno())
        os.replace(temp_name, path)
    except BaseException:
        _unlink_quietly(Path(temp_name))
        raise
    fsync_dir(path.parent)


def append_durably(fd: int, data: bytes) -> None:
    """Append ``data`` through an ``O_APPEND`` descriptor and wait until it is on disk."""
    write_all(fd, data)
    os.fsync(fd)


def read_at(fd: int, offset: int, size: int, counter: ReadCounter) -> bytes:
    """Up to ``size`` bytes at ``offset`` (fewer only at end of file)."""
    parts = []
    while size > 0:
        chunk = os.pread(fd, size, offset)
        if not chunk:
            break
        parts.append(chunk)
        offset += len(chunk)
        size -= len(chunk)
    data = parts[0] if len(parts) == 1 else b"".join(parts)  # avoid a copy in the usual case
    counter.bytes_read += len(data)
    return data


def read_to_end(fd: int, offset: int, counter: ReadCounter, chunk_size: int = 1 << 20) -> Iterator[bytes]:
    """Yield the file's bytes from ``offset`` to its end, in chunks."""
    while True:
        chunk = os.pread(fd, chunk_size, offset)
        if not chunk:
            return
        counter.bytes_read += len(chunk)
        offset += len(chunk)
        yield chunk


def read_whole(fd: int, counter: ReadCounter) -> bytes:
    """The file's entire content in one sequential read."""
    size_hint = os.fstat(fd).st_size
    data = read_at(fd, 0, size_hint, counter)
    tail = b"".join(read_to_end(fd, len(data), counter))  # the file may have grown meanwhile
    return data + tail if tail else data
