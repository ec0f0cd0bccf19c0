"""Leases: the current owner of a resource, proved by a random claim token.

Only the SHA-256 of the token is stored. A new owner always receives the next
generation; releasing clears the owner fields and keeps the generation, and
the row is never deleted, so a generation is never reused. A write that needs
ownership presents a ``Claim``; the stored hash, generation and expiry decide
(``claims``, which the write path uses; this module holds the lease commands).
"""

from __future__ import annotations

from dataclasses import dataclass

import apsw

from pidesktop.workflows import resources, write
from pidesktop.workflows.claims import Claim, acquire_spec, check_ttl
from pidesktop.workflows.errors import TransitionRejected
from pidesktop.workflows.ownership import Actor

# The kinds a plain lease command may take; runs are claimed through
# ``runs.claim`` so queue reservation and the lease change together.
_PLAIN_KINDS = {"controller": "controller_owner", "channel": "channel_owner"}


@dataclass(frozen=True)
class LeaseView:
    generation: int
    owner_id: str | None
    expires_at: int | None
    held: bool
    stale: bool


def acquire(store, resource_id: str, owner_id: str, *, ttl_ms: int) -> Claim:
    """Take the lease of a controller or channel that is free or whose lease expired."""
    actor_class = _PLAIN_KINDS.get(resources.kind_of(resource_id))
    if actor_class is None:
        raise TransitionRejected(f"{resources.kind_of(resource_id)} leases are taken by their own command")
    token, spec = acquire_spec(owner_id, ttl_ms)
    result = write.execute(
        store,
        write.Command(
            "lease.acquire",
            Actor(actor_class, owner_id),
            resource_id,
            revise=False,
            acquire=spec,
            event_type="lease.acquired",
            event_payload={"ttlMs": ttl_ms},
        ),
        apply=lambda tx, _: tx.now + ttl_ms,
    )
    return Claim(resource_id, owner_id, token, result.held_generation, result.value)


def renew(store, claim: Claim, *, ttl_ms: int) -> Claim:
    """Extend a live lease. A heartbeat: no revision change and no event."""
    check_ttl(ttl_ms)

    def apply(tx: write.Tx, _):
        tx.run("UPDATE leases SET expires_at = ? WHERE resource_id = ?", (tx.now + ttl_ms, claim.resource_id))
        return tx.now + ttl_ms

    result = write.execute(
        store,
        write.Command(
            "lease.renew",
            claim.actor,
            claim.resource_id,
            revise=False,
            owner=claim.resource_id,
            claim=claim,
        ),
        apply=apply,
    )
    return Claim(claim.resource_id, claim.owner_id, claim.token, claim.generation, result.value)


def release(store, claim: Claim) -> None:
    """Give the lease up: the owner fields clear, the generation stays."""

    def apply(tx: write.Tx, _):
        tx.run(
            "UPDATE leases SET owner_id = NULL, token_sha256 = NULL, acquired_at = NULL, expires_at = NULL, "
            "released_at = ? WHERE resource_id = ?",
            (tx.now, claim.resource_id),
        )

    write.execute(
        store,
        write.Command(
            "lease.release",
            claim.actor,
            claim.resource_id,
            revise=False,
            owner=claim.resource_id,
            claim=claim,
            event_type="lease.released",
        ),
        apply=apply,
    )


def claim_lease(store, resource_id: str, owner_id: str, *, ttl_ms: int) -> write.Permit:
    """Take the resource's lease and hand back a permit at its current revision."""
    held = acquire(store, resource_id, owner_id, ttl_ms=ttl_ms)
    return write.Permit(resource_id, resources.existing_revision(store.conn, resource_id), held)


def current(conn: apsw.Connection, resource_id: str, now: int) -> LeaseView | None:
    """The lease as a reader sees it: an expired owner is stale, not current."""
    row = conn.execute(
        "SELECT generation, owner_id, expires_at FROM leases WHERE resource_id = ?", (resource_id,)
    ).fetchone()
    if row is None:
        return None
    generation, owner, expires_at = row
    held = owner is not None and expires_at > now
    return LeaseView(
        generation, owner if held else None, expires_at if held else None, held, stale=owner is not None and not held
    )
