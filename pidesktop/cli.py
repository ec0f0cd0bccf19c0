"""Command line: the GUI by default, and the headless tools beside it.

    pidesktop                          open the app on the default data root
    pidesktop host --stdio [--data-dir PATH]
                                       serve the host as JSON-RPC on stdin/stdout
    pidesktop --screenshot PATH [--session ID] [--theme light|dark]
                                       render the main window offscreen and save a PNG
"""

from __future__ import annotations

import argparse
import sys


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="pidesktop", description="A local-first desktop chat app.")
    parser.add_argument("--data-dir", help="use this data folder (same as PI_DESKTOP_DATA_DIR)")
    parser.add_argument("--screenshot", metavar="PATH", help="render the main window offscreen to PATH and exit")
    parser.add_argument("--session", metavar="ID", help="with --screenshot: open this session")
    parser.add_argument("--theme", choices=("light", "dark"), help="force a theme")
    sub = parser.add_subparsers(dest="command")
    host = sub.add_parser("host", help="run the host without a window")
    host.add_argument("--stdio", action="store_true", required=True, help="JSON-RPC 2.0 on stdin/stdout")
    host.add_argument("--data-dir", dest="host_data_dir", help="use this data folder")
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if args.command == "host":
        return _run_stdio_host(args.host_data_dir or args.data_dir)
    from .app import run_gui  # Qt is imported only when a window is wanted

    return run_gui(data_dir=args.data_dir, screenshot=args.screenshot, session_id=args.session, theme=args.theme)


def _run_stdio_host(data_dir: str | None) -> int:
    from . import logs, paths
    from .bus import stdio
    from .host.core import opener

    try:
        location = paths.resolve(data_dir=data_dir)
        paths.prepare_data_root(location)
    except (paths.StorageLocationError, OSError) as exc:
        print(f"pidesktop host: {exc}", file=sys.stderr)
        return 2
    logs.configure(location.data_root, "host")
    return stdio.run(opener(location, role="pidesktop host --stdio"))
