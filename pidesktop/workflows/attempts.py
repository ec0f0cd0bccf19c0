"""Node attempts, including assistant-message attempts and their receipts.

An attempt's kind comes from its node in the run's definition, never from the
caller: ``assistant_message`` for an agent node whose expectedOutput is an
assistant message, ``submitted`` for other agent nodes, ``non_agent``
otherwise. A run has at most one running attempt.

A completed assistant-message attempt stores the exact text as its output
blob and a receipt: the text digest, the final Pi session entry id when
known, the author's limit if any, and whether recovery adopted an existing
response. After a takeover, an interrupted assistant-message attempt resumes
under its own id; submitted and non-agent attempts resume as a fresh attempt.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import apsw

from pidesktop.workflows import blobs, definitions, resources, write
from pidesktop.workflows.errors import NotFound, TransitionRejected
from pidesktop.workflows.runs import owner_actor


@dataclass(frozen=True)
class AttemptRef:
    attempt_id: str
    node_id: str
    attempt_no: int
    output_kind: str
    max_chars: int | None
    permit: write.Permit


def _command(permit: write.Permit, event_type: str, payload: Any = None, extra_blobs=()) -> write.Command:
    return write.Command(
        "run.attempt",
        owner_actor(permit),
        permit.resource_id,
        permit.revision,
        owner=permit.resource_id,
        claim=permit.claim,
        event_type=event_type,
        event_payload=payload,
        blobs=tuple(extra_blobs),
    )


def _run_id(permit: write.Permit) -> str:
    return resources.ident_of(permit.resource_id)


def _require_running_run(tx: write.Tx, run_id: str) -> str:
    row = tx.one("SELECT status, definition_id FROM runs WHERE run_id = ?", (run_id,))
    if row is None:
        raise NotFound(f"no run {run_id}")
    if row[0] != "running":
        raise TransitionRejected(f"the run is {row[0]}")
    return row[1]


def _insert_attempt(
    tx: write.Tx,
    run_id: str,
    node_id: str,
    kind: str,
    max_chars: int | None,
    prompt: blobs.Blob | None,
    pi_session_id: str | None,
    prompt_entry_id: str | None,
) -> tuple:
    attempt_no = tx.scalar(
        "SELECT COALESCE(MAX(attempt_no), 0) + 1 FROM node_attempts WHERE run_id = ? AND node_id = ?", (run_id, node_id)
    )
    attempt_id = resources.new_id()
    tx.put(prompt)
    tx.run(
        "INSERT INTO node_attempts (attempt_id, run_id, node_id, attempt_no, output_kind, status, max_chars, "
        "lease_generation, prompt_digest, pi_session_id, prompt_entry_id, started_at) "
        "VALUES (?, ?, ?, ?, ?, 'running', ?, ?, ?, ?, ?, ?)",
        (
            attempt_id,
            run_id,
            node_id,
            attempt_no,
            kind,
            max_chars,
            tx.generation,
            prompt.digest if prompt else None,
            pi_session_id,
            prompt_entry_id,
            tx.now,
        ),
    )
    return attempt_id, attempt_no


def start(
    store,
    permit: write.Permit,
    node_id: str,
    *,
    prompt: str | None = None,
    pi_session_id: str | None = None,
    prompt_entry_id: str | None = None,
) -> AttemptRef:
    run_id = _run_id(permit)
    prompt_blob = blobs.of_text(prompt) if prompt is not None else None

    def check(tx):
        definition_id = _require_running_run(tx, run_id)
        if tx.one("SELECT 1 FROM node_attempts WHERE run_id = ? AND status = 'running'", (run_id,)):
            raise TransitionRejected("the run already has a running node attempt")
        return definitions.node_output(definitions.node(tx.conn, definition_id, node_id))

    def apply(tx, plan):
        kind, max_chars = plan
        attempt_id, attempt_no = _insert_attempt(
            tx, run_id, node_id, kind, max_chars, prompt_blob, pi_session_id, prompt_entry_id
        )
        return attempt_id, attempt_no, kind, max_chars

    result = write.execute(store, _command(permit, "attempt.started", {"nodeId": node_id}), check=check, apply=apply)
    attempt_id, attempt_no, kind, max_chars = result.value
    return AttemptRef(attempt_id, node_id, attempt_no, kind, max_chars, permit.at(result.written_revision))


def _current_attempt(tx: write.Tx, run_id: str, attempt_id: str) -> tuple:
    row = tx.one(
        "SELECT node_id, attempt_no, output_kind, status, max_chars, lease_generation FROM node_attempts "
        "WHERE attempt_id = ? AND run_id = ?",
        (attempt_id, run_id),
    )
    if row is None:
        raise NotFound("no such attempt in this run")
    if row[3] != "running":
        raise TransitionRejected(f"the attempt is {row[3]}")
    if row[5] != tx.generation:
        raise TransitionRejected("the attempt was started by an earlier owner; resume it first")
    return row


def complete(store, permit: write.Permit, attempt_id: str, output: Any) -> write.Permit:
    """Complete a submitted or non-agent attempt with its JSON output."""
    run_id = _run_id(permit)
    output_blob = blobs.of_json(output)

    def check(tx):
        _require_running_run(tx, run_id)
        if _current_attempt(tx, run_id, attempt_id)[2] == "assistant_message":
            raise TransitionRejected("an assistant-message attempt completes with its message text")

    def apply(tx, _):
        tx.run(
            "UPDATE node_attempts SET status = 'succeeded', output_digest = ?, finished_at = ? WHERE attempt_id = ?",
            (output_blob.digest, tx.now, attempt_id),
        )

    result = write.execute(
        store,
        _command(permit, "attempt.succeeded", {"attemptId": attempt_id}, (output_blob,)),
        check=check,
        apply=apply,
    )
    return permit.at(result.written_revision)


def _complete_assistant_message(
    store, permit: write.Permit, attempt_id: str, text: str, *, final_entry_id: str | None = None, adopted: bool = False
) -> tuple[dict, write.Permit]:
    """Complete an assistant-message attempt with the exact text; returns (receipt, permit)."""
    run_id = _run_id(permit)
    text_blob = blobs.of_text(text)

    def check(tx):
        _require_running_run(tx, run_id)
        row = _current_attempt(tx, run_id, attempt_id)
        if row[2] != "assistant_message":
            raise TransitionRejected("only an assistant-message attempt completes with message text")
        limit = row[4]
        if limit is not None and len(text) > limit:
            raise TransitionRejected(f"the message has {len(text)} characters; the node allows {limit}")
        return {
            "textDigest": text_blob.hex,
            "finalEntryId": final_entry_id,
            "maxChars": limit,
            "adopted": bool(adopted),
        }

    def apply(tx, receipt):
        receipt_digest = tx.put(blobs.of_json(receipt))
        tx.run(
            "UPDATE node_attempts SET status = 'succeeded', output_digest = ?, receipt_digest = ?, "
            "response_entry_id = ?, finished_at = ? WHERE attempt_id = ?",
            (text_blob.digest, receipt_digest, final_entry_id, tx.now, attempt_id),
        )
        return receipt

    result = write.execute(
        store, _command(permit, "attempt.succeeded", {"attemptId": attempt_id}, (text_blob,)), check=check, apply=apply
    )
    return result.value, permit.at(result.written_revision)


def fail(store, permit: write.Permit, attempt_id: str, error: Any) -> write.Permit:
    run_id = _run_id(permit)
    error_blob = blobs.of_json(error)

    def check(tx):
        _require_running_run(tx, run_id)
        _current_attempt(tx, run_id, attempt_id)

    def apply(tx, _):
        tx.run(
            "UPDATE node_attempts SET status = 'failed', error_digest = ?, finished_at = ? WHERE attempt_id = ?",
            (error_blob.digest, tx.now, attempt_id),
        )

    result = write.execute(
        store, _command(permit, "attempt.failed", {"attemptId": attempt_id}, (error_blob,)), check=check, apply=apply
    )
    return permit.at(result.written_revision)


def resume(store, permit: write.Permit, attempt_id: str) -> AttemptRef:
    """Continue an attempt an earlier owner left unfinished.

    An assistant-message attempt keeps its id and now belongs to the current
    generation; any other attempt is marked interrupted and a fresh attempt of
    the same node starts.
    """
    run_id = _run_id(permit)

    def check(tx):
        _require_running_run(tx, run_id)
        row = tx.one(
            "SELECT node_id, attempt_no, output_kind, status, max_chars, lease_generation, prompt_digest, "
            "pi_session_id, prompt_entry_id FROM node_attempts WHERE attempt_id = ? AND run_id = ?",
            (attempt_id, run_id),
        )
        if row is None:
            raise NotFound("no such attempt in this run")
        if row[3] not in ("running", "interrupted"):
            raise TransitionRejected(f"the attempt is {row[3]}")
        if row[3] == "running" and row[5] >= tx.generation:
            raise TransitionRejected("the attempt already belongs to the current owner")
        if row[3] == "interrupted" and tx.one(
            "SELECT 1 FROM node_attempts WHERE run_id = ? AND status = 'running'", (run_id,)
        ):
            raise TransitionRejected("another attempt of this run is running")
        return row

    def apply(tx, row):
        node_id, attempt_no, kind, _, max_chars, _, prompt_digest, session, entry = row
        if kind == "assistant_message":
            tx.run(
                "UPDATE node_attempts SET status = 'running', lease_generation = ? WHERE attempt_id = ?",
                (tx.generation, attempt_id),
            )
            return attempt_id, node_id, attempt_no, kind, max_chars
        tx.run("UPDATE node_attempts SET status = 'interrupted' WHERE attempt_id = ?", (attempt_id,))
        prompt = blobs.get(tx.conn, prompt_digest) if prompt_digest is not None else None
        new_id, new_no = _insert_attempt(tx, run_id, node_id, kind, None, prompt, session, entry)
        return new_id, node_id, new_no, kind, None

    result = write.execute(
        store, _command(permit, "attempt.resumed", {"attemptId": attempt_id}), check=check, apply=apply
    )
    new_id, node_id, attempt_no, kind, max_chars = result.value
    return AttemptRef(new_id, node_id, attempt_no, kind, max_chars, permit.at(result.written_revision))


def get(conn: apsw.Connection, attempt_id: str) -> dict:
    row = conn.execute(
        "SELECT attempt_id, run_id, node_id, attempt_no, output_kind, status, max_chars, lease_generation, "
        "output_digest, receipt_digest, response_entry_id FROM node_attempts WHERE attempt_id = ?",
        (attempt_id,),
    ).fetchone()
    if row is None:
        raise NotFound(f"no attempt {attempt_id}")
    output = None
    if row[8] is not None:
        output = blobs.read_text(conn, row[8]) if row[4] == "assistant_message" else blobs.read_json(conn, row[8])
    return {
        "attemptId": row[0],
        "runId": row[1],
        "nodeId": row[2],
        "attemptNo": row[3],
        "outputKind": row[4],
        "status": row[5],
        "maxChars": row[6],
        "leaseGeneration": row[7],
        "output": output,
        "receipt": blobs.read_json(conn, row[9]),
        "responseEntryId": row[10],
    }
