"""Streamed copy of whole trees, then a SHA-256 comparison of every file.

Each source file is hashed while it is copied (the bytes hashed are the bytes
written); afterwards each copied file is read back and hashed again, and the
two digests must agree. Modes and times follow the source. Links are
recreated, never followed: a link to somewhere inside a copied tree points at
the same place inside the copy, a link to anything else keeps pointing at
that same external place (spec 004, section 2). Sockets and device files are
an error, never silently skipped.

A destination left by an earlier attempt is reused: entries that the source
does not have (or has with another kind) are removed first, everything else
is written again.
"""

from __future__ import annotations

import functools
import hashlib
import os
import stat
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from pidesktop.durable import FILE_MODE
from pidesktop.storage import inventory
from pidesktop.storage.errors import Cancelled, Failed
from pidesktop.storage.fsutil import remove_entry, spellings
from pidesktop.storage.inventory import DIR, FIFO, FILE, LINK, Entry, Tree
from pidesktop.storage.progress import Progress, ignore

CHUNK = 1 << 20
_REPORT_EVERY = 8 << 20  # progress inside a large file
_NOFOLLOW = os.O_NOFOLLOW | os.O_CLOEXEC


@dataclass
class Pair:
    """One tree to copy: ``tree`` (already scanned) into ``dest``."""

    tree: Tree
    dest: Path
    digests: dict[str, bytes] = field(default_factory=dict)
    links: dict[str, str] = field(default_factory=dict)


class TreeCopy:
    def __init__(self, pairs: list[Pair], progress: Progress | None = None, cancel: threading.Event | None = None):
        self.pairs = pairs
        self.progress = progress or ignore
        self.cancel = cancel or threading.Event()
        self._buf = bytearray(CHUNK)
        self.bytes_total = sum(p.tree.bytes for p in pairs)
        self.files_total = sum(p.tree.files for p in pairs)

    # -- copy ------------------------------------------------------------------------
    def copy(self) -> None:
        done_bytes = done_files = 0
        self.progress("copy", 0, self.bytes_total, 0, self.files_total, "")
        for pair in self.pairs:
            _prune(pair)
            for entry in pair.tree.entries:
                self._check_cancel()
                src = _join(pair.tree.root, entry.rel)
                dst = _join(pair.dest, entry.rel)
                try:
                    if entry.kind == DIR:
                        _make_dir(dst)
                        continue
                    if entry.kind == FILE:
                        pair.digests[entry.rel] = self._copy_file(src, dst, entry, done_bytes, done_files)
                        done_bytes += entry.size
                    elif entry.kind == LINK:
                        target = self._link_target(pair, entry)
                        pair.links[entry.rel] = target
                        _replace_with(dst, functools.partial(os.symlink, target, dst))
                        os.utime(dst, ns=(entry.atime_ns, entry.mtime_ns), follow_symlinks=False)
                    elif entry.kind == FIFO:
                        _replace_with(dst, functools.partial(os.mkfifo, dst, entry.mode))
                    else:
                        raise Failed(
                            f"Cannot copy {src}: it is a socket or device file. Remove it from the "
                            f"data folder and try again; nothing was changed."
                        )
                except OSError as exc:
                    raise Failed(
                        f"Copying {src} to {dst} failed: {exc}. The active data folder was not changed."
                    ) from exc
                done_files += 1
                self.progress("copy", done_bytes, self.bytes_total, done_files, self.files_total, str(src))

    def _copy_file(self, src: Path, dst: Path, entry: Entry, done_bytes: int, done_files: int) -> bytes:
        _unlink_quietly(dst)
        digest = hashlib.sha256()
        buf, view = self._buf, memoryview(self._buf)
        sfd = os.open(src, os.O_RDONLY | _NOFOLLOW)
        try:
            dfd = os.open(dst, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW, FILE_MODE)
            try:
                copied = reported = 0
                while True:
                    n = os.readv(sfd, [buf])
                    if not n:
                        break
                    chunk = view[:n]
                    digest.update(chunk)
                    while chunk:
                        chunk = chunk[os.write(dfd, chunk) :]
                    copied += n
                    if copied - reported >= _REPORT_EVERY:
                        reported = copied
                        self._check_cancel()
                        self.progress(
                            "copy", done_bytes + copied, self.bytes_total, done_files, self.files_total, str(src)
                        )
                os.fchmod(dfd, entry.mode)
            finally:
                os.close(dfd)
        finally:
            os.close(sfd)
        os.utime(dst, ns=(entry.atime_ns, entry.mtime_ns), follow_symlinks=False)
        return digest.digest()

    def _link_target(self, pair: Pair, entry: Entry) -> str:
        target = os.readlink(_join(pair.tree.root, entry.rel))
        link_dir = os.path.dirname(str(_join(pair.tree.root, entry.rel)))
        resolved = os.path.normpath(target if os.path.isabs(target) else os.path.join(link_dir, target))
        for other in self.pairs:
            for root in spellings(other.tree.root):
                base = str(root)
                if resolved == base or resolved.startswith(base.rstrip(os.sep) + os.sep):
                    moved = str(other.dest) + resolved[len(base) :]
                    if os.path.isabs(target):
                        return moved
                    return os.path.relpath(moved, os.path.dirname(str(_join(pair.dest, entry.rel))))
        # External: keep pointing at the same place, whatever the copy's own location.
        return target if os.path.isabs(target) else resolved

    # -- verify ----------------------------------------------------------------------
    def verify(self) -> None:
        """Read every copied file back and compare digests, modes and link targets."""
        done_bytes = done_files = 0
        self.progress("verify", 0, self.bytes_total, 0, self.files_total, "")
        for pair in self.pairs:
            for entry in pair.tree.entries:
                self._check_cancel()
                if entry.kind == DIR:
                    continue
                dst = _join(pair.dest, entry.rel)
                try:
                    st = os.lstat(dst)
                    if entry.kind == FILE:
                        if not stat.S_ISREG(st.st_mode) or self._hash(dst) != pair.digests[entry.rel]:
                            raise Failed(
                                f"The copy {dst} does not match {_join(pair.tree.root, entry.rel)} "
                                f"(SHA-256 differs). The active data folder was not changed."
                            )
                        done_bytes += entry.size
                    elif entry.kind == LINK and os.readlink(dst) != pair.links[entry.rel]:
                        raise Failed(
                            f"The copied link {dst} points at {os.readlink(dst)!r}, not {pair.links[entry.rel]!r}."
                        )
                    if entry.kind != LINK and stat.S_IMODE(st.st_mode) != entry.mode:
                        raise Failed(
                            f"The copy {dst} has mode {stat.S_IMODE(st.st_mode):o}, not {entry.mode:o} like its source."
                        )
                except OSError as exc:
                    raise Failed(f"Verifying the copy {dst} failed: {exc}.") from exc
                done_files += 1
                self.progress("verify", done_bytes, self.bytes_total, done_files, self.files_total, str(dst))

    def _hash(self, path: Path) -> bytes:
        digest = hashlib.sha256()
        buf, view = self._buf, memoryview(self._buf)
        fd = os.open(path, os.O_RDONLY | _NOFOLLOW)
        try:
            while n := os.readv(fd, [buf]):
                digest.update(view[:n])
        finally:
            os.close(fd)
        return digest.digest()

    # -- folders last ----------------------------------------------------------------
    def finish_dirs(self) -> None:
        """Give every copied folder its source's mode and times (deepest first, after all writes)."""
        for pair in self.pairs:
            for entry in reversed(pair.tree.entries):
                if entry.kind == DIR:
                    dst = _join(pair.dest, entry.rel)
                    os.chmod(dst, entry.mode, follow_symlinks=False)
                    os.utime(dst, ns=(entry.atime_ns, entry.mtime_ns), follow_symlinks=False)

    def _check_cancel(self) -> None:
        if self.cancel.is_set():
            raise Cancelled("The move was cancelled. The active data folder was not changed.")


