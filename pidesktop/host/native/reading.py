"""``session.list`` rows and ``session.get`` windows for native pi sessions.

A window is counted in UiMessages of the branch (a tool result folded into
its assistant message is not a message of its own) and reads only the lines
of that window from the file, through the file's index.
"""

from __future__ import annotations

import logging
import os
from typing import Any

from pidesktop.bus import topics
from pidesktop.bus.errors import ErrorCode, HostError
from pidesktop.host.context import HostContext
from pidesktop.host.native import pi_format, trust
from pidesktop.host.native.catalog import Catalog
from pidesktop.host.native.catalog import is_native as is_native  # callers ask reading which sessions are native
from pidesktop.host.native.index import FileIndex
from pidesktop.host.native.pi_format import Meta
from pidesktop.host.params import Params
from pidesktop.host.transcripts.window_params import cap_block, window_request
from pidesktop.host.transcripts.windows import WindowRequest, select

log = logging.getLogger("pidesktop.host.native")

# A first list indexes files for this long, then lists what it has; the rest are indexed in slices
# between the host's other commands (seconds).
FIRST_BUDGET = 0.4
SLICE = 0.05
BRANCH_PREVIEW_CHARS = 80


def catalog_of(ctx: HostContext) -> Catalog:
    """This host's catalog, made on first use (kept on the context for the host's lifetime)."""
    if ctx.native_catalog is None:
        ctx.native_catalog = Catalog()
    return ctx.native_catalog


def list_rows(ctx: HostContext, project_id: int | None, cursor: tuple[int, str] | None) -> list[dict[str, Any]]:
    """Native rows for ``session.list``, newest first, after ``cursor`` and in ``project_id`` when given."""
    catalog = catalog_of(ctx)
    try:
        rows = catalog.rows(ctx.conn, catalog.scan(ctx.conn, FIRST_BUDGET if ctx.post is not None else None))
    except Exception:
        log.exception("listing pi sessions failed")
        return []
    if catalog.pending:
        _go_on_indexing(ctx, catalog)
    if project_id is not None:
        rows = [r for r in rows if r["projectId"] == project_id]
    if cursor is not None:
        updated, after = cursor
        rows = [r for r in rows if r["updatedAt"] < updated or (r["updatedAt"] == updated and r["id"] < after)]
    rows.sort(key=lambda r: (r["updatedAt"], r["id"]), reverse=True)
    return rows


def _go_on_indexing(ctx: HostContext, catalog: Catalog) -> None:
    """Index the files a list left waiting, a slice at a time between the host's other commands;
    ``session.listChanged`` once they are all in, so the list is asked for again."""
    if catalog.indexing:
        return
    post = ctx.post
    assert post is not None  # a list leaves files waiting only when it can post (see list_sessions)

    def step() -> None:
        catalog.indexing = False
        try:
            done = catalog.index_pending(SLICE)
        except Exception:
            log.exception("indexing pi sessions failed")
            return
        if done:
            ctx.emit(topics.SESSION_LIST_CHANGED, {})
        else:
            _go_on_indexing(ctx, catalog)

    catalog.indexing = post(step)


def open_session(ctx: HostContext, session_id: str) -> tuple[FileIndex, int]:
    """The up-to-date index of a native session and an open descriptor of the file it describes."""
    index = catalog_of(ctx).resolve(ctx.conn, session_id)
    try:
        fd = os.open(index.path, os.O_RDONLY | getattr(os, "O_CLOEXEC", 0))
    except FileNotFoundError:
        raise HostError(ErrorCode.NOT_FOUND, f"The pi session {session_id} is gone: its file was removed.") from None
    except OSError as exc:
        raise HostError(ErrorCode.STORAGE_UNAVAILABLE, f"Cannot read the pi session {session_id}: {exc}") from exc
    try:
        index.refresh_fd(fd)
        index.ensure_full(fd)
    except OSError as exc:
        os.close(fd)
        raise HostError(ErrorCode.STORAGE_UNAVAILABLE, f"Cannot read the pi session {session_id}: {exc}") from exc
    if not index.is_session:
        os.close(fd)
        raise HostError(ErrorCode.NOT_FOUND, f"The file of {session_id} is no longer a pi session.")
    return index, fd


