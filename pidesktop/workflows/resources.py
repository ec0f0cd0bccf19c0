"""Resource identities and revisions, and the immutable event history.

A resource id is ``<kind>:<id>``. Every accepted domain command moves its
resource's revision up by exactly one and records one event in the same
transaction; events are never updated or deleted (triggers refuse it).
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from typing import Any

import apsw

from pidesktop.workflows import blobs
from pidesktop.workflows.errors import NotFound

KINDS = (
    "project",
    "workflow_definition",
    "run",
    "decision",
    "controller",
    "effect",
    "channel",
    "notification",
    "turn_intent",
    "session_segment",
)


def rid(kind: str, ident: str) -> str:
    assert kind in KINDS, kind
    return f"{kind}:{ident}"


def kind_of(resource_id: str) -> str:
    return resource_id.split(":", 1)[0]


def ident_of(resource_id: str) -> str:
    return resource_id.split(":", 1)[1]


def new_id() -> str:
    return uuid.uuid4().hex


def revision(conn: apsw.Connection, resource_id: str) -> int | None:
    row = conn.execute("SELECT revision FROM resources WHERE resource_id = ?", (resource_id,)).fetchone()
    return None if row is None else row[0]


def existing_revision(conn: apsw.Connection, resource_id: str) -> int:
    """The revision of a resource the caller knows exists (it holds it, or has just written it)."""
    current = revision(conn, resource_id)
    if current is None:
        raise NotFound(f"no such resource {resource_id}")
    return current


def insert(conn: apsw.Connection, resource_id: str, now: int) -> int:
    conn.execute(
        "INSERT INTO resources (resource_id, kind, revision, created_at, updated_at) VALUES (?, ?, 1, ?, ?)",
        (resource_id, kind_of(resource_id), now, now),
    )
    return 1


def increment(conn: apsw.Connection, resource_id: str, now: int) -> int:
    conn.execute(
        "UPDATE resources SET revision = revision + 1, updated_at = ? WHERE resource_id = ?", (now, resource_id)
    )
    return existing_revision(conn, resource_id)


@dataclass(frozen=True)
class Event:
    event_id: int
    resource_id: str
    revision: int
    event_type: str
    operation: str
    actor_class: str
    lease_generation: int | None
    payload: Any
    committed_at: int


def append_event(
    conn: apsw.Connection,
    *,
    resource_id: str,
    revision: int,
    event_type: str,
    operation: str,
    actor_class: str,
    actor_id: str | None,
    lease_generation: int | None,
    payload: Any,
    now: int,
) -> None:
    digest = blobs.put(conn, blobs.of_json({} if payload is None else payload), now)
    conn.execute(
        "INSERT INTO events (resource_id, revision, event_type, operation, actor_class, actor_id, "
        "lease_generation, payload_digest, committed_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (resource_id, revision, event_type, operation, actor_class, actor_id, lease_generation, digest, now),
    )


def history(conn: apsw.Connection, resource_id: str) -> list[Event]:
    """The events of one resource, oldest first (actor ids are not returned)."""
    # Each column's type is the schema's; a row is read as the query names it.
    rows: list[tuple[Any, ...]] = conn.execute(
        "SELECT event_id, resource_id, revision, event_type, operation, actor_class, lease_generation, "
        "payload_digest, committed_at FROM events WHERE resource_id = ? ORDER BY event_id",
        (resource_id,),
    ).fetchall()
    return [Event(r[0], r[1], r[2], r[3], r[4], r[5], r[6], blobs.read_json(conn, r[7]), r[8]) for r in rows]
