"""Claims: the lease row checks every owned write makes, below the write path.

A ``Claim`` is what an owner holds: the resource, its generation and the
random token whose SHA-256 is the only thing stored. ``verify`` decides
whether a claim may write now; ``check_acquire`` and ``write_acquire`` are
the two steps of taking a lease inside a command's transaction. The lease
commands themselves (acquire, renew, release) are in ``leases``, above
``write``.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from dataclasses import dataclass

import apsw

from pidesktop.workflows import resources
from pidesktop.workflows.errors import LeaseHeld, OwnershipRejected, TransitionRejected
from pidesktop.workflows.ownership import OWNER_KIND, Actor

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
class Acquire:
    """A command that takes a lease: the new owner and its token's SHA-256."""

    owner_id: str
    token_sha256: bytes
    ttl_ms: int


def new_token() -> str:
    return secrets.token_urlsafe(32)


def token_sha256(token: str) -> bytes:
    return hashlib.sha256(token.encode("utf-8")).digest()


def acquire_spec(owner_id: str, ttl_ms: int) -> tuple[str, Acquire]:
    """A fresh token and the acquisition facts to send with a command (hashing outside the transaction)."""
    if not owner_id:
        raise TransitionRejected("an owner id is required")
    check_ttl(ttl_ms)
    token = new_token()
    return token, Acquire(owner_id, token_sha256(token), ttl_ms)


def check_ttl(ttl_ms: int) -> None:
    if not 0 < ttl_ms <= MAX_TTL_MS:
        raise TransitionRejected(f"a lease lasts between 1 ms and {MAX_TTL_MS} ms")


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


def check_acquire(tx, resource_id: str) -> int:
    """The generation a new owner would receive; refuses while another owner's lease is live.

    ``tx`` is the command's ``write.Tx``.
    """
    row = tx.one("SELECT generation, owner_id, expires_at FROM leases WHERE resource_id = ?", (resource_id,))
    if row is None:
        return 1
    generation, owner, expires_at = row
    if owner is not None and expires_at > tx.now:
        raise LeaseHeld(f"another owner holds this {resources.kind_of(resource_id)} until {expires_at}")
    return generation + 1


def write_acquire(tx, resource_id: str, acquire: Acquire) -> None:
    """Record the new owner at ``tx.generation`` (``tx`` is the command's ``write.Tx``)."""
    tx.run(
        "INSERT INTO leases (resource_id, generation, owner_id, token_sha256, acquired_at, expires_at, released_at) "
        "VALUES (?1, ?2, ?3, ?4, ?5, ?6, NULL) "
        "ON CONFLICT (resource_id) DO UPDATE SET generation = ?2, owner_id = ?3, token_sha256 = ?4, "
        "acquired_at = ?5, expires_at = ?6, released_at = NULL",
        (resource_id, tx.generation, acquire.owner_id, acquire.token_sha256, tx.now, tx.now + acquire.ttl_ms),
    )
