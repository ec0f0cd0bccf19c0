"""The one write path: every command runs the write contract in this order.

    BEGIN IMMEDIATE
    verify the exact schema
    verify the actor and operation
    (return the durable winner, when a late or repeated command finds one)
    verify the expected resource revision
    verify the claim token, generation and expiry when ownership is required
    verify the domain transition
    write content-addressed values
    increment the resource revision
    write the immutable event
    update the domain row
    insert deterministic follow-up effects
    COMMIT

Any failed check, or any constraint the schema enforces, rolls back the
whole command. A ``Permit`` carries what the caller believes (revision, lease
claim); it grants nothing: the durable rows are checked again here.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import apsw

from pidesktop.workflows import blobs, claims, outbox, resources
from pidesktop.workflows.claims import Acquire
from pidesktop.workflows.errors import (
    ActorRejected,
    CommandRejected,
    NotFound,
    OwnershipRejected,
    RevisionConflict,
    StorageError,
    TransitionRejected,
)
from pidesktop.workflows.ownership import OWNER_KIND, Actor, is_owner_class, verify_actor


@dataclass(frozen=True)
class Permit:
    """Facts about one resource: the revision the caller saw and the claim it holds."""

    resource_id: str
    revision: int
    claim: claims.Claim | None = None

    def at(self, revision: int) -> Permit:
        return replace(self, revision=revision)


@dataclass
class Command:
    operation: str
    actor: Actor
    resource_id: str
    expected_revision: int | None = None
    creates: bool = False
    # Lease bookkeeping (acquire, renew, release) leaves the revision alone.
    revise: bool = True
    claim: claims.Claim | None = None
    # The resource whose lease authorises the command, resolved in the transaction.
    owner: str | Callable[[Tx], str] | None = None
    acquire: Acquire | None = None
    event_type: str | None = None
    event_payload: Any = None
    blobs: Sequence[blobs.Blob] = ()


@dataclass
class Result:
    value: Any
    revision: int | None  # None when adopted and the command's own resource was never created
    generation: int | None = None
    adopted: bool = False

    @property
    def written_revision(self) -> int:
        """The resource's revision after the command ran (an adopted result may have none)."""
        assert self.revision is not None, "an adopted result has no revision of its own"
        return self.revision

    @property
    def held_generation(self) -> int:
        """The lease generation of a command that acquired a lease or ran under one."""
        assert self.generation is not None, "the command neither acquired nor held a lease"
        return self.generation


@dataclass
class Tx:
    """What a command's check and apply steps see: the connection and the facts so far."""

    conn: apsw.Connection
    command: Command
    now: int
    revision: int | None = None
    generation: int | None = None
    pending_effects: list = field(default_factory=list)

    def one(self, sql: str, params: Sequence = ()) -> tuple | None:
        return self.conn.execute(sql, params).fetchone()

    def all(self, sql: str, params: Sequence = ()) -> list[tuple]:
        return self.conn.execute(sql, params).fetchall()

    def scalar(self, sql: str, params: Sequence = ()) -> Any:
        row = self.one(sql, params)
        return None if row is None else row[0]

    def run(self, sql: str, params: Sequence = ()) -> int:
        self.conn.execute(sql, params)
        return self.conn.changes()

    def put(self, blob: blobs.Blob | None) -> bytes | None:
        return None if blob is None else blobs.put(self.conn, blob, self.now)

    def event(self, resource_id: str, revision: int, event_type: str, payload: Any = None) -> None:
        cmd = self.command
        resources.append_event(
            self.conn,
            resource_id=resource_id,
            revision=revision,
            event_type=event_type,
            operation=cmd.operation,
            actor_class=cmd.actor.actor_class,
            actor_id=cmd.actor.actor_id,
            lease_generation=self.generation,
            payload=payload,
            now=self.now,
        )

    def touch(self, resource_id: str, event_type: str, payload: Any = None) -> int:
        """Another resource this command changes: one revision up and one event."""
        revision = resources.increment(self.conn, resource_id, self.now)
        self.event(resource_id, revision, event_type, payload)
        return revision

    def create(self, resource_id: str, event_type: str, payload: Any = None) -> int:
        """Another resource this command creates, at revision 1 with its first event."""
        if resources.revision(self.conn, resource_id) is not None:
            raise RevisionConflict(f"{resources.kind_of(resource_id)} already exists")
        resources.insert(self.conn, resource_id, self.now)
        self.event(resource_id, 1, event_type, payload)
        return 1

    def effect(self, request: outbox.EffectRequest) -> str:
        """Queue a follow-up effect; it is inserted after the domain rows."""
        self.pending_effects.append(request)
        return request.effect_id


