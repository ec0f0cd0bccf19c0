"""The ``tools.*`` commands the agent's runner calls for each tool call.

- ``tools.workspace``: the chat's folder and its effective permission mode;
- ``tools.prepare``: what a permission card shows (title, the diff or command,
  whether the path leaves the workspace), without changing anything;
- ``tools.run``: run ``read``/``write``/``edit``/``ls``/``find``/``grep``;
  a write or edit keeps its review snapshot, then changes the file; its
  ``artifacts`` row travels with its audit record;
- ``tools.recordShell``: a ``bash`` command's output, cut and spilled;
- ``tools.deny``: the record of a call that was not run.

Each answers with ``audit``, the call's ``tool_execute`` or ``tool_denied``
row, which is written with the call's result when the message holding it is
stored (``audit_rows.record_blocks``); a successful write or edit of a
workspace file adds ``audit.artifact``, upserted into ``artifacts`` by that
same transaction (spec 004, 4.10).

A problem with the call itself (no such file, bad arguments, a path outside
the workspace) is an answer with ``ok: false`` and a ``result`` the model
reads, not a host error: the turn goes on.
"""

from __future__ import annotations

from typing import Any

from pidesktop.bus import topics
from pidesktop.host.commands import command
from pidesktop.host.context import HostContext
from pidesktop.host.params import Params
from pidesktop.host.sessions import attachments, audit_rows
from pidesktop.host.sessions import commands as sessions
from pidesktop.host.settings import commands as app_settings
from pidesktop.host.tools import files, limits, review, workspace
from pidesktop.host.tools.writing import replace_file

READ_ONLY = ("read", "ls", "find", "grep")
EDITING = ("write", "edit")
FILE_TOOLS = READ_ONLY + EDITING
SHELL = "bash"
PERMISSION_MODES = ("ask", "accept-edits", "auto")
DEFAULT_PERMISSION_MODE = "ask"
DIFF_MAX_BYTES = limits.MAX_BYTES
IMAGE_MAX = 20 * 1024 * 1024  # the largest picture a read hands a vision model (as attachments send them)
STORED_ATTACHMENT_KEYS = ("type", "kind", "name", "ref", "mimeType", "size")
DIFF_INPUT_MAX = 512 * 1024  # larger files are not diffed: difflib would hold the host thread too long


def effective_permission_mode(ctx: HostContext, session_id: str) -> tuple[str, str]:
    """``(effective, stored)``: a chat set to ``inherit`` follows the settings default."""
    row = ctx.conn.execute("SELECT permission_mode FROM sessions WHERE id = ?", (session_id,)).fetchone()
    stored = str(row[0]) if row is not None else "inherit"
    if stored in PERMISSION_MODES:
        return stored, stored
    return str(app_settings.read(ctx)["permissionMode"]), stored


@command("tools.workspace", emits=[])
def tools_workspace(ctx: HostContext, p: Params) -> dict[str, Any]:
    session_id = sessions.session_id_param(p)
    sessions.require(ctx.conn, session_id)
    # ``create: false``: the folder as it will be, for a size estimate made when a chat is only looked at
    ws = workspace.of(ctx, session_id, create=p.boolean("create", default=True))
    mode, stored = effective_permission_mode(ctx, session_id)
    settings = app_settings.read(ctx)
    return {
        "workspace": str(ws.root),
        "scratch": ws.scratch,
        "permissionMode": mode,
        "storedPermissionMode": stored,
        "sandboxNetwork": bool(settings["sandboxNetwork"]),
    }


def _path_arg(args: Params, tool: str) -> str:
    if tool in ("read", "write", "edit"):
        return args.text("path", nonempty=True) or ""
    return args.text("path", required=False, default=".") or "."


def _tool_args(p: Params) -> tuple[str, Params]:
    tool = p.choice("tool", FILE_TOOLS, required=True) or ""
    return tool, Params(tool, p.obj("args"))


def _outside_answer(tool: str, resolved: workspace.Resolved, ws: workspace.Workspace) -> dict[str, Any]:
    return {
        "ok": False,
        "outsideWorkspace": True,
        "path": str(resolved.path),
        "result": (
            f"{resolved.path} is outside the workspace ({ws.root}), so {tool} was refused. Use a path inside "
            f"the workspace; the person can allow one call outside it when asked."
        ),
    }


