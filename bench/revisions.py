"""Growth of ``sessions/<id>.revisions.jsonl`` over a long branch, next to a naive baseline.

Runs the host in this process (``Host.dispatch``, no thread hop) on a
temporary data root. One branch grows for N turns: each turn is a user prompt
whose ``meta.revisionRootId`` is the branch root (a regenerate/edit family
continuation) and an assistant reply of 1-3 KB, inside a turn, followed by
``session.saveActiveRevision`` for the root, as the app does when a turn ends.

Printed next to each other, both measured in this run:

- the host's file: bytes added per turn (target: constant, <= 128 bytes per
  ``revision_live`` line) and the total;
- a baseline written here: after every turn, one JSON line holding the whole
  branch so far (every message plus its turn links), fsynced, which is what a
  file that stores the live suffix on each save does; it grows quadratically
  (spec 004 section 2.1: 107 MB written to hold 16 MB of unique content).

    python bench/revisions.py [--turns 200] [--seed 20261130]
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import tempfile
import time
import uuid
from pathlib import Path

import orjson

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from quick import add_quick

from pidesktop import paths
from pidesktop.host.core import Host

WORDS = (
    "the",
    "branch",
    "reply",
    "kelp",
    "forest",
    "tide",
    "model",
    "answer",
    "revision",
    "line",
    "file",
    "growth",
    "history",
    "turn",
    "prompt",
    "variant",
    "archive",
    "index",
    "session",
    "transcript",
)
TARGET_LINE = 128


def open_host(root: Path) -> Host:
    return Host.open(paths.resolve(data_dir=root), emit=lambda topic, payload: None, role="bench")


def reply_text(rng: random.Random) -> str:
    size = rng.randint(1024, 3072)
    words = []
    length = 0
    while length < size:
        word = rng.choice(WORDS)
        words.append(word)
        length += len(word) + 1
    return " ".join(words)[:size]


def naive_append(path: Path, root_id: str, branch: list[dict], links: dict[str, str], created: str) -> None:
    """Store the whole live branch as one line, as a file that copies the suffix on every save would."""
    line = (
        orjson.dumps(
            {
                "type": "revision",
                "rootUserId": root_id,
                "revisionIndex": 1,
                "createdAt": created,
                "messages": [{"type": "message", **m} for m in branch],
                "turns": links,
            }
        )
        + b"\n"
    )
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
    try:
        os.write(fd, line)
        os.fsync(fd)
    finally:
        os.close(fd)


def run(turns: int, rng: random.Random) -> dict:
    with tempfile.TemporaryDirectory(prefix="pidesktop-bench-") as tmp:
        root = Path(tmp) / "data"
        host = open_host(root)
        try:
            call = host.dispatch
            sid = call("session.create", {"title": "long branch"})["session"]["id"]
            revisions = root / "sessions" / f"{sid}.revisions.jsonl"
            transcript = root / "sessions" / f"{sid}.jsonl"
            naive = Path(tmp) / "naive.revisions.jsonl"
            root_id = str(uuid.uuid4())
            branch: list[dict] = []
            links: dict[str, str] = {}
            host_growth, naive_growth, host_times, naive_times = [], [], [], []
            for turn in range(turns):
                turn_id = str(uuid.uuid4())
                call("session.startTurn", {"sessionId": sid, "turnId": turn_id})
                prompt_id = root_id if turn == 0 else str(uuid.uuid4())
                prompt = {
                    "id": prompt_id,
                    "role": "user",
                    "blocks": [{"type": "text", "text": f"question {turn}: " + reply_text(rng)[:200]}],
                }
                if turn:
                    prompt["meta"] = {"revisionRootId": root_id}
                reply = {
                    "id": str(uuid.uuid4()),
                    "role": "assistant",
                    "blocks": [{"type": "text", "text": reply_text(rng)}],
                }
                for message in (prompt, reply):
                    call("session.appendMessage", {"sessionId": sid, "message": message, "turnId": turn_id})
                    branch.append(message)
                    links[message["id"]] = turn_id
                call(
                    "session.endTurn",
                    {"sessionId": sid, "turnId": turn_id, "status": "completed", "createNotification": False},
                )

                before = revisions.stat().st_size if revisions.exists() else 0
                started = time.perf_counter()
                saved = call("session.saveActiveRevision", {"sessionId": sid, "rootUserId": root_id})["revision"]
                host_times.append(time.perf_counter() - started)
                host_growth.append(revisions.stat().st_size - before)
                assert saved["revisionIndex"] == 1 and saved["messageCount"] == len(branch)

                before = naive.stat().st_size if naive.exists() else 0
                started = time.perf_counter()
                naive_append(naive, root_id, branch, links, "2026-07-26T09:00:00.000Z")
                naive_times.append(time.perf_counter() - started)
                naive_growth.append(naive.stat().st_size - before)
            lines = revisions.read_bytes().splitlines()
            kinds = {orjson.loads(line)["type"] for line in lines}
            return {
                "host": host_growth,
                "naive": naive_growth,
                "host_times": host_times,
                "naive_times": naive_times,
                "transcript": transcript.stat().st_size,
                "line_lengths": [len(line) + 1 for line in lines],
                "kinds": kinds,
                "host_total": revisions.stat().st_size,
                "naive_total": naive.stat().st_size,
            }
        finally:
            host.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--turns", type=int, default=200)
    parser.add_argument("--seed", type=int, default=20261130)
    add_quick(parser, turns=50)
    args = parser.parse_args()
    result = run(args.turns, random.Random(args.seed))

    def row(name: str, growth: list[int], total: int, times: list[float]) -> str:
        return (
            f"{name:<34} {min(growth):>9,} {statistics.median(growth):>11,.0f} {max(growth):>11,} "
            f"{total:>14,} {statistics.median(times) * 1e3:>9.3f} ms"
        )

    print(
        f"{args.turns} turns on one branch (prompt + 1-3 KB reply per turn, meta.revisionRootId = root), "
        f"then session.saveActiveRevision"
    )
    header = (
        f"{'revisions file, bytes added per turn':<34} {'min':>9} {'median':>11} {'max':>11} "
        f"{'total':>14} {'save, median':>12}"
    )
    print(header)
    print("-" * len(header))
    print(row("host (revision_live lines)", result["host"], result["host_total"], result["host_times"]))
    print(row("baseline (whole branch per turn)", result["naive"], result["naive_total"], result["naive_times"]))
    print()
    host, naive = result["host"], result["naive"]
    steady = host[1:] or host
    lengths = result["line_lengths"]
    print(
        f"host: line kinds {sorted(result['kinds'])}; line length {min(lengths)}-{max(lengths)} bytes with its "
        f"newline, UUID family key "
        f"(target <= {TARGET_LINE}: {'met' if max(lengths) <= TARGET_LINE else 'MISSED'}); "
        f"growth after turn 1 {'constant' if len(set(steady)) == 1 else 'NOT constant'} "
        f"({min(steady)}-{max(steady)} bytes/turn)"
    )
    marks = sorted({0, len(naive) // 4, len(naive) // 2, len(naive) - 1})
    print(
        "baseline growth at turn "
        + ", ".join(f"{m + 1}: {naive[m]:,}" for m in marks)
        + f" bytes (x{naive[-1] / naive[0]:.0f} from first to last: quadratic total)"
    )
    print(
        f"transcript (the unique content): {result['transcript']:,} bytes; "
        f"baseline file {result['naive_total'] / result['transcript']:.1f}x that, "
        f"host file {result['host_total'] / result['transcript']:.4f}x"
    )
    print(f"ratio of totals, baseline / host: {result['naive_total'] / result['host_total']:,.0f}x")
    tenth = max(1, len(result["host_times"]) // 10)
    first, last = result["host_times"][:tenth], result["host_times"][-tenth:]
    print(
        f"saveActiveRevision median, first {tenth} turns {statistics.median(first) * 1e3:.3f} ms vs last {tenth} "
        f"{statistics.median(last) * 1e3:.3f} ms (baseline append: "
        f"{statistics.median(result['naive_times'][:tenth]) * 1e3:.3f} ms vs "
        f"{statistics.median(result['naive_times'][-tenth:]) * 1e3:.3f} ms)"
    )


if __name__ == "__main__":
    main()
