"""The ``mcp.*`` commands: MCP server configurations, what a chat gets, and each call's record.

The host never starts a server: the agent runtime does (``pidesktop.agent.mcp``),
asking ``mcp.launchConfig`` for what to start, telling ``mcp.reportState`` how
it went (kept in memory, shown by ``mcp.list``, announced as ``mcp.changed``)
and handing each call's result to ``mcp.recordCall`` to be cut, spilled and
audited like a built-in tool's.
"""

from __future__ import annotations

from typing import Any

from pidesktop.bus import topics
from pidesktop.bus.errors import HostError
from pidesktop.host.commands import command
from pidesktop.host.context import HostContext
from pidesktop.host.mcp import config, results
from pidesktop.host.params import Params, invalid
from pidesktop.host.sessions import audit_rows
from pidesktop.host.sessions import commands as sessions
from pidesktop.host.settings import commands as settings

STATES = ("starting", "ready", "failed", "stopped")
LAUNCH_FIELDS = ("transport", "command", "args", "url")  # a change restarts the server; a tool switch does not
STDERR_TAIL_MAX = 4000


def _changed(ctx: HostContext, name: str, reason: str) -> None:
    ctx.emit(topics.MCP_CHANGED, {"name": name, "reason": reason})


def _listed(ctx: HostContext, name: str, server: dict[str, Any]) -> dict[str, Any]:
    out = config.wire(name, server)
    state = ctx.mcp_states.get(name)
    if not out["enabled"]:
        out["state"] = {"state": "disabled"}
    elif state is None:
        out["state"] = {"state": "stopped"}
    else:
        out["state"] = state
    return out


@command("mcp.list", emits=[])
def mcp_list(ctx: HostContext, p: Params) -> dict[str, Any]:
    """Every configured server (values of env/header entries never included) with its last reported state."""
    project_id = p.integer("projectId", required=False)
    off = config.project_off(ctx.conn, project_id)
    servers = []
    for name, server in config.all_stored(ctx.conn):
        item = _listed(ctx, name, server)
        if project_id is not None:
            item["onForProject"] = name not in off
        servers.append(item)
    return {"servers": servers}


@command("mcp.add", emits=[topics.MCP_CHANGED])
def mcp_add(ctx: HostContext, p: Params) -> dict[str, Any]:
    name = config.check_name(p.method, p.text("name", strip=True) or "")
    if config.stored(ctx.conn, name) is not None:
        raise invalid(f"An MCP server named {name!r} already exists; choose another name or edit it.", "name")
    server, values = config.read_fields(p, None)
    config.save(ctx, name, server, values)
    _changed(ctx, name, "added")
    return {"server": _listed(ctx, name, server)}


@command("mcp.update", emits=[topics.MCP_CHANGED])
def mcp_update(ctx: HostContext, p: Params) -> dict[str, Any]:
    name = p.text("name", strip=True) or ""
    current = config.require(ctx.conn, name)
    before = {key: current.get(key) for key in LAUNCH_FIELDS}
    server, values = config.read_fields(p, current)
    config.save(ctx, name, server, values)
    if values or any(server.get(key) != before[key] for key in LAUNCH_FIELDS):
        ctx.mcp_states.pop(name, None)  # the runtime restarts it with the new configuration on its next use
    _changed(ctx, name, "updated")
    return {"server": _listed(ctx, name, server)}


@command("mcp.remove", emits=[topics.MCP_CHANGED])
def mcp_remove(ctx: HostContext, p: Params) -> dict[str, Any]:
    name = p.text("name", strip=True) or ""
    config.require(ctx.conn, name)
    config.remove(ctx, name)
    ctx.mcp_states.pop(name, None)
    _changed(ctx, name, "removed")
    return {"removed": name}


@command("mcp.setProjectServer", emits=[topics.MCP_CHANGED])
def mcp_set_project_server(ctx: HostContext, p: Params) -> dict[str, Any]:
    """Turn one server on or off for the chats of one project."""
    project_id = p.integer("projectId", minimum=1) or 0
    name = p.text("name", strip=True) or ""
    enabled = p.boolean("enabled", required=True)
    config.require(ctx.conn, name)
    if ctx.conn.execute("SELECT 1 FROM projects WHERE id = ?", (project_id,)).fetchone() is None:
        raise invalid(f"There is no project with id {project_id}.", "projectId")
    off = config.project_off(ctx.conn, project_id)
    (off.discard if enabled else off.add)(name)
    config.set_project_off(ctx, project_id, off)
    _changed(ctx, name, "project")
    return {"projectId": project_id, "off": sorted(off)}


