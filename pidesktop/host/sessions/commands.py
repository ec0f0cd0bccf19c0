"""Session rows: create, list, rename, delete (spec 004, section 4.5).

A session's content lives in its transcript file; the row carries its
configuration, its ordinal counter (``last_seq``, exposed as ``messageCount``)
and its place in the recent list (``updated_at``).
"""

from __future__ import annotations

import logging
import re
import shutil
import uuid
from typing import Any

import apsw

from pidesktop.bus import topics
from pidesktop.bus.errors import ErrorCode, HostError
from pidesktop.formats.index.session_summary import (
    LAST_TURN_SQL,
    NEWEST_FIRST,
    ONE_SUMMARY_SQL,
    SCHEDULED,
    SUMMARY_SQL,
    one_summary_row,
    to_summary,
)
from pidesktop.host import kv
from pidesktop.host.commands import command
from pidesktop.host.context import HostContext
from pidesktop.host.native import reading as native_reading
from pidesktop.host.params import Params, decimal, invalid
from pidesktop.host.projects import commands as projects
from pidesktop.host.sessions import index_build, message_index, queue_marks, session_info, session_rows
from pidesktop.host.titles import cut_at_word
from pidesktop.host.transcripts import info as info_lines

MODES = ("agent", "plan", "goal")
THINKING_LEVELS = ("off", "minimal", "low", "medium", "high", "xhigh", "max", "omit")
TITLE_MAX = 80
LIST_LIMIT_MAX = 500

# Titles that mean "not chosen by the user yet", in every shipped locale,
# compared trimmed and lowercased (spec 004, section 4.5).
PLACEHOLDER_TITLES = frozenset(
    {"", "new chat", "new session", "untitled", "untitled task", "新对话", "新聊天", "新会话", "未命名任务", "未命名"}
)

# Session ids become file names: keep them to a safe alphabet.
_ID_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$")

log = logging.getLogger("pidesktop.host.sessions.commands")

# kv namespace of deleted session ids (tombstones): a late append for one of them
# is refused instead of recreating the chat as a stub (spec 004, section 5, D318).
DELETED_NS = "deletedSession"
PERMISSION_GRANTS_NS = "permissionGrants"  # "Allow for this chat" answers, keyed by session id (permission_grants)
TOMBSTONE_DAYS = 30

# Files and folders a session owns besides its row (spec 004, sections 2 and 2.1).
SESSION_FILES = (".jsonl", ".jsonl.layout", ".revisions.jsonl", ".inflight.json")
SESSION_DIRS = ("scratch", "visualizations", "review-changes")


def is_placeholder(title: str) -> bool:
    return title.strip().lower() in PLACEHOLDER_TITLES


def check_id(value: str, field: str = "sessionId") -> str:
    if not _ID_RE.match(value):
        raise invalid(f"'{field}' is not a valid session id: {value!r}.", field)
    return value


def session_id_param(p: Params) -> str:
    return check_id(p.text("sessionId"))


def summary(conn: apsw.Connection, session_id: str) -> dict[str, Any]:
    row = conn.execute(ONE_SUMMARY_SQL, (session_id,)).fetchone()
    if row is None:
        raise HostError(ErrorCode.NOT_FOUND, f"There is no session with id {session_id!r}.")
    return to_summary(one_summary_row(row, conn.execute(LAST_TURN_SQL, (session_id,)).fetchone()))


def require(conn: apsw.Connection, session_id: str) -> None:
    if conn.execute("SELECT 1 FROM sessions WHERE id = ?", (session_id,)).fetchone() is None:
        raise HostError(ErrorCode.NOT_FOUND, f"There is no session with id {session_id!r}.")


def validate_title(method: str, raw: str) -> str:
    title = raw.strip()
    if not 1 <= len(title) <= TITLE_MAX:
        raise invalid(
            f"{method}: 'title' must be 1 to {TITLE_MAX} characters after trimming; it has {len(title)}.", "title"
        )
    return title


