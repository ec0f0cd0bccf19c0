"""Runs, run bindings, the run queue and workflow updates.

A run is created ``pending``. A queued run (one with a Pi session) has a
``run_queue`` row; at most one run per Pi session is queued or running. The
owner claims a run (taking its lease and reserving its queue row in one
transaction), advances it, may park it waiting on a decision, and finishes
it. A terminal outcome is final: a late finish returns it. Finishing a run
that has a queue row records a ``run_queue.settle`` effect; direct and
controller-child runs have none.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import apsw

from pidesktop.workflows import blobs, claims, outbox, resources, write
from pidesktop.workflows.credentials import require_nonsecret
from pidesktop.workflows.errors import IdempotencyConflict, NotFound, TransitionRejected
from pidesktop.workflows.ownership import CONTROL, Actor

TERMINAL = ("succeeded", "failed", "cancelled", "continued")
BINDING_KINDS = ("input", "pi_session", "channel", "controller")


@dataclass(frozen=True)
class RunRef:
    run_id: str
    resource_id: str
    revision: int
    adopted: bool = False


@dataclass(frozen=True)
class RunOutcome:
    run_id: str
    status: str
    revision: int
    adopted: bool = False


def run_resource(run_id: str) -> str:
    return resources.rid("run", run_id)


def owner_actor(permit: write.Permit) -> Actor:
    if permit.claim is None:
        raise TransitionRejected("this command needs the run owner's claim")
    return Actor("run_owner", permit.claim.owner_id)


def create(
    store,
    *,
    project_id: str,
    definition_id: str,
    input: Any = None,
    bindings: dict[str, tuple[str, Any]] | None = None,
    pi_session_id: str | None = None,
    run_id: str | None = None,
    actor: Actor = CONTROL,
) -> RunRef:
    """Start a run; with ``pi_session_id`` it is queued for that Pi session.

    ``bindings`` maps a name to ``(kind, value)``. With an explicit ``run_id``
    a repeated identical request adopts the existing run.
    """
    run_id = run_id or resources.new_id()
    require_nonsecret(input, "the run input")
    input_blob = blobs.of_json({} if input is None else input)
    binding_blobs = _binding_blobs(bindings or {})
    origin = "queue" if pi_session_id else "direct"

    def adopt(tx):
        row = tx.one("SELECT definition_id, input_digest, origin FROM runs WHERE run_id = ?", (run_id,))
        if row is None:
            return None
        queued = tx.scalar("SELECT pi_session_id FROM run_queue WHERE run_id = ?", (run_id,))
        if (row[0], bytes(row[1]), row[2], queued) != (definition_id, input_blob.digest, origin, pi_session_id):
            raise IdempotencyConflict(f"run {run_id} already exists with a different request")
        return RunRef(run_id, run_resource(run_id), resources.existing_revision(tx.conn, run_resource(run_id)), True)

    def check(tx):
        owner = tx.scalar("SELECT project_id FROM workflow_definitions WHERE definition_id = ?", (definition_id,))
        if owner is None:
            raise NotFound(f"no workflow definition {definition_id}")
        if owner != project_id:
            raise TransitionRejected("the definition belongs to another project")
        if pi_session_id:
            _require_session_free(tx, pi_session_id)

    def apply(tx, _):
        insert_run(
            tx,
            run_id,
            project_id=project_id,
            definition_id=definition_id,
            origin=origin,
            input_digest=input_blob.digest,
            parent_run_id=None,
        )
        for name, kind, blob in binding_blobs:
            bind(tx, run_id, name, kind, blob)
        if pi_session_id:
            enqueue(tx, run_id, project_id, pi_session_id)
        return RunRef(run_id, run_resource(run_id), tx.revision)

    return write.execute(
        store,
        write.Command(
            "run.create",
            actor,
            run_resource(run_id),
            creates=True,
            event_type="run.created",
            event_payload={"origin": origin},
            blobs=(input_blob,),
        ),
        adopt=adopt,
        check=check,
        apply=apply,
    ).value


def _binding_blobs(bindings: dict[str, tuple[str, Any]]) -> list[tuple[str, str, blobs.Blob]]:
    prepared = []
    for name, (kind, value) in sorted(bindings.items()):
        if kind not in BINDING_KINDS:
            raise TransitionRejected(f"binding kind is one of {', '.join(BINDING_KINDS)}")
        require_nonsecret(value, f"the run binding {name!r}")
        prepared.append((name, kind, blobs.of_json(value)))
    return prepared


def insert_run(
    tx: write.Tx,
    run_id: str,
    *,
    project_id: str,
    definition_id: str,
    origin: str,
    input_digest: bytes,
    parent_run_id: str | None,
) -> None:
    tx.run(
        "INSERT INTO runs (run_id, resource_id, project_id, definition_id, origin, parent_run_id, status, "
        "input_digest, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, 'pending', ?, ?, ?)",
        (run_id, run_resource(run_id), project_id, definition_id, origin, parent_run_id, input_digest, tx.now, tx.now),
    )


def bind(tx: write.Tx, run_id: str, name: str, kind: str, blob: blobs.Blob) -> None:
    tx.put(blob)
    tx.run(
        "INSERT INTO run_bindings (run_id, name, binding_kind, value_digest, bound_at) VALUES (?, ?, ?, ?, ?)",
        (run_id, name, kind, blob.digest, tx.now),
    )


def enqueue(tx: write.Tx, run_id: str, project_id: str, pi_session_id: str) -> None:
    _require_session_free(tx, pi_session_id)
    tx.run(
        "INSERT INTO run_queue (run_id, project_id, pi_session_id, status, enqueued_at) VALUES (?, ?, ?, 'queued', ?)",
        (run_id, project_id, pi_session_id, tx.now),
    )


def _require_session_free(tx: write.Tx, pi_session_id: str) -> None:
    if (
        tx.one("SELECT 1 FROM run_queue WHERE pi_session_id = ? AND status IN ('queued', 'running')", (pi_session_id,))
        is not None
    ):
        raise TransitionRejected("the Pi session already has a queued or running run")


def claim(store, run_id: str, owner_id: str, *, ttl_ms: int, expected_revision: int) -> write.Permit:
    """Take ownership of a run: reserve its queue row and take its lease together.

    A pending run starts running. A running or waiting run whose owner's
    lease expired is taken over with a new generation. Reserving a
    continuation settles its parked parent in the same transaction.
    """
    token, spec = claims.acquire_spec(owner_id, ttl_ms)
    resource = run_resource(run_id)

    def check(tx):
        status = _status(tx, run_id)
        if status in TERMINAL:
            raise TransitionRejected(f"the run is {status}")
        queue = tx.scalar("SELECT status FROM run_queue WHERE run_id = ?", (run_id,))
        if status == "pending" and queue not in (None, "queued"):
            raise TransitionRejected(f"the run's queue row is {queue}")
        return status, queue

    def apply(tx, plan):
        status, queue = plan
        if status == "pending":
            tx.run("UPDATE runs SET status = 'running', updated_at = ? WHERE run_id = ?", (tx.now, run_id))
            if queue == "queued":
                tx.run("UPDATE run_queue SET status = 'running', reserved_at = ? WHERE run_id = ?", (tx.now, run_id))
            settle_parked_parent(tx, run_id)
        return tx.now + ttl_ms

    result = write.execute(
        store,
        write.Command(
            "run.claim",
            Actor("run_owner", owner_id),
            resource,
            expected_revision,
            acquire=spec,
            event_type="run.claimed",
            event_payload={"ttlMs": ttl_ms},
        ),
        check=check,
        apply=apply,
    )
    return write.Permit(
        resource,
        result.written_revision,
        claims.Claim(resource, owner_id, token, result.held_generation, result.value),
    )


def settle_parked_parent(tx: write.Tx, run_id: str) -> None:
    """Reserving a continuation settles its parked parent (spec 000, "Domain tables")."""
    row = tx.one(
        "SELECT continuation_id, parent_run_id FROM continuations WHERE run_id = ? AND status = 'admitted'", (run_id,)
    )
    if row is None:
        return
    continuation_id, parent_id = row
    tx.run(
        "UPDATE continuations SET status = 'reserved', reserved_at = ? WHERE continuation_id = ?",
        (tx.now, continuation_id),
    )
    tx.run(
        "UPDATE run_queue SET status = 'settled', outcome = 'continued', settled_at = ? "
        "WHERE run_id = ? AND status = 'parked'",
        (tx.now, parent_id),
    )
    if _status(tx, parent_id) == "waiting":
        terminal(tx, parent_id, "continued")


def terminal(
    tx: write.Tx, run_id: str, status: str, *, output: blobs.Blob | None = None, error: blobs.Blob | None = None
) -> None:
    """Record a run's terminal outcome and, if it has an unsettled queue row, the settlement effect."""
    tx.put(output)
    tx.put(error)
    tx.run(
        "UPDATE runs SET status = ?, output_digest = ?, error_digest = ?, finished_at = ?, updated_at = ? "
        "WHERE run_id = ?",
        (status, output.digest if output else None, error.digest if error else None, tx.now, tx.now, run_id),
    )
    if tx.command.resource_id != run_resource(run_id):
        tx.touch(run_resource(run_id), f"run.{status}")
    tx.run(
        "UPDATE node_attempts SET status = 'cancelled', finished_at = ? WHERE run_id = ? "
        "AND status IN ('running', 'interrupted')",
        (tx.now, run_id),
    )
    queue = tx.scalar("SELECT status FROM run_queue WHERE run_id = ?", (run_id,))
    if queue is not None and queue != "settled":
        tx.effect(outbox.EffectRequest("run_queue.settle", run_id, {"runId": run_id}, run_resource(run_id)))


