"""Small file-system helpers shared by the maintenance jobs.

Paths are compared in two spellings, as given (made absolute) and with links
resolved, so a root reached through a symlink still counts as overlapping.
"""

from __future__ import annotations

import os
import shutil
import stat
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from pidesktop import small_json
from pidesktop.durable import FILE_MODE, write_all
from pidesktop.paths import ensure_private_dir, fsync_dir

if TYPE_CHECKING:
    import ctypes


def absolute(raw: str | os.PathLike[str]) -> Path:
    return Path(os.path.abspath(os.path.expanduser(os.fspath(raw))))


def spellings(path: Path) -> set[Path]:
    """``path`` as given and with every existing link on the way resolved."""
    return {absolute(path), Path(os.path.realpath(absolute(path)))}


def is_within(child: Path, parent: Path) -> bool:
    """True when ``child`` is ``parent`` or below it, in any spelling."""
    return any(c == p or p in c.parents for c in spellings(child) for p in spellings(parent))


def overlaps(a: Path, b: Path) -> bool:
    return is_within(a, b) or is_within(b, a)


def nearest_existing(path: Path) -> Path:
    """``path`` or its closest ancestor that exists (as an entry, links not followed)."""
    current = absolute(path)
    while not os.path.lexists(current) and current != current.parent:
        current = current.parent
    return current


def write_json_atomic(path: Path, value: Any) -> None:
    """Replace ``path`` with ``value`` as JSON: temp file, fsync, rename, directory fsync."""
    ensure_private_dir(path.parent)
    tmp = path.with_name(f".{path.name}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, FILE_MODE)
    try:
        write_all(fd, small_json.dumps(value, indent=True))
        os.fsync(fd)
    finally:
        os.close(fd)
    os.replace(tmp, path)
    fsync_dir(path.parent)


def read_json(path: Path) -> Any:
    """The parsed content of ``path``; None when it does not exist. Raises ``ValueError`` when damaged."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return None
    return small_json.loads(data)


def remove_entry(path: Path) -> None:
    """Remove a file, link or whole folder at ``path`` without following any link."""
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return
    if stat.S_ISDIR(st.st_mode):
        # rmtree works through directory descriptors on Linux: links inside are
        # unlinked, never followed, and a link as the top is refused.
        shutil.rmtree(path)
    else:
        os.unlink(path)


def tree_size(path: Path) -> tuple[int, int]:
    """(bytes, entries) below ``path``, links not followed; (0, 0) when it is gone."""
    total = count = 0
    stack = [path]
    while stack:
        folder = stack.pop()
        try:
            with os.scandir(folder) as it:
                for entry in it:
                    try:
                        st = entry.stat(follow_symlinks=False)
                    except FileNotFoundError:
                        continue
                    count += 1
                    if entry.is_dir(follow_symlinks=False):
                        stack.append(Path(entry.path))
                    else:
                        total += st.st_size
        except (FileNotFoundError, NotADirectoryError):
            continue
    return total, count


_libc: ctypes.CDLL | Literal[False] | None = None  # False: no C library found


def sync_filesystem(path: Path) -> None:
    """Flush everything written on ``path``'s file system (``syncfs``), or all of them."""
    global _libc
    if _libc is None:
        import ctypes  # with ctypes.util (subprocess) about 9 ms: only a data move syncs, not every start
        import ctypes.util

        name = ctypes.util.find_library("c")
        _libc = ctypes.CDLL(name, use_errno=True) if name else False
    if _libc is not False and hasattr(_libc, "syncfs"):
        fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY)
        try:
            if _libc.syncfs(fd) == 0:
                return
        finally:
            os.close(fd)
    os.sync()
