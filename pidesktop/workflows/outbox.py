"""The outbox rows: effect requests, their deterministic ids, and insertion.

This is the part of the transactional outbox the write path itself needs: a
command queues ``EffectRequest``s and ``write.execute`` inserts them after the
domain rows, in the same transaction. A matching repeated request adopts the
existing row; a different request under the same key is a conflict. Applying,
attempting and settling effects are commands of their own, in ``effects``.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field
from typing import Any

from pidesktop.workflows import blobs, resources
from pidesktop.workflows.credentials import require_nonsecret
from pidesktop.workflows.errors import IdempotencyConflict, TransitionRejected

_TYPE = re.compile(r"^[a-z][a-z0-9_]*(\.[a-z][a-z0-9_]*)*$")


def effect_id(owner_scope: str, effect_type: str, idempotency_key: str) -> str:
    return hashlib.sha256("\x1f".join((owner_scope, effect_type, idempotency_key)).encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class EffectRequest:
    """Follow-up work as its requester states it; prepared outside the transaction."""

    effect_type: str
    idempotency_key: str
    payload: Any
    owner_scope: str
    delivery: str = "local"
    blob: blobs.Blob = field(init=False, repr=False)
    request_digest: bytes = field(init=False, repr=False)

    def __post_init__(self):
        if not _TYPE.match(self.effect_type) or len(self.effect_type) > 64:
            raise TransitionRejected(f"effect type {self.effect_type!r} is not a dotted lower-case name")
        if not self.idempotency_key or len(self.idempotency_key) > 512:
            raise TransitionRejected("an effect needs an idempotency key of 1 to 512 characters")
        if self.delivery not in ("local", "external"):
            raise TransitionRejected("effect delivery is local or external")
        require_nonsecret(self.payload, f"the {self.effect_type} effect payload")
        blob = blobs.of_json(self.payload)
        object.__setattr__(self, "blob", blob)
        request = blobs.canonical_json(
            {
                "type": self.effect_type,
                "key": self.idempotency_key,
                "scope": self.owner_scope,
                "delivery": self.delivery,
                "payload": blob.hex,
            }
        )
        object.__setattr__(self, "request_digest", blobs.sha256(request))

    @property
    def effect_id(self) -> str:
        return effect_id(self.owner_scope, self.effect_type, self.idempotency_key)


def insert(tx, request: EffectRequest) -> tuple[str, bool]:
    """Insert ``request`` inside the command's transaction (``tx``: its ``write.Tx``); (effect id, adopted)."""
    if request.effect_type == "run_queue.settle":
        # Spec 000, "Effects": direct and controller-child runs have no queue
        # row and so no queue settlement work.
        run_id = request.payload.get("runId") if isinstance(request.payload, dict) else None
        if tx.one("SELECT 1 FROM run_queue WHERE run_id = ?", (run_id,)) is None:
            raise TransitionRejected("run queue settlement is only for runs with a run_queue row")
    ident = request.effect_id
    row = tx.one("SELECT request_digest FROM effects WHERE effect_id = ?", (ident,))
    if row is not None:
        if bytes(row[0]) != request.request_digest:
            raise IdempotencyConflict(
                f"a different {request.effect_type} request already uses idempotency key {request.idempotency_key!r}"
            )
        return ident, True
    tx.put(request.blob)
    resource_id = resources.rid("effect", ident)
    tx.create(resource_id, "effect.created", {"effectType": request.effect_type, "delivery": request.delivery})
    tx.run(
        "INSERT INTO effects (effect_id, resource_id, source_resource_id, source_revision, effect_type, "
        "idempotency_key, request_digest, payload_digest, owner_scope, delivery, status, attempt_count, "
        "created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'pending', 0, ?, ?)",
        (
            ident,
            resource_id,
            tx.command.resource_id,
            tx.revision,
            request.effect_type,
            request.idempotency_key,
            request.request_digest,
            request.blob.digest,
            request.owner_scope,
            request.delivery,
            tx.now,
            tx.now,
        ),
    )
    return ident, False


def existing(tx, request: EffectRequest) -> str | None:
    """The id of a matching earlier request; a different one under the same key conflicts."""
    row = tx.one("SELECT request_digest FROM effects WHERE effect_id = ?", (request.effect_id,))
    if row is None:
        return None
    if bytes(row[0]) != request.request_digest:
        raise IdempotencyConflict(
            f"a different {request.effect_type} request already uses idempotency key {request.idempotency_key!r}"
        )
    return request.effect_id
