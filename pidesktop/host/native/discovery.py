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


def _resolve(configured: str, base: str | None) -> str | None:
    expanded = os.path.expanduser(configured)
    if not os.path.isabs(expanded):
        if base is None:
            return None  # the global setting: only absolute or ~ paths mean something
        expanded = os.path.join(base, expanded)
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

    @property
    def watched(self) -> tuple[str, ...]:
        return (self.default, *self.extra)


def roots(project_paths: Iterable[str]) -> Roots:
    """The directories to scan, for the given known project paths (newest first)."""
    default = os.path.realpath(default_root())
    global_dir = _read_session_dir(os.path.join(agent_dir(), "settings.json"))
    candidates: list[str] = []
    resolved_global = _resolve(global_dir, None) if global_dir else None
    if resolved_global:
        candidates.append(resolved_global)
    for number, project in enumerate(project_paths):
        if number >= MAX_PROJECTS:
            break
        own = _read_session_dir(os.path.join(project, ".pi", "settings.json"))
        resolved = _resolve(own, project) if own else resolved_global
        if resolved:
            candidates.append(resolved)
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


def scan(found_roots: Roots) -> list[Found]:
    """Every admitted ``*.jsonl`` file, once per real path, default root first."""
    seen: set[str] = set()
    out: list[Found] = []

    def consider(path: str, is_link: bool, root: str) -> None:
        real = os.path.realpath(path) if is_link else path
        if real in seen or not found_roots.admits(real):
            return
        seen.add(real)
        out.append(Found(path, real, root))

    default = found_roots.default
    for folder, dirs, files in os.walk(default, onerror=_walk_error):
        dirs.sort()
        for name in sorted(files):
            if name.endswith(SUFFIX):
                path = os.path.join(folder, name)
                consider(path, os.path.islink(path), default)
    for extra in found_roots.extra:
        try:
            entries = sorted(os.scandir(extra), key=lambda e: e.name)
        except FileNotFoundError:
            continue
        except OSError as exc:
            log.warning("cannot read pi session folder %s: %s", extra, exc)
            continue
        for entry in entries:
            if entry.name.endswith(SUFFIX):
                try:
                    is_link = entry.is_symlink()
                    if not is_link and not entry.is_file(follow_symlinks=False):
                        continue
                except OSError:
                    continue
                consider(entry.path, is_link, extra)
    return out


def _walk_error(exc: OSError) -> None:
    if not isinstance(exc, FileNotFoundError):
        log.warning("cannot read pi session folder %s: %s", exc.filename, exc)
