"""The transactional outbox: ``effects`` and ``effect_attempts``.

A domain transaction records the follow-up work it requires before it
commits. The effect id is derived from (owner scope, type, idempotency key),
so the same request made again adopts the existing row, and a different
request under the same key is a conflict.

Local effects are applied by their domain's handler inside one transaction that
also settles the effect. External effects are attempted by the owner of their
scope: an attempt is recorded, the external call happens outside any
transaction, and the result is settled. An attempt whose owner lost the lease
before settling becomes ``ambiguous`` and is never attempted again until
someone records evidence of what happened (spec 000, "Effects").
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import apsw

from pidesktop.workflows import blobs, channels, decisions, outbox, resources, runs, write
from pidesktop.workflows.claims import Claim
from pidesktop.workflows.credentials import require_nonsecret
from pidesktop.workflows.errors import NotFound, OwnershipRejected, TransitionRejected

# The outbox rows' vocabulary, also reachable from here.
EffectRequest = outbox.EffectRequest
effect_id = outbox.effect_id
existing = outbox.existing

UNSETTLED = ("pending", "running", "ambiguous")

# effect type -> handler(tx, effect, payload) -> JSON result: the local effects
# the domains record, applied here in one transaction with their settlement.
LOCAL_HANDLERS: dict[str, Callable[..., Any]] = {
    "run_queue.settle": runs.settle_queue,
    "decision.continue": decisions.admit_continuation,
    "decision.cancel_parent": decisions.cancel_parent,
}
# effect type -> hook(tx, effect, status, result, external_ref), run when an external effect settles.
SETTLE_HOOKS: dict[str, Callable[..., None]] = {
    "channel.send": channels.message_settled,
}


@dataclass(frozen=True)
class EffectView:
    effect_id: str
    resource_id: str
    revision: int
    effect_type: str
    owner_scope: str
    delivery: str
    status: str
    attempt_count: int
    retry_at: int | None
    source_resource_id: str
    source_revision: int
    external_ref: str | None
    payload_digest: bytes
    result_digest: bytes | None

    @property
    def unresolved(self) -> bool:
        """The read contract: an ambiguous external effect is shown as unresolved."""
        return self.status == "ambiguous"


@dataclass(frozen=True)
class Attempt:
    effect_id: str
    attempt_no: int
    generation: int
    revision: int


_VIEW_SQL = (
    "SELECT e.effect_id, e.resource_id, r.revision, e.effect_type, e.owner_scope, e.delivery, e.status, "
    "e.attempt_count, e.retry_at, e.source_resource_id, e.source_revision, e.external_ref, e.payload_digest, "
    "e.result_digest FROM effects e JOIN resources r ON r.resource_id = e.resource_id"
)


def get(conn: apsw.Connection, effect_id: str) -> EffectView:
    row = conn.execute(_VIEW_SQL + " WHERE e.effect_id = ?", (effect_id,)).fetchone()
    if row is None:
        raise NotFound(f"no effect {effect_id}")
    return EffectView(*row)


def unsettled(conn: apsw.Connection, owner_scope: str | None = None) -> list[EffectView]:
    where = " WHERE e.status IN ('pending', 'running', 'ambiguous')"
    params: tuple = ()
    if owner_scope is not None:
        where += " AND e.owner_scope = ?"
        params = (owner_scope,)
    return [EffectView(*row) for row in conn.execute(_VIEW_SQL + where + " ORDER BY e.created_at", params)]


def payload(conn: apsw.Connection, effect: EffectView) -> Any:
    return blobs.read_json(conn, effect.payload_digest)


def reserve(store, permit: write.Permit, request: EffectRequest) -> write.Result:
    """A controller owner reserves an effect for its own resource; a matching repeat adopts."""
    if request.owner_scope != permit.resource_id:
        raise TransitionRejected("an owner reserves effects only for the resource it holds")
    claim = permit.claim
    if claim is None:
        raise OwnershipRejected("reserving an effect needs the owner's claim")
    return write.execute(
        store,
        write.Command(
            "effect.reserve",
            claim.actor,
            permit.resource_id,
            permit.revision,
            owner=permit.resource_id,
            claim=claim,
            event_type="effect.reserved",
            event_payload={"effectType": request.effect_type},
        ),
        adopt=lambda tx: existing(tx, request),
        check=lambda tx: _check_active_controller(tx, permit),
        apply=lambda tx, _: tx.effect(request),
    )


def _check_active_controller(tx: write.Tx, permit: write.Permit) -> None:
    if resources.kind_of(permit.resource_id) == "controller":
        phase = tx.scalar("SELECT phase FROM controller_resources WHERE resource_id = ?", (permit.resource_id,))
        if phase != "active":
            raise TransitionRejected(f"the controller is {phase}; it reserves no new effects")


def _effect_command(
    operation: str, view_id: str, claim: Claim, expected_revision: int, event_type: str, payload: Any = None
) -> write.Command:
    return write.Command(
        operation,
        claim.actor,
        resources.rid("effect", view_id),
        expected_revision,
        owner=lambda tx: _scope(tx, view_id),
        claim=claim,
        event_type=event_type,
        event_payload=payload,
    )


def _scope(tx: write.Tx, ident: str) -> str:
    scope = tx.scalar("SELECT owner_scope FROM effects WHERE effect_id = ?", (ident,))
    if scope is None:
        raise NotFound(f"no effect {ident}")
    return scope


def _load(tx: write.Tx, ident: str) -> EffectView:
    return get(tx.conn, ident)


def _due(tx: write.Tx, effect: EffectView) -> None:
    if effect.retry_at is not None and effect.retry_at > tx.now:
        raise TransitionRejected(f"the effect is scheduled for retry at {effect.retry_at}")


def _apply_local(store, effect_id_: str, claim: Claim, *, expected_revision: int) -> write.Result:
    """Apply a pending local effect and settle it in the same transaction."""

    def check(tx):
        effect = _load(tx, effect_id_)
        if effect.delivery != "local":
            raise TransitionRejected("external effects are attempted, not applied locally")
        if effect.status != "pending":
            raise TransitionRejected(f"the effect is {effect.status}")
        _due(tx, effect)
        handler = LOCAL_HANDLERS.get(effect.effect_type)
        if handler is None:
            raise TransitionRejected(f"no local handler for {effect.effect_type}")
        return effect, handler

    def apply(tx, plan):
        effect, handler = plan
        result = handler(tx, effect, payload(tx.conn, effect))
        digest = tx.put(blobs.of_json(result))
        attempt_no = effect.attempt_count + 1
        tx.run(
            "INSERT INTO effect_attempts (effect_id, attempt_no, lease_generation, status, started_at, finished_at) "
            "VALUES (?, ?, ?, 'succeeded', ?, ?)",
            (effect.effect_id, attempt_no, tx.generation, tx.now, tx.now),
        )
        tx.run(
            "UPDATE effects SET status = 'succeeded', attempt_count = ?, result_digest = ?, settled_at = ?, "
            "retry_at = NULL, updated_at = ? WHERE effect_id = ?",
            (attempt_no, digest, tx.now, tx.now, effect.effect_id),
        )
        return result

    return write.execute(
        store,
        _effect_command("effect.apply", effect_id_, claim, expected_revision, "effect.applied"),
        check=check,
        apply=apply,
    )


def _begin_attempt(store, effect_id_: str, claim: Claim, *, expected_revision: int) -> Attempt:
    """Record an attempt at an external effect before the external call is made."""

    def check(tx):
        effect = _load(tx, effect_id_)
        if effect.delivery != "external":
            raise TransitionRejected("local effects are applied in one transaction")
        if effect.status == "ambiguous":
            raise TransitionRejected("the effect is ambiguous; record evidence before it is attempted again")
        if effect.status != "pending":
            raise TransitionRejected(f"the effect is {effect.status}")
        _due(tx, effect)
        return effect

    def apply(tx, effect):
        attempt_no = effect.attempt_count + 1
        tx.run(
            "INSERT INTO effect_attempts (effect_id, attempt_no, lease_generation, status, started_at) "
            "VALUES (?, ?, ?, 'running', ?)",
            (effect.effect_id, attempt_no, tx.generation, tx.now),
        )
        tx.run(
            "UPDATE effects SET status = 'running', attempt_count = ?, updated_at = ? WHERE effect_id = ?",
            (attempt_no, tx.now, effect.effect_id),
        )
        return attempt_no

    result = write.execute(
        store,
        _effect_command("effect.attempt", effect_id_, claim, expected_revision, "effect.attempt_started"),
        check=check,
        apply=apply,
    )
    return Attempt(effect_id_, result.value, result.held_generation, result.written_revision)


def settle(
    store,
    attempt: Attempt,
    claim: Claim,
    *,
    outcome: str,
    result: Any = None,
    error: Any = None,
    external_ref: str | None = None,
    retry_at: int | None = None,
) -> write.Result:
    """Record what an external attempt did: ``succeeded``, ``failed`` or ``ambiguous``.

    A failure with ``retry_at`` schedules another attempt; without it the
    effect fails for good. Only the owner generation that began the attempt
    may settle it.
    """
    if outcome not in ("succeeded", "failed", "ambiguous"):
        raise TransitionRejected("an attempt settles as succeeded, failed or ambiguous")
    require_nonsecret(result, "an effect result")
    require_nonsecret(error, "an effect error")
    result_blob = blobs.of_json(result) if result is not None else None
    error_blob = blobs.of_json(error) if error is not None else None

    def check(tx):
        effect = _load(tx, attempt.effect_id)
        row = tx.one(
            "SELECT status, lease_generation FROM effect_attempts WHERE effect_id = ? AND attempt_no = ?",
            (attempt.effect_id, attempt.attempt_no),
        )
        if row is None or row[0] != "running" or effect.status != "running":
            raise TransitionRejected("the attempt is not running")
        if row[1] != tx.generation:
            raise TransitionRejected("the attempt was begun by an earlier owner; recover it instead")
        return effect

    def apply(tx, effect):
        attempt_status = outcome
        tx.put(result_blob)
        tx.put(error_blob)
        error_digest = error_blob.digest if error_blob else None
        tx.run(
            "UPDATE effect_attempts SET status = ?, finished_at = ?, error_digest = ?, external_ref = ? "
            "WHERE effect_id = ? AND attempt_no = ?",
            (attempt_status, tx.now, error_digest, external_ref, attempt.effect_id, attempt.attempt_no),
        )
        if outcome == "failed" and retry_at is not None:
            status, settled, next_retry = "pending", None, retry_at
        else:
            status, settled, next_retry = outcome, (tx.now if outcome != "ambiguous" else None), None
        tx.run(
            "UPDATE effects SET status = ?, retry_at = ?, result_digest = ?, error_digest = ?, "
            "external_ref = COALESCE(?, external_ref), settled_at = ?, updated_at = ? WHERE effect_id = ?",
            (
                status,
                next_retry,
                result_blob.digest if result_blob else None,
                error_digest,
                external_ref,
                settled,
                tx.now,
                attempt.effect_id,
            ),
        )
        _run_settle_hook(tx, effect, status, result, external_ref)
        return status

    return write.execute(
        store,
        _effect_command(
            "effect.settle", attempt.effect_id, claim, attempt.revision, "effect.settled", {"outcome": outcome}
        ),
        check=check,
        apply=apply,
    )


def recover(store, effect_id_: str, claim: Claim, *, expected_revision: int) -> write.Result:
    """Close an attempt left running by an earlier owner generation.

    An external call may or may not have happened, so the effect becomes
    ``ambiguous``; a local effect (which never leaves a transaction half done)
    goes back to ``pending``.
    """

    def check(tx):
        effect = _load(tx, effect_id_)
        row = tx.one(
            "SELECT attempt_no, lease_generation FROM effect_attempts WHERE effect_id = ? AND status = 'running'",
            (effect_id_,),
        )
        if effect.status != "running" or row is None:
            raise TransitionRejected("the effect has no running attempt")
        if row[1] >= tx.generation:
            raise TransitionRejected("the attempt belongs to the current owner; settle it instead")
        return effect, row[0]

    def apply(tx, plan):
        effect, attempt_no = plan
        status = "ambiguous" if effect.delivery == "external" else "pending"
        tx.run(
            "UPDATE effect_attempts SET status = ?, finished_at = ? WHERE effect_id = ? AND attempt_no = ?",
            ("ambiguous" if status == "ambiguous" else "interrupted", tx.now, effect_id_, attempt_no),
        )
        tx.run("UPDATE effects SET status = ?, updated_at = ? WHERE effect_id = ?", (status, tx.now, effect_id_))
        if status == "ambiguous":
            _run_settle_hook(tx, effect, status, None, None)
        return status

    return write.execute(
        store,
        _effect_command("effect.recover", effect_id_, claim, expected_revision, "effect.recovered"),
        check=check,
        apply=apply,
    )


def _resolve_ambiguous(
    store,
    effect_id_: str,
    claim: Claim,
    *,
    expected_revision: int,
    evidence: dict,
    applied: bool,
    external_ref: str | None = None,
) -> write.Result:
    """Settle an ambiguous effect from evidence of what the provider did.

    ``applied`` True marks it succeeded; False (the provider shows no trace)
    makes it pending so it may be attempted again.
    """
    if not isinstance(evidence, dict) or not evidence:
        raise TransitionRejected("resolving an ambiguous effect needs evidence")
    require_nonsecret(evidence, "effect evidence")
    evidence_blob = blobs.of_json(evidence)

    def check(tx):
        effect = _load(tx, effect_id_)
        if effect.status != "ambiguous":
            raise TransitionRejected(f"the effect is {effect.status}, not ambiguous")
        return effect

    def apply(tx, effect):
        if applied:
            tx.run(
                "UPDATE effects SET status = 'succeeded', result_digest = ?, "
                "external_ref = COALESCE(?, external_ref), settled_at = ?, updated_at = ? WHERE effect_id = ?",
                (evidence_blob.digest, external_ref, tx.now, tx.now, effect_id_),
            )
            _run_settle_hook(tx, effect, "succeeded", evidence, external_ref)
            return "succeeded"
        tx.run("UPDATE effects SET status = 'pending', updated_at = ? WHERE effect_id = ?", (tx.now, effect_id_))
        return "pending"

    return write.execute(
        store,
        write.Command(
            "effect.resolve",
            claim.actor,
            resources.rid("effect", effect_id_),
            expected_revision,
            owner=lambda tx: _scope(tx, effect_id_),
            claim=claim,
            event_type="effect.resolved",
            event_payload={"applied": applied},
            blobs=(evidence_blob,),
        ),
        check=check,
        apply=apply,
    )


def _run_settle_hook(tx: write.Tx, effect: EffectView, status: str, result: Any, external_ref: str | None) -> None:
    hook = SETTLE_HOOKS.get(effect.effect_type)
    if hook is not None:
        hook(tx, effect, status, result, external_ref)
