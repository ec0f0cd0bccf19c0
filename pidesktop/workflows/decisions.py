"""Human decisions, their single immutable winner, and continuations.

A run owner opens a decision and its run parks (``waiting``; a queue row
becomes ``parked``). Four outcomes compete through one row of
``human_decision_resolutions`` keyed by the decision (spec 000, "Competing
outcomes"):

- ``answered``: a verified human's answer (a model may answer only an
  unprotected decision);
- ``timeout_default``: the deadline passed and a validated default exists;
  this is acceptance, never an expiry;
- ``cancelled``: an explicit cancellation;
- ``expired``: the deadline passed and there is no default.

Whichever commits first wins; every later or repeated command returns that
winner unchanged. Acceptance records a ``decision.continue`` effect and
cancellation a ``decision.cancel_parent`` effect for the run owner to apply.
Applying ``decision.continue`` admits one continuation run; the parked parent
does not block it, and reserving it settles the parent.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import apsw

from pidesktop.workflows import blobs, claims, outbox, resources, runs, write
from pidesktop.workflows.credentials import require_nonsecret
from pidesktop.workflows.errors import ActorRejected, NotFound, TransitionRejected
from pidesktop.workflows.ownership import CONTROL, Actor

ACCEPTED = ("answered", "timeout_default")


@dataclass(frozen=True)
class DecisionRef:
    decision_id: str
    resource_id: str
    revision: int
    run_permit: write.Permit


@dataclass(frozen=True)
class Resolution:
    decision_id: str
    outcome: str
    response: Any
    actor_class: str
    submission_id: str | None
    reason: str | None
    resolved_at: int
    won: bool = False

    @property
    def accepted(self) -> bool:
        return self.outcome in ACCEPTED

    def same_fact(self) -> tuple:
        return (
            self.decision_id,
            self.outcome,
            self.response,
            self.actor_class,
            self.submission_id,
            self.reason,
            self.resolved_at,
        )


def decision_resource(decision_id: str) -> str:
    return resources.rid("decision", decision_id)


def ask(
    store,
    permit: write.Permit,
    *,
    request: dict,
    default: Any = None,
    deadline_at: int | None = None,
    protected: bool = True,
    attempt_id: str | None = None,
) -> DecisionRef:
    """Park the owner's run on a new decision.

    ``request`` is shown to the human; with ``"options": [...]`` answers and
    the default must be one of them. ``default`` (None: no default) needs a
    deadline.
    """
    _validate_request(request, default, deadline_at)
    require_nonsecret(request, "a decision request")
    require_nonsecret(default, "a decision's default response")
    run_id = resources.ident_of(permit.resource_id)
    decision_id = resources.new_id()
    request_blob = blobs.of_json(request)
    default_blob = blobs.of_json(default) if default is not None else None

    def check(tx):
        status = tx.scalar("SELECT status FROM runs WHERE run_id = ?", (run_id,))
        if status != "running":
            raise TransitionRejected(f"the run is {status}")
        if tx.one("SELECT 1 FROM node_attempts WHERE run_id = ? AND status = 'running'", (run_id,)):
            raise TransitionRejected("finish the running node attempt before waiting on a decision")

    def apply(tx, _):
        tx.put(default_blob)
        tx.create(decision_resource(decision_id), "decision.opened", {"protected": protected})
        tx.run(
            "INSERT INTO human_decisions (decision_id, resource_id, run_id, attempt_id, protected, request_digest, "
            "default_response_digest, deadline_at, status, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'open', ?)",
            (
                decision_id,
                decision_resource(decision_id),
                run_id,
                attempt_id,
                int(protected),
                request_blob.digest,
                default_blob.digest if default_blob else None,
                deadline_at,
                tx.now,
            ),
        )
        tx.run("UPDATE runs SET status = 'waiting', updated_at = ? WHERE run_id = ?", (tx.now, run_id))
        tx.run("UPDATE run_queue SET status = 'parked' WHERE run_id = ? AND status = 'running'", (run_id,))

    result = write.execute(
        store,
        write.Command(
            "run.wait",
            runs.owner_actor(permit),
            permit.resource_id,
            permit.revision,
            owner=permit.resource_id,
            claim=permit.claim,
            event_type="run.waiting",
            event_payload={"decisionId": decision_id},
            blobs=(request_blob,),
        ),
        check=check,
        apply=apply,
    )
    return DecisionRef(decision_id, decision_resource(decision_id), 1, permit.at(result.written_revision))


def _validate_request(request: Any, default: Any, deadline_at: int | None) -> None:
    if not isinstance(request, dict):
        raise TransitionRejected("a decision request is a JSON object")
    options = request.get("options")
    if options is not None and (not isinstance(options, list) or not options):
        raise TransitionRejected("decision options are a non-empty list")
    if default is not None:
        if deadline_at is None:
            raise TransitionRejected("a default response needs a deadline")
        if options is not None and default not in options:
            raise TransitionRejected("the default response is not one of the options")


def answer(
    store, decision_id: str, actor: Actor, response: Any, *, expected_revision: int, channel_id: str | None = None
) -> Resolution:
    """A verified human (or, for an unprotected decision, a model) answers."""
    require_nonsecret(response, "a decision answer")
    response_blob = blobs.of_json(response)
    submission_id = resources.new_id()

    def check(tx):
        row = _open_decision(tx, decision_id)
        if actor.actor_class == "model" and row["protected"]:
            raise ActorRejected("a model-originated answer cannot resolve a protected human decision")
        options = blobs.read_json(tx.conn, row["request_digest"]).get("options")
        if options is not None and response not in options:
            raise TransitionRejected("the answer is not one of the decision's options")
        if channel_id is not None and tx.one("SELECT 1 FROM channels WHERE channel_id = ?", (channel_id,)) is None:
            raise NotFound("no such channel")
        return row

    def apply(tx, row):
        tx.run(
            "INSERT INTO human_decision_submissions (submission_id, decision_id, actor_class, actor_id, "
            "channel_id, response_digest, submitted_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
            (submission_id, decision_id, actor.actor_class, actor.actor_id, channel_id, response_blob.digest, tx.now),
        )
        return _resolve(tx, row, "answered", response_blob.digest, submission_id, None)

    return write.execute(
        store,
        write.Command(
            "decision.answer",
            actor,
            decision_resource(decision_id),
            expected_revision,
            event_type="decision.answered",
            blobs=(response_blob,),
        ),
        adopt=lambda tx: resolution(tx.conn, decision_id),
        check=check,
        apply=apply,
    ).value


def _apply_deadline(store, decision_id: str, claim: claims.Claim, *, expected_revision: int) -> Resolution:
    """The run owner applies the deadline: the default is accepted, or the decision expires."""

    def check(tx):
        row = _open_decision(tx, decision_id)
        if row["deadline_at"] is None:
            raise TransitionRejected("the decision has no deadline")
        if tx.now < row["deadline_at"]:
            raise TransitionRejected("the deadline has not passed")
        return row

    def apply(tx, row):
        if row["default_response_digest"] is not None:
            return _resolve(tx, row, "timeout_default", row["default_response_digest"], None, None)
        return _resolve(tx, row, "expired", None, None, "deadline passed without a default response")

    return write.execute(
        store,
        write.Command(
            "decision.deadline",
            claim.actor,
            decision_resource(decision_id),
            expected_revision,
            owner=lambda tx: runs.run_resource(_run_of(tx, decision_id)),
            claim=claim,
            event_type="decision.deadline_applied",
        ),
        adopt=lambda tx: resolution(tx.conn, decision_id),
        check=check,
        apply=apply,
    ).value


def cancel(
    store,
    decision_id: str,
    *,
    expected_revision: int,
    actor: Actor = CONTROL,
    claim: claims.Claim | None = None,
    reason: str | None = None,
) -> Resolution:
    """Cancel explicitly: a control command, or the run owner with its claim."""

    def run_owning_the_decision(tx: write.Tx) -> str:
        return runs.run_resource(_run_of(tx, decision_id))

    owner = None
    if claim is not None:
        actor = claim.actor
        owner = run_owning_the_decision

    def apply(tx, row):
        return _resolve(tx, row, "cancelled", None, None, reason or "cancelled")

    return write.execute(
        store,
        write.Command(
            "decision.cancel",
            actor,
            decision_resource(decision_id),
            expected_revision,
            owner=owner,
            claim=claim,
            event_type="decision.cancelled",
        ),
        adopt=lambda tx: resolution(tx.conn, decision_id),
        check=lambda tx: _open_decision(tx, decision_id),
        apply=apply,
    ).value


def _run_of(tx: write.Tx, decision_id: str) -> str:
    run_id = tx.scalar("SELECT run_id FROM human_decisions WHERE decision_id = ?", (decision_id,))
    if run_id is None:
        raise NotFound(f"no decision {decision_id}")
    return run_id


def _open_decision(tx: write.Tx, decision_id: str) -> dict:
    row = tx.one(
        "SELECT run_id, protected, request_digest, default_response_digest, deadline_at, status "
        "FROM human_decisions WHERE decision_id = ?",
        (decision_id,),
    )
    if row is None:
        raise NotFound(f"no decision {decision_id}")
    if row[5] != "open":
        raise TransitionRejected(f"the decision is {row[5]}")
    return {
        "decision_id": decision_id,
        "run_id": row[0],
        "protected": bool(row[1]),
        "request_digest": row[2],
        "default_response_digest": row[3],
        "deadline_at": row[4],
    }


def _resolve(
    tx: write.Tx, row: dict, outcome: str, response_digest: bytes | None, submission_id: str | None, reason: str | None
) -> Resolution:
    decision_id = row["decision_id"]
    tx.run(
        "INSERT INTO human_decision_resolutions (decision_id, outcome, submission_id, response_digest, "
        "actor_class, reason, resolved_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
        (decision_id, outcome, submission_id, response_digest, tx.command.actor.actor_class, reason, tx.now),
    )
    accepted = outcome in ACCEPTED
    tx.run(
        "UPDATE human_decisions SET status = ? WHERE decision_id = ?",
        ("accepted" if accepted else "cancelled", decision_id),
    )
    follow_up = "decision.continue" if accepted else "decision.cancel_parent"
    tx.effect(
        outbox.EffectRequest(follow_up, decision_id, {"decisionId": decision_id}, runs.run_resource(row["run_id"]))
    )
    found = resolution(tx.conn, decision_id)
    return Resolution(**{**found.__dict__, "won": True})


def resolution(conn: apsw.Connection, decision_id: str) -> Resolution | None:
    """The durable winner, or None while the decision is open."""
    row = conn.execute(
        "SELECT outcome, response_digest, actor_class, submission_id, reason, resolved_at "
        "FROM human_decision_resolutions WHERE decision_id = ?",
        (decision_id,),
    ).fetchone()
    if row is None:
        return None
    return Resolution(decision_id, row[0], blobs.read_json(conn, row[1]), row[2], row[3], row[4], row[5])


def get(conn: apsw.Connection, decision_id: str) -> dict:
    row = conn.execute(
        "SELECT d.decision_id, d.run_id, d.protected, d.request_digest, d.default_response_digest, d.deadline_at, "
        "d.status, s.revision FROM human_decisions d JOIN resources s ON s.resource_id = d.resource_id "
        "WHERE d.decision_id = ?",
        (decision_id,),
    ).fetchone()
    if row is None:
        raise NotFound(f"no decision {decision_id}")
    return {
        "decisionId": row[0],
        "runId": row[1],
        "protected": bool(row[2]),
        "request": blobs.read_json(conn, row[3]),
        "default": blobs.read_json(conn, row[4]),
        "deadlineAt": row[5],
        "status": row[6],
        "revision": row[7],
    }


def admit_continuation(tx: write.Tx, effect, payload) -> dict:
    """The ``decision.continue`` effect: admit the one continuation of an accepted decision."""
    decision_id = payload["decisionId"]
    existing = tx.one("SELECT continuation_id, run_id FROM continuations WHERE decision_id = ?", (decision_id,))
    if existing is not None:
        return {"continuationId": existing[0], "runId": existing[1], "adopted": True}
    won = resolution(tx.conn, decision_id)
    if won is None or not won.accepted:
        raise TransitionRejected("the decision was not accepted")
    parent_id = tx.scalar("SELECT run_id FROM human_decisions WHERE decision_id = ?", (decision_id,))
    parent = tx.one("SELECT project_id, definition_id, status FROM runs WHERE run_id = ?", (parent_id,))
    assert parent is not None  # human_decisions.run_id references runs
    if parent[2] != "waiting":
        return {"skipped": f"the parent run is {parent[2]}"}
    queue = tx.one("SELECT pi_session_id FROM run_queue WHERE run_id = ?", (parent_id,))
    run_id = resources.new_id()
    input_blob = blobs.of_json(
        {"parentRunId": parent_id, "decisionId": decision_id, "outcome": won.outcome, "response": won.response}
    )
    tx.put(input_blob)
    tx.create(runs.run_resource(run_id), "run.created", {"origin": "continuation"})
    runs.insert_run(
        tx,
        run_id,
        project_id=parent[0],
        definition_id=parent[1],
        origin="continuation",
        input_digest=input_blob.digest,
        parent_run_id=parent_id,
    )
    tx.run(
        "INSERT INTO run_bindings (run_id, name, binding_kind, value_digest, bound_at) "
        "SELECT ?, name, binding_kind, value_digest, ? FROM run_bindings WHERE run_id = ?",
        (run_id, tx.now, parent_id),
    )
    if queue is not None:
        # The parent's row is parked, so it does not hold the session's slot.
        runs.enqueue(tx, run_id, parent[0], queue[0])
    tx.run(
        "INSERT INTO continuations (continuation_id, decision_id, parent_run_id, run_id, status, admitted_at) "
        "VALUES (?, ?, ?, ?, 'admitted', ?)",
        (decision_id, decision_id, parent_id, run_id, tx.now),
    )
    return {"continuationId": decision_id, "runId": run_id, "adopted": False}


def cancel_parent(tx: write.Tx, effect, payload) -> dict:
    """The ``decision.cancel_parent`` effect: a cancelled or expired decision ends its waiting parent run."""
    decision_id = payload["decisionId"]
    parent_id = tx.scalar("SELECT run_id FROM human_decisions WHERE decision_id = ?", (decision_id,))
    status = tx.scalar("SELECT status FROM runs WHERE run_id = ?", (parent_id,))
    if status != "waiting":
        return {"skipped": f"the parent run is {status}"}
    runs.terminal(tx, parent_id, "cancelled")
    return {"cancelled": parent_id}