def finish(store, permit: write.Permit, *, outcome: str, output: Any = None, error: Any = None) -> RunOutcome:
    """End the run as succeeded, failed or cancelled; a late call returns the durable outcome."""
    if outcome not in ("succeeded", "failed", "cancelled"):
        raise TransitionRejected("a run finishes as succeeded, failed or cancelled")
    run_id = resources.ident_of(permit.resource_id)
    require_nonsecret(output, "the run output")
    require_nonsecret(error, "the run error")
    output_blob = blobs.of_json(output) if output is not None else None
    error_blob = blobs.of_json(error) if error is not None else None

    def adopt(tx):
        status = _status(tx, run_id)
        if status in TERMINAL:
            return RunOutcome(run_id, status, resources.existing_revision(tx.conn, permit.resource_id), adopted=True)
        return None

    def check(tx):
        status = _status(tx, run_id)
        if status not in ("running", "waiting"):
            raise TransitionRejected(f"the run is {status}")
        if status == "waiting" and outcome != "cancelled":
            raise TransitionRejected("a waiting run can only be cancelled")
        if outcome != "cancelled" and tx.one(
            "SELECT 1 FROM node_attempts WHERE run_id = ? AND status = 'running'", (run_id,)
        ):
            raise TransitionRejected("the run has a running node attempt")
        if status == "waiting" and tx.one(
            "SELECT 1 FROM human_decisions WHERE run_id = ? AND status = 'open'", (run_id,)
        ):
            raise TransitionRejected("the run waits on an open decision; cancel the decision instead")

    def apply(tx, _):
        terminal(tx, run_id, outcome, output=output_blob, error=error_blob)
        return RunOutcome(run_id, outcome, tx.revision)

    return write.execute(
        store,
        write.Command(
            "run.finish",
            owner_actor(permit),
            permit.resource_id,
            permit.revision,
            owner=permit.resource_id,
            claim=permit.claim,
            event_type=f"run.{outcome}",
        ),
        adopt=adopt,
        check=check,
        apply=apply,
    ).value


