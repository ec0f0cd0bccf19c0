"""Projects (places work happens) and the current workspace (spec 004, section 4.2).

A project row is a logical index entry keyed by its normalised path: trimmed,
``/`` separators, no trailing separator. Nothing here ever creates, moves or
deletes a folder on disk.
"""

from __future__ import annotations

import apsw

from ..bus.errors import ErrorCode, HostError
from . import kv
from .commands import command
from .context import HostContext
from .params import Params, invalid

CURRENT_KEY = "currentProjectId"


def normalise_path(raw: str) -> str:
    path = raw.strip().replace("\\", "/")
    while len(path) > 1 and path.endswith("/") and not path.endswith(":/"):
        path = path[:-1]
    return path


def upsert(conn: apsw.Connection, raw_path: str, now: int, field: str = "projectPath") -> int:
    """The project id for ``raw_path``, creating the row if needed; touches last_opened_at."""
    path = normalise_path(raw_path)
    if not path:
        raise invalid(f"'{field}' must name a folder; it is empty.", field)
    name = path.rstrip("/").rsplit("/", 1)[-1] or path
    row = conn.execute(
        "INSERT INTO projects(path, name, created_at, last_opened_at) VALUES (?, ?, ?, ?) "
        "ON CONFLICT(path) DO UPDATE SET last_opened_at = excluded.last_opened_at RETURNING id",
        (path, name, now, now),
    ).fetchone()
    return row[0]


def summary(conn: apsw.Connection, project_id: int) -> dict | None:
    row = conn.execute(_SELECT + " WHERE p.id = ?", (project_id,)).fetchone()
    return _to_summary(row) if row else None


_SELECT = (
    "SELECT p.id, p.path, p.name, p.pinned, p.created_at, p.last_opened_at, "
    "(SELECT count(*) FROM sessions s WHERE s.project_id = p.id AND s.deleted_at IS NULL) "
    "FROM projects p"
)


def _to_summary(row: tuple) -> dict:
    pid, path, name, pinned, created, opened, count = row
    return {"id": pid, "path": path, "name": name, "pinned": bool(pinned), "createdAt": created,
            "lastOpenedAt": opened, "sessionCount": count}


@command("projects.list")
def projects_list(ctx: HostContext, p: Params) -> dict:
    rows = ctx.conn.execute(_SELECT + " ORDER BY p.last_opened_at DESC, p.id DESC").fetchall()
    return {"projects": [_to_summary(r) for r in rows]}


@command("workspace.get")
def workspace_get(ctx: HostContext, p: Params) -> dict:
    current = kv.get(ctx.conn, "app", CURRENT_KEY)
    project = summary(ctx.conn, current) if isinstance(current, int) else None
    return {"currentProjectId": project["id"] if project else None, "project": project}


@command("workspace.set")
def workspace_set(ctx: HostContext, p: Params) -> dict:
    """Select the visible workspace by ``projectPath`` or ``projectId``; neither clears it."""
    path = p.text("projectPath", required=False)
    project_id = p.integer("projectId", required=False, minimum=1)
    now = ctx.clock()
    with ctx.conn:
        if path is not None:
            project_id = upsert(ctx.conn, path, now)
        elif project_id is not None:
            if ctx.conn.execute("UPDATE projects SET last_opened_at = ? WHERE id = ? RETURNING id",
                                (now, project_id)).fetchone() is None:
                raise HostError(ErrorCode.NOT_FOUND, f"There is no project with id {project_id}.")
        if project_id is None:
            kv.delete(ctx.conn, "app", CURRENT_KEY)
        else:
            kv.put(ctx.conn, "app", CURRENT_KEY, project_id, now)
    result = workspace_get(ctx, p)
    ctx.emit("workspace.changed", result)
    return result
