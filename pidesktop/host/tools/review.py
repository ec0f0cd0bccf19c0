"""Review snapshots (spec 004, section 2.0): what a ``write``/``edit`` replaced, and Revert.

Before a tool changes a file, the previous bytes (when the file existed and
holds at most 1 MiB) and a ``meta.json`` go to
``review-changes/<sessionId>/<snapshotId>/``: the path, the SHA-256 before
and after, the op, and who made it. The snapshot is written before the file
is changed, so a crash of the app in between leaves a snapshot of a change
that did not happen (its ``afterSha256`` never matches, so it cannot be
reverted) rather than a change with no way back. A file larger than 1 MiB is
changed all the same and marked not reversible.

Durability comes with the result: the snapshot's files are written without
a flush each (starting their write-back at once only slowed the edit's own
flush), and ``make_durable``
flushes every snapshot a message names just before that message's
transcript line is written and flushed. So a snapshot the transcript refers
to survives a power cut as well as a crash, and a call pays for the flushes
once per stored round, not several times per edit. After a power cut that
came before the line, a snapshot may be torn: the boot pass removes one
without its ``meta.json`` (``sweep_torn``), and Revert checks the kept bytes
against ``beforeSha256`` before it writes anything.

``review.revert`` restores the exact bytes, or removes a file the tool
created, only when the file still holds what the tool wrote; otherwise it
answers ``CONFLICT`` and changes nothing.
"""

from __future__ import annotations

import hashlib
import os
import shutil
from pathlib import Path
from typing import Any

import orjson

from pidesktop.bus import topics
from pidesktop.bus.errors import ErrorCode, HostError
from pidesktop.durable import FILE_MODE, atomic_write, write_all
from pidesktop.formats.transcript.records import rfc3339
from pidesktop.host.commands import command
from pidesktop.host.context import HostContext
from pidesktop.host.params import Params, invalid
from pidesktop.host.sessions import audit_rows, review_files
from pidesktop.host.sessions import commands as sessions
from pidesktop.host.tools import workspace
from pidesktop.host.tools.writing import replace_file

MAX_BEFORE = 1024 * 1024
# Chat folders ``keep`` created whose own entry (in ``review-changes/``) is not flushed yet: ``make_durable``
# flushes their parent once, not at every round.
OWNER = "pidesktop"


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


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
    target = review_files.folder(ctx, session_id) / snapshot_id
    if not target.parent.is_dir():
        ctx.review_new_folders.add(target.parent)
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
    return to_wire(meta)


