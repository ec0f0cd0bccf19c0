"""The folder a chat's tools work in, and paths resolved inside it.

The workspace is the chat's project folder, or ``scratch/<sessionId>/`` in
the data root for a chat without one (spec 004, section 2). A path is
resolved against it with every symlink followed, so ``../x``, an absolute
path elsewhere and a link pointing out all count as outside.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from pidesktop.host.context import HostContext
from pidesktop.host.turns.plans import workspace_of


@dataclass(frozen=True)
class Workspace:
    root: Path  # resolved (symlinks followed)
    scratch: bool  # the chat has no project: the root is its scratch folder


@dataclass(frozen=True)
class Resolved:
    path: Path  # absolute, symlinks followed as far as the path exists
    outside: bool
    shown: str  # how the result names it: relative inside the workspace, absolute outside


def scratch_dir(ctx: HostContext, session_id: str) -> Path:
    return ctx.data_root / "scratch" / session_id


def of(ctx: HostContext, session_id: str, create: bool = True) -> Workspace:
    """The chat's workspace, created (with ``create``) when it is the scratch folder; a project folder never is."""
    folder = workspace_of(ctx, session_id)
    scratch = folder == scratch_dir(ctx, session_id)
    if scratch and create:
        folder.mkdir(parents=True, exist_ok=True)
    return Workspace(Path(os.path.realpath(folder)), scratch)


def resolve(workspace: Workspace, raw: str, also: Path | None = None) -> Resolved:
    """``raw`` (relative to the workspace, absolute, or ``~/...``) as a real path, and whether it leaves the workspace.

    ``also``: one more folder that counts as inside (the chat's own scratch
    folder for reading, where cut outputs are kept).
    """
    candidate = Path(os.path.expanduser(raw)) if raw.startswith("~") else Path(raw)
    if not candidate.is_absolute():
        candidate = workspace.root / candidate
    path = Path(os.path.realpath(candidate))
    inside = _within(path, workspace.root)
    shown = (path.relative_to(workspace.root).as_posix() or ".") if inside else str(path)
    if not inside and also is not None:
        inside = _within(path, Path(os.path.realpath(also)))
    return Resolved(path, not inside, shown)


def _within(path: Path, root: Path) -> bool:
    return path == root or root in path.parents
