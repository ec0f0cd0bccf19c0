"""``--quick``: the small sizes every benchmark offers for a check before a commit.

Each bench calls ``add_quick(parser, name=small, ...)`` before ``parse_args``;
with ``--quick`` on the command line those become the defaults, so an explicit
option (``--quick --messages 5000``) still wins. ``bench/run.py --quick`` passes
the flag to every bench that takes it and keeps the whole run under two minutes.
"""

from __future__ import annotations

import argparse
import sys

FLAG = "--quick"


def add_quick(parser: argparse.ArgumentParser, **small) -> None:
    parser.add_argument(FLAG, action="store_true", help="small sizes, for a check before a commit")
    if FLAG in sys.argv[1:]:
        parser.set_defaults(**small)
