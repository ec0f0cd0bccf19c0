"""Where a chat's review snapshots live, which ones a message names, and flushing them before its line.

The snapshots themselves are the file tools' (``host/tools/review.py``); storing a message
(``session.appendMessage``) only needs to know which snapshots its tool calls name and to flush them first,
so a snapshot the transcript refers to survives a crash.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from pidesktop.durable import fsync_dir
from pidesktop.host.context import HostContext

ID_CHARS = frozenset("0123456789abcdef-")


def folder(ctx: HostContext, session_id: str) -> Path:
    return ctx.data_root / "review-changes" / session_id


def referenced(message: dict[str, Any]) -> list[str]:
    """The snapshot ids a message's ``tool_call`` blocks name (``details.review.snapshotId``)."""
    found = []
    for block in message.get("blocks") or []:
        if not isinstance(block, dict) or block.get("type") != "tool_call":
            continue
        details = block.get("details")
        review = details.get("review") if isinstance(details, dict) else None
        snapshot_id = review.get("snapshotId") if isinstance(review, dict) else None
        if isinstance(snapshot_id, str) and snapshot_id and set(snapshot_id) <= ID_CHARS:
            found.append(snapshot_id)
    return found


def make_durable(ctx: HostContext, session_id: str, message: dict[str, Any]) -> None:
    """Flush the snapshots ``message`` names (their files and folders) before its line is written.

    Every file's write-back is started first and only then is each one flushed:
    the first flush then finds the others' data written too, so a round's
    snapshots cost about one commit of the file system's journal, not two per edit.
    """
    snapshot_ids = referenced(message)
    if not snapshot_ids:
        return
    base = folder(ctx, session_id)
    fds = []
    try:
        for snapshot_id in snapshot_ids:
            for name in ("before", "meta.json"):
                try:
                    fd = os.open(base / snapshot_id / name, os.O_RDONLY)
                except FileNotFoundError:
                    continue  # no "before" for a created file; a snapshot that is gone has nothing to flush
                fds.append(fd)
                if hasattr(os, "posix_fadvise"):
                    os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)  # starts the write-back, returns at once
        for fd in fds:
            os.fsync(fd)
    finally:
        for fd in fds:
            os.close(fd)
    for snapshot_id in snapshot_ids:
        if (base / snapshot_id).is_dir():
            fsync_dir(base / snapshot_id)
    if base.is_dir():
        fsync_dir(base)
        if base in ctx.review_new_folders:
            fsync_dir(base.parent)
            ctx.review_new_folders.discard(base)
