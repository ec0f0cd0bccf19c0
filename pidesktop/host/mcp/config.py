"""MCP server configurations: ``kv(ns='mcpServers')``, their key-like values in the secret store.

One kv row per server, keyed by its name::

    {"transport": "stdio", "command": "npx", "args": [...], "envKeys": ["GITHUB_TOKEN"],
     "enabled": true, "disabledTools": [], "timeoutSeconds": 60, "createdAt": ..., "updatedAt": ...}
    {"transport": "http", "url": "https://...", "headerKeys": ["Authorization"], ...}

The values of ``env`` and ``headers`` entries are API keys more often than
not, so only their names are kept in kv; each value is a secret
(``secrets_meta.owner_kind = 'mcp'``, ``owner_id`` the server's name) under
the ref ``mcp/<name>/<env|header>/<key>``. The values leave the host only in
``mcp.launchConfig``, the agent runtime's answer, like ``providers.credentials``.

Which servers a chat gets: every enabled one, minus those its project turned
off (``kv(ns='mcpProjects', key=<projectId>)`` = ``{"off": [names]}``).
"""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import urlsplit

import apsw

from pidesktop.bus.errors import ErrorCode, HostError
from pidesktop.host import kv
from pidesktop.host.context import HostContext
from pidesktop.host.params import Params, invalid
from pidesktop.host.settings import secrets

NS = "mcpServers"
PROJECTS_NS = "mcpProjects"
OWNER_KIND = "mcp"
STDIO, HTTP = "stdio", "http"
NAME_RE = re.compile(r"^[A-Za-z0-9_-]{1,40}$")
KEY_RE = re.compile(r"^[^\x00-\x1f=]{1,200}$")
VALUE_MAX = 16_384
DEFAULT_TIMEOUT_S = 60
TIMEOUT_MAX_S = 3600
ARGS_MAX = 200


def not_found(name: str) -> HostError:
    return HostError(ErrorCode.NOT_FOUND, f"There is no MCP server named {name!r}.", {"name": name})


def check_name(method: str, name: str) -> str:
    if not NAME_RE.match(name):
        raise invalid(
            f"{method}: the server name {name!r} can hold only letters, digits, '-' and '_' (at most 40).", "name"
        )
    return name


def stored(conn: apsw.Connection, name: str) -> dict[str, Any] | None:
    value = kv.get(conn, NS, name)
    return value if isinstance(value, dict) else None


def require(conn: apsw.Connection, name: str) -> dict[str, Any]:
    server = stored(conn, name)
    if server is None:
        raise not_found(name)
    return server


def all_stored(conn: apsw.Connection) -> list[tuple[str, dict[str, Any]]]:
    rows = conn.execute("SELECT key FROM kv WHERE ns = ? ORDER BY key", (NS,)).fetchall()
    found = [(str(row[0]), stored(conn, str(row[0]))) for row in rows]
    return [(name, server) for name, server in found if server is not None]


def secret_ref(name: str, kind: str, key: str) -> str:
    return f"mcp/{name}/{kind}/{key}"


def _pairs(p: Params, field: str) -> dict[str, str | None] | None:
    """``env``/``headers``: names to values; a null value keeps the stored one (a form never sees values)."""
    raw = p.obj(field, required=False)
    if raw is None:
        return None
    pairs: dict[str, str | None] = {}
    for key, value in raw.items():
        if not KEY_RE.match(key):
            raise invalid(f"{p.method}: the {field} name {key!r} is empty, too long or holds '=' or a control.", field)
        if value is not None and (not isinstance(value, str) or len(value) > VALUE_MAX):
            raise invalid(f"{p.method}: the value of {field}.{key} must be text of at most {VALUE_MAX} characters.")
        pairs[key] = value
    return pairs


