"""Project groups: several projects named together, with shared memory and instructions (spec 004, section 1).

Groups live behind the kv extension boundary, not in a table: one JSON record
per group in ``kv(projectGroups, <group id>)`` holding its display name, its
ordered canonical roots (project paths) and primary root; the shared memory in
``kv(projectGroupMemory, <group id>)`` and the shared instructions in
``kv(projectGroupInstructions, <group id>)``. A project belongs to at most one
group. Changing membership or removing a group never touches chats, project
rows or folders.

``detachedPaths`` (spec 004, 1.6): a root taken out of a group that has no
chats is kept there, so the old path project is not read again as a
standalone legacy group; a removed root with chats is left out and reads as
its own legacy group. A root taken back in leaves ``detachedPaths``. With
``includeLegacy`` the list adds those projected groups (``legacy_groups``).
"""

from __future__ import annotations

import uuid
from typing import Any

import apsw

from pidesktop.bus import topics
from pidesktop.bus.errors import ErrorCode, HostError
from pidesktop.formats.index.sql_rows import all_rows
from pidesktop.host import kv
from pidesktop.host.commands import Handler, command
from pidesktop.host.context import HostContext
from pidesktop.host.params import Params, invalid
from pidesktop.host.projects import commands as projects
from pidesktop.host.projects import legacy_groups

GROUPS_NS = "projectGroups"
MEMORY_NS = "projectGroupMemory"
INSTRUCTIONS_NS = "projectGroupInstructions"
MAX_ROOTS = 200


def all_records(conn: apsw.Connection) -> list[dict[str, Any]]:
    """Every group record, in creation order."""
    records = []
    for (key,) in all_rows(conn.execute("SELECT key FROM kv WHERE ns = ?", (GROUPS_NS,))):
        value = kv.get(conn, GROUPS_NS, key)
        if isinstance(value, dict):
            records.append({**value, "id": key})
    return sorted(records, key=lambda r: (r.get("createdAt") or 0, r["id"]))


def record_of(conn: apsw.Connection, group_id: str) -> dict[str, Any]:
    value = kv.get(conn, GROUPS_NS, group_id)
    if not isinstance(value, dict):
        raise HostError(ErrorCode.NOT_FOUND, f"There is no project group with id {group_id!r}.")
    return {**value, "id": group_id}


def group_of_path(conn: apsw.Connection, path: str) -> dict[str, Any] | None:
    return next((r for r in all_records(conn) if path in (r.get("roots") or [])), None)


def to_group(conn: apsw.Connection, record: dict[str, Any]) -> dict[str, Any]:
    """The ``ProjectGroup`` shape: the record plus the ids of its roots' project rows, in root order."""
    roots = [r for r in record.get("roots") or [] if isinstance(r, str)]
    ids: dict[str, int] = (
        dict(
            all_rows(conn.execute(f"SELECT path, id FROM projects WHERE path IN ({','.join('?' * len(roots))})", roots))
        )
        if roots
        else {}
    )
    return {
        "id": record["id"],
        "name": record.get("name") or "",
        "roots": roots,
        "primaryRoot": record.get("primaryRoot") or (roots[0] if roots else None),
        "projectIds": [ids[r] for r in roots if r in ids],
        "detachedPaths": [r for r in record.get("detachedPaths") or [] if isinstance(r, str)],
        "createdAt": record.get("createdAt"),
        "updatedAt": record.get("updatedAt"),
    }


def drop_root(ctx: HostContext, path: str, keep: str | None = None) -> None:
    """Take ``path`` out of every group but ``keep`` (a project is in one group at most)."""
    for record in all_records(ctx.conn):
        roots = record.get("roots") or []
        if record["id"] == keep or path not in roots:
            continue
        record["roots"] = [r for r in roots if r != path]
        if record.get("primaryRoot") == path:
            record["primaryRoot"] = record["roots"][0] if record["roots"] else None
        record["updatedAt"] = ctx.clock()
        kv.put(ctx.conn, GROUPS_NS, record.pop("id"), record, ctx.clock())


def _group_id(p: Params) -> str:
    return p.text("groupId", strip=True, nonempty=True, max_chars=128)


@command("projectGroups.list", emits=[])
def groups_list(ctx: HostContext, p: Params) -> dict[str, Any]:
    records = all_records(ctx.conn)
    groups = [to_group(ctx.conn, r) for r in records]
    if p.boolean("includeLegacy"):
        groups += legacy_groups.projected(ctx.conn, records)
    return {"groups": groups}


def _has_chats(conn: apsw.Connection, path: str) -> bool:
    return (
        conn.execute(
            "SELECT 1 FROM sessions s JOIN projects p ON p.id = s.project_id "
            "WHERE p.path = ? AND s.deleted_at IS NULL LIMIT 1",
            (path,),
        ).fetchone()
        is not None
    )


