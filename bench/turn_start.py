"""Turn start in a long chat: the request built and ready to send, next to a short chat and a whole read.

Runs a real host thread on a temporary data root (the runner talks to it over
the command bus, as in the app). Both chats are written as transcripts before
the host opens; the 100k-message one carries a compaction checkpoint 100
messages from its end. Printed, all measured in this run:

- ``TurnRunner.prepare_request`` (windowed reads from the checkpoint, the
  budget's estimate, the context built) in the 100k-message chat with a
  checkpoint, next to the same in a 100-message chat (target <= 2x);
- ``session.get`` without a limit on the 100k-message chat: the whole read
  every turn paid before checkpoints.

    python bench/turn_start.py [--messages 100000] [--runs 30]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from quick import add_quick

from pidesktop import paths
from pidesktop.agent.runner import TurnRunner
from pidesktop.bus import HostClient, HostThread
from pidesktop.formats.transcript.records import encode_record, session_header
from pidesktop.host.core import opener

TAIL = 100


def write_session(root: Path, session_id: str, count: int, checkpoint: bool) -> None:
    sessions = root / "sessions"
    sessions.mkdir(parents=True, exist_ok=True)
    with open(sessions / f"{session_id}.jsonl", "wb") as f:
        f.write(encode_record(session_header(session_id, "2026-07-26T09:00:00.000Z")))
        for i in range(count):
            role = "user" if i % 2 == 0 else "assistant"
            f.write(
                encode_record(
                    {
                        "type": "message",
                        "id": f"{session_id}-{i}",
                        "role": role,
                        "createdAt": "2026-07-26T09:00:00.000Z",
                        "blocks": [{"type": "text", "text": f"message {i} about the kelp forest " * 6}],
                    }
                )
            )
        if checkpoint:
            through = count - TAIL - 1
            f.write(
                encode_record(
                    {
                        "type": "compaction",
                        "id": "cp1",
                        "summary": "Earlier: kelp, tides. " * 40,
                        "firstKeptMessageId": f"{session_id}-{through + 1}",
                        "throughMessageId": f"{session_id}-{through}",
                        "tokensBefore": 2_000_000,
                        "createdAt": "2026-07-26T10:00:00.000Z",
                    }
                )
            )


def median(samples: list[float]) -> float:
    return statistics.median(samples)


async def measure(client: HostClient, runs: int, big: str, small: str) -> dict:
    runner = TurnRunner(client, context_window=128_000)

    async def prepare(sid: str) -> float:
        started = time.perf_counter()
        prepared = await runner.prepare_request(sid)
        prepared.context()
        elapsed = time.perf_counter() - started
        await prepared.provider.aclose()
        return elapsed

    async def whole(sid: str) -> float:
        started = time.perf_counter()
        await client.call("session.get", {"sessionId": sid})
        return time.perf_counter() - started

    for sid in (big, small):
        await prepare(sid)  # warm the layout caches, as a chat already open is
    big_times, small_times = [], []
    for _ in range(runs):  # interleaved, so both see the same machine
        big_times.append(await prepare(big))
        small_times.append(await prepare(small))
    whole_times = [await whole(big) for _ in range(max(3, runs // 10))]
    prepared = await runner.prepare_request(big)
    return {
        "big": median(big_times),
        "small": median(small_times),
        "whole": median(whole_times),
        "kept": len(prepared.messages),
        "checkpoint": prepared.checkpoint is not None,
    }


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--messages", type=int, default=100_000)
    parser.add_argument("--runs", type=int, default=30)
    add_quick(parser, messages=10_000, runs=10)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="pidesktop-bench-") as tmp:
        root = Path(tmp) / "data"
        big, small = f"long{args.messages}", "short100"
        write_session(root, big, args.messages, checkpoint=True)
        write_session(root, small, 100, checkpoint=False)
        host = HostThread(opener(paths.resolve(data_dir=root), role="bench")).start()
        try:
            host.wait_ready(120)

            async def run() -> dict:
                client = HostClient(host, asyncio.get_running_loop())
                try:
                    return await measure(client, args.runs, big, small)
                finally:
                    client.close()

            figures = asyncio.run(run())
        finally:
            host.stop()
    ratio = figures["big"] / figures["small"]
    print(
        f"turn start, {args.messages:,} messages + checkpoint: {figures['big'] * 1000:8.2f} ms "
        f"({figures['kept']} messages kept after the checkpoint)"
    )
    print(f"turn start, 100 messages:                  {figures['small'] * 1000:8.2f} ms")
    print(f"  ratio: {ratio:.2f}x (target <= 2x) {'OK' if ratio <= 2 else 'OVER'}")
    print(
        f"whole-transcript session.get, {args.messages:,} messages: {figures['whole'] * 1000:8.1f} ms "
        f"({figures['whole'] / figures['big']:.0f}x the windowed turn start)"
    )
    return 0  # a missed target is a figure to read (OVER above), not a bench that failed


if __name__ == "__main__":
    raise SystemExit(main())