@command("session.create", emits=[topics.SESSION_CHANGED])
def session_create(ctx: HostContext, p: Params) -> dict[str, Any]:
    fields = create_fields(p)
    session_id = str(uuid.uuid4())
    info = _created_info(fields)
    if info:  # file first: a rebuilt index finds the chat's title, project and settings in its transcript
        session_info.record(ctx, session_id, info)
    with ctx.conn:
        insert_session(ctx.conn, fields, ctx.clock(), session_id)
    return {"session": announce_created(ctx, session_id)}


def _created_info(fields: dict[str, Any]) -> dict[str, Any]:
    """What a new chat has beyond the defaults, as ``session_info`` fields."""
    info: dict[str, Any] = {}
    if not is_placeholder(fields["title"]):
        info.update(title=fields["title"], titleSource="manual")
    if fields["project_path"] is not None:
        info["projectPath"] = projects.normalise_path(fields["project_path"])
    if fields["mode"] != "agent":
        info["mode"] = fields["mode"]
    if fields["thinking"] != "off":
        info["thinkingLevel"] = fields["thinking"]
    for field, key in (("provider_id", "providerId"), ("model_id", "modelId")):
        if fields[field] is not None:
            info[key] = fields[field]
    return info


def create_fields(p: Params) -> dict[str, Any]:
    """``session.create``'s params, checked: what ``insert_session`` takes."""
    raw_title = p.text("title", required=False)
    return {
        "title": "" if raw_title is None or not raw_title.strip() else validate_title("session.create", raw_title),
        "mode": p.choice("mode", MODES, default="agent"),
        "thinking": p.choice("thinkingLevel", THINKING_LEVELS, default="off"),
        "project_path": p.text("projectPath", required=False),
        "provider_id": p.text("providerId", required=False),
        "model_id": p.text("modelId", required=False),
    }


def insert_session(conn: apsw.Connection, fields: dict[str, Any], now: int, session_id: str | None = None) -> str:
    """A new chat's row (and its project's), in the caller's transaction; its id. Announce it after the commit."""
    session_id = session_id or str(uuid.uuid4())
    project_path = fields["project_path"]
    project_id = projects.upsert(conn, project_path, now) if project_path is not None else None
    conn.execute(
        "INSERT INTO sessions(id, title, title_source, project_id, provider_id, model_id, mode, "
        "thinking_level, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (
            session_id,
            fields["title"],
            "default" if is_placeholder(fields["title"]) else "manual",
            project_id,
            fields["provider_id"],
            fields["model_id"],
            fields["mode"],
            fields["thinking"],
            now,
            now,
        ),
    )
    return session_id


def announce_created(ctx: HostContext, session_id: str) -> dict[str, Any]:
    """The committed new chat's summary, told to every client (``session.changed``, ``created``)."""
    session = summary(ctx.conn, session_id)
    ctx.emit(topics.SESSION_CHANGED, {"sessionId": session_id, "reason": "created", "session": session})
    return session


@command("session.list", emits=[topics.SESSION_LIST_CHANGED])
def session_list(ctx: HostContext, p: Params) -> dict[str, Any]:
    limit = p.integer("limit", required=False, default=100, minimum=1, maximum=LIST_LIMIT_MAX)
    cursor = p.text("cursor", required=False)
    project_id = p.integer("projectId", required=False)
    include_deleted = p.boolean("includeDeleted")
    include_scheduled = p.boolean("includeScheduled")
    where: list[str] = []
    args: list[object] = []
    if not include_deleted:
        where.append("s.deleted_at IS NULL")
    if not include_scheduled:
        where.append(f"NOT {SCHEDULED}")
    if project_id is not None:
        where.append("s.project_id = ?")
        args.append(project_id)
    if cursor:
        updated_at, after_id = _parse_cursor(cursor)
        where.append("(s.updated_at < ? OR (s.updated_at = ? AND s.id < ?))")
        args += [updated_at, updated_at, after_id]
    sql = SUMMARY_SQL
    if where:
        sql += " WHERE " + " AND ".join(where)
    sql += NEWEST_FIRST + " LIMIT ?"
    rows = [to_summary(r) for r in ctx.conn.execute(sql, (*args, limit + 1)).fetchall()]
    if p.boolean("native", default=True):  # pi's own sessions, in the same order and pages
        rows = sorted(
            rows + native_reading.list_rows(ctx, project_id, _parse_cursor(cursor) if cursor else None),
            key=lambda r: (r["updatedAt"], r["id"]),
            reverse=True,
        )
    sessions = rows[:limit]
    next_cursor = None
    if len(rows) > limit:
        last = sessions[-1]
        next_cursor = f"{last['updatedAt']}:{last['id']}"
    return {"sessions": sessions, "nextCursor": next_cursor}