def _post_update(
    store, permit: write.Permit, update_type: str, body: Any, *, attempt_id: str | None = None
) -> write.Permit:
    """Append a workflow update (progress, a message for the user) to the run."""
    run_id = resources.ident_of(permit.resource_id)
    require_nonsecret(body, "a workflow update")
    body_blob = blobs.of_json(body)

    def check(tx):
        if _status(tx, run_id) != "running":
            raise TransitionRejected("only a running run posts updates")
        if (
            attempt_id is not None
            and tx.scalar("SELECT run_id FROM node_attempts WHERE attempt_id = ?", (attempt_id,)) != run_id
        ):
            raise NotFound("no such attempt in this run")

    def apply(tx, _):
        seq = tx.scalar("SELECT COALESCE(MAX(seq), 0) + 1 FROM workflow_updates WHERE run_id = ?", (run_id,))
        tx.run(
            "INSERT INTO workflow_updates (run_id, seq, attempt_id, update_type, body_digest, created_at) "
            "VALUES (?, ?, ?, ?, ?, ?)",
            (run_id, seq, attempt_id, update_type, body_blob.digest, tx.now),
        )
        return seq

    result = write.execute(
        store,
        write.Command(
            "run.update",
            owner_actor(permit),
            permit.resource_id,
            permit.revision,
            owner=permit.resource_id,
            claim=permit.claim,
            event_type="run.updated",
            event_payload={"updateType": update_type},
            blobs=(body_blob,),
        ),
        check=check,
        apply=apply,
    )
    return permit.at(result.written_revision)