def _join(root: Path, rel: str) -> Path:
    return root / rel if rel else root


def _make_dir(path: Path) -> None:
    if os.path.isdir(path) and not os.path.islink(path):
        os.chmod(path, 0o700)  # writable while we fill it; the source's mode comes last
    else:
        os.mkdir(path, 0o700)


def _replace_with(dst: Path, create: Callable[[], object]) -> None:
    _unlink_quietly(dst)
    create()


def _unlink_quietly(path: Path) -> None:
    try:
        os.unlink(path)
    except FileNotFoundError:
        pass


def _prune(pair: Pair) -> None:
    """Remove what an earlier attempt left that the source does not have (same kind)."""
    if not os.path.lexists(pair.dest):
        pair.dest.mkdir(mode=0o700, parents=True)
        return
    if not os.path.isdir(pair.dest) or os.path.islink(pair.dest):
        remove_entry(pair.dest)
        pair.dest.mkdir(mode=0o700)
        return
    wanted = {e.rel: e.kind for e in pair.tree.entries}
    os.chmod(pair.dest, 0o700)
    stack = [""]
    while stack:
        rel_dir = stack.pop()
        folder = _join(pair.dest, rel_dir)
        with os.scandir(folder) as it:
            children = list(it)
        for child in children:
            rel = f"{rel_dir}/{child.name}" if rel_dir else child.name
            kind = inventory.kind_of(child.stat(follow_symlinks=False).st_mode)
            if wanted.get(rel) != kind:
                if kind == DIR:
                    os.chmod(child.path, 0o700)  # a read-only folder from an earlier copy
                remove_entry(Path(child.path))
            elif kind == DIR:
                os.chmod(child.path, 0o700)
                stack.append(rel)
