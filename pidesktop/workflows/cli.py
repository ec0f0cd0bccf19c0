"""``pi-workflows``: the Pi Workflows state command line."""

from __future__ import annotations

import argparse
import sys


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="pi-workflows", description="Inspect the Pi Workflows state database.")
    sub = parser.add_subparsers(dest="command")
    state = sub.add_parser("state", help="state database tools")
    state.add_argument("action", choices=("status", "verify", "backup"))
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help()
        return 0
    print(f"pi-workflows state {args.action}: not available in this version yet.", file=sys.stderr)
    return 2