def get(conn: apsw.Connection, run_id: str) -> dict:
    row = conn.execute(
        "SELECT r.run_id, r.project_id, r.definition_id, r.origin, r.parent_run_id, r.status, r.input_digest, "
        "r.output_digest, r.error_digest, r.cancel_requested_at, r.created_at, r.finished_at, s.revision "
        "FROM runs r JOIN resources s ON s.resource_id = r.resource_id WHERE r.run_id = ?",
        (run_id,),
    ).fetchone()
    if row is None:
        raise NotFound(f"no run {run_id}")
    queue = conn.execute("SELECT pi_session_id, status, outcome FROM run_queue WHERE run_id = ?", (run_id,)).fetchone()
    return {
        "runId": row[0],
        "projectId": row[1],
        "definitionId": row[2],
        "origin": row[3],
        "parentRunId": row[4],
        "status": row[5],
        "input": blobs.read_json(conn, row[6]),
        "output": blobs.read_json(conn, row[7]),
        "error": blobs.read_json(conn, row[8]),
        "cancelRequested": row[9] is not None,
        "createdAt": row[10],
        "finishedAt": row[11],
        "revision": row[12],
        "queue": None if queue is None else {"piSessionId": queue[0], "status": queue[1], "outcome": queue[2]},
    }


def _status(tx: write.Tx, run_id: str) -> str:
    status = tx.scalar("SELECT status FROM runs WHERE run_id = ?", (run_id,))
    if status is None:
        raise NotFound(f"no run {run_id}")
    return status


def settle_queue(tx: write.Tx, effect, payload) -> dict:
    """The ``run_queue.settle`` effect: a finished run's queue row takes its outcome."""
    run_id = payload["runId"]
    status = _status(tx, run_id)
    if status not in TERMINAL:
        raise TransitionRejected("the run has not finished")
    queue = tx.one("SELECT status, outcome FROM run_queue WHERE run_id = ?", (run_id,))
    assert queue is not None  # the effect is queued only for a run with a queue row
    if queue[0] == "settled":
        return {"outcome": queue[1], "adopted": True}
    tx.run(
        "UPDATE run_queue SET status = 'settled', outcome = ?, settled_at = ? WHERE run_id = ?",
        (status, tx.now, run_id),
    )
    return {"outcome": status, "adopted": False}
