"""Command line: the GUI by default, and the headless tools beside it.

pidesktop                          open the app on the default data root
pidesktop --version                print the version and the data schema version it reads and writes
pidesktop host --stdio [--data-dir PATH]
                                   serve the host as JSON-RPC on stdin/stdout
pidesktop chat [--session ID | --project DIR] [--permission-mode ask|accept-edits|auto] [--interactive]
               [--base-url URL --model M [--api-key-env NAME]] [--context-window N] PROMPT
                                   one turn without a window; the reply goes to stdout
               [--mode agent|plan|goal] [--interactive]
                                   Plan/Goal need --interactive (approve on stdin), else they are refused
pidesktop chat --session ID --compact [--context-window N]
                                   summarise the chat's older part now (a compaction checkpoint)
pidesktop --screenshot PATH [--session ID] [--theme light|dark]
                                   render the main window offscreen and save a PNG
pidesktop data status|verify|repair|backup PATH|move [DEST]|clean-cache|clean-backups [ID --yes]
                                   look after the data folder (see docs/storage.md)
pidesktop --relocate-data OLD NEW  rewrite paths in a copied data folder from OLD to NEW, offline
pidesktop automations run-due [--task ID] [--data-dir PATH]
                                   run the scheduled prompts that are due (or one task now), then exit
pidesktop export SESSION_ID --format md|json [--output PATH]
                                   write a chat as Markdown or lossless JSON (stdout by default)
pidesktop import claude-code|codex|pi [PATH ...]
                                   import another agent's sessions as chats (default: its folder under HOME)
"""

from __future__ import annotations

import argparse
import os
import sys

from pidesktop import __version__

# The words that name a command; any other start opens the window.
COMMANDS = frozenset({"host", "chat", "export", "data", "automations", "import", "mcp", "sync"})


def build_parser() -> argparse.ArgumentParser:
    from pidesktop.commands import automations_cli, import_cli, mcp_cli, sync_cli
    from pidesktop.commands import data_cli as storage_cli

    parser = _window_parser()
    sub = parser.add_subparsers(dest="command")
    host = sub.add_parser("host", help="run the host without a window")
    host.add_argument("--stdio", action="store_true", required=True, help="JSON-RPC 2.0 on stdin/stdout")
    host.add_argument("--data-dir", dest="host_data_dir", help="use this data folder")
    chat = sub.add_parser("chat", help="send one prompt and print the reply (no window)")
    chat.add_argument("prompt", nargs="?", help="what to ask (leave out with --compact)")
    chat.add_argument("--session", dest="chat_session", metavar="ID", help="continue this chat")
    chat.add_argument("--base-url", help="an OpenAI-compatible endpoint, e.g. http://localhost:11434/v1")
    chat.add_argument("--model", help="with --base-url: the model id")
    chat.add_argument("--api-key-env", metavar="NAME", help="read the API key from this environment variable")
    chat.add_argument("--show-thinking", action="store_true", help="print the model's thinking to stderr")
    chat.add_argument(
        "--context-window",
        type=int,
        metavar="TOKENS",
        help="the model's context window for this run (overrides the model's own)",
    )
    chat.add_argument("--compact", action="store_true", help="with --session: compact the chat instead of asking")
    chat.add_argument("--data-dir", dest="chat_data_dir", help="use this data folder")
    chat.add_argument("--mode", choices=("agent", "plan", "goal"), help="set the chat's mode first")
    chat.add_argument(
        "--interactive",
        action="store_true",
        help="ask on stdin when a plan or goal needs approval or a tool call needs permission "
        "(else Plan/Goal runs are refused and such calls denied)",
    )
    chat.add_argument("--project", metavar="DIR", help="a new chat in this project folder (registered when new)")
    chat.add_argument(
        "--permission-mode",
        choices=("ask", "accept-edits", "auto"),
        help="what the chat's tools may do without asking (auto: everything, commands in the sandbox)",
    )
    export = sub.add_parser("export", help="write a chat as Markdown or JSON (no window)")
    export.add_argument("export_session", metavar="SESSION_ID", help="the chat to export")
    export.add_argument("--format", dest="export_format", choices=("md", "json"), required=True)
    export.add_argument("--output", metavar="PATH", help="write to this file instead of stdout")
    export.add_argument("--data-dir", dest="export_data_dir", help="use this data folder")
    storage_cli.add_parser(sub)
    automations_cli.add_parser(sub)
    import_cli.add_parser(sub)
    mcp_cli.add_parser(sub)
    sync_cli.add_parser(sub)
    return parser


