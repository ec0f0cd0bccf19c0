"""Plan and Goal approvals (spec 004, 4.6a ``plan_approvals``; RPC-WAVE2 "Plan and Goal").

A proposal arrives as a ``SubmitPlan``/``SubmitGoal`` tool call. The host
writes its Markdown once, byte for byte, to a new read-only file under the
chat's workspace (``<project>/.pi/plan/`` or ``.pi/goal/``; a chat without a
project uses ``<data root>/scratch/<sessionId>/``) and stores one
``pending`` row with the file's relative path, SHA-256 and size. At most one
row per chat is pending (a unique partial index). Files are never rewritten:
a revised proposal is a new file and a new row.

Approval checks the file against its hash and size, marks the row
``approved``, switches the chat to Agent and queues the execution
(``execution_state = 'queued'``, ``execution_id`` = the id of the turn that
will carry it out). The runner reports ``running`` and the end. The schema's
execution states have no ``failed``: a failed execution is ``completed`` with
an ``error_code``, shown on the wire as ``executionStatus: "failed"``.
Approval also makes the chat's permission mode explicit: the one chosen
with the answer, else the mode the chat had in effect (``inherit`` resolved
through the settings default), stored on the row and the chat, so a later
change of the default does not change what the approved work may do.

A proposal carries its structured ``question`` and an absolute deadline
(``expires_at``, ``EXPIRY_MS`` after it was submitted). A pending row past it
becomes ``expired`` the next time anything reads or answers proposals
(``expire_due``); expiry, like rejection, keeps the chat in its contract mode.
Rejection keeps the chat in its contract mode. The boot pass marks pending
rows and queued/running executions ``interrupted`` (boot.py); anything not
pending is answered with ``CONFLICT``.
"""

from __future__ import annotations

import hashlib
import os
import re
import tempfile
import unicodedata
import uuid
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import apsw

from pidesktop.bus import topics
from pidesktop.bus.errors import ErrorCode, HostError
from pidesktop.durable import fsync_dir, write_all
from pidesktop.host import kv
from pidesktop.host.commands import command
from pidesktop.host.context import HostContext
from pidesktop.host.params import Params, invalid
from pidesktop.host.sessions import commands as sessions
from pidesktop.host.sessions import session_info, session_rows
from pidesktop.host.settings import commands as settings

KINDS = ("plan", "goal")
DECISIONS = ("approve", "reject")
EXECUTION_REPORTS = ("running", "completed", "failed", "interrupted")
MARKDOWN_MAX_BYTES = 1024 * 1024  # a plan is prose; a megabyte is far more than any sensible one
FEEDBACK_MAX_CHARS = 20_000
TITLE_MAX_CHARS = 200
QUESTION_MAX_CHARS = 2_000
EXPIRY_MS = 24 * 60 * 60 * 1000  # a day: long enough to come back to, short enough not to act on a stale plan
SLUG_MAX = 48
ARTIFACT_MODE = 0o444

_COLUMNS = (
    "request_id, session_id, turn_id, tool_call_id, kind, plan_json, title, feedback, status, "
    "created_at, updated_at, resolved_at, error_code, artifact_relative_path, artifact_sha256, "
    "artifact_size_bytes, execution_id, execution_state, question, expires_at, target_permission_mode"
)


# -- the wire shape ----------------------------------------------------------------------
def to_wire(ctx: HostContext, row: tuple[Any, ...]) -> dict[str, Any]:
    (
        request_id,
        session_id,
        turn_id,
        tool_call_id,
        kind,
        markdown,
        title,
        feedback,
        status,
        created,
        updated,
        resolved,
        error_code,
        relative,
        sha256,
        size,
        execution_id,
        execution_state,
        question,
        expires_at,
        target_permission_mode,
    ) = row
    workspace = artifact_root(ctx, request_id, session_id)
    execution = execution_state
    if execution_state == "completed" and error_code:
        execution = "failed"
    return {
        "id": request_id,
        "sessionId": session_id,
        "kind": kind,
        "status": status,
        "artifactPath": str(workspace / relative) if relative else None,
        "artifactRelativePath": relative,
        "sha256": sha256,
        "size": size,
        "executionStatus": execution,
        "executionId": execution_id,
        "createdAt": created,
        "decidedAt": resolved,
        "updatedAt": updated,
        "title": title,
        "question": question,
        "expiresAt": expires_at,
        "targetPermissionMode": target_permission_mode,
        "markdown": markdown,
        "feedback": feedback,
        "errorCode": error_code,
        "turnId": turn_id,
        "toolCallId": tool_call_id,
    }


