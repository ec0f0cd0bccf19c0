"""What the person allowed for the rest of a chat ("Allow for this chat"), kept with the chat across restarts.

Stored in ``kv`` (spec 004, 4.1) under ``ns = "permissionGrants"``, ``key = <sessionId>``:
``{"tools": [names], "unconfined": bool}``. ``tools`` are tool names (``edit``,
``bash``, ``mcp__server__tool``) that run without asking in this chat;
``unconfined`` says the person accepted that commands run without a sandbox.
A path outside the workspace is never covered: it is asked for each call.
The row goes with the chat when it is deleted for good.

- ``permissions.grants {sessionId}`` -> ``{tools, unconfined}``
- ``permissions.grant {sessionId, tool?, unconfined?}`` -> ``{tools, unconfined}``
- ``permissions.reset {sessionId}`` -> ``{tools: [], unconfined: false}``

A change emits ``permissions.changed {sessionId, tools, unconfined}``.
"""

from __future__ import annotations

from typing import Any

import apsw

from pidesktop.bus import topics
from pidesktop.host import kv
from pidesktop.host.commands import command
from pidesktop.host.context import HostContext
from pidesktop.host.params import Params
from pidesktop.host.sessions import commands as sessions

NS = sessions.PERMISSION_GRANTS_NS
TOOL_NAME_MAX = 200
TOOLS_MAX = 500  # far more than a chat offers; keeps a bad caller from growing the row without end


def read(conn: apsw.Connection, session_id: str) -> dict[str, Any]:
    stored = kv.get(conn, NS, session_id, {})
    stored = stored if isinstance(stored, dict) else {}
    tools = stored.get("tools")
    names = sorted({t for t in tools if isinstance(t, str)}) if isinstance(tools, list) else []
    return {"tools": names, "unconfined": stored.get("unconfined") is True}


def _changed(ctx: HostContext, session_id: str, grants: dict[str, Any]) -> dict[str, Any]:
    ctx.emit(topics.PERMISSIONS_CHANGED, {"sessionId": session_id, **grants})
    return grants


@command("permissions.grants", emits=[])
def permissions_grants(ctx: HostContext, p: Params) -> dict[str, Any]:
    session_id = sessions.session_id_param(p)
    sessions.require(ctx.conn, session_id)
    return read(ctx.conn, session_id)


@command("permissions.grant", emits=[topics.PERMISSIONS_CHANGED])
def permissions_grant(ctx: HostContext, p: Params) -> dict[str, Any]:
    """Add a tool (and/or the unconfined-commands answer) to the chat's grants."""
    session_id = sessions.session_id_param(p)
    tool = p.text("tool", required=False, nonempty=True, max_chars=TOOL_NAME_MAX)
    unconfined = p.boolean("unconfined")
    sessions.require(ctx.conn, session_id)
    with ctx.conn:
        grants = read(ctx.conn, session_id)
        if tool is not None and tool not in grants["tools"] and len(grants["tools"]) < TOOLS_MAX:
            grants["tools"] = sorted([*grants["tools"], tool])
        grants["unconfined"] = grants["unconfined"] or unconfined
        kv.put(ctx.conn, NS, session_id, grants, ctx.clock())
    return _changed(ctx, session_id, grants)


@command("permissions.reset", emits=[topics.PERMISSIONS_CHANGED])
def permissions_reset(ctx: HostContext, p: Params) -> dict[str, Any]:
    """Forget every "Allow for this chat" answer of the chat: its calls ask again."""
    session_id = sessions.session_id_param(p)
    sessions.require(ctx.conn, session_id)
    with ctx.conn:
        kv.delete(ctx.conn, NS, session_id)
    return _changed(ctx, session_id, {"tools": [], "unconfined": False})
