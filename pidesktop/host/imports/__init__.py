"""Readers of other agents' session files, one module per source.

Each ``read(data: bytes, name: str) -> ImportedSession`` is pure (bytes in,
Desktop messages out) and raises only ``ReadFailure``. ``find`` lists a
source's session files under its default folder or given paths.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

from pidesktop.host.imports import claude_code, codex, pi
from pidesktop.host.imports.common import ImportedSession, ReadFailure

Reader = Callable[[bytes, str], ImportedSession]

READERS: dict[str, Reader] = {"claude-code": claude_code.read, "codex": codex.read, "pi": pi.read}
SOURCES = tuple(READERS)
# The plugin id of origin rows this app writes (spec 004, section 4.5: session_import_origins.plugin_id).
PLUGIN_ID = "pidesktop.import"


def default_folder(source: str, home: Path | None = None) -> Path:
    """Where the tool keeps its sessions: its own folder under HOME, or where its variable moves it
    (``CLAUDE_CONFIG_DIR``, ``CODEX_HOME``, ``PI_CODING_AGENT_DIR``)."""
    home = home if home is not None else Path(os.environ.get("HOME") or Path.home())
    moved = os.environ.get(
        {"claude-code": "CLAUDE_CONFIG_DIR", "codex": "CODEX_HOME"}.get(source, "PI_CODING_AGENT_DIR")
    )
    if source == "claude-code":
        return (Path(moved).expanduser() if moved else home / ".claude") / "projects"
    if source == "codex":
        return (Path(moved).expanduser() if moved else home / ".codex") / "sessions"
    return (Path(moved).expanduser() if moved else home / ".pi" / "agent") / "sessions"


def default_folders(source: str, home: Path | None = None) -> list[Path]:
    """The folders searched when none is named: the default one, and Codex's archived sessions when there."""
    folders = [default_folder(source, home)]
    if source == "codex":
        archived = folders[0].parent / "archived_sessions"
        if archived.is_dir():
            folders.append(archived)
    return folders


# How deep below a given folder session files are looked for (the deepest layout,
# Codex's sessions/YYYY/MM/DD/, needs 3), and how many folder entries one search
# may visit: a folder named by mistake (HOME, /) ends the search instead of walking a disk.
MAX_DEPTH = 4
MAX_ENTRIES = 200_000


class TooManyFiles(ReadFailure):
    pass


def find(
    source: str, paths: list[str] | None = None, home: Path | None = None, cancelled: Callable[[], None] | None = None
) -> list[Path]:
    """The session files to read: each path that is a file, and every ``*.jsonl`` below each folder, sorted.

    ``cancelled()`` is called now and then and may raise to stop the search.
    """
    roots = [Path(p) for p in paths] if paths else default_folders(source, home)
    found: list[Path] = []
    budget = [MAX_ENTRIES]
    for root in roots:
        try:
            if root.is_file():
                found.append(root)
            elif root.is_dir():
                found.extend(sorted(_walk(root, source, budget, cancelled)))
        except OSError:
            continue
    seen: set[Path] = set()
    unique = []
    for path in found:
        if path not in seen:
            seen.add(path)
            unique.append(path)
    return unique


def _walk(root: Path, source: str, budget: list[int], cancelled: Callable[[], None] | None) -> list[Path]:
    out = []
    base_depth = len(root.parts)
    for folder, dirs, files in os.walk(root, followlinks=False):
        budget[0] -= len(dirs) + len(files)
        if budget[0] < 0:
            raise TooManyFiles(f"{root} holds too many files to look through; name the folder of the sessions")
        if cancelled is not None:
            cancelled()
        depth = len(Path(folder).parts) - base_depth
        if source == "claude-code" and Path(folder).name == "subagents" and depth > 0:
            dirs[:] = []  # a subagent's own files: read with their parent session
            continue
        if depth >= MAX_DEPTH:
            dirs[:] = []
        dirs.sort()
        for name in files:
            if name.endswith(".jsonl"):
                out.append(Path(folder) / name)
    return out


__all__ = [
    "TooManyFiles",
    "READERS",
    "SOURCES",
    "PLUGIN_ID",
    "ImportedSession",
    "ReadFailure",
    "default_folder",
    "default_folders",
    "find",
]
