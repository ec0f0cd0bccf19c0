"""The pi folders to scan, resolved once and then checked with a few ``stat`` calls.

``discovery.roots`` resolves real paths and reads pi's settings files, and
every ``session.list`` and ``search.sessions`` asks for the roots. The answer
is kept with a signature of what it was made from: the environment, the
project paths, a stat of each settings file it read and of each folder it
resolved. A settings file rewritten, a folder made, removed or swapped for a
link to another one changes the signature, and the roots are resolved again.
A settings file changed less than ``discovery.SETTLE_NS`` ago could change
again within the same mtime tick unseen, so such an answer is not kept.
"""

from __future__ import annotations

import os
import time
from collections.abc import Sequence

from pidesktop.host.native import discovery

Signature = tuple[object, ...]


def _file_key(path: str) -> tuple[int, int, int, int] | None:
    try:
        found = os.stat(path)
    except OSError:
        return None
    return (found.st_dev, found.st_ino, found.st_size, found.st_mtime_ns)


def _folder_key(path: str) -> tuple[int, int] | None:
    """Which folder the path leads to now (links followed); None when there is none."""
    try:
        found = os.stat(path)
    except OSError:
        return None
    return (found.st_dev, found.st_ino)


# The settings files' paths for the last environment and project paths: they depend on nothing else, and
# working them out (the home folder, joins) cost as much as the stats of the signature itself.
_settings_paths: tuple[tuple[object, ...], tuple[str, ...]] | None = None


def _settings_files(environment: tuple[str | None, str | None], project_paths: Sequence[str]) -> tuple[str, ...]:
    global _settings_paths
    key = (environment, tuple(project_paths))
    kept = _settings_paths
    if kept is not None and kept[0] == key:
        return kept[1]
    files = tuple(discovery.settings_files(project_paths))
    _settings_paths = (key, files)
    return files


def _signature(project_paths: Sequence[str], resolved: Sequence[str]) -> tuple[Signature, bool]:
    """The signature, and whether it can be trusted (no settings file changed within the mtime tick)."""
    environment = (os.environ.get(discovery.ENV_AGENT_DIR), os.environ.get("HOME"))
    files = tuple(_file_key(path) for path in _settings_files(environment, project_paths))
    folders = tuple(_folder_key(path) for path in resolved)
    settled_before = time.time_ns() - discovery.SETTLE_NS
    settled = all(key is None or key[3] < settled_before for key in files)
    return (environment, tuple(project_paths), files, tuple(resolved), folders), settled


class RootsCache:
    """Per host (host thread only): the last roots and the signature they were resolved under."""

    def __init__(self) -> None:
        self._kept: tuple[Signature, tuple[str, ...], discovery.Roots] | None = None

    def roots(self, project_paths: Sequence[str]) -> discovery.Roots:
        paths = tuple(project_paths[: discovery.MAX_PROJECTS])
        if self._kept is not None:
            signature, resolved, found = self._kept
            if _signature(paths, resolved)[0] == signature:
                return found
        seen: list[str] = []
        found = discovery.roots(paths, seen)
        signature, settled = _signature(paths, seen)
        # Resolved again after the signature: a change while the first was made shows as a difference, and
        # one after it shows in the signature next time.
        again: list[str] = []
        confirmed = discovery.roots(paths, again)
        self._kept = (signature, tuple(seen), confirmed) if settled and confirmed == found and again == seen else None
        return confirmed


__all__ = ["RootsCache"]
