"""Where pi keeps its sessions, and which files count (spec 004, section 12).

- The default root ``<agentDir>/sessions`` (``PI_CODING_AGENT_DIR``, else
  ``~/.pi/agent``) is walked recursively.
- The ``sessionDir`` of pi's global ``settings.json`` (absolute or ``~``) and
  of each known project's ``.pi/settings.json`` (a project's value wins over
  the global one; relative paths resolve from the project; at most 500
  projects) are scanned without recursion. A directory that is the default
  root or inside it is not scanned twice.
- A file is listed only when its real path stays inside the default root or
  directly inside one of those directories: a symlink that escapes is left
  out, and an alias of a file already found is not a second row.
"""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Iterable
from dataclasses import dataclass

import orjson

log = logging.getLogger("pidesktop.host.native")

ENV_AGENT_DIR = "PI_CODING_AGENT_DIR"
MAX_PROJECTS = 500
SUFFIX = ".jsonl"


def agent_dir() -> str:
    configured = os.environ.get(ENV_AGENT_DIR)
    return os.path.expanduser(configured) if configured else os.path.join(os.path.expanduser("~"), ".pi", "agent")


def default_root() -> str:
    return os.path.join(agent_dir(), "sessions")


def _read_session_dir(settings_file: str) -> str | None:
    """The ``sessionDir`` a pi settings file names, or None (missing, unreadable or not a string)."""
    try:
        with open(settings_file, "rb") as handle:
            value = orjson.loads(handle.read(1 << 20))
    except FileNotFoundError:
        return None
    except (OSError, orjson.JSONDecodeError) as exc:
        log.warning("cannot read pi settings %s: %s", settings_file, exc)
        return None
    configured = value.get("sessionDir") if isinstance(value, dict) else None
    return configured.strip() if isinstance(configured, str) and configured.strip() else None


def _resolve(configured: str, base: str | None, seen: list[str]) -> str | None:
    expanded = os.path.expanduser(configured)
    if not os.path.isabs(expanded):
        if base is None:
            return None  # the global setting: only absolute or ~ paths mean something
        expanded = os.path.join(base, expanded)
    seen.append(expanded)
    return os.path.realpath(expanded)


def inside(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip(os.sep) + os.sep)


@dataclass(frozen=True)
class Roots:
    default: str  # real path of the default root (may not exist)
    extra: tuple[str, ...]  # real paths of configured directories outside it

    def admits(self, real_path: str, admitted: Iterable[str] = ()) -> bool:
        """``real_path`` is inside the default root or directly inside a configured (or admitted) directory."""
        if inside(real_path, self.default) and real_path != self.default:
            return True
        parent = os.path.dirname(real_path)
        return parent in self.extra or parent in admitted


def settings_files(project_paths: Iterable[str]) -> list[str]:
    """The pi settings files ``roots`` reads for these project paths: the global one, then each project's."""
    files = [os.path.join(agent_dir(), "settings.json")]
    for number, project in enumerate(project_paths):
        if number >= MAX_PROJECTS:
            break
        files.append(os.path.join(project, ".pi", "settings.json"))
    return files


def roots(project_paths: Iterable[str], resolved: list[str] | None = None) -> Roots:
    """The directories to scan, for the given known project paths (newest first).

    ``resolved`` is told every path whose real path the answer depends on (the
    default root and each configured folder, as written), for a caller that
    keeps the answer while none of them changes."""
    seen = resolved if resolved is not None else []
    seen.append(default_root())
    default = os.path.realpath(default_root())
    global_dir = _read_session_dir(os.path.join(agent_dir(), "settings.json"))
    candidates: list[str] = []
    resolved_global = _resolve(global_dir, None, seen) if global_dir else None
    if resolved_global:
        candidates.append(resolved_global)
    for number, project in enumerate(project_paths):
        if number >= MAX_PROJECTS:
            break
        own = _read_session_dir(os.path.join(project, ".pi", "settings.json"))
        folder = _resolve(own, project, seen) if own else resolved_global
        if folder:
            candidates.append(folder)
    extra: list[str] = []
    for candidate in candidates:
        if not inside(candidate, default) and candidate not in extra:
            extra.append(candidate)
    return Roots(default, tuple(extra))


@dataclass(frozen=True)
class Found:
    path: str  # as found
    real: str  # its real path (the identity of the row)
    root: str  # the directory that admitted it
    stat: os.stat_result | None  # of the file itself (a symlink followed), taken while scanning
    error: OSError | None = None  # why it could not be stat'ed


# A folder changed less than this long before it was read may change again within the same
# mtime tick unseen: the next scan walks again instead of trusting its mtime.
SETTLE_NS = 2_000_000_000


@dataclass
class Walk:
    files: list[Found]
    folders: list[tuple[str, int]]  # every folder read, with its mtime before it was read
    settled: bool  # no folder was changed too recently (or could not be read) to trust its mtime later


def scan(found_roots: Roots) -> Walk:
    """Every admitted ``*.jsonl`` file, once per real path, default root first (one stat per file)."""
    seen: set[str] = set()
    out: list[Found] = []
    walk = Walk(out, [], True)
    now = time.time_ns()

    def consider(entry: os.DirEntry[str], root: str) -> None:
        try:
            is_link = entry.is_symlink()
            if not is_link and not entry.is_file(follow_symlinks=False):
                return
        except OSError:
            return
        real = os.path.realpath(entry.path) if is_link else entry.path
        if real in seen or not found_roots.admits(real):
            return
        seen.add(real)
        try:
            out.append(Found(entry.path, real, root, entry.stat()))
        except OSError as exc:
            out.append(Found(entry.path, real, root, None, exc))

    def walk_folder(folder: str, root: str, recursive: bool) -> None:
        try:
            mtime = os.stat(folder).st_mtime_ns  # before reading it: a later change shows as a new mtime
            with os.scandir(folder) as listing:
                entries = sorted(listing, key=lambda e: e.name)
        except FileNotFoundError:
            walk.folders.append((folder, -1))  # a root that appears later changes this
            return
        except OSError as exc:
            log.warning("cannot read pi session folder %s: %s", folder, exc)
            walk.settled = False
            return
        walk.folders.append((folder, mtime))
        if now - mtime < SETTLE_NS:
            walk.settled = False
        folders = []
        for entry in entries:
            if entry.name.endswith(SUFFIX):
                consider(entry, root)
            elif recursive:
                try:
                    if entry.is_dir(follow_symlinks=False):  # a linked folder is never followed
                        folders.append(entry.path)
                except OSError:
                    continue
        for sub in folders:
            walk_folder(sub, root, True)

    walk_folder(found_roots.default, found_roots.default, True)
    for extra in found_roots.extra:
        walk_folder(extra, extra, False)
    return walk
