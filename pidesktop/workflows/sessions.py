"""Session capture: segments of a Pi session, their entries and events.

A segment belongs to a run (and optionally a node attempt) and records the
prompt-to-response entry range it captured. Only the owner of that run
captures into it. Entries and events are append-only; capturing the same
entry id again with the same payload adopts, with another payload conflicts.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import apsw

from pidesktop.workflows import blobs, resources, runs, schema, write
from pidesktop.workflows.errors import IdempotencyConflict, NotFound, TransitionRejected


@dataclass(frozen=True)
class SegmentRef:
    segment_id: str
    resource_id: str
    revision: int


@dataclass(frozen=True)
class Entry:
    entry_id: str
    entry_type: str
    payload: Any
    parent_entry_id: str | None = None


@dataclass(frozen=True)
class SessionEvent:
    event_type: str
    payload: Any
    entry_id: str | None = None


def segment_resource(segment_id: str) -> str:
    return resources.rid("session_segment", segment_id)


def _open_segment(store, permit: write.Permit, pi_session_id: str, *, attempt_id: str | None = None) -> SegmentRef:
    if permit.claim is None:
        raise TransitionRejected("capturing needs the run owner's claim")
    run_id = resources.ident_of(permit.resource_id)
    segment_id = resources.new_id()

    def check(tx):
        status = tx.scalar("SELECT status FROM runs WHERE run_id = ?", (run_id,))
        if status not in ("running", "waiting"):
            raise TransitionRejected(f"the run is {status}")
        if (
            attempt_id is not None
            and tx.scalar("SELECT run_id FROM node_attempts WHERE attempt_id = ?", (attempt_id,)) != run_id
        ):
            raise NotFound("no such attempt in this run")

    def apply(tx, _):
        tx.run(
            "INSERT INTO session_segments (segment_id, resource_id, run_id, attempt_id, pi_session_id, status, "
            "opened_at) VALUES (?, ?, ?, ?, ?, 'open', ?)",
            (segment_id, tx.command.resource_id, run_id, attempt_id, pi_session_id, tx.now),
        )
        return SegmentRef(segment_id, tx.command.resource_id, 1)

    return write.execute(
        store,
        write.Command(
            "session.open",
            permit.claim.actor,
            segment_resource(segment_id),
            creates=True,
            owner=permit.resource_id,
            claim=permit.claim,
            event_type="session.segment_opened",
        ),
        check=check,
        apply=apply,
    ).value


def _segment_command(
    operation: str, segment: SegmentRef, permit: write.Permit, event_type: str, payload: Any = None, extra_blobs=()
) -> write.Command:
    if permit.claim is None:
        raise TransitionRejected("capturing needs the run owner's claim")
    return write.Command(
        operation,
        permit.claim.actor,
        segment.resource_id,
        segment.revision,
        owner=lambda tx: runs.run_resource(_run_of_open_segment(tx, segment.segment_id)),
        claim=permit.claim,
        event_type=event_type,
        event_payload=payload,
        blobs=tuple(extra_blobs),
    )


def _run_of_open_segment(tx: write.Tx, segment_id: str) -> str:
    row = tx.one("SELECT run_id, status FROM session_segments WHERE segment_id = ?", (segment_id,))
    if row is None:
        raise NotFound("no such session segment")
    if row[1] != "open":
        raise TransitionRejected("the session segment is closed")
    return row[0]


def capture(
    store,
    permit: write.Permit,
    segment: SegmentRef,
    *,
    entries: Sequence[Entry] = (),
    events: Sequence[SessionEvent] = (),
) -> SegmentRef:
    """Append entries and events in one command; returns the segment at its new revision."""
    prepared_entries = [(e, blobs.of_json(e.payload)) for e in entries]
    prepared_events = [(e, blobs.of_json(e.payload)) for e in events]

    def adopt(tx):
        # A repeated capture of entries already stored (and no events) changes nothing.
        if events or not entries or check(tx):
            return None
        return SegmentRef(
            segment.segment_id, segment.resource_id, resources.existing_revision(tx.conn, segment.resource_id)
        )

    def check(tx):
        fresh = []
        for entry, blob in prepared_entries:
            row = tx.one(
                "SELECT payload_digest FROM session_entries WHERE segment_id = ? AND entry_id = ?",
                (segment.segment_id, entry.entry_id),
            )
            if row is None:
                fresh.append((entry, blob))
            elif bytes(row[0]) != blob.digest:
                raise IdempotencyConflict(f"entry {entry.entry_id!r} was captured with a different payload")
        return fresh

    def apply(tx, fresh):
        seq = tx.scalar("SELECT COALESCE(MAX(seq), 0) FROM session_entries WHERE segment_id = ?", (segment.segment_id,))
        for entry, blob in fresh:
            seq += 1
            tx.put(blob)
            tx.run(
                "INSERT INTO session_entries (segment_id, seq, entry_id, parent_entry_id, entry_type, "
                "payload_digest, captured_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
                (segment.segment_id, seq, entry.entry_id, entry.parent_entry_id, entry.entry_type, blob.digest, tx.now),
            )
        if fresh:
            tx.run(
                "UPDATE session_segments SET first_entry_id = COALESCE(first_entry_id, ?), last_entry_id = ? "
                "WHERE segment_id = ?",
                (fresh[0][0].entry_id, fresh[-1][0].entry_id, segment.segment_id),
            )
        event_seq = tx.scalar(
            "SELECT COALESCE(MAX(seq), 0) FROM session_events WHERE segment_id = ?", (segment.segment_id,)
        )
        for event, blob in prepared_events:
            event_seq += 1
            tx.put(blob)
            tx.run(
                "INSERT INTO session_events (segment_id, seq, event_type, entry_id, payload_digest, captured_at) "
                "VALUES (?, ?, ?, ?, ?, ?)",
                (segment.segment_id, event_seq, event.event_type, event.entry_id, blob.digest, tx.now),
            )

    result = write.execute(
        store,
        _segment_command(
            "session.capture", segment, permit, "session.captured", {"entries": len(entries), "events": len(events)}
        ),
        adopt=adopt,
        check=check,
        apply=apply,
    )
    if result.adopted:
        return result.value
    return SegmentRef(segment.segment_id, segment.resource_id, result.written_revision)


def _close_segment(store, permit: write.Permit, segment: SegmentRef) -> SegmentRef:
    def apply(tx, _):
        tx.run(
            "UPDATE session_segments SET status = 'closed', closed_at = ? WHERE segment_id = ?",
            (tx.now, segment.segment_id),
        )

    result = write.execute(
        store, _segment_command("session.close", segment, permit, "session.segment_closed"), apply=apply
    )
    return SegmentRef(segment.segment_id, segment.resource_id, result.written_revision)


def entries(conn: apsw.Connection, segment_id: str) -> list[Entry]:
    return [
        Entry(r[0], r[1], blobs.read_json(conn, r[2]), r[3])
        for r in conn.execute(
            "SELECT entry_id, entry_type, payload_digest, parent_entry_id FROM session_entries WHERE segment_id = ? "
            "ORDER BY seq",
            (segment_id,),
        )
    ]


def segment(conn: apsw.Connection, segment_id: str) -> dict:
    row = conn.execute(
        "SELECT segment_id, run_id, attempt_id, status, first_entry_id, last_entry_id "
        "FROM session_segments WHERE segment_id = ?",
        (segment_id,),
    ).fetchone()
    if row is None:
        raise NotFound(f"no session segment {segment_id}")
    events = schema.integer(conn, "SELECT count(*) FROM session_events WHERE segment_id = ?", (segment_id,))
    return {
        "segmentId": row[0],
        "runId": row[1],
        "attemptId": row[2],
        "status": row[3],
        "firstEntryId": row[4],
        "lastEntryId": row[5],
        "events": events,
    }
