"""Leases: the current owner of a resource, proved by a random claim token.

Only the SHA-256 of the token is stored. A new owner always receives the next
generation; releasing clears the owner fields and keeps the generation, and
the row is never deleted, so a generation is never reused. A write that needs
ownership presents a ``Claim``; the stored hash, generation and expiry decide.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from dataclasses import dataclass

import apsw

from . import resources, write
from .errors import LeaseHeld, OwnershipRejected, TransitionRejected
from .ownership import OWNER_KIND, Actor

# The kinds a plain lease command may take; runs are claimed through
# ``runs.claim`` so queue reservation and the lease change together.
_PLAIN_KINDS = {"controller": "controller_owner", "channel": "channel_owner"}
MAX_TTL_MS = 24 * 60 * 60 * 1000


@dataclass(frozen=True)
class Claim:
    """What an owner holds: the resource, its generation and the secret token."""

    resource_id: str
    owner_id: str
    token: str
    generation: int
    expires_at: int

    def __repr__(self) -> str:  # the token stays out of logs and tracebacks
        return f"Claim({self.resource_id!r}, generation={self.generation})"

    @property
    def actor(self) -> Actor:
        kind = resources.kind_of(self.resource_id)
        actor_class = {v: k for k, v in OWNER_KIND.items()}[kind]
        return Actor(actor_class, self.owner_id)


@dataclass(frozen=True)
class LeaseView:
    generation: int
    owner_id: str | None
    expires_at: int | None
    held: bool
    stale: bool


def new_token() -> str:
    return secrets.token_urlsafe(32)


def token_sha256(token: str) -> bytes:
    return hashlib.sha256(token.encode("utf-8")).digest()


def verify(conn: apsw.Connection, claim: Claim | None, resource_id: str, now: int) -> int:
    """The generation of a valid claim on ``resource_id``; raises otherwise."""
    if claim is None:
        raise OwnershipRejected(f"{resources.kind_of(resource_id)} ownership is required")
    if claim.resource_id != resource_id:
        raise OwnershipRejected("the claim is for a different resource")
    row = conn.execute(
        "SELECT generation, owner_id, token_sha256, expires_at FROM leases WHERE resource_id = ?", (resource_id,)
    ).fetchone()
    if row is None or row[1] is None:
        raise OwnershipRejected("the lease has no current owner")
    generation, _, stored, expires_at = row
    if generation != claim.generation:
        raise OwnershipRejected(f"stale lease generation {claim.generation}; the current one is {generation}")
    if not hmac.compare_digest(bytes(stored), token_sha256(claim.token)):
        raise OwnershipRejected("the claim token does not match the lease")
    if expires_at <= now:
        raise OwnershipRejected("the lease has expired")
    return generation


def check_acquire(tx: write.Tx, resource_id: str) -> int:
    """The generation a new owner would receive; refuses while another owner's lease is live."""
    row = tx.one("SELECT generation, owner_id, expires_at FROM leases WHERE resource_id = ?", (resource_id,))
    if row is None:
        return 1
    generation, owner, expires_at = row
    if owner is not None and expires_at > tx.now:
        raise LeaseHeld(f"another owner holds this {resources.kind_of(resource_id)} until {expires_at}")
    return generation + 1


def write_acquire(tx: write.Tx, resource_id: str, acquire: write.Acquire) -> None:
    tx.run(
        "INSERT INTO leases (resource_id, generation, owner_id, token_sha256, acquired_at, expires_at, released_at) "
        "VALUES (?1, ?2, ?3, ?4, ?5, ?6, NULL) "
        "ON CONFLICT (resource_id) DO UPDATE SET generation = ?2, owner_id = ?3, token_sha256 = ?4, "
        "acquired_at = ?5, expires_at = ?6, released_at = NULL",
        (resource_id, tx.generation, acquire.owner_id, acquire.token_sha256, tx.now, tx.now + acquire.ttl_ms),
    )


def acquire_spec(owner_id: str, ttl_ms: int) -> tuple[str, write.Acquire]:
    """A fresh token and the acquisition facts to send with a command (hashing outside the transaction)."""
    if not owner_id:
        raise TransitionRejected("an owner id is required")
    if not 0 < ttl_ms <= MAX_TTL_MS:
        raise TransitionRejected(f"a lease lasts between 1 ms and {MAX_TTL_MS} ms")
    token = new_token()
    return token, write.Acquire(owner_id, token_sha256(token), ttl_ms)


def acquire(store, resource_id: str, owner_id: str, *, ttl_ms: int) -> Claim:
    """Take the lease of a controller or channel that is free or whose lease expired."""
    actor_class = _PLAIN_KINDS.get(resources.kind_of(resource_id))
    if actor_class is None:
        raise TransitionRejected(f"{resources.kind_of(resource_id)} leases are taken by their own command")
    token, spec = acquire_spec(owner_id, ttl_ms)
    result = write.execute(store, write.Command(
        "lease.acquire", Actor(actor_class, owner_id), resource_id, revise=False, acquire=spec,
        event_type="lease.acquired", event_payload={"ttlMs": ttl_ms},
    ), apply=lambda tx, _: tx.now + ttl_ms)
    return Claim(resource_id, owner_id, token, result.generation, result.value)


def renew(store, claim: Claim, *, ttl_ms: int) -> Claim:
    """Extend a live lease. A heartbeat: no revision change and no event."""
    if not 0 < ttl_ms <= MAX_TTL_MS:
        raise TransitionRejected(f"a lease lasts between 1 ms and {MAX_TTL_MS} ms")

    def apply(tx: write.Tx, _):
        tx.run("UPDATE leases SET expires_at = ? WHERE resource_id = ?", (tx.now + ttl_ms, claim.resource_id))
        return tx.now + ttl_ms

    result = write.execute(store, write.Command(
        "lease.renew", claim.actor, claim.resource_id, revise=False, owner=claim.resource_id, claim=claim,
    ), apply=apply)
    return Claim(claim.resource_id, claim.owner_id, claim.token, claim.generation, result.value)


def release(store, claim: Claim) -> None:
    """Give the lease up: the owner fields clear, the generation stays."""
    def apply(tx: write.Tx, _):
        tx.run(
            "UPDATE leases SET owner_id = NULL, token_sha256 = NULL, acquired_at = NULL, expires_at = NULL, "
            "released_at = ? WHERE resource_id = ?", (tx.now, claim.resource_id),
        )

    write.execute(store, write.Command(
        "lease.release", claim.actor, claim.resource_id, revise=False, owner=claim.resource_id, claim=claim,
        event_type="lease.released",
    ), apply=apply)


def current(conn: apsw.Connection, resource_id: str, now: int) -> LeaseView | None:
    """The lease as a reader sees it: an expired owner is stale, not current."""
    row = conn.execute(
        "SELECT generation, owner_id, expires_at FROM leases WHERE resource_id = ?", (resource_id,)
    ).fetchone()
    if row is None:
        return None
    generation, owner, expires_at = row
    held = owner is not None and expires_at > now
    return LeaseView(generation, owner if held else None, expires_at if held else None, held,
                     stale=owner is not None and not held)