def load(ctx: HostContext, approval_id: str) -> dict[str, Any]:
    row = ctx.conn.execute(f"SELECT {_COLUMNS} FROM plan_approvals WHERE request_id = ?", (approval_id,)).fetchone()
    if row is None:
        raise HostError(ErrorCode.NOT_FOUND, f"There is no plan or goal with id {approval_id!r}.")
    return to_wire(ctx, row)


# The folder a proposal's file was written under, kept with it: the chat may later move to another
# project (or its project be removed), and the file stays where it was written.
ROOTS_NS = "planArtifactRoot"


def artifact_root(ctx: HostContext, approval_id: str, session_id: str) -> Path:
    stored = kv.get(ctx.conn, ROOTS_NS, approval_id)
    return Path(stored) if isinstance(stored, str) and stored else workspace_of(ctx, session_id)


def workspace_of(ctx: HostContext, session_id: str) -> Path:
    """The chat's project folder, or its scratch folder under the data root when it has no project."""
    row = ctx.conn.execute(
        "SELECT p.path FROM sessions s LEFT JOIN projects p ON p.id = s.project_id WHERE s.id = ?", (session_id,)
    ).fetchone()
    if row is not None and row[0]:
        return Path(row[0])
    return ctx.data_root / "scratch" / session_id


# -- plan.submit --------------------------------------------------------------------------
@command("plan.submit", emits=[topics.PLAN_CHANGED, topics.SESSION_CHANGED])
def plan_submit(ctx: HostContext, p: Params) -> dict[str, Any]:
    """Store a proposal: the immutable file first, then its pending row (a crash between leaves only a file)."""
    session_id = sessions.session_id_param(p)
    kind = p.choice("kind", KINDS, required=True)
    markdown = p.text("markdown")
    turn_id = p.text("turnId", nonempty=True)
    tool_call_id = p.text("toolCallId", nonempty=True)
    title = p.text("title", required=False, strip=True, max_chars=TITLE_MAX_CHARS) or title_of(markdown)
    question = p.text("question", required=False, strip=True, max_chars=QUESTION_MAX_CHARS) or ""
    supersede = p.boolean("supersede")
    data = markdown.encode("utf-8")
    if not markdown.strip():
        raise invalid(f"plan.submit: the {kind} is empty; the model must send its text as Markdown.", "markdown")
    if len(data) > MARKDOWN_MAX_BYTES:
        raise HostError(
            ErrorCode.LIMIT_EXCEEDED,
            f"The {kind} is {len(data):,} bytes; at most {MARKDOWN_MAX_BYTES:,} are kept.",
            {"field": "markdown"},
        )
    conn = ctx.conn
    sessions.require(conn, session_id)
    expire_due(ctx)
    existing = conn.execute(f"SELECT {_COLUMNS} FROM plan_approvals WHERE tool_call_id = ?", (tool_call_id,)).fetchone()
    if existing is not None:  # a retried submit of the same call: the same row, never a second file
        approval = to_wire(ctx, existing)
        if approval["sessionId"] != session_id or approval["sha256"] != hashlib.sha256(data).hexdigest():
            raise HostError(ErrorCode.CONFLICT, f"Tool call {tool_call_id} already submitted a different {kind}.")
        return {"approval": approval}
    pending = conn.execute(
        "SELECT request_id FROM plan_approvals WHERE session_id = ? AND status = 'pending'", (session_id,)
    ).fetchone()
    if pending is not None and not supersede:
        raise HostError(
            ErrorCode.CONFLICT,
            "This chat already has a plan or goal waiting for approval; approve or reject it first.",
            {"approvalId": pending[0]},
        )
    now = ctx.clock()
    workspace = workspace_of(ctx, session_id)
    if not workspace.is_relative_to(ctx.data_root) and not workspace.is_dir():
        # never create a project folder that went away (unmounted, moved): say so instead
        raise HostError(
            ErrorCode.STORAGE_UNAVAILABLE,
            f"The project folder {workspace} is missing, so the {kind} "
            f"cannot be saved there. Reconnect or move the project, then "
            f"ask again.",
            {"path": str(workspace)},
        )
    relative = write_artifact(workspace, kind, title, data, now)
    approval_id = str(uuid.uuid4())
    try:
        with conn:
            if pending is not None:  # the person answered in the chat instead: the newer proposal replaces it
                conn.execute(
                    "UPDATE plan_approvals SET status = 'expired', error_code = ?, "
                    "resolved_at = ?, updated_at = ? WHERE request_id = ? AND status = 'pending'",
                    (ErrorCode.SUPERSEDED.value, now, now, pending[0]),
                )
            conn.execute(
                "INSERT INTO plan_approvals(request_id, session_id, turn_id, tool_call_id, kind, plan_json, title, "
                "question, status, created_at, updated_at, expires_at, artifact_relative_path, artifact_sha256, "
                "artifact_size_bytes) VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'pending', ?, ?, ?, ?, ?, ?)",
                (
                    approval_id,
                    session_id,
                    turn_id,
                    tool_call_id,
                    kind,
                    markdown,
                    title,
                    question,
                    now,
                    now,
                    now + EXPIRY_MS,
                    relative,
                    hashlib.sha256(data).hexdigest(),
                    len(data),
                ),
            )
            kv.put(conn, ROOTS_NS, approval_id, str(workspace), now)
    except apsw.ConstraintError:  # lost a race with another submit: the file stays, unreferenced
        raise HostError(ErrorCode.CONFLICT, "This chat already has a plan or goal waiting for approval.") from None
    if pending is not None:
        changed(ctx, load(ctx, pending[0]))
    approval = load(ctx, approval_id)
    changed(ctx, approval)
    return {"approval": approval}