def _window_parser() -> argparse.ArgumentParser:
    """The options of the window's own start (and ``--version``), without the commands."""
    parser = argparse.ArgumentParser(prog="pidesktop", description="A local-first desktop chat app.")
    parser.add_argument("--version", action="store_true", help="print the version and the data schema version")
    parser.add_argument("--data-dir", help="use this data folder (same as PI_DESKTOP_DATA_DIR)")
    parser.add_argument("--screenshot", metavar="PATH", help="render the main window offscreen to PATH and exit")
    parser.add_argument("--session", metavar="ID", help="with --screenshot: open this session")
    parser.add_argument("--theme", choices=("light", "dark"), help="force a theme")
    parser.add_argument(
        "--relocate-data",
        nargs=2,
        metavar=("OLD", "NEW"),
        help="rewrite the paths in the copied data folder NEW from OLD to NEW, then exit",
    )
    return parser


def parse(argv: list[str]) -> argparse.Namespace:
    """The command line read. A start of the window (no command named, no help asked for) is read by the
    window's options alone, so the commands' modules are not imported before its first paint; anything else,
    and anything those options do not take, by the whole parser (its errors name the commands)."""
    if not (COMMANDS.intersection(argv) or {"-h", "--help", "--"}.intersection(argv)):
        args, rest = _window_parser().parse_known_args(argv)
        if not rest:
            args.command, args.mcp_command = None, []
            return args
    from pidesktop.commands import mcp_cli

    argv, server_command = mcp_cli.split_command(argv)
    args = build_parser().parse_args(argv)
    args.mcp_command = server_command
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse(list(sys.argv[1:] if argv is None else argv))
    if args.version:
        print(version_line())
        return 0
    if args.relocate_data:
        from pidesktop.commands import data_cli as storage_cli

        return storage_cli.relocate_data(*args.relocate_data)
    if args.command is None:
        return _run_window(args)
    from pidesktop.commands import automations_cli, import_cli, mcp_cli, sync_cli
    from pidesktop.commands import data_cli as storage_cli

    if args.command == "data":
        return storage_cli.run(args)
    if args.command == "automations":
        return automations_cli.run(args)
    if args.command == "import":
        return import_cli.run(args)
    if args.command == "mcp":
        return mcp_cli.run(args)
    if args.command == "sync":
        return sync_cli.run(args)
    if args.command == "host":
        return _run_stdio_host(args.host_data_dir or args.data_dir)
    if args.command == "chat":
        from pidesktop.commands.headless import run_chat

        return run_chat(
            args.prompt,
            session_id=args.chat_session,
            base_url=args.base_url,
            model=args.model,
            api_key_env=args.api_key_env,
            data_dir=args.chat_data_dir or args.data_dir,
            show_thinking=args.show_thinking,
            context_window=args.context_window,
            compact=args.compact,
            mode=args.mode,
            interactive=args.interactive,
            project=args.project,
            permission_mode=args.permission_mode,
        )
    if args.command == "export":
        from pidesktop.commands.export_command import run_export

        return run_export(args.export_session, args.export_format, args.output, args.export_data_dir or args.data_dir)
    raise AssertionError(f"no command {args.command!r}")  # argparse refuses any other


def _run_window(args: argparse.Namespace) -> int:
    if args.screenshot:
        # The picture is rendered offscreen, also on a machine without a display.
        os.environ["QT_QPA_PLATFORM"] = "offscreen"
    from pidesktop.ui.startup import gc_pauses

    gc_pauses.pause_start()  # until the window is built (pidesktop.app): its start is all long-lived objects
    try:
        from pidesktop.app import run_gui  # Qt is imported only when a window is wanted

        return run_gui(data_dir=args.data_dir, screenshot=args.screenshot, session_id=args.session, theme=args.theme)
    finally:
        gc_pauses.resume()  # a start that ended before the window was built


def version_line() -> str:
    from pidesktop.formats.index.schema import SCHEMA_VERSION

    return f"pidesktop {__version__} (data schema v{SCHEMA_VERSION})"


def _run_stdio_host(data_dir: str | None) -> int:
    from pidesktop import crash_dumps, logs, paths
    from pidesktop.bus import stdio
    from pidesktop.host import storage_errors
    from pidesktop.host.core import opener
    from pidesktop.storage import recovery

    try:
        location = recovery.location_for_host(data_dir)  # a pending move finishes before any host opens
    except (paths.StorageLocationError, recovery.RecoveryError, OSError) as exc:
        # A client still gets an answer to every call: the reason, as STORAGE_UNAVAILABLE.
        print(f"pidesktop host: {exc}", file=sys.stderr)
        stdio.run(stdio.unavailable_opener(f"The data folder cannot be used: {exc}", storage_errors.cause(exc)))
        return 2
    try:
        logs.configure(location.data_root, "host")
    except OSError as exc:  # the host's own open then says what is wrong, call by call
        print(f"pidesktop host: cannot write the log in the data folder: {exc}", file=sys.stderr)
    else:
        crash_dumps.arm(location.data_root)
    return stdio.run(opener(location, role="pidesktop host --stdio"))
