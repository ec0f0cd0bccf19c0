"""Replacing one of the person's files whole: readers see the old bytes or the new, never a mix."""

from __future__ import annotations

import os
import stat
import tempfile
from pathlib import Path

from pidesktop.durable import fsync_dir, write_all


def replace_file(path: Path, data: bytes) -> None:
    """Write ``data`` over ``path`` through a sibling temporary file; the file keeps its mode (a new one gets
    the usual ``0666`` less the umask), and missing parent folders are created."""
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        mode = stat.S_IMODE(path.stat().st_mode)
    except FileNotFoundError:
        umask = os.umask(0)
        os.umask(umask)
        mode = 0o666 & ~umask
    fd, temp_name = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        try:
            write_all(fd, data)
            os.fchmod(fd, mode)
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(temp_name, path)
    except BaseException:
        try:
            os.unlink(temp_name)
        except OSError:
            pass
        raise
    fsync_dir(path.parent)