@command("mcp.launchConfig", emits=[])
def mcp_launch_config(ctx: HostContext, p: Params) -> dict[str, Any]:
    """For the agent runtime only: the servers to offer (a chat's, or every enabled one) with env/header values."""
    names = p.array("names", required=False)
    off: set[str] = set()
    if p.has("sessionId"):
        session_id = sessions.session_id_param(p)
        sessions.require(ctx.conn, session_id)
        row = ctx.conn.execute("SELECT project_id FROM sessions WHERE id = ?", (session_id,)).fetchone()
        off = config.project_off(ctx.conn, row[0] if row else None)
    servers = []
    for name, server in config.all_stored(ctx.conn):
        if names is not None:
            if name in names:
                servers.append(config.launch(ctx, name, server))
            continue
        if server.get("enabled", True) and name not in off:
            servers.append(config.launch(ctx, name, server))
    # A server over HTTP is reached through the proxy the settings name, like the providers.
    return {"servers": servers, "networkProxy": settings.read(ctx).get("networkProxy")}


@command("mcp.reportState", emits=[topics.MCP_CHANGED])
def mcp_report_state(ctx: HostContext, p: Params) -> dict[str, Any]:
    """The runtime's word on a server: starting, ready (with its tools), failed (why, stderr's tail), stopped."""
    name = p.text("name", strip=True) or ""
    state: dict[str, Any] = {"state": p.choice("state", STATES, required=True)}
    reason = p.text("reason", required=False, max_chars=4000)
    if reason:
        state["reason"] = reason
    tail = p.text("stderrTail", required=False)
    if tail:
        state["stderrTail"] = tail[-STDERR_TAIL_MAX:]
    tools = p.array("tools", required=False)
    if tools is not None:
        state["tools"] = [
            {
                "name": str(t.get("name", "")),
                "description": str(t.get("description") or "")[:500],
                "readOnly": bool(t.get("readOnly")),
            }
            for t in tools
            if isinstance(t, dict)
        ]
    if config.stored(ctx.conn, name) is None:
        return {"known": False}  # removed meanwhile
    ctx.mcp_states[name] = state
    _changed(ctx, name, "state")
    return {"known": True}


@command("mcp.recordCall", emits=[])
def mcp_record_call(ctx: HostContext, p: Params) -> dict[str, Any]:
    """A finished MCP tool call: the text the model reads (cut, binary parts kept as files) and its audit record."""
    session_id = sessions.session_id_param(p)
    sessions.require(ctx.conn, session_id)
    tool = p.text("tool", nonempty=True) or ""
    server = p.text("server", nonempty=True) or ""
    server_tool = p.text("serverTool", nonempty=True) or ""
    failure = p.text("error", required=False, max_chars=20_000)
    is_error = p.boolean("isError")
    content = p.array("content", required=False) or []
    structured = p.raw.get("structuredContent")
    if failure is not None:
        text, ok = failure, False
    else:
        text = results.as_text(ctx, session_id, content, structured, tool)
        ok = not is_error
        if is_error:
            text = f"The tool {server_tool} of the MCP server {server} reported an error:\n{text}"
    payload = {
        "tool": tool,
        "server": server,
        "serverTool": server_tool,
        "turnId": p.text("turnId", required=False),
        "callId": p.text("callId", required=False),
        "ok": ok,
        "isError": is_error,
    }
    if failure is not None:
        payload["failure"] = failure[:500]
    return {"ok": ok, "result": text, "audit": audit_rows.pending(audit_rows.TOOL_EXECUTE, ctx.clock(), payload)}


@command("mcp.import", emits=[topics.MCP_CHANGED])
def mcp_import(ctx: HostContext, p: Params) -> dict[str, Any]:
    """Servers from a Claude Desktop / Cursor ``{"mcpServers": {...}}`` object; each one added or skipped with why."""
    document = p.obj("config") or {}
    servers = document.get("mcpServers")
    if not isinstance(servers, dict):
        raise invalid('mcp.import: the file has no "mcpServers" object (Claude Desktop or Cursor format).', "config")
    added: list[dict[str, Any]] = []
    skipped: list[dict[str, str]] = []
    for raw_name, entry in servers.items():
        name = config.import_name(str(raw_name))
        try:
            fields = config.imported_fields(str(raw_name), entry)
            if config.stored(ctx.conn, name) is not None:
                raise invalid(f"a server named {name!r} already exists")
            server, values = config.read_fields(Params("mcp.import", fields), None)
            config.save(ctx, name, server, values)
        except HostError as exc:
            skipped.append({"name": str(raw_name), "reason": exc.message.removeprefix("mcp.import: ")})
            continue
        added.append(_listed(ctx, name, server))
        _changed(ctx, name, "added")
    return {"added": added, "skipped": skipped}