@command("session.rename", emits=[topics.SESSION_CHANGED])
def session_rename(ctx: HostContext, p: Params) -> dict[str, Any]:
    session_id = session_id_param(p)
    title = validate_title("session.rename", p.text("title"))
    require(ctx.conn, session_id)
    session_info.record(ctx, session_id, {"title": title, "titleSource": "manual"})
    with ctx.conn:
        changed = ctx.conn.execute(
            "UPDATE sessions SET title = ?, title_source = 'manual' WHERE id = ? RETURNING id",
            (title, session_id),
        ).fetchone()
    if changed is None:
        raise HostError(ErrorCode.NOT_FOUND, f"There is no session with id {session_id!r}.")
    session = summary(ctx.conn, session_id)
    ctx.emit(topics.SESSION_CHANGED, {"sessionId": session_id, "reason": "renamed", "session": session})
    return {"session": session}


PERMISSION_MODES = ("inherit", "ask", "accept-edits", "auto")


@command("session.update", emits=[topics.SESSION_CHANGED])
def session_update(ctx: HostContext, p: Params) -> dict[str, Any]:
    """Change a chat's model, thinking level, mode, permission mode, fast mode (next turn on) or project."""
    session_id = session_id_param(p)
    changes: dict[str, object] = {}
    if "providerId" in p.raw:
        changes["provider_id"] = p.text("providerId", required=False)
    if "modelId" in p.raw:
        changes["model_id"] = p.text("modelId", required=False)
    if p.has("thinkingLevel"):
        changes["thinking_level"] = p.choice("thinkingLevel", THINKING_LEVELS, required=True)
    if p.has("mode"):
        changes["mode"] = p.choice("mode", MODES, required=True)
    if p.has("permissionMode"):
        changes["permission_mode"] = p.choice("permissionMode", PERMISSION_MODES, required=True)
    if p.has("fastMode"):
        changes["fast_mode"] = int(p.boolean("fastMode", required=True))
    if "projectId" in p.raw:  # null takes the chat out of its project
        project_id = p.integer("projectId", required=False, minimum=1)
        if project_id is not None:
            projects.require(ctx.conn, project_id)
        changes["project_id"] = project_id
    if not changes:
        raise invalid(
            "session.update: give at least one of providerId, modelId, thinkingLevel, mode, "
            "permissionMode, fastMode, projectId.",
            "providerId",
        )
    require(ctx.conn, session_id)
    session_info.record(ctx, session_id, _info_of(ctx, changes))
    assignments = ", ".join(f"{column} = ?" for column in changes)
    with ctx.conn:
        updated = ctx.conn.execute(
            f"UPDATE sessions SET {assignments} WHERE id = ? RETURNING id", (*changes.values(), session_id)
        ).fetchone()
    if updated is None:
        raise HostError(ErrorCode.NOT_FOUND, f"There is no session with id {session_id!r}.")
    session = summary(ctx.conn, session_id)
    ctx.emit(topics.SESSION_CHANGED, {"sessionId": session_id, "reason": "updated", "session": session})
    return {"session": session}


def _info_of(ctx: HostContext, changes: dict[str, object]) -> dict[str, Any]:
    """``session.update``'s column changes as ``session_info`` fields (a project by its path)."""
    names = {column: field for field, column in session_info.COLUMNS.items()}
    info: dict[str, Any] = {}
    for column, value in changes.items():
        if column == "project_id":
            info["projectPath"] = session_info.project_path(ctx.conn, value if isinstance(value, int) else None)
        else:
            info[names[column]] = bool(value) if column == "fast_mode" else value
    return info


