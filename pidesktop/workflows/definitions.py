"""Workflow definitions: immutable, versioned, stored as canonical JSON.

A definition is ``{"nodes": [...]}`` plus any other keys the engine uses.
Each node has an ``id`` and a ``kind``. An ``agent`` node states its
``expectedOutput``: a non-empty description of a submitted output, or
``{"kind": "assistant-message", "maxChars"?: n}`` (no ``maxChars``: no limit).
Other kinds are non-agent nodes. Registering (project, name, version) again
with the same body adopts; a different body is a conflict.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import apsw

from pidesktop.workflows import blobs, resources, write
from pidesktop.workflows.errors import IdempotencyConflict, NotFound, TransitionRejected
from pidesktop.workflows.ownership import CONTROL, Actor


@dataclass(frozen=True)
class Definition:
    definition_id: str
    project_id: str
    name: str
    version: int
    adopted: bool = False


def node_output(node: dict) -> tuple[str, int | None]:
    """The attempt kind a node's attempts have, and the assistant-message limit."""
    if node.get("kind") != "agent":
        return "non_agent", None
    expected = node.get("expectedOutput")
    if isinstance(expected, dict):
        return "assistant_message", expected.get("maxChars")
    return "submitted", None


def validate(definition: Any) -> None:
    if not isinstance(definition, dict):
        raise TransitionRejected("a workflow definition is a JSON object")
    nodes = definition.get("nodes")
    if not isinstance(nodes, list) or not nodes:
        raise TransitionRejected("a workflow definition has a non-empty list of nodes")
    seen = set()
    for node in nodes:
        if not isinstance(node, dict) or not isinstance(node.get("id"), str) or not node["id"]:
            raise TransitionRejected("every node has a non-empty string id")
        if node["id"] in seen:
            raise TransitionRejected(f"node id {node['id']!r} is used twice")
        seen.add(node["id"])
        if not isinstance(node.get("kind"), str) or not node["kind"]:
            raise TransitionRejected(f"node {node['id']!r} has no kind")
        expected = node.get("expectedOutput")
        if node["kind"] != "agent":
            if expected is not None:
                raise TransitionRejected(f"non-agent node {node['id']!r} has an expectedOutput")
            continue
        if isinstance(expected, str) and expected.strip():
            continue
        if (
            isinstance(expected, dict)
            and expected.get("kind") == "assistant-message"
            and set(expected) <= {"kind", "maxChars"}
        ):
            limit = expected.get("maxChars")
            if limit is None or (isinstance(limit, int) and not isinstance(limit, bool) and limit >= 1):
                continue
        raise TransitionRejected(
            f"agent node {node['id']!r} needs expectedOutput: a description, or "
            '{"kind": "assistant-message", "maxChars"?: positive integer}'
        )


def register(
    store, project_id: str, name: str, version: int, definition: dict, *, actor: Actor = CONTROL
) -> Definition:
    validate(definition)
    if not name or not isinstance(version, int) or version < 1:
        raise TransitionRejected("a definition has a name and a version of at least 1")
    blob = blobs.of_json(definition)
    definition_id = resources.new_id()

    def adopt(tx):
        row = tx.one(
            "SELECT definition_id, definition_digest FROM workflow_definitions "
            "WHERE project_id = ? AND name = ? AND version = ?",
            (project_id, name, version),
        )
        if row is None:
            return None
        if bytes(row[1]) != blob.digest:
            raise IdempotencyConflict(f"{name} version {version} is already registered with a different body")
        return Definition(row[0], project_id, name, version, adopted=True)

    def check(tx):
        if tx.one("SELECT 1 FROM projects WHERE project_id = ?", (project_id,)) is None:
            raise NotFound(f"no project {project_id}")

    def apply(tx, _):
        tx.run(
            "INSERT INTO workflow_definitions (definition_id, resource_id, project_id, name, version, "
            "definition_digest, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
            (definition_id, tx.command.resource_id, project_id, name, version, blob.digest, tx.now),
        )
        return Definition(definition_id, project_id, name, version)

    return write.execute(
        store,
        write.Command(
            "definition.register",
            actor,
            resources.rid("workflow_definition", definition_id),
            creates=True,
            event_type="definition.registered",
            event_payload={"name": name, "version": version},
            blobs=(blob,),
        ),
        adopt=adopt,
        check=check,
        apply=apply,
    ).value


def load(conn: apsw.Connection, definition_id: str) -> dict:
    row = conn.execute(
        "SELECT definition_digest FROM workflow_definitions WHERE definition_id = ?", (definition_id,)
    ).fetchone()
    if row is None:
        raise NotFound(f"no workflow definition {definition_id}")
    return blobs.read_json(conn, row[0])


def node(conn: apsw.Connection, definition_id: str, node_id: str) -> dict:
    for candidate in load(conn, definition_id)["nodes"]:
        if candidate["id"] == node_id:
            return candidate
    raise NotFound(f"the workflow has no node {node_id!r}")