@command("projectGroups.set", emits=[topics.PROJECTS_CHANGED])
def groups_set(ctx: HostContext, p: Params) -> dict[str, Any]:
    """Create a group (no ``groupId``) or replace its name and members; members leave any other group."""
    group_id = p.text("groupId", required=False, strip=True, max_chars=128)
    name = p.text("name", strip=True, nonempty=True, max_chars=projects.NAME_MAX)
    raw_ids = p.array("projectIds")
    if not raw_ids or len(raw_ids) > MAX_ROOTS:
        raise invalid(f"projectGroups.set: 'projectIds' must list 1 to {MAX_ROOTS} projects.", "projectIds")
    roots: list[str] = []
    for index, value in enumerate(raw_ids):
        if isinstance(value, bool) or not isinstance(value, int):
            raise invalid(f"projectGroups.set: 'projectIds[{index}]' must be a project id.", f"projectIds[{index}]")
        path = projects.require(ctx.conn, value)["path"]
        if path not in roots:
            roots.append(path)
    now = ctx.clock()
    with ctx.conn:
        if group_id:
            record = record_of(ctx.conn, group_id)
        else:
            group_id = f"g-{uuid.uuid4()}"
            record = {"id": group_id, "createdAt": now}
        saved_id = group_id  # a name the checker still knows is a str after the transaction
        primary = record.get("primaryRoot") if record.get("primaryRoot") in roots else roots[0]
        removed = [r for r in record.get("roots") or [] if isinstance(r, str) and r not in roots]
        detached = [r for r in record.get("detachedPaths") or [] if isinstance(r, str) and r not in roots]
        detached += [r for r in removed if r not in detached and not _has_chats(ctx.conn, r)]
        record.update(
            {"name": name, "roots": roots, "primaryRoot": primary, "detachedPaths": detached, "updatedAt": now}
        )
        for path in roots:
            drop_root(ctx, path, keep=group_id)
        kv.put(ctx.conn, GROUPS_NS, group_id, {k: v for k, v in record.items() if k != "id"}, now)
    group = to_group(ctx.conn, record_of(ctx.conn, saved_id))
    ctx.emit(topics.PROJECTS_CHANGED, {"reason": "groups"})
    return {"group": group}


@command("projectGroups.remove", emits=[topics.PROJECTS_CHANGED])
def groups_remove(ctx: HostContext, p: Params) -> dict[str, Any]:
    """Forget a group and its shared notes; its projects and their chats stay as they are."""
    group_id = _group_id(p)
    record_of(ctx.conn, group_id)
    with ctx.conn:
        for ns in (GROUPS_NS, MEMORY_NS, INSTRUCTIONS_NS):
            kv.delete(ctx.conn, ns, group_id)
    ctx.emit(topics.PROJECTS_CHANGED, {"reason": "groups"})
    return {"removed": True}


def _note_get(ns: str) -> Handler:
    def handler(ctx: HostContext, p: Params) -> dict[str, Any]:
        group_id = _group_id(p)
        if legacy_groups.is_legacy(group_id):  # a path project read as a group: its own notes, read-only
            if ns == MEMORY_NS:
                return legacy_groups.memory(ctx.conn, group_id)
            return legacy_groups.instructions(ctx.conn, group_id)
        record_of(ctx.conn, group_id)
        return projects.read_note(ctx.conn, ns, group_id)

    return handler


def _note_set(ns: str, what: str) -> Handler:
    def handler(ctx: HostContext, p: Params) -> dict[str, Any]:
        group_id = _group_id(p)
        text = p.text("text")
        record_of(ctx.conn, group_id)
        result = projects.write_note(ctx, ns, group_id, text, what)
        ctx.emit(topics.PROJECTS_CHANGED, {"reason": "groups"})
        return result

    return handler


command("projectGroups.memoryGet", emits=[])(_note_get(MEMORY_NS))
command("projectGroups.memorySet", emits=[topics.PROJECTS_CHANGED])(_note_set(MEMORY_NS, "group memory"))
command("projectGroups.instructionsGet", emits=[])(_note_get(INSTRUCTIONS_NS))
command("projectGroups.instructionsSet", emits=[topics.PROJECTS_CHANGED])(
    _note_set(INSTRUCTIONS_NS, "group instructions")
)


@command("projects.notes", emits=[])
def project_notes(ctx: HostContext, p: Params) -> dict[str, Any]:
    """What a chat in the project gives the model: its memory, and its group's memory and instructions."""
    project = projects.require(ctx.conn, p.integer("projectId", minimum=1))
    memory = projects.read_note(ctx.conn, projects.MEMORY_NS, project["path"])
    record = group_of_path(ctx.conn, project["path"])
    group = None
    if record is not None:
        group = {
            "id": record["id"],
            "name": record.get("name") or "",
            "memory": projects.read_note(ctx.conn, MEMORY_NS, record["id"]),
            "instructions": projects.read_note(ctx.conn, INSTRUCTIONS_NS, record["id"]),
        }
    return {"project": {"id": project["id"], "name": project["name"]}, "memory": memory, "group": group}
