"""Pi delivery: notifications and deferred turns (turn intents).

A run owner (or, for notifications, a controller owner) creates them; the Pi
side confirms delivery or dismissal with a narrow control command. The first
settlement is the durable one: a late or repeated settlement returns it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import apsw

from pidesktop.workflows import blobs, resources, write
from pidesktop.workflows.credentials import require_nonsecret_text
from pidesktop.workflows.errors import NotFound, TransitionRejected
from pidesktop.workflows.ownership import CONTROL, Actor


@dataclass(frozen=True)
class Settlement:
    status: str
    revision: int
    adopted: bool = False


def _owner_project(tx: write.Tx, owner: str) -> tuple[str, str | None]:
    kind = resources.kind_of(owner)
    if kind == "run":
        row = tx.one("SELECT project_id, run_id, status FROM runs WHERE resource_id = ?", (owner,))
        if row is None:
            raise NotFound("no such run")
        if row[2] not in ("running", "waiting"):
            raise TransitionRejected(f"the run is {row[2]}")
        return row[0], row[1]
    row = tx.one("SELECT project_id, phase FROM controller_resources WHERE resource_id = ?", (owner,))
    if row is None:
        raise NotFound("no such controller")
    return row[0], None


def notify(store, permit: write.Permit, *, level: str, body: str, pi_session_id: str | None = None) -> str:
    """Record a notification for the user; returns its id."""
    if level not in ("info", "warning", "error"):
        raise TransitionRejected("a notification level is info, warning or error")
    if permit.claim is None:
        raise TransitionRejected("creating a notification needs the owner's claim")
    require_nonsecret_text(body, "a notification")
    body_blob = blobs.of_text(body)
    notification_id = resources.new_id()

    def apply(tx, plan):
        project_id, run_id = plan
        tx.run(
            "INSERT INTO notifications (notification_id, resource_id, project_id, run_id, pi_session_id, level, "
            "body_digest, status, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, 'pending', ?)",
            (
                notification_id,
                tx.command.resource_id,
                project_id,
                run_id,
                pi_session_id,
                level,
                body_blob.digest,
                tx.now,
            ),
        )
        return notification_id

    return write.execute(
        store,
        write.Command(
            "notification.create",
            permit.claim.actor,
            resources.rid("notification", notification_id),
            creates=True,
            owner=permit.resource_id,
            claim=permit.claim,
            event_type="notification.created",
            event_payload={"level": level},
            blobs=(body_blob,),
        ),
        check=lambda tx: _owner_project(tx, permit.resource_id),
        apply=apply,
    ).value


def _create_turn_intent(
    store, permit: write.Permit, *, pi_session_id: str, prompt: str, not_before: int | None = None
) -> str:
    """Defer a turn into a Pi session; returns the intent id."""
    if permit.claim is None:
        raise TransitionRejected("creating a turn intent needs the run owner's claim")
    prompt_blob = blobs.of_text(prompt)
    intent_id = resources.new_id()

    def apply(tx, plan):
        project_id, run_id = plan
        tx.run(
            "INSERT INTO turn_intents (intent_id, resource_id, project_id, run_id, pi_session_id, prompt_digest, "
            "status, not_before, created_at) VALUES (?, ?, ?, ?, ?, ?, 'pending', ?, ?)",
            (
                intent_id,
                tx.command.resource_id,
                project_id,
                run_id,
                pi_session_id,
                prompt_blob.digest,
                not_before,
                tx.now,
            ),
        )
        return intent_id

    return write.execute(
        store,
        write.Command(
            "turn_intent.create",
            permit.claim.actor,
            resources.rid("turn_intent", intent_id),
            creates=True,
            owner=permit.resource_id,
            claim=permit.claim,
            event_type="turn_intent.created",
            blobs=(prompt_blob,),
        ),
        check=lambda tx: _owner_project(tx, permit.resource_id),
        apply=apply,
    ).value


def _settle(
    store,
    table: str,
    key: str,
    kind: str,
    ident: str,
    status: str,
    allowed: tuple[str, ...],
    expected_revision: int,
    actor: Actor,
) -> Settlement:
    if status not in allowed:
        raise TransitionRejected(f"settle as one of {', '.join(allowed)}")
    resource = resources.rid(kind, ident)

    def adopt(tx):
        current = tx.scalar(f"SELECT status FROM {table} WHERE {key} = ?", (ident,))
        if current is not None and current != "pending":
            return Settlement(current, resources.existing_revision(tx.conn, resource), adopted=True)
        return None

    def apply(tx, _):
        tx.run(f"UPDATE {table} SET status = ?, settled_at = ? WHERE {key} = ?", (status, tx.now, ident))
        return Settlement(status, tx.revision)

    return write.execute(
        store,
        write.Command(
            f"{kind}.settle",
            actor,
            resource,
            expected_revision,
            event_type=f"{kind}.{status}",
        ),
        adopt=adopt,
        apply=apply,
    ).value


def _settle_notification(
    store, notification_id: str, status: str, *, expected_revision: int, actor: Actor = CONTROL
) -> Settlement:
    return _settle(
        store,
        "notifications",
        "notification_id",
        "notification",
        notification_id,
        status,
        ("delivered", "dismissed"),
        expected_revision,
        actor,
    )


def _settle_turn_intent(
    store, intent_id: str, status: str, *, expected_revision: int, actor: Actor = CONTROL
) -> Settlement:
    return _settle(
        store,
        "turn_intents",
        "intent_id",
        "turn_intent",
        intent_id,
        status,
        ("delivered", "cancelled"),
        expected_revision,
        actor,
    )


def _pending_turns(conn: apsw.Connection, pi_session_id: str, now: int) -> list[dict]:
    rows: list[tuple[Any, ...]] = conn.execute(
        "SELECT t.intent_id, t.prompt_digest, s.revision FROM turn_intents t JOIN resources s "
        "ON s.resource_id = t.resource_id WHERE t.pi_session_id = ? AND t.status = 'pending' "
        "AND (t.not_before IS NULL OR t.not_before <= ?) ORDER BY t.created_at",
        (pi_session_id, now),
    ).fetchall()
    return [{"intentId": r[0], "prompt": blobs.read_text(conn, r[1]), "revision": r[2]} for r in rows]
