"""`make bench`: every benchmark in bench/, each printing its figures next to a baseline from the same run.

A benchmark is any ``bench/*.py`` with a ``main()`` run under ``if __name__ == "__main__"``,
so a new one is picked up without being listed here. ``--quick`` runs each with its small
sizes (the whole run in under two minutes); a bench that does not take ``--quick`` is
skipped then, and named. A bench fails when it cannot measure (an exception, a
scenario that did nothing); a target it misses is printed beside its figure
(MISSED, OVER, NO), not a failure. Names narrow the run::

    python bench/run.py [--quick] [transcripts peers ...]
"""

from __future__ import annotations

import argparse
import ast
import os
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
# Slow, very large data (a 1 GiB backup, a 2 GB tree) or a peer that may be missing: run last.
LAST = ("backup", "relocate", "peers")


def benchmarks() -> list[Path]:
    """Every bench/*.py (but this one) that defines main() and calls it when run as a script."""
    found = []
    for path in sorted(HERE.glob("*.py")):
        if path.name == Path(__file__).name:
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        has_main = any(isinstance(node, ast.FunctionDef) and node.name == "main" for node in tree.body)
        runs_main = any(isinstance(node, ast.If) and "__main__" in ast.unparse(node.test) for node in tree.body)
        if has_main and runs_main:
            found.append(path)
    return sorted(found, key=lambda p: (p.stem in LAST, LAST.index(p.stem) if p.stem in LAST else 0, p.stem))


def takes_quick(path: Path) -> bool:
    text = path.read_text(encoding="utf-8")
    return "add_quick(" in text or '"--quick"' in text


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="small sizes; the whole run in under two minutes")
    parser.add_argument("names", nargs="*", help="run only these benches (file names without .py)")
    args = parser.parse_args()
    found = benchmarks()
    unknown = set(args.names) - {p.stem for p in found}
    if unknown:
        parser.error(f"no benchmark named {', '.join(sorted(unknown))}; there are: {', '.join(p.stem for p in found)}")
    chosen = [p for p in found if not args.names or p.stem in args.names]
    env = {**os.environ, "QT_QPA_PLATFORM": os.environ.get("QT_QPA_PLATFORM", "offscreen")}
    failed, skipped, times = [], [], []
    started = time.perf_counter()
    for path in chosen:
        command = [sys.executable, str(path)]
        if args.quick:
            if not takes_quick(path):
                skipped.append(path.name)
                continue
            command.append("--quick")
        print(f"\n=== bench/{path.name}{' --quick' if args.quick else ''} ===", flush=True)
        t0 = time.perf_counter()
        if subprocess.call(command, env=env) != 0:
            failed.append(path.name)
        times.append((path.name, time.perf_counter() - t0))
    print(
        f"\n=== {len(times)} benchmarks in {time.perf_counter() - started:.0f} s: "
        + ", ".join(f"{name} {seconds:.0f} s" for name, seconds in times)
    )
    if skipped:
        print(f"skipped in --quick (no --quick option): {', '.join(skipped)}")
    if failed:
        print(f"FAILED: {', '.join(failed)}")
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
