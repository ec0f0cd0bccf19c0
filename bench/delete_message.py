"""``session.deleteMessage`` in a long chat, next to copying the transcript with an fsync.

Runs the host in this process (``Host.dispatch``, no thread hop) on a
temporary data root holding one realistic chat (``bench/transcripts.py``'s
generator) and prints, for a user prompt near the start, in the middle and
near the end of the chat:

- ``session.deleteMessage`` of that prompt: the prompt and its reply leave,
  they are stored as a revision line, the transcript is rewritten in one
  streaming pass (temp file, fsync, rename) and the index rows after the gap
  are renumbered;
- the baseline, measured alternately in the same run: copying the same
  transcript file to a sibling file and fsyncing it, the least a rewrite of
  the whole file can cost (target: delete <= 2x).

    python bench/delete_message.py [--messages 100000] [--runs 5]
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from quick import add_quick
from transcripts import open_host, write_session
from transcripts_files import text_pool

TARGET = 2.0


def copy_with_fsync(source: Path, target: Path) -> None:
    """The baseline: the whole file read and written once, then made durable."""
    with open(source, "rb") as src, open(target, "wb") as dst:
        while chunk := src.read(1 << 20):
            dst.write(chunk)
        dst.flush()
        os.fsync(dst.fileno())
    target.unlink()


def user_prompts(count: int, near: int, runs: int) -> list[str]:
    """``runs`` user message positions from ``near`` on (the generator makes every 4th message a prompt)."""
    first = near - near % 4
    return [first + 4 * k for k in range(runs)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--messages", type=int, default=100_000)
    parser.add_argument("--runs", type=int, default=5)
    add_quick(parser, messages=10_000, runs=3)
    args = parser.parse_args()
    rng = random.Random(20261201)
    pool = text_pool(rng)
    count = args.messages
    with tempfile.TemporaryDirectory(prefix="pidesktop-bench-") as tmp:
        root = Path(tmp) / "data"
        sid = "long"
        path = write_session(root, sid, count, rng, pool)
        host = open_host(root)  # boot restores the transcript as a session and indexes it
        try:
            host.dispatch("session.get", {"sessionId": sid, "messageLimit": 50})  # warm layout, as in the app
            size = path.stat().st_size
            print(
                f"{count} messages, transcript {size / 2**20:.0f} MiB; medians of {args.runs} runs; "
                f"baseline = copy the transcript + fsync (target: delete <= {TARGET:.0f}x)"
            )
            header = f"{'prompt at':>10} | {'deleteMessage':>13} | {'copy + fsync':>12} | {'ratio':>6}"
            print(header)
            print("-" * len(header))
            for label, near in (("start", 4), ("middle", count // 2), ("end", count - 4 * args.runs - 8)):
                deletes, copies = [], []
                for position in user_prompts(count, near, args.runs):
                    started = time.perf_counter()
                    copy_with_fsync(path, path.with_name("baseline.copy"))
                    copies.append(time.perf_counter() - started)
                    started = time.perf_counter()
                    result = host.dispatch(
                        "session.deleteMessage", {"sessionId": sid, "messageId": f"{sid}-{position}"}
                    )
                    deletes.append(time.perf_counter() - started)
                    assert result["removedMessageIds"][0] == f"{sid}-{position}", result
                delete, copy = statistics.median(deletes), statistics.median(copies)
                print(
                    f"{label:>10} | {delete * 1e3:>10.0f} ms | {copy * 1e3:>9.0f} ms | {delete / copy:>5.2f}x",
                    flush=True,
                )
        finally:
            host.close()


if __name__ == "__main__":
    main()