def execute(
    store,
    command: Command,
    *,
    apply: Callable[[Tx, Any], Any],
    check: Callable[[Tx], Any] | None = None,
    adopt: Callable[[Tx], Any] | None = None,
) -> Result:
    """Run ``command`` through the write contract; see the module docstring."""
    if store.readonly:
        raise StorageError("this connection is read-only")
    conn = store.conn
    tx = Tx(conn, command, store.now())
    try:
        conn.execute("BEGIN IMMEDIATE")
    except apsw.BusyError as exc:
        raise StorageError(f"the state database stayed busy: {exc}") from exc
    try:
        store.verify_schema_in_transaction()
        verify_actor(command.operation, command.actor)
        if adopt is not None:
            existing = adopt(tx)
            if existing is not None:
                conn.execute("ROLLBACK")
                return Result(existing, resources.revision(conn, command.resource_id), adopted=True)
        current = _verify_revision(conn, command)
        _verify_ownership(tx)
        plan = check(tx) if check is not None else None
        for blob in command.blobs:
            blobs.put(conn, blob, tx.now)
        if command.creates:
            revision = resources.insert(conn, command.resource_id, tx.now)
        elif command.revise:
            revision = resources.increment(conn, command.resource_id, tx.now)
        else:
            assert current is not None  # _verify_revision found the resource: only a create has none
            revision = current
        tx.revision = revision
        if command.event_type is not None:
            payload = command.event_payload(plan) if callable(command.event_payload) else command.event_payload
            tx.event(command.resource_id, revision, command.event_type, payload)
        if command.acquire is not None:
            claims.write_acquire(tx, command.resource_id, command.acquire)
        value = apply(tx, plan)
        for request in tx.pending_effects:
            outbox.insert(tx, request)
        conn.execute("COMMIT")
    except apsw.ConstraintError as exc:
        _rollback(conn)
        raise CommandRejected(f"{command.operation} violates a schema constraint: {exc}") from exc
    except apsw.BusyError as exc:
        _rollback(conn)
        raise StorageError(f"the state database stayed busy: {exc}") from exc
    except BaseException:
        _rollback(conn)
        raise
    return Result(value, revision, tx.generation)


def owner_command(
    permit: Permit, operation: str, event_type: str, payload: Any = None, extra_blobs=(), *, owner_name: str
) -> Command:
    """A command only the lease holder may run (``owner_name`` says whose claim, in the refusal)."""
    if permit.claim is None:
        raise TransitionRejected(f"this command needs the {owner_name} owner's claim")
    return Command(
        operation,
        permit.claim.actor,
        permit.resource_id,
        permit.revision,
        owner=permit.resource_id,
        claim=permit.claim,
        event_type=event_type,
        event_payload=payload,
        blobs=tuple(extra_blobs),
    )


def refresh(conn: apsw.Connection, permit: Permit) -> Permit:
    """The same claim at the resource's current revision: a fact to retry with, not authority."""
    revision = resources.revision(conn, permit.resource_id)
    if revision is None:
        raise NotFound("no such resource")
    return permit.at(revision)


def _verify_revision(conn: apsw.Connection, command: Command) -> int | None:
    current = resources.revision(conn, command.resource_id)
    if command.creates:
        if current is not None:
            raise RevisionConflict(f"{command.operation}: {resources.kind_of(command.resource_id)} already exists")
        return None
    if current is None:
        raise NotFound(f"{command.operation}: no such {resources.kind_of(command.resource_id)}")
    if command.expected_revision is None and command.revise:
        raise RevisionConflict(f"{command.operation}: an expected revision is required")
    if command.expected_revision is not None and command.expected_revision != current:
        raise RevisionConflict(f"{command.operation}: expected revision {command.expected_revision}, found {current}")
    return current


def _verify_ownership(tx: Tx) -> None:
    command = tx.command
    if command.acquire is not None:
        tx.generation = claims.check_acquire(tx, command.resource_id)
        return
    if command.owner is None:
        if is_owner_class(command.actor):
            raise ActorRejected(f"{command.operation}: an owner must name the resource it holds")
        return
    owner = command.owner(tx) if callable(command.owner) else command.owner
    wanted = OWNER_KIND.get(command.actor.actor_class)
    if wanted is not None and resources.kind_of(owner) != wanted:
        raise OwnershipRejected(f"{command.operation}: a {command.actor.actor_class} cannot act on {owner}")
    tx.generation = claims.verify(tx.conn, command.claim, owner, tx.now)


def _rollback(conn: apsw.Connection) -> None:
    if not conn.getautocommit():
        conn.execute("ROLLBACK")
