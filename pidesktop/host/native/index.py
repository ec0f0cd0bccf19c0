"""One pi session file, indexed once and kept up to date as it grows.

The index is keyed by the file's identity and state, ``(device, inode, size,
mtime)``. It holds each entry's byte offset and light ``Meta`` (id, parent,
kind, a short preview), so a page of the transcript reads and parses only the
lines of that page. When the key changes, an append (same device and inode,
larger size, the last indexed bytes unchanged) parses only the new bytes; any
other change reindexes the whole file. Bytes after the last newline (a writer
mid-line) are left out until their line is complete.

Reads go through one open file descriptor: the index is brought up to date
from it and the page is read from it, so a page always comes from the same
file the index describes, even when the path is replaced meanwhile. Nothing
here ever writes to the file.
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass
from typing import Any

from pidesktop.host.native import pi_format
from pidesktop.host.native.pi_format import BranchView, Meta, Tree

TAIL_CHECK = 4096  # bytes before the indexed end that must be unchanged for an append
TOKEN_TAIL = 4096  # bytes hashed into the token
READ_CHUNK = 8 << 20  # bytes read and indexed at a time


@dataclass(frozen=True)
class FileKey:
    dev: int
    ino: int
    size: int
    mtime_ns: int

    @classmethod
    def of(cls, st: os.stat_result) -> FileKey:
        return cls(st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns)


def token_of(key: FileKey, tail: bytes) -> str:
    """The opaque token of a file state: identity, size and a hash of the last bytes."""
    digest = hashlib.blake2b(tail, digest_size=12).hexdigest()
    return f"{key.dev:x}.{key.ino:x}.{key.size:x}.{digest}"


def read_tail(fd: int, size: int) -> bytes:
    length = min(size, TOKEN_TAIL)
    return os.pread(fd, length, size - length) if length else b""


class FileIndex:
    """The index of one file (by its real path)."""

    def __init__(self, path: str, native_id: str = ""):
        self.path = path
        self.native_id = native_id
        self.key: FileKey | None = None
        self.stat_key: tuple[int, int, int, int] | None = None  # the key as a plain tuple, compared per list
        self.file_name = os.path.basename(path)
        self.token = ""
        # (key, row) kept by the catalog; the key is (generation, project, parent id)
        self.row_cache: tuple[tuple[int, tuple[int, str] | None, str | None], dict[str, Any]] | None = None
        self.branches_cache: tuple[int, list[dict[str, Any]]] | None = None  # (generation, branches) kept by the reader
        self.generation = 0  # counts every change, across full re-reads too
        self.reset()

    def reset(self) -> None:
        self.end = 0  # offset just past the last complete line indexed
        self.check = b""  # the TAIL_CHECK bytes before ``end``
        self.header: dict[str, Any] | None = None
        self.version = 0
        self.not_session = False
        self.offsets: list[int] = []
        self.lengths: list[int] = []
        self.tree = Tree()
        self.garbage = 0
        self.first_user: str | None = None
        self.name: str | None = None
        self.last_activity: int | None = None
        self.model: str | None = None
        self.provider: str | None = None
        self.thinking: str | None = None
        self._views: dict[str | None, tuple[list[Meta], BranchView]] = {}
        self.light = False  # only the listing's figures are kept (see ``make_light``)
        self._light_count = 0

    # -- keeping up to date ---------------------------------------------------------------
    def refresh_path(self, st: os.stat_result | None = None) -> bool:
        """Bring the index up to date with the file at ``path`` (``st``: a stat just taken); True when it changed.

        Raises OSError.
        """
        st = st or os.stat(self.path)
        if (st.st_mtime_ns, st.st_size, st.st_ino, st.st_dev) == self.stat_key:
            return False
        fd = os.open(self.path, os.O_RDONLY | getattr(os, "O_CLOEXEC", 0))
        try:
            return self.refresh_fd(fd)
        finally:
            os.close(fd)

    def refresh_fd(self, fd: int) -> bool:
        """Bring the index up to date with the open file ``fd``; True when it changed."""
        key = FileKey.of(os.fstat(fd))
        if key == self.key:
            return False
        old = self.key
        appended = (
            old is not None
            and not self.not_session
            and not self.light
            and (old.dev, old.ino) == (key.dev, key.ino)
            and key.size >= self.end
            and self.end > 0
            and os.pread(fd, len(self.check), self.end - len(self.check)) == self.check
        )
        if not appended:
            self.reset()
        self._read_lines(fd, key.size)
        self.key = key
        self.stat_key = (key.mtime_ns, key.size, key.ino, key.dev)
        self.token = token_of(key, read_tail(fd, key.size))
        self.generation += 1
        self._views.clear()
        return True

    def _read_lines(self, fd: int, size: int) -> None:
        """Index the complete lines between ``end`` and ``size``, a chunk at a time (a huge file never
        sits in memory whole); a line longer than a chunk is read whole."""
        chunk = READ_CHUNK
        while self.end < size and not self.not_session:
            start = self.end
            data = os.pread(fd, min(chunk, size - start), start)
            if not data:
                return
            if data.rfind(b"\n") < 0:
                if start + len(data) >= size:
                    return  # only a torn tail is left
                chunk *= 2  # one line longer than the chunk
                continue
            chunk = READ_CHUNK
            self._index(data, start)
            if self.end == start:
                return

    def _index(self, data: bytes, base: int) -> None:
        lines, end = pi_format.split_lines(data, base)
        if not lines:
            return
        for offset, raw in lines:
            if self.not_session:
                break
            value = pi_format.parse_line(raw)
            if offset == 0:
                if not pi_format.is_header(value):
                    self.not_session = True
                    break
                self.header, self.version = value, pi_format.version_of(value)
                continue
            if value is None:
                self.garbage += 1 if raw.strip() else 0
                continue
            self._add(pi_format.describe(value, len(self.offsets), self.version), offset, len(raw))
        self.end = end
        start = max(0, end - base - TAIL_CHECK)
        self.check = (self.check + data[: end - base])[-TAIL_CHECK:] if start == 0 else data[start : end - base]

    def _add(self, meta: Meta, offset: int, length: int) -> None:
        self.offsets.append(offset)
        self.lengths.append(length)
        self.tree.add(meta)
        kind = meta.kind
        if kind == "user":
            if self.first_user is None and meta.preview:
                self.first_user = meta.preview
        elif kind == "session_info" and meta.name:
            self.name = meta.name
        elif kind in ("assistant", "model_change") and meta.model:
            self.model, self.provider = meta.model, meta.provider
        elif kind == "thinking_level_change" and meta.thinking:
            self.thinking = meta.thinking
        if kind in ("user", "assistant") and meta.ts is not None:
            self.last_activity = max(self.last_activity or 0, meta.ts)

    # -- what the listing shows ---------------------------------------------------------------
    @property
    def is_session(self) -> bool:
        return self.header is not None and not self.not_session

    @property
    def session_id(self) -> str:
        return self.header["id"] if self.header else ""

    @property
    def created_at(self) -> int:
        created = pi_format.iso_ms(self.header.get("timestamp")) if self.header else None
        return created if created is not None else (self.key.mtime_ns // 1_000_000 if self.key else 0)

    @property
    def updated_at(self) -> int:
        if self.last_activity:
            return self.last_activity
        return self.created_at

    @property
    def title(self) -> str:
        return pi_format.session_title(self.name, self.first_user)

    @property
    def exact_v3(self) -> bool:
        """Exactly what pi writes today: a version 3 header, every line an entry, no torn tail."""
        return (
            self.is_session
            and self.version == pi_format.CURRENT_VERSION
            and self.garbage == 0
            and self.key is not None
            and self.end == self.key.size
        )

    # -- branches -----------------------------------------------------------------------------
    def branch_view(self, leaf_id: str | None = None) -> tuple[list[Meta], BranchView]:
        cached = self._views.get(leaf_id)
        if cached is None:
            branch = self.tree.branch(leaf_id)
            cached = (branch, pi_format.view(branch))
            if len(self._views) > 8:
                self._views.clear()
            self._views[leaf_id] = cached
        return cached

    @property
    def message_count(self) -> int:
        return self._light_count if self.light else self.branch_view()[1].total

    def make_light(self) -> None:
        """Keep what the list shows and drop the tree and offsets (a file nobody has open).

        Memory then stays small with thousands of sessions; reading it again, or
        any change to it, reindexes the file whole.
        """
        if self.light or not self.is_session:
            return
        self._light_count = self.message_count
        self.offsets, self.lengths, self.tree, self._views = [], [], Tree(), {}
        self.check = b""
        self.light = True

    def ensure_full(self, fd: int) -> None:
        """Reindex a light index from ``fd`` so pages can be read."""
        if self.light:
            self.key = self.stat_key = None
            self.refresh_fd(fd)

    def read_entries(self, fd: int, metas: list[Meta]) -> list[dict[str, Any]]:
        """The parsed entries of ``metas`` (from ``fd``, the file this index describes)."""
        entries = []
        for meta in metas:
            raw = os.pread(fd, self.lengths[meta.ordinal], self.offsets[meta.ordinal])
            entries.append(pi_format.parse_line(raw) or {})
        return entries

    def raw_lines(self, fd: int, metas: list[Meta]) -> list[bytes]:
        return [os.pread(fd, self.lengths[m.ordinal], self.offsets[m.ordinal]) for m in metas]