def _check_url(method: str, url: str) -> str:
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise invalid(f"{method}: the URL must start with http:// or https:// and name a server; got {url!r}.", "url")
    if parts.username or parts.password:
        raise invalid(f"{method}: put credentials in a header (--header), not in the URL.", "url")
    return url


def read_fields(p: Params, current: dict[str, Any] | None) -> tuple[dict[str, Any], dict[str, dict[str, str | None]]]:
    """The new configuration from ``p`` over ``current``, and the env/header values to store (by kind)."""
    server = dict(current or {})
    command = p.text("command", required=False, strip=True, nonempty=True, max_chars=4096)
    url = p.text("url", required=False, strip=True, nonempty=True, max_chars=4096)
    if command is not None and url is not None:
        raise invalid(f"{p.method}: give either a command (stdio) or a url (streamable HTTP), not both.", "url")
    if current is None and command is None and url is None:
        raise invalid(f"{p.method}: give a command to start (stdio) or the url of a streamable HTTP server.", "command")
    if command is not None:
        server.update({"transport": STDIO, "command": command})
        server.pop("url", None)
    if url is not None:
        server.update({"transport": HTTP, "url": _check_url(p.method, url)})
        for gone in ("command", "args"):
            server.pop(gone, None)
    args = p.array("args", required=False)
    if args is not None:
        if server.get("transport") != STDIO:
            raise invalid(f"{p.method}: args belong to a stdio server (one started with a command).", "args")
        if len(args) > ARGS_MAX or not all(isinstance(a, str) for a in args):
            raise invalid(f"{p.method}: args must be a list of at most {ARGS_MAX} strings.", "args")
        server["args"] = args
    elif server.get("transport") == STDIO:
        server.setdefault("args", [])
    if p.has("enabled"):
        server["enabled"] = p.boolean("enabled")
    server.setdefault("enabled", True)
    tools = p.array("disabledTools", required=False)
    if tools is not None:
        if not all(isinstance(t, str) for t in tools):
            raise invalid(f"{p.method}: disabledTools must be a list of tool names.", "disabledTools")
        server["disabledTools"] = sorted(set(tools))
    server.setdefault("disabledTools", [])
    timeout = p.integer("timeoutSeconds", required=False, minimum=1, maximum=TIMEOUT_MAX_S)
    if timeout is not None:
        server["timeoutSeconds"] = timeout
    server.setdefault("timeoutSeconds", DEFAULT_TIMEOUT_S)
    values: dict[str, dict[str, str | None]] = {}
    env, headers = _pairs(p, "env"), _pairs(p, "headers")
    if env is not None:
        if server.get("transport") != STDIO:
            raise invalid(f"{p.method}: env belongs to a stdio server; an HTTP server takes headers.", "env")
        values["env"] = env
    if headers is not None:
        if server.get("transport") != HTTP:
            raise invalid(f"{p.method}: headers belong to a streamable HTTP server (one with a url).", "headers")
        values["header"] = headers
    return server, values


def save(ctx: HostContext, name: str, server: dict[str, Any], values: dict[str, dict[str, str | None]]) -> None:
    """Write the secrets first (their files, then rows), then the kv row naming them; drop what is no longer named."""
    now = ctx.clock()
    for kind, field in (("env", "envKeys"), ("header", "headerKeys")):
        old_keys = set(server.get(field) or [])
        if kind in values:
            new_pairs = values[kind]
            for key, value in new_pairs.items():
                if value is not None:
                    secrets.put(ctx, secret_ref(name, kind, key), value, OWNER_KIND, name, kind)
                elif key not in old_keys:
                    raise invalid(f"There is no stored value for {kind} {key!r} of {name!r} to keep; enter it.", kind)
            for key in old_keys - set(new_pairs):
                secrets.delete(ctx, secret_ref(name, kind, key))
            server[field] = sorted(new_pairs)
        if server.get("transport") == (STDIO if kind == "header" else HTTP):
            for key in server.pop(field, []) or []:  # the transport changed: its old secrets go
                secrets.delete(ctx, secret_ref(name, kind, key))
    server.setdefault("createdAt", now)
    server["updatedAt"] = now
    with ctx.conn:
        kv.put(ctx.conn, NS, name, server, now)