@command("tools.prepare", emits=[])
def tools_prepare(ctx: HostContext, p: Params) -> dict[str, Any]:
    """What a permission card shows for a call; nothing is changed."""
    session_id = sessions.session_id_param(p)
    sessions.require(ctx.conn, session_id)
    tool = p.choice("tool", (*FILE_TOOLS, SHELL), required=True) or ""
    args = Params(tool, p.obj("args"))
    ws = workspace.of(ctx, session_id)
    if tool == SHELL:
        command_text = args.text("command", nonempty=True) or ""
        first = command_text.strip().splitlines()[0] if command_text.strip() else command_text
        return {"title": f"Run {first[:120]}", "detail": command_text, "outsideWorkspace": False, "ok": True}
    also = workspace.scratch_dir(ctx, session_id) if tool in READ_ONLY else None
    resolved = workspace.resolve(ws, _path_arg(args, tool), also)
    base = {"outsideWorkspace": resolved.outside, "path": str(resolved.path)}
    verb = {"read": "Read", "write": "Write", "edit": "Edit", "ls": "List", "find": "Find files in", "grep": "Search"}
    title = f"{verb[tool]} {resolved.shown}"
    if tool not in EDITING:
        return {**base, "ok": True, "title": title, "detail": str(resolved.path)}
    try:
        change = _plan(tool, args, resolved)
    except files.Failed as exc:
        return {**base, "ok": False, "title": title, "detail": str(exc), "result": str(exc)}
    if change.before is None:
        title = f"Create {resolved.shown}"
    return {**base, "ok": True, "title": title, "detail": _diff(resolved, change)}


def _diff(resolved: workspace.Resolved, change: files.Change) -> str:
    """The change as a unified diff, cut to the result limits; too large a file is described, not diffed."""
    if max(len(change.before or b""), len(change.after)) > DIFF_INPUT_MAX:
        size = len(change.after)
        return f"(no diff shown: {resolved.shown} is too large to compare here; it will hold {size:,} bytes)"
    return limits.cut(files.unified_diff(resolved.shown, change.before, change.after), max_bytes=DIFF_MAX_BYTES).text


def _plan(tool: str, args: Params, resolved: workspace.Resolved) -> files.Change:
    if tool == "write":
        content = args.text("content")
        return files.plan_write(resolved.path, resolved.shown, content or "")
    old = args.text("oldText")
    new = args.text("newText")
    return files.plan_edit(resolved.path, resolved.shown, old or "", new or "")


@command("tools.run", emits=[topics.REVIEW_CHANGED])
def tools_run(ctx: HostContext, p: Params) -> dict[str, Any]:
    session_id = sessions.session_id_param(p)
    turn_id = p.text("turnId", required=False)
    call_id = p.text("callId", required=False)
    allow_outside = p.boolean("allowOutside")
    tool, args = _tool_args(p)
    sessions.require(ctx.conn, session_id)
    ws = workspace.of(ctx, session_id)
    also = workspace.scratch_dir(ctx, session_id) if tool in READ_ONLY else None
    resolved = workspace.resolve(ws, _path_arg(args, tool), also)
    if resolved.outside and not allow_outside:
        return _outside_answer(tool, resolved, ws)
    answer: dict[str, Any]
    review_record: dict[str, Any] | None = None
    try:
        if tool in EDITING:
            change = _plan(tool, args, resolved)
            diff = _diff(resolved, change)
            review_record = review.keep(
                ctx,
                session_id,
                path=resolved.path,
                op=change.op,
                before=change.before,
                after=change.after,
                turn_id=turn_id,
                call_id=call_id,
            )
            replace_file(resolved.path, change.after)
            answer = {"ok": True, "result": change.summary, "details": {"review": review_record, "diff": diff}}
        elif tool == "read" and (image := _image(ctx, resolved)) is not None:
            answer = {
                "ok": True,
                "result": f"{resolved.shown} is an image ({image['mimeType']}, {image['size']:,} bytes); "
                "it is attached so you can see it.",
                "attachments": [image],
            }
        else:
            answer = {"ok": True, "result": _read_only(ctx, session_id, tool, args, resolved)}
    except files.Failed as exc:
        answer = {"ok": False, "result": str(exc)}
    except OSError as exc:
        answer = {"ok": False, "result": f"{tool} could not use {resolved.shown}: {exc.strerror or exc}."}
    now = ctx.clock()
    payload = {"tool": tool, "turnId": turn_id, "callId": call_id, "path": str(resolved.path), "ok": answer["ok"]}
    if resolved.outside:
        payload["outsideWorkspace"] = True
    artifact = None
    if review_record is not None:
        payload["snapshotId"] = review_record["snapshotId"]
        if not ws.scratch and not resolved.outside:  # a workspace deliverable: upserted with the audit row
            artifact = {"path": str(resolved.path), "op": str(review_record["op"])}
        ctx.emit(topics.REVIEW_CHANGED, {"sessionId": session_id, "snapshotId": review_record["snapshotId"]})
    return {**answer, "audit": audit_rows.pending(audit_rows.TOOL_EXECUTE, now, payload, artifact)}


