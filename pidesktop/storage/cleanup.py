"""Deleting old data roots kept as backups after a move, only when asked.

Before anything is deleted, every folder of the chosen entry is preflighted
(spec 004, section 2): it must not be, contain or lie inside the active data
root, front-end root or storage location; it must not contain the
installation anchor, nor be one of the anchor's own files (storage pointer,
single-instance lock, journals); it must not be a link, nor a root a host is
using right now. A folder already gone is fine (a retry after a partial
cleanup). The entry leaves the list only when every folder is gone; a partial
failure is reported and can be retried.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from pidesktop import paths
from pidesktop.storage import journal, marker, old_roots
from pidesktop.storage.errors import Refused
from pidesktop.storage.fsutil import is_within, overlaps, remove_entry, tree_size
from pidesktop.storage.locking import is_in_use
from pidesktop.storage.old_roots import KeptRoot

# Files of the installation anchor that no cleanup may remove.
ANCHOR_FILES = frozenset(
    {paths.POINTER_FILE, "instance.lock", journal.JOURNAL_FILE, old_roots.BACKUPS_FILE, "installation.json"}
)


@dataclass
class KeptRootInfo:
    entry: KeptRoot
    bytes: int
    present: bool
    problems: list[str]


@dataclass
class CleanupResult:
    id: str
    deleted: list[Path] = field(default_factory=list)
    already_gone: list[Path] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.failures


def list_kept(location: paths.StorageLocation | None = None) -> list[KeptRootInfo]:
    """Every kept old root with its size on disk and what would stop its deletion."""
    location = location or paths.resolve()
    out = []
    for entry in old_roots.entries():
        present = [p for p in entry.paths if os.path.lexists(p)]
        size = sum(tree_size(p)[0] if p.is_dir() and not p.is_symlink() else 0 for p in present)
        out.append(KeptRootInfo(entry, size, bool(present), preflight(entry, location)))
    return out


def preflight(entry: KeptRoot, location: paths.StorageLocation) -> list[str]:
    """Reasons not to delete ``entry``; empty when every folder may go."""
    problems = []
    anchor = paths.anchor_dir()
    active = _active_roots(location)
    home = Path.home()
    for path in (*entry.paths, *([entry.container] if entry.container else [])):
        if not path.is_absolute():
            problems.append(f"{path} is not an absolute path.")
            continue
        if any(overlaps(path, root) for root in active):
            problems.append(f"{path} overlaps the active data folder; it is in use, not a backup.")
        if is_within(anchor, path):
            problems.append(f"{path} contains the installation folder {anchor}.")
        if path.parent == anchor and path.name in ANCHOR_FILES:
            problems.append(f"{path} is one of the installation's own files.")
        if is_within(home, path):
            problems.append(f"{path} contains the home folder.")
        if not os.path.lexists(path):
            continue
        if path.is_symlink():
            problems.append(f"{path} is a link; remove it yourself if it is no longer needed.")
        elif path.is_dir():
            holder = is_in_use(path)
            if holder is not None:
                problems.append(f"{path} is in use by {holder}.")
    if journal.read() is not None:
        problems.append("A move of the data folder is pending; finish it first.")
    return problems


def _active_roots(location: paths.StorageLocation) -> list[Path]:
    """The roots in use: the given location's, and the installation's own when a pinned root hides it."""
    locations = [location]
    try:
        locations.append(paths.resolve({}))
    except paths.StorageLocationError:
        pass
    roots = []
    for where in locations:
        roots += [where.data_root, where.ui_root]
        if where.source == "pointer":
            roots.append(where.data_root.parent)
    return roots


def delete(entry_id: str, location: paths.StorageLocation | None = None) -> CleanupResult:
    """Delete the kept root ``entry_id`` after its preflight; ``Refused`` when the preflight fails."""
    location = location or paths.resolve()
    entry = next((item for item in old_roots.entries() if item.id == entry_id), None)
    if entry is None:
        raise Refused(f"There is no kept data folder with id {entry_id!r}.")
    problems = preflight(entry, location)
    if problems:
        raise Refused("Not deleting anything: " + " ".join(problems))
    result = CleanupResult(entry_id)
    for path in entry.paths:
        if not os.path.lexists(path):
            result.already_gone.append(path)
            continue
        try:
            remove_entry(path)
            result.deleted.append(path)
        except OSError as exc:
            result.failures.append(f"{path}: {exc}")
    if entry.container is not None and not result.failures:
        _remove_container(entry.container, result)
    if result.ok:
        old_roots.remove(entry_id)
    return result


def _remove_container(container: Path, result: CleanupResult) -> None:
    """The old storage location: its marker goes, and the folder too when nothing else is left."""
    if not container.is_dir() or container.is_symlink():
        return
    try:
        (container / marker.MARKER).unlink(missing_ok=True)
        if not os.listdir(container):
            container.rmdir()
            result.deleted.append(container)
    except OSError as exc:
        result.failures.append(f"{container}: {exc}")