def title_of(markdown: str) -> str:
    """The first non-empty line without Markdown heading marks, cut to a title's length."""
    for line in markdown.splitlines():
        line = line.strip().lstrip("#").strip()
        if line:
            return line[:TITLE_MAX_CHARS]
    return ""


def slug(title: str, kind: str) -> str:
    """Lowercase ASCII words joined by hyphens: a file name that every file system and shell takes."""
    ascii_text = unicodedata.normalize("NFKD", title).encode("ascii", "ignore").decode()
    words = re.findall(r"[a-z0-9]+", ascii_text.lower())
    text = "-".join(words)[:SLUG_MAX].strip("-")
    return text or kind


def write_artifact(workspace: Path, kind: str, title: str, data: bytes, now: int) -> str:
    """Write ``data`` to a new ``.pi/<kind>/<timestamp>-<slug>.md`` under ``workspace``; never over a file.

    The bytes go to a temporary file that is fsync-ed and made read-only, then
    hard-linked to a name nobody has taken (``os.link`` fails on an existing
    name), so a reader sees the whole file or none, and no earlier plan is
    ever replaced.
    """
    folder = workspace / ".pi" / kind
    try:
        folder.mkdir(parents=True, exist_ok=True)
        stamp = f"{datetime.fromtimestamp(now // 1000, UTC):%Y%m%dT%H%M%S}{now % 1000:03d}Z"  # sorts by time
        base = f"{stamp}-{slug(title, kind)}"
        fd, temp_name = tempfile.mkstemp(dir=folder, prefix=f".{base}.", suffix=".tmp")
        try:
            try:
                write_all(fd, data)
                os.fsync(fd)
            finally:
                os.close(fd)
            os.chmod(temp_name, ARTIFACT_MODE)
            for attempt in range(1, 1000):
                name = f"{base}.md" if attempt == 1 else f"{base}-{attempt}.md"
                try:
                    os.link(temp_name, folder / name)
                    break
                except FileExistsError:
                    continue
            else:  # pragma: no cover - a thousand plans in one millisecond
                raise HostError(ErrorCode.CONFLICT, f"Could not find a free file name in {folder}.")
        finally:
            Path(temp_name).unlink(missing_ok=True)
        fsync_dir(folder)
    except OSError as exc:
        raise HostError(
            ErrorCode.STORAGE_UNAVAILABLE,
            f"Could not write the {kind} to {folder}: {exc.strerror or exc}.",
            {"path": str(folder)},
        ) from exc
    return f".pi/{kind}/{name}"