def remove(ctx: HostContext, name: str) -> None:
    with ctx.conn:
        kv.delete(ctx.conn, NS, name)
    for ref in secrets.refs_owned_by(ctx, OWNER_KIND, name):
        secrets.delete(ctx, ref)


def wire(name: str, server: dict[str, Any]) -> dict[str, Any]:
    """A server as ``mcp.list`` shows it: names of env/header entries, never their values."""
    out: dict[str, Any] = {
        "name": name,
        "transport": server.get("transport", STDIO),
        "enabled": bool(server.get("enabled", True)),
        "disabledTools": list(server.get("disabledTools") or []),
        "timeoutSeconds": int(server.get("timeoutSeconds") or DEFAULT_TIMEOUT_S),
        "createdAt": server.get("createdAt"),
        "updatedAt": server.get("updatedAt"),
    }
    if out["transport"] == STDIO:
        out.update({"command": server.get("command", ""), "args": list(server.get("args") or [])})
        out["envKeys"] = list(server.get("envKeys") or [])
    else:
        out.update({"url": server.get("url", ""), "headerKeys": list(server.get("headerKeys") or [])})
    return out


def launch(ctx: HostContext, name: str, server: dict[str, Any]) -> dict[str, Any]:
    """What the agent runtime needs to start ``name``: the configuration with its env/header values."""
    out = wire(name, server)
    for kind, field, target in (("env", "envKeys", "env"), ("header", "headerKeys", "headers")):
        keys = out.pop(field, None)
        if keys is None:
            continue
        pairs: dict[str, str] = {}
        for key in keys:
            value = secrets.get(ctx, secret_ref(name, kind, key))
            if value is not None:
                pairs[key] = value
        out[target] = pairs
    return out


def project_off(conn: apsw.Connection, project_id: int | None) -> set[str]:
    if project_id is None:
        return set()
    value = kv.get(conn, PROJECTS_NS, str(project_id), {})
    off = value.get("off") if isinstance(value, dict) else None
    return {str(n) for n in off} if isinstance(off, list) else set()


def set_project_off(ctx: HostContext, project_id: int, off: set[str]) -> None:
    with ctx.conn:
        if off:
            kv.put(ctx.conn, PROJECTS_NS, str(project_id), {"off": sorted(off)}, ctx.clock())
        else:
            kv.delete(ctx.conn, PROJECTS_NS, str(project_id))


def import_name(raw: str) -> str:
    """A name from another app's file as a name here: other characters become '-', at most 40."""
    name = re.sub(r"[^A-Za-z0-9_-]", "-", raw.strip()).strip("-")[:40]
    return name or "server"


def imported_fields(raw_name: str, entry: Any) -> dict[str, Any]:
    """One ``mcpServers`` entry (``{command, args, env}`` or ``{url, headers}``) as ``mcp.add`` params."""
    if not isinstance(entry, dict):
        raise invalid(f"the entry for {raw_name!r} is not an object")
    kind = str(entry.get("type") or entry.get("transport") or "").lower()
    if kind == "sse":
        raise invalid("it uses the older SSE transport; only stdio and streamable HTTP servers are supported")
    fields: dict[str, Any] = {"name": import_name(raw_name)}
    if entry.get("url") is not None:
        fields["url"] = entry["url"]
        if entry.get("headers") is not None:
            fields["headers"] = entry["headers"]
    elif entry.get("command") is not None:
        fields["command"] = entry["command"]
        for key in ("args", "env"):
            if entry.get(key) is not None:
                fields[key] = entry[key]
    else:
        raise invalid("it has neither a command nor a url")
    if entry.get("disabled") is True:
        fields["enabled"] = False
    return fields
