"""Path projects read as legacy single-root project groups (spec 004, section 1).

Nothing is stored: a project whose path is in no group's ``roots`` and no
group's ``detachedPaths`` reads as ``{id: "legacy:<project id>", legacy:
true}`` with its one root. Its memory is the project's own path-scoped memory
(``kv(projectMemory, <path>)``); its instructions are the project folder's
``AGENTS.md``, read, never written (the file is the person's, on disk).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import apsw

from pidesktop.bus.errors import ErrorCode, HostError
from pidesktop.formats.index.sql_rows import all_rows
from pidesktop.host.projects import commands as projects

PREFIX = "legacy:"
INSTRUCTION_FILE = "AGENTS.md"


def is_legacy(group_id: str) -> bool:
    return group_id.startswith(PREFIX)


def projected(conn: apsw.Connection, records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The legacy groups of every project no stored group holds or detached, oldest project first."""
    taken: set[str] = set()
    for record in records:
        taken.update(r for r in record.get("roots") or [] if isinstance(r, str))
        taken.update(r for r in record.get("detachedPaths") or [] if isinstance(r, str))
    out = []
    for project_id, path, name, created in all_rows(
        conn.execute("SELECT id, path, name, created_at FROM projects ORDER BY created_at, id")
    ):
        if path in taken:
            continue
        out.append(
            {
                "id": f"{PREFIX}{project_id}",
                "name": name or Path(str(path)).name,
                "roots": [path],
                "primaryRoot": path,
                "projectIds": [project_id],
                "detachedPaths": [],
                "createdAt": created,
                "updatedAt": created,
                "legacy": True,
            }
        )
    return out


def _project(conn: apsw.Connection, group_id: str) -> dict[str, Any]:
    number = group_id[len(PREFIX) :]
    project = projects.summary(conn, int(number)) if number.isdigit() else None
    if project is None:
        raise HostError(ErrorCode.NOT_FOUND, f"There is no project group with id {group_id!r}.")
    return project


def memory(conn: apsw.Connection, group_id: str) -> dict[str, Any]:
    return projects.read_note(conn, projects.MEMORY_NS, _project(conn, group_id)["path"])


def instructions(conn: apsw.Connection, group_id: str) -> dict[str, Any]:
    """``{text, updatedAt, path}`` of the project folder's ``AGENTS.md`` (empty when there is none)."""
    path = Path(_project(conn, group_id)["path"]) / INSTRUCTION_FILE
    try:
        with open(path, "rb") as handle:
            data = handle.read(projects.MEMORY_LIMIT + 1)
            stamp = os.fstat(handle.fileno()).st_mtime_ns // 1_000_000
    except OSError:
        return {"text": "", "updatedAt": None, "path": str(path)}
    text = data[: projects.MEMORY_LIMIT].decode("utf-8", "replace")
    return {"text": text, "updatedAt": stamp, "path": str(path), "truncated": len(data) > projects.MEMORY_LIMIT}