def _write_new(path: Path, data: bytes) -> None:
    """A file in a folder nobody reads yet, written in place; flushed later, with the result (``make_durable``)."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, FILE_MODE)
    try:
        write_all(fd, data)
    finally:
        os.close(fd)


def sweep_torn(ctx: HostContext) -> int:
    """Remove snapshot folders without a ``meta.json`` that holds anything (a power cut before the flush)."""
    root = ctx.data_root / "review-changes"
    swept = 0
    if not root.is_dir():
        return 0
    for chat in root.iterdir():
        if not chat.is_dir() or chat.is_symlink():
            continue
        for snapshot in chat.iterdir():
            if not snapshot.is_dir() or snapshot.is_symlink() or not set(snapshot.name) <= review_files.ID_CHARS:
                continue
            meta = snapshot / "meta.json"
            try:
                whole = meta.stat().st_size > 0
            except FileNotFoundError:
                whole = False
            if not whole:
                shutil.rmtree(snapshot, ignore_errors=True)
                swept += 1
    return swept


def _kept_before(ctx: HostContext, session_id: str, snapshot_id: str, meta: dict[str, Any]) -> bytes:
    """The kept previous bytes, only when they are whole (their SHA-256 is the one recorded)."""
    try:
        kept = (review_files.folder(ctx, session_id) / snapshot_id / "before").read_bytes()
    except FileNotFoundError:
        kept = None
    if kept is None or sha256(kept) != meta.get("beforeSha256"):
        name = Path(str(meta.get("path"))).name
        raise HostError(
            ErrorCode.CONFLICT,
            f"The copy of {name} kept before this change is damaged, so it was not reverted (nothing was changed).",
            {"damaged": True},
        )
    return kept


def to_wire(meta: dict[str, Any]) -> dict[str, Any]:
    keys = ("snapshotId", "path", "op", "createdAt", "reversible", "reverted", "created")
    return {key: meta.get(key) for key in keys}


def _load(ctx: HostContext, session_id: str, snapshot_id: str) -> dict[str, Any] | None:
    try:
        meta = orjson.loads((review_files.folder(ctx, session_id) / snapshot_id / "meta.json").read_bytes())
    except (OSError, orjson.JSONDecodeError):
        return None
    return meta if isinstance(meta, dict) and meta.get("owner") == OWNER else None


def settle_aborted_calls(ctx: HostContext, session_id: str, turn_id: str | None, blocks: list[Any]) -> list[Any]:
    """The blocks of a round a crash interrupted, each aborted ``write``/``edit`` that did change its file
    given its snapshot (``details.review``) and its ``tool_execute`` record (with its ``artifact``).

    The round's checkpoint is saved before its calls run, so a crash after a
    change and before the round is stored leaves the call ``pending`` (then
    ``aborted``) with no result. Its snapshot names the turn and the call; when
    the file still holds what the tool wrote, the change happened: the stored
    round then records it, audit row and ``artifacts`` row in the transaction
    that stores it, like any other change, and its Revert is offered.
    """
    if turn_id is None:
        return blocks
    base = review_files.folder(ctx, session_id)
    aborted = {
        block.get("callId"): number
        for number, block in enumerate(blocks)
        if isinstance(block, dict)
        and block.get("type") == "tool_call"
        and block.get("status") == "aborted"
        and block.get("name") in ("write", "edit")
        and "audit" not in block
    }
    if not aborted or not base.is_dir():
        return blocks
    settled = list(blocks)
    for name in sorted(child.name for child in base.iterdir()):
        meta = _load(ctx, session_id, name) if set(name) <= review_files.ID_CHARS else None
        if meta is None or meta.get("turnId") != turn_id or meta.get("callId") not in aborted:
            continue
        path = Path(str(meta["path"]))
        try:
            changed = sha256(path.read_bytes()) == meta.get("afterSha256")
        except OSError:
            changed = False
        if not changed:
            continue  # the crash came before the file was replaced: nothing happened
        number = aborted[str(meta["callId"])]
        payload = {
            "tool": meta.get("op"),
            "turnId": turn_id,
            "callId": meta["callId"],
            "path": str(path),
            "ok": True,
            "snapshotId": meta["snapshotId"],
            "recoveredAfterCrash": True,
        }
        ws = workspace.of(ctx, session_id)
        inside = path == ws.root or ws.root in path.parents
        artifact = {"path": str(path), "op": str(meta.get("op"))} if inside and not ws.scratch else None
        stamp = ctx.clock()
        settled[number] = {
            **settled[number],
            "details": {**(settled[number].get("details") or {}), "review": to_wire(meta)},
            "audit": audit_rows.pending(audit_rows.TOOL_EXECUTE, stamp, payload, artifact),
        }
    return settled


@command("review.list", emits=[])
def review_list(ctx: HostContext, p: Params) -> dict[str, Any]:
    """A chat's snapshots, oldest first (the order the changes were made)."""
    session_id = sessions.session_id_param(p)
    sessions.require(ctx.conn, session_id)
    base = review_files.folder(ctx, session_id)
    names = sorted(child.name for child in base.iterdir() if child.is_dir()) if base.is_dir() else []
    snapshots = [to_wire(meta) for name in names if (meta := _load(ctx, session_id, name)) is not None]
    return {"snapshots": snapshots}


@command("review.revert", emits=[topics.REVIEW_CHANGED])
def review_revert(ctx: HostContext, p: Params) -> dict[str, Any]:
    session_id = sessions.session_id_param(p)
    snapshot_id = p.text("snapshotId", nonempty=True) or ""
    if not set(snapshot_id) <= review_files.ID_CHARS:
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
        kept = _kept_before(ctx, session_id, snapshot_id, meta)
        replace_file(path, kept)
        op = "edit"
    meta["reverted"] = True
    meta["revertedAt"] = rfc3339(ctx.clock())
    atomic_write(
        review_files.folder(ctx, session_id) / snapshot_id / "meta.json", orjson.dumps(meta, option=orjson.OPT_INDENT_2)
    )
    now = ctx.clock()
    with ctx.conn:
        audit_rows.record(
            ctx.conn, now, audit_rows.REVIEW_REVERT, session_id, {"snapshotId": snapshot_id, "path": str(path)}
        )
        audit_rows.touch_artifact(ctx.conn, session_id, path, op, None, now)
    ctx.emit(topics.REVIEW_CHANGED, {"sessionId": session_id, "snapshotId": snapshot_id, "reverted": True})
    return {"reverted": True}