def session_get(ctx: HostContext, p: Params) -> dict[str, Any]:
    session_id = p.text("sessionId")
    assert is_native(session_id)
    leaf = p.text("leafId", required=False, nonempty=True)
    request, content_limit = window_request(p)
    around = request.around
    index, fd = open_session(ctx, session_id)
    try:
        if leaf is not None and leaf not in index.tree.by_id:
            raise HostError(ErrorCode.NOT_FOUND, f"The pi session {session_id} has no entry {leaf!r}.")
        if leaf == index.tree.leaf:
            leaf = None  # the current branch: one cached view for both spellings
        around_position = None
        if around is not None:
            around_position = index.branch_view(leaf)[1].positions.get(around)
            if around_position is None:
                raise HostError(ErrorCode.NOT_FOUND, f"Session {session_id} has no message {around!r}.")
        page = read_window(index, fd, leaf, request, content_limit, around_position)
    finally:
        os.close(fd)
    session = catalog_of(ctx).row_of(ctx.conn, index)
    session["cwdTrusted"] = trust.is_trusted(ctx.conn, str(session.get("cwd") or ""))
    return {"session": session, **page, "branches": branches(index)}


def read_window(
    index: FileIndex,
    fd: int,
    leaf: str | None,
    request: WindowRequest,
    content_limit: int | None = None,
    around_position: int | None = None,
) -> dict[str, Any]:
    """One page of a branch (default: the current one), reading only its lines from ``fd``."""
    branch, branch_view = index.branch_view(leaf)
    first, end = select(request, branch_view.total, around_position)
    groups = branch_view.groups[first:end]
    wanted = [meta for group in groups for meta in group.metas]
    entries = dict(zip((m.id for m in wanted), index.read_entries(fd, wanted)))
    edits = pi_format.context_edits(branch)  # pi's context_edit entries: what the model is shown, not the history
    messages = [
        cap(
            pi_format.project_group(
                group, [entries[m.id] for m in group.metas], index.tree.labels, first + number, edits
            ),
            content_limit,
        )
        for number, group in enumerate(groups)
    ]
    compaction_metas = [meta for meta, _, _ in branch_view.compactions]
    compaction_entries = dict(zip((m.id for m in compaction_metas), index.read_entries(fd, compaction_metas)))
    return {
        "messages": messages,
        "messageStart": first,
        "messageEnd": end,
        "hasMoreBefore": first > 0,
        "hasMoreAfter": end < branch_view.total,
        "totalMessages": branch_view.total,
        "compactions": pi_format.checkpoints(branch_view, branch, lambda m: compaction_entries[m.id], index.version),
        "leafId": branch[-1].id if branch else None,
    }


def branches(index: FileIndex) -> list[dict[str, Any]]:
    """Every leaf of the tree with its branch's size, newest activity and last prompt (kept per file state)."""
    cached = index.branches_cache
    if cached is not None and cached[0] == index.generation:
        return [dict(b) for b in cached[1]]
    current = index.tree.leaf
    out = []
    for leaf in index.tree.leaves():
        branch = index.tree.branch(leaf.id)
        out.append(
            {
                "leafId": leaf.id,
                "messageCount": pi_format.view(branch).total,
                "updatedAt": _newest(branch),
                "preview": _last_prompt(branch),
                "current": leaf.id == current,
            }
        )
    index.branches_cache = (index.generation, out)
    return [dict(b) for b in out]


def _newest(branch: list[Meta]) -> int | None:
    return max((m.ts for m in branch if m.ts is not None), default=None)


def _last_prompt(branch: list[Meta]) -> str:
    for meta in reversed(branch):
        if meta.kind == "user" and meta.preview:
            text = meta.preview
            return text if len(text) <= BRANCH_PREVIEW_CHARS else text[: BRANCH_PREVIEW_CHARS - 1].rstrip() + "…"
    return ""


def cap(message: dict[str, Any], limit: int | None) -> dict[str, Any]:
    """``contentLimit``: long text, thinking and tool results cut for display, marked ``truncated``."""
    if limit is None:
        return message
    return {**message, "blocks": [cap_block(block, limit) for block in message.get("blocks", [])]}
