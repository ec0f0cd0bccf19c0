"""Controller resources, finalizers, their work queue and child workflows.

A controller is created by a control command and driven by whoever holds its
claim: that owner updates its status, works its queue (with retry
scheduling), reserves effects (``effects.reserve``) and starts child
workflows. Deletion is requested by a control command; the controller then
stays ``deleting`` until its owner removes the last finalizer, when it
becomes ``deleted`` (the row remains as a tombstone).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import apsw

from pidesktop.workflows import blobs, leases, resources, runs, write
from pidesktop.workflows.errors import IdempotencyConflict, NotFound, TransitionRejected
from pidesktop.workflows.ownership import CONTROL, Actor


@dataclass(frozen=True)
class ControllerRef:
    controller_id: str
    resource_id: str
    revision: int
    adopted: bool = False


@dataclass(frozen=True)
class QueueItem:
    item_key: str
    payload: Any
    attempts: int


def controller_resource(controller_id: str) -> str:
    return resources.rid("controller", controller_id)


def create(store, project_id: str, name: str, spec: dict, *, actor: Actor = CONTROL) -> ControllerRef:
    spec_blob = blobs.of_json(spec)
    controller_id = resources.new_id()

    def adopt(tx):
        row = tx.one(
            "SELECT controller_id, spec_digest FROM controller_resources WHERE project_id = ? AND name = ?",
            (project_id, name),
        )
        if row is None:
            return None
        if bytes(row[1]) != spec_blob.digest:
            raise IdempotencyConflict(f"controller {name!r} already exists with a different spec")
        resource = controller_resource(row[0])
        return ControllerRef(row[0], resource, resources.existing_revision(tx.conn, resource), adopted=True)

    def check(tx):
        if tx.one("SELECT 1 FROM projects WHERE project_id = ?", (project_id,)) is None:
            raise NotFound(f"no project {project_id}")

    def apply(tx, _):
        tx.run(
            "INSERT INTO controller_resources (controller_id, resource_id, project_id, name, spec_digest, phase, "
            "created_at, updated_at) VALUES (?, ?, ?, ?, ?, 'active', ?, ?)",
            (controller_id, tx.command.resource_id, project_id, name, spec_blob.digest, tx.now, tx.now),
        )
        return ControllerRef(controller_id, tx.command.resource_id, 1)

    return write.execute(
        store,
        write.Command(
            "controller.create",
            actor,
            controller_resource(controller_id),
            creates=True,
            event_type="controller.created",
            blobs=(spec_blob,),
        ),
        adopt=adopt,
        check=check,
        apply=apply,
    ).value


def claim(store, controller_id: str, owner_id: str, *, ttl_ms: int) -> write.Permit:
    return leases.claim_lease(store, controller_resource(controller_id), owner_id, ttl_ms=ttl_ms)


def _owner_command(
    permit: write.Permit, operation: str, event_type: str, payload: Any = None, extra_blobs=()
) -> write.Command:
    return write.owner_command(permit, operation, event_type, payload, extra_blobs, owner_name="controller")


def _phase(tx: write.Tx, permit: write.Permit) -> tuple[str, str]:
    row = tx.one("SELECT controller_id, phase FROM controller_resources WHERE resource_id = ?", (permit.resource_id,))
    if row is None:
        raise NotFound("no such controller")
    return row


def _require_phase(tx: write.Tx, permit: write.Permit, *allowed: str) -> str:
    controller_id, phase = _phase(tx, permit)
    if phase not in allowed:
        raise TransitionRejected(f"the controller is {phase}")
    return controller_id


def _update_status(store, permit: write.Permit, status: dict) -> write.Permit:
    status_blob = blobs.of_json(status)

    def apply(tx, controller_id):
        tx.run(
            "UPDATE controller_resources SET status_digest = ?, updated_at = ? WHERE controller_id = ?",
            (status_blob.digest, tx.now, controller_id),
        )

    result = write.execute(
        store,
        _owner_command(permit, "controller.status", "controller.status_updated", extra_blobs=(status_blob,)),
        check=lambda tx: _require_phase(tx, permit, "active", "deleting"),
        apply=apply,
    )
    return permit.at(result.written_revision)


def _request_deletion(store, controller_id: str, *, expected_revision: int, actor: Actor = CONTROL) -> str:
    """Ask for deletion; returns the phase. Already deleting or deleted: adopts."""

    def adopt(tx):
        phase = tx.scalar("SELECT phase FROM controller_resources WHERE controller_id = ?", (controller_id,))
        return phase if phase in ("deleting", "deleted") else None

    def apply(tx, _):
        remaining = tx.scalar("SELECT count(*) FROM controller_finalizers WHERE controller_id = ?", (controller_id,))
        phase = "deleting" if remaining else "deleted"
        tx.run(
            "UPDATE controller_resources SET phase = ?, delete_requested_at = ?, updated_at = ? "
            "WHERE controller_id = ?",
            (phase, tx.now, tx.now, controller_id),
        )
        return phase

    return write.execute(
        store,
        write.Command(
            "controller.request_delete",
            actor,
            controller_resource(controller_id),
            expected_revision,
            event_type="controller.delete_requested",
        ),
        adopt=adopt,
        apply=apply,
    ).value


def _add_finalizer(store, permit: write.Permit, finalizer: str) -> write.Permit:
    def apply(tx, controller_id):
        tx.run(
            "INSERT INTO controller_finalizers (controller_id, finalizer, added_at) VALUES (?, ?, ?) "
            "ON CONFLICT DO NOTHING",
            (controller_id, finalizer, tx.now),
        )

    result = write.execute(
        store,
        _owner_command(permit, "controller.finalizer", "controller.finalizer_added", {"finalizer": finalizer}),
        check=lambda tx: _require_phase(tx, permit, "active"),
        apply=apply,
    )
    return permit.at(result.written_revision)


def _remove_finalizer(store, permit: write.Permit, finalizer: str) -> tuple[str, write.Permit]:
    """Remove a finalizer; the last one gone while deleting completes the deletion."""

    def check(tx):
        controller_id = _require_phase(tx, permit, "active", "deleting")
        if (
            tx.one(
                "SELECT 1 FROM controller_finalizers WHERE controller_id = ? AND finalizer = ?",
                (controller_id, finalizer),
            )
            is None
        ):
            raise NotFound(f"no finalizer {finalizer!r}")
        return controller_id

    def apply(tx, controller_id):
        tx.run(
            "DELETE FROM controller_finalizers WHERE controller_id = ? AND finalizer = ?", (controller_id, finalizer)
        )
        phase = _phase(tx, permit)[1]
        if phase == "deleting" and not tx.scalar(
            "SELECT count(*) FROM controller_finalizers WHERE controller_id = ?", (controller_id,)
        ):
            tx.run(
                "UPDATE controller_resources SET phase = 'deleted', updated_at = ? WHERE controller_id = ?",
                (tx.now, controller_id),
            )
            phase = "deleted"
        return phase

    result = write.execute(
        store,
        _owner_command(permit, "controller.finalizer", "controller.finalizer_removed", {"finalizer": finalizer}),
        check=check,
        apply=apply,
    )
    return result.value, permit.at(result.written_revision)


def enqueue(store, permit: write.Permit, item_key: str, payload: Any) -> write.Permit:
    """Queue work for the controller; an identical queued or running item adopts."""
    payload_blob = blobs.of_json(payload)

    def adopt(tx):
        row = tx.one(
            "SELECT q.status, q.payload_digest FROM controller_queue q JOIN controller_resources c "
            "ON c.controller_id = q.controller_id WHERE c.resource_id = ? AND q.item_key = ?",
            (permit.resource_id, item_key),
        )
        if row is not None and row[0] in ("queued", "running") and bytes(row[1]) == payload_blob.digest:
            return True
        return None

    def check(tx):
        controller_id = _require_phase(tx, permit, "active")
        status = tx.scalar(
            "SELECT status FROM controller_queue WHERE controller_id = ? AND item_key = ?", (controller_id, item_key)
        )
        if status == "running":
            raise TransitionRejected("the item is running; settle it first")
        return controller_id

    def apply(tx, controller_id):
        tx.run(
            "INSERT INTO controller_queue (controller_id, item_key, status, attempts, payload_digest, enqueued_at, "
            "updated_at) VALUES (?1, ?2, 'queued', 0, ?3, ?4, ?4) ON CONFLICT (controller_id, item_key) DO UPDATE "
            "SET status = 'queued', attempts = 0, payload_digest = ?3, retry_at = NULL, lease_generation = NULL, "
            "enqueued_at = ?4, updated_at = ?4",
            (controller_id, item_key, payload_blob.digest, tx.now),
        )

    result = write.execute(
        store,
        _owner_command(permit, "controller.queue", "controller.item_queued", {"itemKey": item_key}, (payload_blob,)),
        adopt=adopt,
        check=check,
        apply=apply,
    )
    return permit.at(result.written_revision) if not result.adopted else permit


def _reserve_item(store, permit: write.Permit) -> tuple[QueueItem | None, write.Permit]:
    """Take the oldest due queued item; (None, permit) when nothing is due, without writing."""

    def adopt(tx):
        due = tx.one(
            "SELECT 1 FROM controller_queue q JOIN controller_resources c "
            "ON c.controller_id = q.controller_id WHERE c.resource_id = ? AND q.status = 'queued' "
            "AND (q.retry_at IS NULL OR q.retry_at <= ?)",
            (permit.resource_id, tx.now),
        )
        return None if due else "nothing due"

    def check(tx):
        controller_id = _require_phase(tx, permit, "active", "deleting")
        return tx.one(
            "SELECT item_key, payload_digest, attempts FROM controller_queue WHERE controller_id = ? "
            "AND status = 'queued' AND (retry_at IS NULL OR retry_at <= ?) ORDER BY enqueued_at, item_key "
            "LIMIT 1",
            (controller_id, tx.now),
        ) + (controller_id,)

    def apply(tx, row):
        item_key, digest, attempts, controller_id = row
        tx.run(
            "UPDATE controller_queue SET status = 'running', attempts = attempts + 1, lease_generation = ?, "
            "updated_at = ? WHERE controller_id = ? AND item_key = ?",
            (tx.generation, tx.now, controller_id, item_key),
        )
        return QueueItem(item_key, blobs.read_json(tx.conn, digest), attempts + 1)

    result = write.execute(
        store,
        _owner_command(permit, "controller.queue", "controller.item_reserved"),
        adopt=adopt,
        check=check,
        apply=apply,
    )
    if result.adopted:
        return None, permit
    return result.value, permit.at(result.written_revision)


def _settle_item(store, permit: write.Permit, item_key: str, *, ok: bool, retry_at: int | None = None) -> write.Permit:
    """Finish a reserved item: done, failed, or queued again for ``retry_at``."""

    def check(tx):
        controller_id = _require_phase(tx, permit, "active", "deleting")
        row = tx.one(
            "SELECT status, lease_generation FROM controller_queue WHERE controller_id = ? AND item_key = ?",
            (controller_id, item_key),
        )
        if row is None:
            raise NotFound(f"no queue item {item_key!r}")
        if row[0] != "running":
            raise TransitionRejected(f"the item is {row[0]}")
        if row[1] != tx.generation:
            raise TransitionRejected("the item was reserved by an earlier owner")
        return controller_id

    def apply(tx, controller_id):
        status = "done" if ok else ("queued" if retry_at is not None else "failed")
        tx.run(
            "UPDATE controller_queue SET status = ?, retry_at = ?, updated_at = ? "
            "WHERE controller_id = ? AND item_key = ?",
            (status, None if ok else retry_at, tx.now, controller_id, item_key),
        )
        return status

    result = write.execute(
        store,
        _owner_command(permit, "controller.queue", "controller.item_settled", {"itemKey": item_key, "ok": ok}),
        check=check,
        apply=apply,
    )
    return permit.at(result.written_revision)


def _start_child(
    store, permit: write.Permit, child_key: str, definition_id: str, input: Any = None
) -> tuple[runs.RunRef, write.Permit]:
    """Start a child workflow run (no queue row); the same child key and request adopt."""
    input_blob = blobs.of_json({} if input is None else input)
    request_digest = blobs.sha256(blobs.canonical_json({"definitionId": definition_id, "input": input_blob.hex}))
    run_id = resources.new_id()

    def adopt(tx):
        row = tx.one(
            "SELECT w.run_id, w.request_digest FROM controller_workflows w JOIN controller_resources c "
            "ON c.controller_id = w.controller_id WHERE c.resource_id = ? AND w.child_key = ?",
            (permit.resource_id, child_key),
        )
        if row is None:
            return None
        if bytes(row[1]) != request_digest:
            raise IdempotencyConflict(f"child {child_key!r} was started with a different request")
        resource = runs.run_resource(row[0])
        return runs.RunRef(row[0], resource, resources.existing_revision(tx.conn, resource), adopted=True)

    def check(tx):
        controller_id = _require_phase(tx, permit, "active")
        project_id = tx.scalar("SELECT project_id FROM controller_resources WHERE controller_id = ?", (controller_id,))
        if (
            tx.scalar("SELECT project_id FROM workflow_definitions WHERE definition_id = ?", (definition_id,))
            != project_id
        ):
            raise NotFound("no such workflow definition in the controller's project")
        return controller_id, project_id

    def apply(tx, plan):
        controller_id, project_id = plan
        tx.create(runs.run_resource(run_id), "run.created", {"origin": "controller_child"})
        runs.insert_run(
            tx,
            run_id,
            project_id=project_id,
            definition_id=definition_id,
            origin="controller_child",
            input_digest=input_blob.digest,
            parent_run_id=None,
        )
        runs.bind(tx, run_id, "controller", "controller", blobs.of_json(controller_id))
        tx.run(
            "INSERT INTO controller_workflows (controller_id, child_key, run_id, request_digest, lease_generation, "
            "started_at) VALUES (?, ?, ?, ?, ?, ?)",
            (controller_id, child_key, run_id, request_digest, tx.generation, tx.now),
        )
        return runs.RunRef(run_id, runs.run_resource(run_id), 1)

    result = write.execute(
        store,
        _owner_command(permit, "controller.child", "controller.child_started", {"childKey": child_key}, (input_blob,)),
        adopt=adopt,
        check=check,
        apply=apply,
    )
    return result.value, (permit if result.adopted else permit.at(result.written_revision))


def get(conn: apsw.Connection, controller_id: str) -> dict:
    row = conn.execute(
        "SELECT c.controller_id, c.project_id, c.name, c.phase, c.spec_digest, c.status_digest, s.revision "
        "FROM controller_resources c JOIN resources s ON s.resource_id = c.resource_id WHERE c.controller_id = ?",
        (controller_id,),
    ).fetchone()
    if row is None:
        raise NotFound(f"no controller {controller_id}")
    finalizers = [
        r[0]
        for r in conn.execute(
            "SELECT finalizer FROM controller_finalizers WHERE controller_id = ? ORDER BY finalizer", (controller_id,)
        )
    ]
    return {
        "controllerId": row[0],
        "projectId": row[1],
        "name": row[2],
        "phase": row[3],
        "spec": blobs.read_json(conn, row[4]),
        "status": blobs.read_json(conn, row[5]),
        "revision": row[6],
        "finalizers": finalizers,
    }
