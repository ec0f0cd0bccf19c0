"""``pidesktop mcp``: MCP servers without the window, in ``claude mcp``'s conventions.

    pidesktop mcp add NAME [--env K=V ...] -- COMMAND [ARGS...]   a stdio server
    pidesktop mcp add NAME --url URL [--header K=V ...]          a streamable HTTP server
    pidesktop mcp list [--tools]                                  name, transport, state (and tools)
    pidesktop mcp remove NAME
    pidesktop mcp import FILE                                     Claude Desktop / Cursor JSON

``list --tools`` starts each enabled server here to list its tools, then
stops it. Exit 0 on success, 1 when something asked for failed (a server
that did not start, an import that added nothing), 2 for a bad command line
or an unusable data folder.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pidesktop.bus import HostClient, HostThread

PROG = "pidesktop mcp"


def add_parser(sub: argparse._SubParsersAction) -> None:
    mcp = sub.add_parser("mcp", help="add, list, remove or import MCP servers (no window)")
    actions = mcp.add_subparsers(dest="mcp_action", required=True, metavar="ACTION")
    add = actions.add_parser(
        "add",
        help="add a server: NAME -- COMMAND [ARGS...], or NAME --url URL",
        usage=f"{PROG} add NAME [options] -- COMMAND [ARGS...]",
    )
    add.add_argument("mcp_name", metavar="NAME")
    add.add_argument("--url", dest="mcp_url", help="a streamable HTTP server's URL")
    add.add_argument("--env", dest="mcp_env", action="append", default=[], metavar="K=V", help="repeatable")
    add.add_argument("--header", dest="mcp_headers", action="append", default=[], metavar="K=V", help="repeatable")
    add.add_argument("--timeout", dest="mcp_timeout", type=int, help="seconds a call may take (default 60)")
    listing = actions.add_parser("list", help="name, transport and state of each server")
    listing.add_argument("--tools", dest="mcp_tools", action="store_true", help="start the servers and list tools")
    remove = actions.add_parser("remove", help="remove a server and its stored keys")
    remove.add_argument("mcp_name", metavar="NAME")
    importing = actions.add_parser("import", help='import {"mcpServers": ...} from Claude Desktop or Cursor')
    importing.add_argument("mcp_file", metavar="FILE")
    for action in (add, listing, remove, importing):
        action.add_argument("--data-dir", dest="mcp_data_dir", help="use this data folder")


def split_command(argv: list[str]) -> tuple[list[str], list[str]]:
    """``mcp add NAME ... -- COMMAND [ARGS...]``: the options, and the server's command line after ``--``.

    Split before parsing, so the command's own options (``-y``, ``--port``) are never read as ours.
    """
    try:
        mcp, dashes = argv.index("mcp"), argv.index("--")
    except ValueError:
        return argv, []
    if mcp + 1 < dashes and argv[mcp + 1] == "add":
        return argv[:dashes], argv[dashes + 1 :]
    return argv, []


def _pairs(items: list[str], flag: str) -> dict[str, str] | None:
    pairs: dict[str, str] = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key:
            print(f"{PROG}: {flag} takes KEY=VALUE, not {item!r}", file=sys.stderr)
            return None
        pairs[key] = value
    return pairs


def _add_params(args: argparse.Namespace) -> dict[str, Any] | None:
    params: dict[str, Any] = {"name": args.mcp_name}
    if args.mcp_url and args.mcp_command:
        print(f"{PROG}: give either --url URL or -- COMMAND [ARGS...], not both", file=sys.stderr)
        return None
    if not args.mcp_url and not args.mcp_command:
        print(f"{PROG}: give the command after --, e.g. mcp add files -- npx -y SERVER, or --url URL", file=sys.stderr)
        return None
    env, headers = _pairs(args.mcp_env, "--env"), _pairs(args.mcp_headers, "--header")
    if env is None or headers is None:
        return None
    if args.mcp_url:
        params["url"] = args.mcp_url
        if headers:
            params["headers"] = headers
        if env:
            print(f"{PROG}: --env is for a stdio server; an HTTP server takes --header", file=sys.stderr)
            return None
    else:
        params["command"], params["args"] = args.mcp_command[0], args.mcp_command[1:]
        if env:
            params["env"] = env
        if headers:
            print(f"{PROG}: --header is for an HTTP server (--url); a stdio server takes --env", file=sys.stderr)
            return None
    if args.mcp_timeout is not None:
        params["timeoutSeconds"] = args.mcp_timeout
    return params


def run(args: argparse.Namespace) -> int:
    params: dict[str, Any] | None = None
    if args.mcp_action == "add":
        params = _add_params(args)
        if params is None:
            return 2
    elif args.mcp_action == "import":
        try:
            with open(args.mcp_file, encoding="utf-8") as f:
                params = {"config": json.load(f)}
        except (OSError, ValueError) as exc:
            print(f"{PROG}: cannot read {args.mcp_file}: {exc}", file=sys.stderr)
            return 2
    import asyncio

    from pidesktop.commands.command_host import start_host

    host = start_host(args.mcp_data_dir or args.data_dir, PROG, "agent")
    if host is None:
        return 2
    try:
        return asyncio.run(_run(host, args, params))
    finally:
        host.stop()


async def _run(host: HostThread, args: argparse.Namespace, params: dict[str, Any] | None) -> int:
    import asyncio

    from pidesktop.bus import ErrorCode, HostClient, HostError

    client = HostClient(host, asyncio.get_running_loop())
    try:
        await client.call("app.handshake", {"protocolVersion": 1})
        if args.mcp_action == "add":
            server = (await client.call("mcp.add", params))["server"]
            print(f"added {server['name']} ({server['transport']})")
            return 0
        if args.mcp_action == "remove":
            await client.call("mcp.remove", {"name": args.mcp_name})
            print(f"removed {args.mcp_name}")
            return 0
        if args.mcp_action == "import":
            return _imported(await client.call("mcp.import", params))
        return await _list(client, args.mcp_tools)
    except HostError as exc:
        print(f"{PROG}: {exc.message}", file=sys.stderr)
        return 2 if exc.code == ErrorCode.INVALID_PARAMS else 1
    finally:
        client.close()


def _imported(result: dict[str, Any]) -> int:
    for server in result["added"]:
        print(f"added {server['name']} ({server['transport']})")
    for skipped in result["skipped"]:
        print(f"{PROG}: skipped {skipped['name']}: {skipped['reason']}", file=sys.stderr)
    return 0 if result["added"] or not result["skipped"] else 1


async def _list(client: HostClient, with_tools: bool) -> int:
    servers = (await client.call("mcp.list", {}))["servers"]
    if not servers:
        print("no MCP servers; add one with: pidesktop mcp add NAME -- COMMAND [ARGS...]")
        return 0
    failed: dict[str, str] = {}
    tools: dict[str, list[str]] = {}
    if with_tools:
        from pidesktop.agent.mcp.pool import McpPool

        pool = McpPool(client)
        try:
            offer = await pool.offer(None)
            failed = offer.failed
            tools = pool.running()
        finally:
            await pool.aclose()
    for server in servers:
        name = server["name"]
        target = server.get("url") or " ".join([server.get("command", ""), *server.get("args", [])])
        if not server["enabled"]:
            state = "disabled"
        elif name in failed:
            state = "failed"
        elif name in tools:
            state = f"ready, {len(tools[name])} tools"
        else:
            state = "enabled"
        print(f"{name}\t{server['transport']}\t{state}\t{target}")
        if name in tools:
            hidden = set(server.get("disabledTools") or [])
            for tool in tools[name]:
                print(f"  {tool}{' (off)' if tool in hidden else ''}")
        if name in failed:
            print(f"  {failed[name]}")
    return 1 if failed else 0
