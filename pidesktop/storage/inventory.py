"""What a data root holds: every entry, and bytes and files per category.

A walk never follows a symbolic link; a link is an entry of its own. The
move copies exactly the entries listed here, so the same list drives its
progress totals and the free-space check.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass, field
from pathlib import Path

from pidesktop.storage.fsutil import nearest_existing

DIR, FILE, LINK, FIFO, OTHER = "dir", "file", "link", "fifo", "other"

# Top-level names of the data root grouped the way `data status` reports them
# (spec 004, section 2). Anything else counts as "other".
CATEGORIES = {
    "sessions": "transcripts",
    "attachments": "attachments",
    "secrets": "secrets",
    "config-sync": "config-sync",
    "plugins": "plugins",
    "logs": "logs",
    "cache": "cache",
    "openable-attachments": "cache",
    "scratch": "scratch",
    "visualizations": "visualizations",
    "review-changes": "review-snapshots",
    "crash-dumps": "crash-dumps",
    "crash-dumps.json": "crash-dumps",
}


@dataclass(frozen=True)
class Entry:
    rel: str  # path below the tree's root, "/"-separated; "" is the root itself
    kind: str
    size: int
    mode: int
    atime_ns: int
    mtime_ns: int


@dataclass
class Tree:
    root: Path
    entries: list[Entry] = field(default_factory=list)

    @property
    def bytes(self) -> int:
        return sum(e.size for e in self.entries if e.kind == FILE)

    @property
    def files(self) -> int:
        return sum(1 for e in self.entries if e.kind != DIR)


def kind_of(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return DIR
    if stat.S_ISREG(mode):
        return FILE
    if stat.S_ISLNK(mode):
        return LINK
    if stat.S_ISFIFO(mode):
        return FIFO
    return OTHER


def scan(root: Path, exclude_top: frozenset[str] = frozenset()) -> Tree:
    """Every entry below ``root`` (parents before children, names sorted); empty when absent."""
    tree = Tree(root)
    try:
        st = os.stat(root)  # the root itself may be reached through a link the user chose
    except FileNotFoundError:
        return tree
    tree.entries.append(Entry("", DIR, 0, stat.S_IMODE(st.st_mode), st.st_atime_ns, st.st_mtime_ns))
    stack = [""]
    while stack:
        rel_dir = stack.pop()
        folder = root / rel_dir if rel_dir else root
        with os.scandir(folder) as it:
            children = sorted(it, key=lambda e: e.name)
        subdirs = []
        for entry in children:
            if not rel_dir and entry.name in exclude_top:
                continue
            st = entry.stat(follow_symlinks=False)
            kind = kind_of(st.st_mode)
            rel = f"{rel_dir}/{entry.name}" if rel_dir else entry.name
            size = st.st_size if kind == FILE else 0
            tree.entries.append(Entry(rel, kind, size, stat.S_IMODE(st.st_mode), st.st_atime_ns, st.st_mtime_ns))
            if kind == DIR:
                subdirs.append(rel)
        stack.extend(reversed(subdirs))
    return tree


def by_category(tree: Tree) -> dict[str, dict[str, int]]:
    """{category: {"bytes": n, "files": n}} for a data root's tree."""
    out: dict[str, dict[str, int]] = {}
    for entry in tree.entries:
        if entry.kind == DIR:
            continue
        top = entry.rel.split("/", 1)[0]
        name = "database" if top.startswith("pi.sqlite") else CATEGORIES.get(top, "other")
        slot = out.setdefault(name, {"bytes": 0, "files": 0})
        slot["bytes"] += entry.size
        slot["files"] += 1
    return dict(sorted(out.items()))


def free_bytes(path: Path) -> int:
    """Free space for an unprivileged writer on the file system that holds ``path`` (or its nearest ancestor)."""
    st = os.statvfs(nearest_existing(path))
    return st.f_bavail * st.f_frsize