def verify_artifact(approval: dict[str, Any]) -> None:
    """The file still holds exactly the bytes that were proposed (spec 004: checked before approval)."""
    path = Path(approval["artifactPath"] or "")
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise HostError(
            ErrorCode.CONFLICT,
            f"The {approval['kind']} file {path} cannot be read ({exc.strerror or exc}); ask for it again.",
            {"artifactChanged": True},
        ) from exc
    if len(data) != approval["size"] or hashlib.sha256(data).hexdigest() != approval["sha256"]:
        raise HostError(
            ErrorCode.CONFLICT,
            f"The {approval['kind']} file {path} was changed after it was proposed; ask for it again.",
            {"artifactChanged": True},
        )


# -- plan.list, plans.pending ------------------------------------------------------------
@command("plan.list", emits=[topics.PLAN_CHANGED, topics.SESSION_CHANGED])
def plan_list(ctx: HostContext, p: Params) -> dict[str, Any]:
    """Every proposal of a chat, newest first."""
    session_id = sessions.session_id_param(p)
    sessions.require(ctx.conn, session_id)
    expire_due(ctx)
    rows = ctx.conn.execute(
        f"SELECT {_COLUMNS} FROM plan_approvals WHERE session_id = ? ORDER BY created_at DESC, rowid DESC",
        (session_id,),
    ).fetchall()
    return {"approvals": [to_wire(ctx, row) for row in rows]}


@command("plans.pending", emits=[topics.PLAN_CHANGED, topics.SESSION_CHANGED])
def plan_pending(ctx: HostContext, p: Params) -> dict[str, Any]:
    """Every proposal waiting for an answer, in any chat, newest first, with the chat's title (the inbox)."""
    expire_due(ctx)
    rows = ctx.conn.execute(
        f"SELECT {_COLUMNS} FROM plan_approvals WHERE status = 'pending' ORDER BY created_at DESC, rowid DESC"
    ).fetchall()
    approvals = []
    for row in rows:
        approval = to_wire(ctx, row)
        title = ctx.conn.execute("SELECT title FROM sessions WHERE id = ?", (approval["sessionId"],)).fetchone()
        approval["sessionTitle"] = title[0] if title else ""
        approvals.append(approval)
    return {"approvals": approvals}


# -- plan.respond ------------------------------------------------------------------------
APPROVAL_PERMISSION_MODES = ("ask", "accept-edits", "auto")


@command("plan.respond", emits=[topics.PLAN_CHANGED, topics.SESSION_CHANGED])
def plan_respond(ctx: HostContext, p: Params) -> dict[str, Any]:
    approval_id = p.text("approvalId", nonempty=True)
    decision = p.choice("decision", DECISIONS, required=True)
    feedback = p.text("feedback", required=False, strip=True, max_chars=FEEDBACK_MAX_CHARS) or None
    # "Approve and allow edits" (accept-edits) / "Approve, ask first" (ask): the chat's permission mode from now on
    permission = p.choice("permissionMode", APPROVAL_PERMISSION_MODES) if decision == "approve" else None
    conn = ctx.conn
    expire_due(ctx)
    approval = load(ctx, approval_id)
    if approval["status"] != "pending":
        raise HostError(ErrorCode.CONFLICT, _not_pending(approval), {"status": approval["status"]})
    if decision == "approve":
        verify_artifact(approval)
    now = ctx.clock()
    if decision == "approve" and permission is None:
        permission = _effective_permission(ctx, approval["sessionId"])
    if decision == "approve":  # file first: the chat leaves Plan for Agent in its transcript too
        session_info.record(ctx, approval["sessionId"], {"mode": "agent", "permissionMode": permission})
    with conn:
        if decision == "approve":
            conn.execute(
                "UPDATE plan_approvals SET status = 'approved', action = 'approve', feedback = ?, "
                "resolved_at = ?, updated_at = ?, execution_id = ?, execution_state = 'queued', "
                "target_permission_mode = ? "
                "WHERE request_id = ? AND status = 'pending'",
                (feedback, now, now, str(uuid.uuid4()), permission, approval_id),
            )
            conn.execute(
                "UPDATE sessions SET mode = 'agent', permission_mode = ?, updated_at = ? WHERE id = ?",
                (permission, now, approval["sessionId"]),
            )
        else:
            conn.execute(
                "UPDATE plan_approvals SET status = 'rejected', action = 'reject', feedback = ?, "
                "resolved_at = ?, updated_at = ? WHERE request_id = ? AND status = 'pending'",
                (feedback, now, now, approval_id),
            )
    approval = load(ctx, approval_id)
    changed(ctx, approval)
    return {"approval": approval}