def _image(ctx: HostContext, resolved: workspace.Resolved) -> dict[str, Any] | None:
    """A picture (PNG, JPEG, GIF, WebP by its bytes) stored as an attachment for a vision model, else None."""
    path = resolved.path
    if not path.is_file() or path.stat().st_size > IMAGE_MAX:
        return None
    with open(path, "rb") as source:
        if attachments.sniff_image(source.read(16)) is None:
            return None
        source.seek(0)
        data = source.read(IMAGE_MAX + 1)
    stored = attachments.store(attachments.directory(ctx), [data])
    described = attachments.block(stored, path.name)
    return {key: described[key] for key in STORED_ATTACHMENT_KEYS}


def _read_only(ctx: HostContext, session_id: str, tool: str, args: Params, resolved: workspace.Resolved) -> str:
    limit = args.integer("limit", required=False, minimum=1, maximum=100_000)
    if tool == "read":
        offset = args.integer("offset", required=False, minimum=1)
        text, first, total = files.read_text(resolved.path, resolved.shown, offset, limit)
        cut = limits.cut(text)
        shown_lines = cut.kept_lines
        last = first + shown_lines - 1
        if last < total:
            why = "output limit" if cut.truncated or limit is None else "limit"
            return f"{cut.text}\n[Lines {first}-{last} of {total} shown ({why}). Continue with offset={last + 1}.]"
        return cut.text or f"{resolved.shown} is empty."
    if tool == "ls":
        text = files.list_dir(resolved.path, resolved.shown, limit)
    elif tool == "find":
        pattern = args.text("pattern", nonempty=True) or ""
        text = files.find_files(resolved.path, resolved.shown, pattern, limit)
    else:
        query = files.GrepQuery(
            pattern=args.text("pattern", nonempty=True) or "",
            glob=args.text("glob", required=False, nonempty=True),
            ignore_case=args.boolean("ignoreCase"),
            literal=args.boolean("literal"),
            limit=limit or files.GREP_DEFAULT_LIMIT,
        )
        text = files.grep(resolved.path, resolved.shown, query)
    return limits.limited(ctx, session_id, text, tool)


@command("tools.recordShell", emits=[])
def tools_record_shell(ctx: HostContext, p: Params) -> dict[str, Any]:
    """A finished ``bash`` call: its output within the limits (the whole kept on disk), and its audit record."""
    session_id = sessions.session_id_param(p)
    turn_id = p.text("turnId", required=False)
    call_id = p.text("callId", required=False)
    command_text = p.text("command") or ""
    output = p.text("output", required=False, default="") or ""
    exit_code = p.integer("exitCode", required=False)
    timed_out = p.boolean("timedOut")
    stopped = p.boolean("stopped")
    sandboxed = p.boolean("sandboxed")
    timeout_s = p.integer("timeoutSeconds", required=False)
    sessions.require(ctx.conn, session_id)
    text = limits.limited(ctx, session_id, output, "bash", keep="tail") if output else "(no output)"
    if timed_out:
        ending = (
            f"[The command ran longer than its {timeout_s} s timeout and was killed, with every process it started.]"
        )
    elif stopped:
        ending = "[The person stopped the command; it was killed, with every process it started.]"
    elif exit_code:
        ending = f"[Exit code {exit_code}]"
    else:
        ending = ""
    ok = not timed_out and not stopped and exit_code == 0
    result = f"{text.rstrip(chr(10))}\n{ending}" if ending else text
    payload = {
        "tool": SHELL,
        "turnId": turn_id,
        "callId": call_id,
        "command": command_text[:2000],
        "exitCode": exit_code,
        "timedOut": timed_out,
        "stopped": stopped,
        "sandboxed": sandboxed,
        "ok": ok,
    }
    return {"ok": ok, "result": result, "audit": audit_rows.pending(audit_rows.TOOL_EXECUTE, ctx.clock(), payload)}


@command("tools.deny", emits=[])
def tools_deny(ctx: HostContext, p: Params) -> dict[str, Any]:
    """A call that did not run (the person said no, or nobody was there to ask): its ``tool_denied`` record."""
    session_id = sessions.session_id_param(p)
    sessions.require(ctx.conn, session_id)
    payload = {
        "tool": p.text("tool", nonempty=True),
        "turnId": p.text("turnId", required=False),
        "callId": p.text("callId", required=False),
        "title": p.text("title", required=False, max_chars=500),
        "reason": p.text("reason", required=False, max_chars=4000),
        "nobodyToAsk": p.boolean("nobodyToAsk"),
        "outsideWorkspace": p.boolean("outsideWorkspace"),
    }
    if p.has("mcpServer"):
        payload["mcpServer"] = p.text("mcpServer", nonempty=True)
    return {"audit": audit_rows.pending(audit_rows.TOOL_DENIED, ctx.clock(), payload)}
