"""Projects: a stable id for each canonical project path.

All projects share the one database; project-scoped queries key on the id.
Registering the same canonical path again adopts the existing project.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

import apsw

from pidesktop.workflows import resources, write
from pidesktop.workflows.errors import NotFound, TransitionRejected
from pidesktop.workflows.ownership import CONTROL, Actor


@dataclass(frozen=True)
class Project:
    project_id: str
    canonical_path: str
    adopted: bool = False


def canonical_path(path: str | os.PathLike) -> str:
    raw = os.fspath(path)
    if not os.path.isabs(raw):
        raise TransitionRejected("a project path must be absolute")
    return os.path.realpath(raw)


def register(store, path: str | os.PathLike, *, actor: Actor = CONTROL) -> Project:
    canonical = canonical_path(path)
    project_id = resources.new_id()

    def adopt(tx):
        row = tx.one("SELECT project_id FROM projects WHERE canonical_path = ?", (canonical,))
        return None if row is None else Project(row[0], canonical, adopted=True)

    def apply(tx, _):
        tx.run(
            "INSERT INTO projects (project_id, resource_id, canonical_path, created_at) VALUES (?, ?, ?, ?)",
            (project_id, tx.command.resource_id, canonical, tx.now),
        )
        return Project(project_id, canonical)

    result = write.execute(
        store,
        write.Command(
            "project.register",
            actor,
            resources.rid("project", project_id),
            creates=True,
            event_type="project.registered",
            event_payload={"projectId": project_id},
        ),
        adopt=adopt,
        apply=apply,
    )
    return result.value


def get(conn: apsw.Connection, project_id: str) -> Project:
    row = conn.execute("SELECT project_id, canonical_path FROM projects WHERE project_id = ?", (project_id,)).fetchone()
    if row is None:
        raise NotFound(f"no project {project_id}")
    return Project(row[0], row[1])