def _effective_permission(ctx: HostContext, session_id: str) -> str:
    """The permission mode the chat has in effect now: its own, or the settings default for ``inherit``."""
    row = ctx.conn.execute("SELECT permission_mode FROM sessions WHERE id = ?", (session_id,)).fetchone()
    mode = row[0] if row else "inherit"
    if mode in APPROVAL_PERMISSION_MODES:
        return str(mode)
    default = settings.read(ctx).get("permissionMode")
    return str(default) if default in APPROVAL_PERMISSION_MODES else "ask"


def expire_due(ctx: HostContext) -> None:
    """Every pending proposal past its deadline becomes ``expired`` (one transaction), with ``plan.changed``."""
    now = ctx.clock()
    conn = ctx.conn
    with conn:
        due = [
            str(request_id)
            for (request_id,) in conn.execute(
                "SELECT request_id FROM plan_approvals WHERE status = 'pending' AND expires_at IS NOT NULL "
                "AND expires_at <= ?",
                (now,),
            )
        ]
        for request_id in due:
            conn.execute(
                "UPDATE plan_approvals SET status = 'expired', error_code = ?, resolved_at = ?, "
                "updated_at = ? WHERE request_id = ? AND status = 'pending'",
                (ErrorCode.EXPIRED.value, now, now, request_id),
            )
    for request_id in due:
        changed(ctx, load(ctx, request_id))


def _not_pending(approval: dict[str, Any]) -> str:
    what = approval["kind"]
    if approval["status"] == "expired" and approval["errorCode"] == "expired":
        return f"This {what} expired before it was answered. Ask for the {what} again."
    if approval["status"] == "interrupted":
        return f"This {what} is no longer waiting: the app restarted before it was answered. Ask for the {what} again."
    return f"This {what} was already answered ({approval['status']})."


# -- plan.execution ----------------------------------------------------------------------
@command("plan.execution", emits=[topics.PLAN_CHANGED, topics.SESSION_CHANGED])
def plan_execution(ctx: HostContext, p: Params) -> dict[str, Any]:
    """The runner reports an approved proposal's execution: running, then completed, failed or interrupted."""
    approval_id = p.text("approvalId", nonempty=True)
    state = p.choice("state", EXECUTION_REPORTS, required=True)
    error_code = p.text("errorCode", required=False, max_chars=200)
    approval = load(ctx, approval_id)
    allowed = {
        "running": ("queued",),
        "completed": ("running",),
        "failed": ("running",),
        "interrupted": ("queued", "running"),
    }[state]
    if approval["executionStatus"] == state:
        return {"approval": approval}  # a repeated report
    if approval["executionStatus"] not in allowed:
        raise HostError(
            ErrorCode.CONFLICT,
            f"This {approval['kind']}'s execution is "
            f"{approval['executionStatus'] or 'not queued'}; it cannot become "
            f"{state}.",
            {"executionStatus": approval["executionStatus"]},
        )
    stored_state = "completed" if state == "failed" else state
    code = (error_code or "failed") if state == "failed" else error_code if state == "interrupted" else None
    now = ctx.clock()
    with ctx.conn:
        ctx.conn.execute(
            "UPDATE plan_approvals SET execution_state = ?, error_code = ?, updated_at = ? WHERE request_id = ?",
            (stored_state, code, now, approval_id),
        )
    approval = load(ctx, approval_id)
    changed(ctx, approval)
    return {"approval": approval}


def changed(ctx: HostContext, approval: dict[str, Any]) -> None:
    """``plan.changed`` for the card and the inbox; ``session.changed`` because mode and state moved."""
    session_id = approval["sessionId"]
    session_rows.record_current(ctx, session_id, "plan_approvals", approval["id"])  # a rebuild gets it back
    ctx.emit(topics.PLAN_CHANGED, {"sessionId": session_id, "approval": approval})
    ctx.emit(
        topics.SESSION_CHANGED,
        {"sessionId": session_id, "reason": "plan", "session": sessions.summary(ctx.conn, session_id)},
    )
