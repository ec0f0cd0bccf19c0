"""Migrating a v14 ``pi.sqlite`` with 100k messages to v27, next to copying the same file.

Builds a v14 database (the v27 DDL with v15-v27 taken out, as
``tests/support/migration_support.py`` does) holding ``--messages`` messages in 100
chats, then, alternately in the same run, ``--runs`` times:

- ``migrations.migrate``: checkpoint, exact backup (copy, fsync,
  ``integrity_check`` on the copy, on a thread while the steps run), all
  thirteen steps in one transaction, the v27 shape and foreign-key checks,
  commit, checkpoint;
- the baselines: ``shutil.copyfile`` of the same file, the same copy
  followed by an fsync (the least a durable backup can cost), and the copy
  followed by ``integrity_check`` on it (the least a checked backup, the one
  the migration must make, can cost).

Prints medians and the ratios (target: migrate within 3x of copyfile), and the
share of the migration spent in each phase. ``integrity_check`` reads and
verifies every page and index entry, so on its own it is many times a copy:
the copy-and-check baseline shows how close the migration is to that floor.

    python bench/migrate.py [--messages 100000] [--runs 3]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

import apsw
from quick import add_quick

from pidesktop.formats.index import migrations
from tests.support.migration_support import build

TARGET = 3.0


def copy_fsync(source: Path, target: Path) -> None:
    shutil.copyfile(source, target)
    fd = os.open(target, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def copy_check(source: Path, target: Path) -> None:
    copy_fsync(source, target)
    conn = apsw.Connection(f"file:{target}?mode=ro", flags=apsw.SQLITE_OPEN_READONLY | apsw.SQLITE_OPEN_URI)
    try:
        assert conn.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
    finally:
        conn.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--messages", type=int, default=100_000)
    parser.add_argument("--runs", type=int, default=3)
    add_quick(parser, messages=10_000, runs=1)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="pidesktop-bench-") as tmp:
        work = Path(tmp)
        pristine = build(work / "pristine.sqlite", 14, sessions=100, messages=args.messages)
        size = pristine.stat().st_size
        print(
            f"v14 database: {args.messages} messages in 100 chats, {size / 2**20:.0f} MiB; "
            f"medians of {args.runs} runs (target: migrate <= {TARGET:.0f}x copyfile)"
        )
        migrate_times, copy_times, fsync_times, check_times = [], [], [], []
        phases: dict[str, list[float]] = {}
        for run in range(args.runs):
            root = work / f"run{run}"
            root.mkdir()
            db = root / "pi.sqlite"
            shutil.copyfile(pristine, db)

            started = time.perf_counter()
            shutil.copyfile(db, root / "baseline.copy")
            copy_times.append(time.perf_counter() - started)
            (root / "baseline.copy").unlink()

            started = time.perf_counter()
            copy_fsync(db, root / "baseline.copy")
            fsync_times.append(time.perf_counter() - started)
            (root / "baseline.copy").unlink()

            started = time.perf_counter()
            copy_check(db, root / "baseline.copy")
            check_times.append(time.perf_counter() - started)
            (root / "baseline.copy").unlink()

            marks: list[tuple[str, float]] = []
            started = time.perf_counter()
            report = migrations.migrate(db, lambda phase, done, total: marks.append((phase, time.perf_counter())))
            migrate_times.append(time.perf_counter() - started)
            assert report.to_version == 27
            spans: dict[str, float] = {}
            previous = started
            for phase, at in marks:
                spans[phase] = spans.get(phase, 0.0) + at - previous
                previous = at
            for phase, seconds in spans.items():
                phases.setdefault(phase, []).append(seconds)
            shutil.rmtree(root)
        migrate_s, copy_s, fsync_s, check_s = (
            statistics.median(t) for t in (migrate_times, copy_times, fsync_times, check_times)
        )
        print(f"{'migrate v14->v27':>22} | {migrate_s * 1000:8.0f} ms")
        print(
            f"{'shutil.copyfile':>22} | {copy_s * 1000:8.0f} ms | ratio {migrate_s / copy_s:5.1f}x "
            f"({'within' if migrate_s / copy_s <= TARGET else 'over'} the {TARGET:.0f}x target)"
        )
        print(f"{'copyfile + fsync':>22} | {fsync_s * 1000:8.0f} ms | ratio {migrate_s / fsync_s:5.1f}x")
        print(
            f"{'copy + integrity_check':>22} | {check_s * 1000:8.0f} ms | ratio {migrate_s / check_s:5.1f}x "
            f"(the checked backup alone)"
        )
        labels = (
            ("checkpoint", "checkpoint"),
            ("backup", "copy + fsync"),
            ("migrate", "13 steps"),
            ("check", "v27/FK checks + waiting for the copy's integrity_check + commit"),
            ("done", "final checkpoint"),
        )
        detail = "; ".join(
            f"{label} {statistics.median(phases[p]) * 1000:.0f} ms" for p, label in labels if p in phases
        )
        print(f"where the migration's time goes: {detail}")


if __name__ == "__main__":
    main()
