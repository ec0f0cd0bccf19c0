"""Review snapshots (spec 004, section 2.0): what a ``write``/``edit`` replaced, and Revert.

Before a tool changes a file, the previous bytes (when the file existed and
holds at most 1 MiB) and a ``meta.json`` go to
``review-changes/<sessionId>/<snapshotId>/``: the path, the SHA-256 before
and after, the op, and who made it. The snapshot is written before the file
is changed, so a crash in between leaves a snapshot of a change that did not
happen (its ``afterSha256`` never matches, so it cannot be reverted) rather
than a change with no way back. A file larger than 1 MiB is changed all the
same and marked not reversible.

``review.revert`` restores the exact bytes, or removes a file the tool
created, only when the file still holds what the tool wrote; otherwise it
answers ``CONFLICT`` and changes nothing.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path
from typing import Any

import orjson

from pidesktop.bus import topics
from pidesktop.bus.errors import ErrorCode, HostError
from pidesktop.durable import atomic_write, fsync_dir, write_all
from pidesktop.host import sessions
from pidesktop.host.commands import command
from pidesktop.host.context import HostContext
from pidesktop.host.params import Params, invalid
from pidesktop.host.tools import audit
from pidesktop.host.tools.writing import replace_file
from pidesktop.host.transcripts.records import rfc3339

MAX_BEFORE = 1024 * 1024
OWNER = "pidesktop"
_ID_CHARS = frozenset("0123456789abcdef-")


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def folder(ctx: HostContext, session_id: str) -> Path:
    return ctx.data_root / "review-changes" / session_id


def new_id(ctx: HostContext) -> str:
    """Sortable by time: the list reads in the order the changes were made."""
    return f"{ctx.clock():013d}-{os.urandom(4).hex()}"


def keep(
    ctx: HostContext,
    session_id: str,
    *,
    path: Path,
    op: str,
    before: bytes | None,
    after: bytes,
    turn_id: str | None,
    call_id: str | None,
) -> dict[str, Any]:
    """Store the snapshot of a change about to be made; the ``details.review`` record of its result."""
    snapshot_id = new_id(ctx)
    target = folder(ctx, session_id) / snapshot_id
    target.mkdir(parents=True, exist_ok=False)
    reversible = before is None or len(before) <= MAX_BEFORE
    if before is not None and reversible:
        _write_new(target / "before", before)
    meta = {
        "snapshotId": snapshot_id,
        "sessionId": session_id,
        "path": str(path),
        "op": op,
        "created": before is None,  # Revert removes the file
        "beforeSha256": sha256(before) if before is not None else None,
        "afterSha256": sha256(after),
        "beforeSize": len(before) if before is not None else None,
        "afterSize": len(after),
        "reversible": reversible,
        "reverted": False,
        "createdAt": rfc3339(ctx.clock()),
        "turnId": turn_id,
        "callId": call_id,
        "owner": OWNER,
    }
    # Written last: a folder without a whole meta.json is not a snapshot (``_load`` skips it).
    _write_new(target / "meta.json", orjson.dumps(meta, option=orjson.OPT_INDENT_2))
    fsync_dir(target)
    fsync_dir(target.parent)
    return to_wire(meta)


def _write_new(path: Path, data: bytes) -> None:
    """A file in a folder nobody reads yet: written and flushed in place (no temporary file needed)."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        write_all(fd, data)
        os.fsync(fd)
    finally:
        os.close(fd)


def to_wire(meta: dict[str, Any]) -> dict[str, Any]:
    keys = ("snapshotId", "path", "op", "createdAt", "reversible", "reverted", "created")
    return {key: meta.get(key) for key in keys}


def _load(ctx: HostContext, session_id: str, snapshot_id: str) -> dict[str, Any] | None:
    try:
        meta = orjson.loads((folder(ctx, session_id) / snapshot_id / "meta.json").read_bytes())
    except (OSError, orjson.JSONDecodeError):
        return None
    return meta if isinstance(meta, dict) and meta.get("owner") == OWNER else None


@command("review.list", emits=[])
def review_list(ctx: HostContext, p: Params) -> dict[str, Any]:
    """A chat's snapshots, oldest first (the order the changes were made)."""
    session_id = sessions.session_id_param(p)
    sessions.require(ctx.conn, session_id)
    base = folder(ctx, session_id)
    names = sorted(child.name for child in base.iterdir() if child.is_dir()) if base.is_dir() else []
    snapshots = [to_wire(meta) for name in names if (meta := _load(ctx, session_id, name)) is not None]
    return {"snapshots": snapshots}


@command("review.revert", emits=[topics.REVIEW_CHANGED])
def review_revert(ctx: HostContext, p: Params) -> dict[str, Any]:
    session_id = sessions.session_id_param(p)
    snapshot_id = p.text("snapshotId", nonempty=True) or ""
    if not set(snapshot_id) <= _ID_CHARS:
        raise invalid(f"review.revert: {snapshot_id!r} is not a snapshot id.", "snapshotId")
    sessions.require(ctx.conn, session_id)
    meta = _load(ctx, session_id, snapshot_id)
    if meta is None:
        raise HostError(ErrorCode.NOT_FOUND, f"There is no change {snapshot_id!r} to revert in this chat.")
    path = Path(str(meta["path"]))
    if meta.get("reverted"):
        raise HostError(ErrorCode.CONFLICT, f"This change to {path.name} was already reverted.", {"reverted": True})
    if not meta.get("reversible"):
        raise HostError(
            ErrorCode.CONFLICT,
            f"This change to {path.name} cannot be reverted: the file was larger than 1 MiB, so its old "
            f"contents were not kept.",
            {"reversible": False},
        )
    try:
        current: bytes | None = path.read_bytes()
    except FileNotFoundError:
        current = None
    if current is None or sha256(current) != meta.get("afterSha256"):
        raise HostError(
            ErrorCode.CONFLICT,
            f"{path.name} has changed since this edit, so it was not reverted (nothing was changed). "
            f"Revert the later changes first, or edit the file by hand.",
            {"changedSince": True},
        )
    if meta.get("created"):
        path.unlink()
        op = "delete"
    else:
        replace_file(path, (folder(ctx, session_id) / snapshot_id / "before").read_bytes())
        op = "edit"
    meta["reverted"] = True
    meta["revertedAt"] = rfc3339(ctx.clock())
    atomic_write(folder(ctx, session_id) / snapshot_id / "meta.json", orjson.dumps(meta, option=orjson.OPT_INDENT_2))
    now = ctx.clock()
    with ctx.conn:
        audit.record(ctx.conn, now, audit.REVIEW_REVERT, session_id, {"snapshotId": snapshot_id, "path": str(path)})
        audit.touch_artifact(ctx.conn, session_id, path, op, None, now)
    ctx.emit(topics.REVIEW_CHANGED, {"sessionId": session_id, "snapshotId": snapshot_id, "reverted": True})
    return {"reverted": True}
