"""Cache cleanup: empty the allowlisted cache folders, and nothing else (spec 004, section 2).

The allowlist is ``cache/``, ``plugins/cache/download/``, ``plugins/cache/backup/``
and ``openable-attachments/`` under the data root, and ``cache/`` under the
front-end root. Everything else - transcripts, attachments, secrets, scratch,
review snapshots, plugin code and data, configuration, logs - is out of reach
by construction: the walk starts only at those folders.

No symbolic link is ever followed, on the way to a cache folder or inside it:
each step is opened relative to its parent's descriptor with ``O_NOFOLLOW``,
so a link planted anywhere (an intermediate folder, the cache folder itself,
or an entry inside it) cannot redirect the cleanup, even to another folder of
the same profile. A link inside a cache folder is removed as the link it is;
a cache folder that is itself a link is skipped and reported.

The job holds the data root's writer lock, so it is refused while a host runs there.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass, field
from pathlib import Path

from pidesktop import paths
from pidesktop.storage import journal
from pidesktop.storage.errors import Refused
from pidesktop.storage.locking import writer_lock

DATA_CACHES: tuple[tuple[str, ...], ...] = (
    ("cache",),
    ("plugins", "cache", "download"),
    ("plugins", "cache", "backup"),
    ("openable-attachments",),
)
UI_CACHES: tuple[tuple[str, ...], ...] = (("cache",),)

_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC

PRESENT, ABSENT, LINK, NOT_A_FOLDER = "present", "absent", "link", "not-a-folder"


@dataclass
class CacheFolder:
    path: Path
    state: str  # present, absent, link (skipped), not-a-folder (skipped)
    bytes: int = 0
    files: int = 0


@dataclass
class CleanReport:
    folders: list[CacheFolder] = field(default_factory=list)
    freed_bytes: int = 0
    removed_files: int = 0
    failures: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.failures


def folders(location: paths.StorageLocation) -> list[tuple[Path, tuple[str, ...]]]:
    """Each allowlisted cache as (root it hangs from, path components below that root)."""
    return [(location.data_root, parts) for parts in DATA_CACHES] + [(location.ui_root, parts) for parts in UI_CACHES]


def sizes(location: paths.StorageLocation) -> list[CacheFolder]:
    """What each cache folder holds now (links never followed)."""
    out = []
    for root, parts in folders(location):
        fd, state = _open_chain(root, parts)
        found = CacheFolder(root.joinpath(*parts), state)
        if fd is not None:
            try:
                found.bytes, found.files = _measure(fd)
            finally:
                os.close(fd)
        out.append(found)
    return out


def clean(location: paths.StorageLocation) -> CleanReport:
    """Empty every allowlisted cache folder (the folders themselves stay). Partial failures are reported."""
    if location.source != "env" and journal.read() is not None:
        raise Refused("A move of the data folder is pending; finish it first with `pidesktop data move`.")
    report = CleanReport()
    if not location.data_root.is_dir():
        return report
    with writer_lock(location.data_root, "pidesktop data clean-cache"):
        for root, parts in folders(location):
            where = root.joinpath(*parts)
            fd, state = _open_chain(root, parts)
            folder = CacheFolder(where, state)
            report.folders.append(folder)
            if fd is None:
                continue
            try:
                folder.bytes, folder.files = _clear(fd, where, report.failures)
            finally:
                os.close(fd)
            report.freed_bytes += folder.bytes
            report.removed_files += folder.files
    return report


def _open_chain(root: Path, parts: tuple[str, ...]) -> tuple[int | None, str]:
    """A descriptor of ``root/parts...`` reached without following any link below ``root``."""
    try:
        fd = os.open(root, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    except (FileNotFoundError, NotADirectoryError):
        return None, ABSENT
    for part in parts:
        try:
            child = os.open(part, _DIR_FLAGS, dir_fd=fd)
        except FileNotFoundError:
            os.close(fd)
            return None, ABSENT
        except OSError:
            try:
                mode = os.lstat(part, dir_fd=fd).st_mode
            except OSError:
                mode = 0
            os.close(fd)
            return None, LINK if stat.S_ISLNK(mode) else NOT_A_FOLDER
        os.close(fd)
        fd = child
    return fd, PRESENT


def _measure(fd: int) -> tuple[int, int]:
    total = count = 0
    with os.scandir(fd) as it:
        entries = list(it)
    for entry in entries:
        try:
            if entry.is_dir(follow_symlinks=False):
                child = os.open(entry.name, _DIR_FLAGS, dir_fd=fd)
                try:
                    sub_bytes, sub_files = _measure(child)
                finally:
                    os.close(child)
                total, count = total + sub_bytes, count + sub_files
            else:
                total += entry.stat(follow_symlinks=False).st_size
                count += 1
        except OSError:
            continue  # gone or replaced meanwhile: sizes are a report, not a promise
    return total, count


def _clear(fd: int, where: Path, failures: list[str]) -> tuple[int, int]:
    """Remove everything inside the folder open as ``fd``; returns (bytes, files) removed."""
    freed = removed = 0
    with os.scandir(fd) as it:
        entries = list(it)
    for entry in entries:
        path = where / entry.name
        try:
            if entry.is_dir(follow_symlinks=False):
                child = os.open(entry.name, _DIR_FLAGS, dir_fd=fd)  # fails if it became a link meanwhile
                try:
                    sub_bytes, sub_files = _clear(child, path, failures)
                finally:
                    os.close(child)
                freed, removed = freed + sub_bytes, removed + sub_files
                os.rmdir(entry.name, dir_fd=fd)
            else:
                size = entry.stat(follow_symlinks=False).st_size
                os.unlink(entry.name, dir_fd=fd)  # a link is removed, its target is not touched
                freed, removed = freed + size, removed + 1
        except FileNotFoundError:
            continue
        except OSError as exc:
            failures.append(f"{path}: {exc.strerror or exc}")
    return freed, removed