@command("session.delete", emits=[topics.SESSION_CHANGED])
def session_delete(ctx: HostContext, p: Params) -> dict[str, Any]:
    """Every chat goes to the trash first (restorable); from the trash, or with ``forGood``, it is removed."""
    session_id = session_id_param(p)
    if not p.boolean("forGood") and move_to_trash(ctx, session_id):
        return {"deleted": True, "trashed": True}
    if not delete_for_good(ctx, session_id):
        raise HostError(ErrorCode.NOT_FOUND, f"There is no session with id {session_id!r}.")
    return {"deleted": True}


def delete_for_good(ctx: HostContext, session_id: str, *, purged: bool = False) -> bool:
    """Remove a chat, its files and its queue marks; False when there is none. ``purged``: from the trash."""
    now = ctx.clock()
    with ctx.conn:
        queue_marks.forget_session(ctx.conn, session_id)
        deleted = ctx.conn.execute("DELETE FROM sessions WHERE id = ? RETURNING id", (session_id,)).fetchone()
        if deleted is not None:
            # In the same transaction as the row delete: a crash before the files
            # are gone leaves a tombstoned transcript, which boot removes, never restores.
            kv.put(ctx.conn, DELETED_NS, session_id, {"deletedAt": now}, now)
            kv.delete(ctx.conn, PERMISSION_GRANTS_NS, session_id)
    if deleted is None:
        return False
    remove_session_files(ctx, session_id)
    ctx.emit(
        topics.SESSION_CHANGED, {"sessionId": session_id, "reason": "deleted", **({"purged": True} if purged else {})}
    )
    return True


def move_to_trash(ctx: HostContext, session_id: str) -> bool:
    """A chat goes to the trash (``deleted_at``, spec 004 section 4.5) instead of away; True if it did.

    One trash for every chat, the app's own and imported ones alike. Deleting it again from the
    trash removes it for good (so do ``session.purge`` and ``session.emptyTrash``).
    """
    with ctx.conn:
        trashed = ctx.conn.execute(
            "UPDATE sessions SET deleted_at = ? WHERE id = ? AND deleted_at IS NULL RETURNING id",
            (ctx.clock(), session_id),
        ).fetchone()
    if trashed is None:
        return False
    ctx.emit(
        topics.SESSION_CHANGED,
        {"sessionId": session_id, "reason": "deleted", "trashed": True, "session": summary(ctx.conn, session_id)},
    )
    return True


def remove_session_files(ctx: HostContext, session_id: str) -> None:
    """After the row is gone: the transcript, its caches, revisions, checkpoint, scratch."""
    ctx.transcripts.delete(session_id)
    for suffix in SESSION_FILES:
        (ctx.sessions_dir / f"{session_id}{suffix}").unlink(missing_ok=True)
    for folder in SESSION_DIRS:
        target = ctx.data_root / folder / session_id
        if target.is_dir() and not target.is_symlink():
            shutil.rmtree(target, ignore_errors=True)


FALLBACK_TITLE_CHARS = 60


def fallback_title(message: dict[str, Any]) -> str:
    """The deterministic first-prompt title: its first line, cut at a word near 60 characters."""
    text = message_index.extract_text(message) or ""
    line = next((part.strip() for part in text.splitlines() if part.strip()), "")
    return cut_at_word(line, FALLBACK_TITLE_CHARS)


def apply_fallback_title(conn: apsw.Connection, session_id: str, message: dict[str, Any]) -> None:
    """Name an untitled chat after its first prompt, only while its title is still a placeholder.

    Compare-and-set on ``title_source = 'default'``: a manual rename always wins.
    """
    row = conn.execute("SELECT title, title_source FROM sessions WHERE id = ?", (session_id,)).fetchone()
    if row is None or row[1] != "default" or not is_placeholder(row[0]):
        return
    title = fallback_title(message)
    if title:
        conn.execute(
            "UPDATE sessions SET title = ? WHERE id = ? AND title = ? AND title_source = 'default'",
            (title, session_id, row[0]),
        )


