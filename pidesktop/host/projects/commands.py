"""Projects (places work happens) and the current workspace (spec 004, section 4.2).

A project row is a logical index entry keyed by its normalised path: trimmed,
``/`` separators, no trailing separator. Nothing here ever creates, moves or
deletes a folder on disk: a project whose folder is gone is listed with
``missing: true`` and keeps its chats, and removing a project only moves its
chats out of it (``projectId`` null).
"""

from __future__ import annotations

import os
import re
from typing import Any

import apsw

from pidesktop.bus import topics
from pidesktop.bus.errors import ErrorCode, HostError
from pidesktop.formats.index.sql_rows import one_row
from pidesktop.host import kv
from pidesktop.host.commands import command
from pidesktop.host.context import HostContext
from pidesktop.host.json_values import array_at
from pidesktop.host.params import Params, invalid

CURRENT_KEY = "currentProjectId"
NAME_MAX = 120
_WINDOWS_ABSOLUTE = re.compile(r"^[A-Za-z]:/|^//[^/]")  # C:/... or a //server/share path


def normalise_path(raw: str) -> str:
    path = raw.strip().replace("\\", "/")
    while len(path) > 1 and path.endswith("/") and not path.endswith(":/"):
        path = path[:-1]
    return path


def upsert(conn: apsw.Connection, raw_path: str, now: int, field: str = "projectPath", *, opened: bool = True) -> int:
    """The project id for ``raw_path``, creating the row if needed; touches last_opened_at unless
    ``opened`` is False (an import files chats in a project nobody opened just now)."""
    path = normalise_path(raw_path)
    if not path:
        raise invalid(f"'{field}' must name a folder; it is empty.", field)
    name = path.rstrip("/").rsplit("/", 1)[-1] or path
    project_id: int = one_row(
        conn.execute(
            "INSERT INTO projects(path, name, created_at, last_opened_at) VALUES (?, ?, ?, ?) "
            "ON CONFLICT(path) DO UPDATE SET last_opened_at = "
            "CASE WHEN ? THEN excluded.last_opened_at ELSE last_opened_at END RETURNING id",
            (path, name, now, now, opened),
        )
    )[0]
    return project_id


def is_absolute(path: str) -> bool:
    """``path`` (normalised) names a folder from the root, on this system or a Windows one."""
    return path.startswith("/") or bool(_WINDOWS_ABSOLUTE.match(path))


def require(conn: apsw.Connection, project_id: int) -> dict[str, Any]:
    project = summary(conn, project_id)
    if project is None:
        raise HostError(ErrorCode.NOT_FOUND, f"There is no project with id {project_id}.")
    return project


def summary(conn: apsw.Connection, project_id: int) -> dict[str, Any] | None:
    row = conn.execute(_SELECT + " WHERE p.id = ?", (project_id,)).fetchone()
    return _to_summary(row) if row else None


_SELECT = (
    "SELECT p.id, p.path, p.name, p.pinned, p.created_at, p.last_opened_at, "
    "(SELECT count(*) FROM sessions s WHERE s.project_id = p.id AND s.deleted_at IS NULL) "
    "FROM projects p"
)


def _to_summary(row: tuple[Any, ...]) -> dict[str, Any]:
    pid, path, name, pinned, created, opened, count = row
    return {
        "id": pid,
        "path": path,
        "name": name,
        "pinned": bool(pinned),
        "createdAt": created,
        "lastOpenedAt": opened,
        "sessionCount": count,
        "missing": not os.path.isdir(path),
    }


@command("projects.list", emits=[])
def projects_list(ctx: HostContext, p: Params) -> dict[str, Any]:
    rows = ctx.conn.execute(_SELECT + " ORDER BY p.last_opened_at DESC, p.id DESC").fetchall()
    return {"projects": [_to_summary(r) for r in rows]}


@command("projects.upsert", emits=[topics.PROJECTS_CHANGED])
def projects_upsert(ctx: HostContext, p: Params) -> dict[str, Any]:
    """Add a folder as a project; the same normalised path is the same row (its name is kept unless given)."""
    path = normalise_path(p.text("path"))
    if not path:
        raise invalid("projects.upsert: 'path' must name a folder; it is empty.", "path")
    if not is_absolute(path):
        raise invalid(f"projects.upsert: 'path' must be an absolute folder path, not {path!r}.", "path")
    name = _name_param(p, required=False)
    with ctx.conn:
        project_id = upsert(ctx.conn, path, ctx.clock(), field="path")
        if name is not None:
            ctx.conn.execute("UPDATE projects SET name = ? WHERE id = ?", (name, project_id))
    project = summary(ctx.conn, project_id)
    ctx.emit(topics.PROJECTS_CHANGED, {"reason": "upserted", "project": project})
    return {"project": project}


