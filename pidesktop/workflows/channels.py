"""Channels: nonsecret cursors, inbox records, outgoing messages and their receipts.

A channel row names a provider and a nonsecret address (``channel_ref``); its
credentials stay in their private configuration directory and only that
file's name may be recorded. Whoever holds the channel's lease may update
only the channel's cursors, inbox, messages and settlement receipts.

Sending is an external effect (``channel.send``, keyed by the message id);
when the owner settles the effect the message takes the same outcome and
keeps the receipt. Nothing recorded here may carry credential-named fields
(token, secret, password, ...; see ``credentials``): the channel layer strips
them first.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import apsw

from pidesktop.workflows import blobs, leases, outbox, resources, write
from pidesktop.workflows.credentials import require_nonsecret, require_nonsecret_text
from pidesktop.workflows.errors import IdempotencyConflict, NotFound, TransitionRejected
from pidesktop.workflows.ownership import CONTROL, Actor


@dataclass(frozen=True)
class ChannelRef:
    channel_id: str
    resource_id: str
    revision: int
    adopted: bool = False


def channel_resource(channel_id: str) -> str:
    return resources.rid("channel", channel_id)


def create(
    store,
    provider: str,
    channel_ref: str,
    *,
    project_id: str | None = None,
    config_name: str | None = None,
    actor: Actor = CONTROL,
) -> ChannelRef:
    if not provider or not channel_ref:
        raise TransitionRejected("a channel needs a provider and a reference")
    channel_id = resources.new_id()

    def adopt(tx):
        row = tx.one(
            "SELECT channel_id, project_id, config_name FROM channels WHERE provider = ? AND channel_ref = ?",
            (provider, channel_ref),
        )
        if row is None:
            return None
        if (row[1], row[2]) != (project_id, config_name):
            raise IdempotencyConflict("this channel is already registered differently")
        resource = channel_resource(row[0])
        return ChannelRef(row[0], resource, resources.existing_revision(tx.conn, resource), adopted=True)

    def apply(tx, _):
        tx.run(
            "INSERT INTO channels (channel_id, resource_id, project_id, provider, channel_ref, config_name, status, "
            "created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, 'active', ?, ?)",
            (channel_id, tx.command.resource_id, project_id, provider, channel_ref, config_name, tx.now, tx.now),
        )
        return ChannelRef(channel_id, tx.command.resource_id, 1)

    return write.execute(
        store,
        write.Command(
            "channel.create",
            actor,
            channel_resource(channel_id),
            creates=True,
            event_type="channel.created",
            event_payload={"provider": provider},
        ),
        adopt=adopt,
        apply=apply,
    ).value


def claim(store, channel_id: str, owner_id: str, *, ttl_ms: int) -> write.Permit:
    return leases.claim_lease(store, channel_resource(channel_id), owner_id, ttl_ms=ttl_ms)


def _command(
    permit: write.Permit, operation: str, event_type: str, payload: Any = None, extra_blobs=()
) -> write.Command:
    return write.owner_command(permit, operation, event_type, payload, extra_blobs, owner_name="channel")


def _active(tx: write.Tx, permit: write.Permit) -> str:
    row = tx.one("SELECT channel_id, status FROM channels WHERE resource_id = ?", (permit.resource_id,))
    if row is None:
        raise NotFound("no such channel")
    if row[1] != "active":
        raise TransitionRejected(f"the channel is {row[1]}")
    return row[0]


def _advance_cursor(
    store, permit: write.Permit, name: str, value: str, *, expected_value: str | None = None
) -> write.Permit:
    """Move a named cursor; with ``expected_value`` it is a compare-and-set.

    A cursor is a position, never a credential: a credential name, or a
    value that assigns or carries one, is refused.
    """
    require_nonsecret({name: value}, "a channel cursor")
    require_nonsecret_text(value, "a channel cursor")

    def adopt(tx):
        current = tx.scalar(
            "SELECT c.cursor_value FROM channel_cursors c JOIN channels h "
            "ON h.channel_id = c.channel_id WHERE h.resource_id = ? AND c.cursor_name = ?",
            (permit.resource_id, name),
        )
        return True if current == value else None

    def check(tx):
        channel_id = _active(tx, permit)
        current = tx.scalar(
            "SELECT cursor_value FROM channel_cursors WHERE channel_id = ? AND cursor_name = ?", (channel_id, name)
        )
        if expected_value is not None and current != expected_value:
            raise TransitionRejected("the cursor moved since it was read")
        return channel_id

    def apply(tx, channel_id):
        tx.run(
            "INSERT INTO channel_cursors (channel_id, cursor_name, cursor_value, lease_generation, updated_at) "
            "VALUES (?1, ?2, ?3, ?4, ?5) ON CONFLICT (channel_id, cursor_name) DO UPDATE SET cursor_value = ?3, "
            "lease_generation = ?4, updated_at = ?5",
            (channel_id, name, value, tx.generation, tx.now),
        )

    result = write.execute(
        store,
        _command(permit, "channel.cursor", "channel.cursor_advanced", {"cursor": name}),
        adopt=adopt,
        check=check,
        apply=apply,
    )
    return permit if result.adopted else permit.at(result.written_revision)


def _record_inbox(
    store,
    permit: write.Permit,
    external_id: str,
    payload: Any,
    *,
    sender_id: str | None = None,
    decision_id: str | None = None,
) -> tuple[str, bool, write.Permit]:
    """Record an incoming message once; the same external id and payload adopt."""
    require_nonsecret(payload, "an inbox record")
    payload_blob = blobs.of_json(payload)
    inbox_id = resources.new_id()

    def adopt(tx):
        row = tx.one(
            "SELECT i.inbox_id, i.payload_digest FROM channel_inbox i JOIN channels c "
            "ON c.channel_id = i.channel_id WHERE c.resource_id = ? AND i.external_id = ?",
            (permit.resource_id, external_id),
        )
        if row is None:
            return None
        if bytes(row[1]) != payload_blob.digest:
            raise IdempotencyConflict("this external message was recorded with a different payload")
        return row[0]

    def check(tx):
        channel_id = _active(tx, permit)
        if (
            decision_id is not None
            and tx.one("SELECT 1 FROM human_decisions WHERE decision_id = ?", (decision_id,)) is None
        ):
            raise NotFound("no such decision")
        return channel_id

    def apply(tx, channel_id):
        tx.run(
            "INSERT INTO channel_inbox (inbox_id, channel_id, external_id, sender_id, payload_digest, decision_id, "
            "status, lease_generation, received_at) VALUES (?, ?, ?, ?, ?, ?, 'received', ?, ?)",
            (inbox_id, channel_id, external_id, sender_id, payload_blob.digest, decision_id, tx.generation, tx.now),
        )
        return inbox_id

    result = write.execute(
        store,
        _command(permit, "channel.inbox", "channel.inbox_recorded", extra_blobs=(payload_blob,)),
        adopt=adopt,
        check=check,
        apply=apply,
    )
    return result.value, result.adopted, (permit if result.adopted else permit.at(result.written_revision))


def _settle_inbox(store, permit: write.Permit, inbox_id: str, status: str) -> write.Permit:
    if status not in ("applied", "ignored"):
        raise TransitionRejected("an inbox record settles as applied or ignored")

    def adopt(tx):
        current = tx.scalar("SELECT status FROM channel_inbox WHERE inbox_id = ?", (inbox_id,))
        return True if current == status else None

    def check(tx):
        channel_id = _active(tx, permit)
        current = tx.scalar(
            "SELECT status FROM channel_inbox WHERE inbox_id = ? AND channel_id = ?", (inbox_id, channel_id)
        )
        if current is None:
            raise NotFound("no such inbox record on this channel")
        if current != "received":
            raise TransitionRejected(f"the inbox record is already {current}")

    def apply(tx, _):
        tx.run("UPDATE channel_inbox SET status = ?, settled_at = ? WHERE inbox_id = ?", (status, tx.now, inbox_id))

    result = write.execute(
        store,
        _command(permit, "channel.inbox", "channel.inbox_settled", {"status": status}),
        adopt=adopt,
        check=check,
        apply=apply,
    )
    return permit if result.adopted else permit.at(result.written_revision)


def _queue_message(
    store,
    permit: write.Permit,
    parts: list[str],
    *,
    message_id: str | None = None,
    run_id: str | None = None,
    decision_id: str | None = None,
    notification_id: str | None = None,
) -> tuple[str, str, write.Permit]:
    """Record an outgoing message and its ``channel.send`` effect; (message id, effect id, permit)."""
    if not parts:
        raise TransitionRejected("a message has at least one part")
    message_id = message_id or resources.new_id()
    part_blobs = [blobs.of_text(text) for text in parts]
    request = outbox.EffectRequest(
        "channel.send",
        message_id,
        {
            "messageId": message_id,
            "parts": [b.hex for b in part_blobs],
        },
        permit.resource_id,
        delivery="external",
    )

    def adopt(tx):
        row = tx.one("SELECT effect_id FROM channel_messages WHERE message_id = ?", (message_id,))
        if row is None:
            return None
        if row[0] != request.effect_id or outbox.existing(tx, request) is None:
            raise IdempotencyConflict("this message id was used for a different message")
        return row[0]

    def check(tx):
        return _active(tx, permit)

    def apply(tx, channel_id):
        tx.run(
            "INSERT INTO channel_messages (message_id, channel_id, effect_id, run_id, decision_id, notification_id, "
            "status, created_at) VALUES (?, ?, ?, ?, ?, ?, 'pending', ?)",
            (message_id, channel_id, request.effect_id, run_id, decision_id, notification_id, tx.now),
        )
        for number, blob in enumerate(part_blobs, start=1):
            tx.run(
                "INSERT INTO channel_message_parts (message_id, part_no, text_digest) VALUES (?, ?, ?)",
                (message_id, number, blob.digest),
            )
        return tx.effect(request)

    result = write.execute(
        store,
        _command(permit, "channel.message", "channel.message_queued", extra_blobs=part_blobs),
        adopt=adopt,
        check=check,
        apply=apply,
    )
    return message_id, result.value, (permit if result.adopted else permit.at(result.written_revision))


def message_settled(tx: write.Tx, effect, status: str, result: Any, external_ref: str | None) -> None:
    """The ``channel.send`` settle hook: the message takes the effect's outcome and keeps the receipt."""
    message_status = {"succeeded": "sent", "failed": "failed", "ambiguous": "ambiguous"}.get(status, "pending")
    receipt = None
    if result is not None:
        require_nonsecret(result, "a settlement receipt")
        receipt = tx.put(blobs.of_json(result))
    settled = tx.now if message_status in ("sent", "failed") else None
    tx.run(
        "UPDATE channel_messages SET status = ?, external_ref = COALESCE(?, external_ref), "
        "receipt_digest = COALESCE(?, receipt_digest), settled_at = ? WHERE effect_id = ?",
        (message_status, external_ref, receipt, settled, effect.effect_id),
    )


def disable(store, channel_id: str, *, expected_revision: int, actor: Actor = CONTROL) -> None:
    def apply(tx, _):
        tx.run("UPDATE channels SET status = 'disabled', updated_at = ? WHERE channel_id = ?", (tx.now, channel_id))

    write.execute(
        store,
        write.Command(
            "channel.disable", actor, channel_resource(channel_id), expected_revision, event_type="channel.disabled"
        ),
        apply=apply,
    )


def message(conn: apsw.Connection, message_id: str) -> dict:
    row = conn.execute(
        "SELECT message_id, channel_id, effect_id, status, external_ref, receipt_digest "
        "FROM channel_messages WHERE message_id = ?",
        (message_id,),
    ).fetchone()
    if row is None:
        raise NotFound(f"no message {message_id}")
    parts = [
        blobs.read_text(conn, r[0])
        for r in conn.execute(
            "SELECT text_digest FROM channel_message_parts WHERE message_id = ? ORDER BY part_no", (message_id,)
        )
    ]
    return {
        "messageId": row[0],
        "channelId": row[1],
        "effectId": row[2],
        "status": row[3],
        "externalRef": row[4],
        "receipt": blobs.read_json(conn, row[5]),
        "parts": parts,
    }