def was_deleted(conn: apsw.Connection, session_id: str) -> bool:
    """True when ``session.delete`` removed this id (its tombstone is still kept)."""
    return conn.execute("SELECT 1 FROM kv WHERE ns = ? AND key = ?", (DELETED_NS, session_id)).fetchone() is not None


def deleted_error(session_id: str) -> HostError:
    return HostError(
        ErrorCode.NOT_FOUND,
        f"Session {session_id} was deleted; nothing more is stored for it.",
        {"sessionId": session_id, "deleted": True},
    )


def prune_tombstones(conn: apsw.Connection, now: int) -> int:
    """Forget deletions older than ``TOMBSTONE_DAYS`` (no runtime holds a reply that long)."""
    conn.execute("DELETE FROM kv WHERE ns = ? AND updated_at < ?", (DELETED_NS, now - TOMBSTONE_DAYS * 86_400_000))
    return conn.changes()


def ensure_row(ctx: HostContext, session_id: str, now: int) -> None:
    """Make sure ``session_id`` has a row before a message is stored under it (D318).

    A transcript whose row is gone is restored from the file, index and all; a
    session with neither row nor file gets a stub row under that id, so a
    pending append can still land. A session that ``session.delete`` removed is
    never brought back: the append is refused (NOT_FOUND with ``deleted: true``)
    and a transcript a crash left behind is removed.
    """
    if ctx.conn.execute("SELECT 1 FROM sessions WHERE id = ?", (session_id,)).fetchone():
        return
    if was_deleted(ctx.conn, session_id):
        remove_session_files(ctx, session_id)
        log.info("refused a late message for deleted session %s", session_id)
        raise deleted_error(session_id)
    if ctx.transcripts.exists(session_id):
        restore_orphan(ctx, session_id, now)
        return
    with ctx.conn:
        ctx.conn.execute(
            "INSERT INTO sessions(id, title, title_source, created_at, updated_at) VALUES (?, '', 'default', ?, ?)",
            (session_id, now, now),
        )
    log.warning("created a stub session row for %s so its message can be stored", session_id)


def restore_orphan(ctx: HostContext, session_id: str, now: int, progress: index_build.Progress | None = None) -> int:
    """Rebuild the row and index of a transcript whose session row is missing; returns its message count.

    The row and what the ``session_info`` lines say go in first; the messages
    follow a batch at a time (``index_build``), so a chat of any length is
    restored in bounded memory.
    """
    header = ctx.transcripts.header(session_id) or {}
    created = message_index.created_ms(header, now)
    # what the session_info lines say, and the turns and plan approvals of its session_row lines: one pass
    state, rows = info_lines.fold_file(ctx.transcripts.path(session_id))
    info = session_info.without_time(state)
    with ctx.conn:
        ctx.conn.execute(
            "INSERT INTO sessions(id, title, title_source, created_at, updated_at) VALUES (?, '', 'default', ?, ?)",
            (session_id, created, created),
        )
        session_rows.restore(ctx.conn, session_id, rows, now)
        skipped = session_info.apply(ctx.conn, session_id, info, now)
    built = index_build.build(
        ctx, session_id, now, progress, lambda conn, prompt: apply_fallback_title(conn, session_id, prompt)
    )
    if skipped:
        log.warning("restored session %s without these unreadable fields: %s", session_id, ", ".join(skipped))
    log.info("restored orphaned session %s from its transcript (%d messages)", session_id, built.count)
    return built.count


def _parse_cursor(cursor: str) -> tuple[int, str]:
    head, sep, tail = cursor.partition(":")
    if not sep or decimal(head, signed=True) is None or not tail:
        raise invalid(f"session.list: 'cursor' is not a cursor this host handed out: {cursor!r}.", "cursor")
    return int(head), tail
