"""How fast a data-folder move copies and verifies, next to ``cp -a`` + ``sha256sum -c``.

Builds a data root of realistic files in a temporary folder (default 2 GB):
transcripts (JSONL with text, tool calls and attachment references under the
root), attachments (incompressible blobs from a few KB to tens of MB), small
scratch and visualization files, logs and a ``pi.sqlite`` index. Then, in the
same run and on the same tree:

- baseline: ``sha256sum`` of every source file, ``cp -a``, then
  ``sha256sum -c`` on the copy (the same work a verified copy needs);
- pidesktop: the move's streamed copy with SHA-256 of the source, then the
  read-back verification of the copy (``storage.copy.TreeCopy``);
- the offline relocation of the copy, on its own (including its final flush).

Ratio = baseline time / pidesktop time (higher is better; the target is at
least 0.7). Each side runs twice, alternating, and the faster run counts.
Figures are printed, never asserted. Usage::

    python bench/relocate.py [--size-mb 2048] [--keep]
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import orjson

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from quick import add_quick

from pidesktop.formats.index.db import open_database
from pidesktop.storage import inventory
from pidesktop.storage.copy import Pair, TreeCopy
from pidesktop.storage.relocate import relocate

WORDS = (
    "the a to of and in is it for on that with this as be file function value error test run build "
    "python query index layout window message session cache disk offset line scan parse result"
).split()
MB = 1 << 20


def text(rng: random.Random, words: int) -> str:
    return " ".join(rng.choices(WORDS, k=words))


def build(root: Path, size: int, rng: random.Random) -> None:
    """About ``size`` bytes: 55% attachments, 30% transcripts, 10% small files, the rest logs and database."""
    for name in ("sessions", "attachments", "scratch", "visualizations", "logs/host", "cache"):
        (root / name).mkdir(parents=True, exist_ok=True)
    written = 0
    budget = int(size * 0.55)
    while written < budget:  # attachments: content-addressed blobs
        blob_size = min(budget - written, int(rng.lognormvariate(12.5, 1.6)) + 1024, 48 * MB)
        (root / "attachments" / f"{rng.getrandbits(128):032x}").write_bytes(os.urandom(blob_size))
        written += blob_size
    budget += int(size * 0.30)
    session = 0
    while written < budget:  # transcripts
        session += 1
        sid = f"{session:08d}-bench"
        lines = [
            orjson.dumps({"type": "session", "schema": 2, "sessionId": sid, "createdAt": "2026-01-01T00:00:00.000Z"})
        ]
        target = min(budget - written, int(rng.lognormvariate(13, 1.2)) + 4096)
        used = len(lines[0])
        number = 0
        while used < target:
            number += 1
            if number % 7 == 0:
                blocks = [
                    {
                        "type": "tool_call",
                        "callId": f"c{number}",
                        "name": "Write",
                        "args": {"path": f"{root}/scratch/{sid}/out{number}.txt", "content": text(rng, 60)},
                        "result": f"wrote {root}/scratch/{sid}/out{number}.txt",
                        "status": "ok",
                    }
                ]
            elif number % 11 == 0:
                blocks = [{"type": "attachment", "name": "a.png", "ref": f"{root}/attachments/{number:064x}"}]
            else:
                blocks = [{"type": "text", "text": text(rng, rng.randint(5, 300))}]
            line = orjson.dumps(
                {
                    "type": "message",
                    "id": f"m{number}",
                    "role": "user" if number % 2 else "assistant",
                    "blocks": blocks,
                    "createdAt": "2026-01-01T00:00:00.000Z",
                }
            )
            lines.append(line)
            used += len(line) + 1
        data = b"\n".join(lines) + b"\n"
        (root / "sessions" / f"{sid}.jsonl").write_bytes(data)
        (root / "scratch" / sid).mkdir(exist_ok=True)
        written += len(data)
    budget += int(size * 0.10)
    number = 0
    while written < budget:  # small files: scratch inputs and visualization fragments
        number += 1
        small = rng.randint(512, 48 * 1024)
        folder = root / ("scratch" if number % 2 else "visualizations") / f"s{number % 200:04d}"
        folder.mkdir(exist_ok=True)
        (folder / f"f{number}.txt").write_bytes(text(rng, small // 6).encode()[:small])
        written += small
    log = (orjson.dumps({"level": "info", "msg": text(rng, 12)}) + b"\n") * max(1, (size - written) // 2 // 80)
    (root / "logs" / "host" / "host.ndjson").write_bytes(log)
    conn = open_database(root / "pi.sqlite")
    with conn:
        conn.execute(
            "INSERT INTO projects(path, name, created_at, last_opened_at) VALUES (?, 'p', 0, 0)",
            (f"{root}/scratch/project",),
        )
        conn.execute("INSERT INTO sessions(id, created_at, updated_at) VALUES ('s', 0, 0)")
        conn.executemany(
            "INSERT INTO messages(id, session_id, seq, role, text, created_at) VALUES (?, 's', ?, 'user', ?, 0)",
            [(f"m{i}", i, text(rng, 40)) for i in range(1, 20001)],
        )
    conn.close()


def tree_files(root: Path) -> list[str]:
    return sorted(str(p.relative_to(root)) for p in root.rglob("*") if p.is_file() and not p.is_symlink())


def baseline(src: Path, dst: Path, work: Path) -> tuple[float, list[float]]:
    """(total, [sha256sum of the source, cp -a, sha256sum -c of the copy])."""
    files = tree_files(src)
    listing = work / "files.txt"
    listing.write_text("\0".join(files))
    sums = work / "sums.txt"
    marks = [time.perf_counter()]
    with open(sums, "wb") as out, open(listing, "rb") as names:
        subprocess.run(["xargs", "-0", "sha256sum", "--"], stdin=names, stdout=out, cwd=src, check=True)
    marks.append(time.perf_counter())
    subprocess.run(["cp", "-a", str(src), str(dst)], check=True)
    marks.append(time.perf_counter())
    subprocess.run(["sha256sum", "--quiet", "-c", str(sums)], cwd=dst, check=True, stdout=subprocess.DEVNULL)
    marks.append(time.perf_counter())
    return marks[-1] - marks[0], [b - a for a, b in zip(marks, marks[1:])]


def ours(src: Path, dst: Path) -> float:
    start = time.perf_counter()
    tree = inventory.scan(src)
    copier = TreeCopy([Pair(tree, dst)])
    copier.copy()
    copier.verify()
    copier.finish_dirs()
    return time.perf_counter() - start


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--size-mb", type=int, default=2048, help="size of the generated data root")
    parser.add_argument("--keep", action="store_true", help="leave the temporary folder behind")
    add_quick(parser, size_mb=64)
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="pidesktop-bench-relocate-"))
    try:
        src = work / "source"
        t0 = time.perf_counter()
        build(src, args.size_mb * MB, random.Random(7))
        tree = inventory.scan(src)
        print(f"data root: {tree.bytes / MB:.0f} MiB in {tree.files} files (built in {time.perf_counter() - t0:.1f} s)")
        base_runs, our_times = [], []
        for _ in range(2):
            for name in ("baseline", "pidesktop"):
                dst = work / f"copy-{name}"
                shutil.rmtree(dst, ignore_errors=True)
                if name == "baseline":
                    base_runs.append(baseline(src, dst, work))
                else:
                    our_times.append(ours(src, dst))
                shutil.rmtree(dst)
        base, parts = min(base_runs)
        mine = min(our_times)
        mib = tree.bytes / MB
        print(
            f"cp -a + sha256sum -c      {base:7.2f} s  {mib / base:7.0f} MiB/s  "
            f"(sha256sum {parts[0]:.2f} s, cp -a {parts[1]:.2f} s, sha256sum -c {parts[2]:.2f} s)"
        )
        print(f"pidesktop copy + verify   {mine:7.2f} s  {mib / mine:7.0f} MiB/s")
        print(f"ratio (baseline / ours)   {base / mine:7.2f}x   (target >= 0.7x)")
        dst = work / "relocated"
        ours(src, dst)
        os.sync()  # time the relocation's own writes, not the copy's writeback
        start = time.perf_counter()
        report = relocate(src, dst)
        took = time.perf_counter() - start
        print(
            f"relocation of the copy    {took:7.2f} s  {report.fields_changed} fields in "
            f"{len(report.files_rewritten)} files, rows {report.rows_changed}"
        )
    finally:
        if args.keep:
            print(f"kept {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
