"""The tool audit's rows (``audit_log``, spec 004 4.13) and the artifacts a chat's tools changed (4.10).

A tool call's row travels on its ``tool_call`` block (``pending``) and is written in the transaction that
stores the call's result (``record_blocks``, from ``session.appendMessage``), so a result is never stored
without its row nor a row without its result. A successful ``write``/``edit`` of a workspace file also
carries its ``artifact`` (path and op), upserted by that same transaction (spec 004 4.10 and section 5:
"upsert artifacts + audit_log row, same tx as result persistence"). ``audit.list`` and ``artifacts.list``
read them (``host/tools/audit.py``).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import apsw
import orjson

TOOL_EXECUTE, TOOL_DENIED, REVIEW_REVERT = "tool_execute", "tool_denied", "review_revert"
CALL_KINDS = (TOOL_EXECUTE, TOOL_DENIED)  # the rows a tool call's block may carry
ARTIFACT_OPS = ("write", "edit")  # what a block's ``artifact`` may say the call did
ARTIFACT_PATH_MAX = 4096
PAYLOAD_MAX = 64 * 1024  # a block's audit payload, as JSON: the commands' own payloads are far smaller


def record(conn: apsw.Connection, ts: int, kind: str, session_id: str | None, payload: dict[str, Any]) -> int:
    conn.execute(
        "INSERT INTO audit_log(ts, kind, session_id, payload_json) VALUES (?, ?, ?, ?)",
        (ts, kind, session_id, orjson.dumps(payload, default=str).decode()),
    )
    return int(conn.last_insert_rowid())


def pending(kind: str, ts: int, payload: dict[str, Any], artifact: dict[str, str] | None = None) -> dict[str, Any]:
    """A call's audit row, written later with the call's result (``record_blocks``).

    ``artifact`` (``{path, op}``: a workspace file a ``write``/``edit`` changed) is upserted into
    ``artifacts`` by the same transaction as the row.
    """
    entry: dict[str, Any] = {"kind": kind, "ts": ts, "payload": payload}
    if artifact is not None:
        entry["artifact"] = artifact
    return entry


def block_problem(block: dict[str, Any]) -> str | None:
    """Why a ``tool_call`` block's ``audit`` cannot be written, or None when it can (or there is none)."""
    entry = block.get("audit")
    if entry is None:
        return None
    if not isinstance(entry, dict) or entry.get("kind") not in CALL_KINDS:
        return f"'audit.kind' must be one of {', '.join(CALL_KINDS)}"
    if not isinstance(entry.get("payload"), dict):
        return "'audit.payload' must be an object"
    ts = entry.get("ts")
    if isinstance(ts, bool) or not isinstance(ts, int) or ts < 0:
        return "'audit.ts' must be a time in milliseconds"
    if len(orjson.dumps(entry["payload"], default=str)) > PAYLOAD_MAX:
        return f"'audit.payload' must be at most {PAYLOAD_MAX} bytes as JSON"
    if "artifact" in entry:
        artifact = entry["artifact"]
        if entry["kind"] != TOOL_EXECUTE or not isinstance(artifact, dict):
            return "'audit.artifact' must be an object on a tool_execute record"
        path = artifact.get("path")
        if not isinstance(path, str) or not Path(path).is_absolute() or len(path) > ARTIFACT_PATH_MAX:
            return f"'audit.artifact.path' must be an absolute path of at most {ARTIFACT_PATH_MAX} characters"
        if artifact.get("op") not in ARTIFACT_OPS:
            return f"'audit.artifact.op' must be one of {', '.join(ARTIFACT_OPS)}"
    return None


@dataclass(frozen=True)
class Recorded:
    rows: int  # audit rows written
    artifacts: int  # artifacts rows upserted with them


def record_blocks(
    conn: apsw.Connection, session_id: str, message: dict[str, Any], stored: dict[str, Any] | None = None
) -> Recorded:
    """The audit rows (and artifacts) the ``tool_call`` blocks of a newly indexed message carry.

    Runs inside the transaction that inserts the message's index row (or,
    with ``stored``, replaces that message's content: only the blocks whose
    record ``stored`` did not carry yet). A block whose record is malformed
    (a line edited by hand) is skipped: the message itself still counts.
    """
    written = touched = 0
    done = {
        block.get("callId")
        for block in (stored or {}).get("blocks") or []
        if isinstance(block, dict) and block.get("type") == "tool_call" and "audit" in block
    }
    for block in message.get("blocks") or []:
        if not isinstance(block, dict) or block.get("type") != "tool_call" or "audit" not in block:
            continue
        if block_problem(block) is not None or block.get("callId") in done:
            continue
        entry = block["audit"]
        payload = {**entry["payload"], "callId": block.get("callId") or entry["payload"].get("callId")}
        record(conn, entry["ts"], entry["kind"], session_id, payload)
        written += 1
        artifact = entry.get("artifact")
        if isinstance(artifact, dict):
            turn_id = payload.get("turnId")
            touch_artifact(
                conn,
                session_id,
                Path(artifact["path"]),
                str(artifact["op"]),
                turn_id if isinstance(turn_id, str) else None,
                entry["ts"],
            )
            touched += 1
    return Recorded(written, touched)


def touch_artifact(conn: apsw.Connection, session_id: str, path: Path, op: str, turn_id: str | None, ts: int) -> None:
    """One row per file per chat; a change older than the row's (a round stored after its change was
    reverted) leaves it as it is."""
    conn.execute(
        "INSERT INTO artifacts(session_id, path, op, turn_id, updated_at) VALUES (?, ?, ?, ?, ?) "
        "ON CONFLICT(session_id, path) DO UPDATE SET op = excluded.op, turn_id = excluded.turn_id, "
        "updated_at = excluded.updated_at WHERE excluded.updated_at >= artifacts.updated_at",
        (session_id, str(path), op, turn_id, ts),
    )