@command("projects.update", emits=[topics.PROJECTS_CHANGED])
def projects_update(ctx: HostContext, p: Params) -> dict[str, Any]:
    """Rename or pin a project; its path (and so its memory) stays."""
    project_id = p.integer("projectId", minimum=1)
    name = _name_param(p, required=False)
    changes: dict[str, object] = {}
    if name is not None:
        changes["name"] = name
    if p.has("pinned"):
        changes["pinned"] = int(p.boolean("pinned", required=True))
    if not changes:
        raise invalid("projects.update: give 'name' or 'pinned'.", "name")
    assignments = ", ".join(f"{column} = ?" for column in changes)
    with ctx.conn:
        if (
            ctx.conn.execute(
                f"UPDATE projects SET {assignments} WHERE id = ? RETURNING id", (*changes.values(), project_id)
            ).fetchone()
            is None
        ):
            raise HostError(ErrorCode.NOT_FOUND, f"There is no project with id {project_id}.")
    project = summary(ctx.conn, project_id)
    ctx.emit(topics.PROJECTS_CHANGED, {"reason": "updated", "project": project})
    return {"project": project}


# -- project memory (spec 004, sections 4.1 and 4.2) ------------------------------------------
MEMORY_NS = "projectMemory"
MEMORY_LIMIT = 32 * 1024  # bytes of UTF-8


def read_note(conn: apsw.Connection, ns: str, key: str) -> dict[str, Any]:
    """``{text, updatedAt}`` of a kv note; a legacy plain string or structured entries read as text."""
    row = conn.execute("SELECT value_json, updated_at FROM kv WHERE ns = ? AND key = ?", (ns, key)).fetchone()
    if row is None:
        return {"text": "", "updatedAt": None}
    value = kv.get(conn, ns, key)
    if isinstance(value, str):
        text = value
    elif isinstance(value, dict):
        content = value.get("content")
        if isinstance(content, str):
            text = content
        else:  # entries only: their bodies, one after another
            entries = array_at(value, "entries")
            text = "\n\n".join(str(e.get("content") or e.get("text") or "") for e in entries if isinstance(e, dict))
    else:
        text = ""
    return {"text": text, "updatedAt": row[1]}


def write_note(ctx: HostContext, ns: str, key: str, text: str, what: str) -> dict[str, Any]:
    """Store (or, when blank, remove) a note of at most 32 KiB of UTF-8."""
    size = len(text.encode("utf-8"))
    if size > MEMORY_LIMIT:
        raise HostError(
            ErrorCode.LIMIT_EXCEEDED,
            f"The {what} is {size:,} bytes; it can hold at most {MEMORY_LIMIT:,} bytes (32 KiB). "
            f"Shorten it and save again.",
            {"field": "text", "limit": MEMORY_LIMIT, "size": size},
        )
    now = ctx.clock()
    with ctx.conn:
        if text.strip():
            # Spec 004's structured value: one untitled visual entry, its text as the derived content.
            kv.put(
                ctx.conn,
                ns,
                key,
                {
                    "format": "entries-v1",
                    "entries": [{"title": "", "content": text}],
                    "content": text,
                    "updatedAt": now,
                },
                now,
            )
        else:
            kv.delete(ctx.conn, ns, key)
    return read_note(ctx.conn, ns, key) if text.strip() else {"text": "", "updatedAt": None}


@command("projects.memoryGet", emits=[])
def projects_memory_get(ctx: HostContext, p: Params) -> dict[str, Any]:
    project = require(ctx.conn, p.integer("projectId", minimum=1))
    return read_note(ctx.conn, MEMORY_NS, project["path"])


@command("projects.memorySet", emits=[topics.PROJECTS_CHANGED])
def projects_memory_set(ctx: HostContext, p: Params) -> dict[str, Any]:
    project_id = p.integer("projectId", minimum=1)
    text = p.text("text")
    project = require(ctx.conn, project_id)
    result = write_note(ctx, MEMORY_NS, project["path"], text, "project memory")
    ctx.emit(topics.PROJECTS_CHANGED, {"reason": "memory", "project": project})
    return result


def _name_param(p: Params, required: bool) -> str | None:
    name = p.text("name", required=required, strip=True)
    if name is None:
        return None
    if not 1 <= len(name) <= NAME_MAX:
        raise invalid(
            f"{p.method}: 'name' must be 1 to {NAME_MAX} characters after trimming; it has {len(name)}.", "name"
        )
    return name


@command("workspace.get", emits=[])
def workspace_get(ctx: HostContext, p: Params) -> dict[str, Any]:
    current = kv.get(ctx.conn, "app", CURRENT_KEY)
    project = summary(ctx.conn, current) if isinstance(current, int) else None
    return {"currentProjectId": project["id"] if project else None, "project": project}


@command("workspace.set", emits=[topics.WORKSPACE_CHANGED])
def workspace_set(ctx: HostContext, p: Params) -> dict[str, Any]:
    """Select the visible workspace by ``projectPath`` or ``projectId``; neither clears it."""
    path = p.text("projectPath", required=False)
    project_id = p.integer("projectId", required=False, minimum=1)
    now = ctx.clock()
    with ctx.conn:
        if path is not None:
            project_id = upsert(ctx.conn, path, now)
        elif project_id is not None:
            if (
                ctx.conn.execute(
                    "UPDATE projects SET last_opened_at = ? WHERE id = ? RETURNING id", (now, project_id)
                ).fetchone()
                is None
            ):
                raise HostError(ErrorCode.NOT_FOUND, f"There is no project with id {project_id}.")
        if project_id is None:
            kv.delete(ctx.conn, "app", CURRENT_KEY)
        else:
            kv.put(ctx.conn, "app", CURRENT_KEY, project_id, now)
    result = workspace_get(ctx, p)
    ctx.emit(topics.WORKSPACE_CHANGED, result)
    return result
