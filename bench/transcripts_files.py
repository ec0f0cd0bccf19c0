"""How long opening a conversation takes, by transcript length.

Generates realistic transcripts (short and long user and assistant text,
thinking blocks, tool calls with JSON arguments and results, a 100 KB tool
output about once every 500 messages, a few compactions) in a temporary
folder, then for each size reports medians of several runs:

- baseline: read the whole file and parse every line with orjson, which is
  what opening a conversation costs without a layout;
- newest 50-message window with a warm (in-memory) layout;
- the same on a first open: fresh store, no layout cache on disk (full scan);
- the same on a fresh store that finds the layout cache on disk;
- a 50-message window in the middle, by ``around``, warm.

Ratios are baseline time divided by the measured time. Usage::

    python bench/transcripts_files.py [--sizes 1000,10000,100000]
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

import orjson

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from quick import add_quick

from pidesktop.formats.transcript.records import encode_record, session_header
from pidesktop.host.transcripts import TranscriptStore

PAGE = 50
WORDS = (
    "the a to of and in is it for on that with this as be file function value error test run build "
    "python query index layout window message session cache disk offset line scan parse result call "
    "return config user assistant tool thinking summary context token model change fix add remove"
).split()


def paragraph(rng: random.Random, words: int) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(words)).capitalize() + "."


def text_pool(rng: random.Random) -> dict[str, list[str]]:
    return {
        "short": [paragraph(rng, rng.randint(3, 25)) for _ in range(300)],
        "long": [
            "\n\n".join(paragraph(rng, rng.randint(40, 120)) for _ in range(rng.randint(2, 8))) for _ in range(300)
        ],
    }


def make_record(i: int, rng: random.Random, pool: dict[str, list[str]]) -> dict:
    when = f"2026-07-26T09:{(i // 60) % 60:02d}:{i % 60:02d}.000Z"
    record_id = f"m{i}"
    if i % 500 == 499:  # a big tool output now and then
        output = "".join(rng.choice(pool["long"]) for _ in range(60))[: 100 * 1024]
        return {
            "type": "message",
            "id": record_id,
            "role": "tool",
            "toolName": "Bash",
            "createdAt": when,
            "blocks": [
                {
                    "type": "tool_call",
                    "callId": f"c{i}",
                    "args": {"command": "cat big.log"},
                    "result": {"type": "text", "output": output},
                    "status": "ok",
                }
            ],
        }
    kind = i % 4
    if kind == 0:
        text = rng.choice(pool["long"] if rng.random() < 0.2 else pool["short"])
        return {
            "type": "message",
            "id": record_id,
            "role": "user",
            "createdAt": when,
            "blocks": [{"type": "text", "text": text}],
        }
    if kind == 1:
        blocks = [
            {"type": "thinking", "text": rng.choice(pool["long"])},
            {"type": "text", "text": rng.choice(pool["short"])},
        ]
        usage = {"input": rng.randint(1000, 90000), "output": rng.randint(10, 4000), "cacheRead": rng.randint(0, 80000)}
        return {
            "type": "message",
            "id": record_id,
            "role": "assistant",
            "createdAt": when,
            "blocks": blocks,
            "meta": {"usage": usage, "modelId": "model-large"},
        }
    if kind == 2:
        args = {
            "path": f"src/module_{rng.randint(1, 200)}.py",
            "content": rng.choice(pool["long"]),
            "options": {"create": True, "mode": 420},
        }
        result = {
            "type": "text",
            "output": rng.choice(pool["short"]),
            "details": {"bytes": rng.randint(10, 9999), "lines": [1, 2, 3]},
        }
        return {
            "type": "message",
            "id": record_id,
            "role": "tool",
            "toolName": "Write",
            "createdAt": when,
            "blocks": [{"type": "tool_call", "callId": f"c{i}", "args": args, "result": result, "status": "ok"}],
        }
    return {
        "type": "message",
        "id": record_id,
        "role": "assistant",
        "createdAt": when,
        "blocks": [{"type": "text", "text": rng.choice(pool["long"])}],
    }


def write_transcript(path: Path, session_id: str, count: int, rng: random.Random, pool) -> None:
    # Written in one go: fsync per message would only measure the disk here.
    with open(path, "wb") as f:
        f.write(encode_record(session_header(session_id, "2026-07-26T09:00:00.000Z")))
        for i in range(count):
            f.write(encode_record(make_record(i, rng, pool)))
            if i and i % 20000 == 0:
                f.write(
                    encode_record(
                        {
                            "type": "compaction",
                            "id": f"cp{i}",
                            "summary": rng.choice(pool["long"]),
                            "firstKeptMessageId": f"m{i - 100}",
                            "throughMessageId": f"m{i}",
                            "tokensBefore": 917000,
                            "retainedTail": [],
                            "createdAt": "2026-07-26T10:00:00.000Z",
                        }
                    )
                )


def full_parse(path: Path) -> int:
    data = path.read_bytes()
    parsed = 0
    for line in data.split(b"\n"):
        if line:
            orjson.loads(line)
            parsed += 1
    return parsed


def median_time(action, runs: int, prepare=None) -> float:
    samples = []
    for _ in range(runs):
        state = prepare() if prepare else None
        started = time.perf_counter()
        action(state)
        samples.append(time.perf_counter() - started)
    return statistics.median(samples)


def bench_size(root: Path, count: int, rng: random.Random, pool) -> dict:
    sessions = root / "sessions"
    sessions.mkdir(exist_ok=True)
    session_id = f"bench{count}"
    store = TranscriptStore(sessions)
    path = store.path(session_id)
    write_transcript(path, session_id, count, rng, pool)
    heavy = count >= 50000
    slow_runs = 3 if heavy else 7

    full_parse(path)  # page cache warm for everyone
    baseline = median_time(lambda _: full_parse(path), slow_runs)

    def fresh_store_without_cache():
        store.layout_path(session_id).unlink(missing_ok=True)
        return TranscriptStore(sessions)

    cold = median_time(lambda s: s.window(session_id, limit=PAGE), slow_runs, fresh_store_without_cache)
    cached = median_time(lambda s: s.window(session_id, limit=PAGE), 9, lambda: TranscriptStore(sessions))

    warm_store = TranscriptStore(sessions)
    newest = warm_store.window(session_id, limit=PAGE)
    assert len(newest.messages) == min(PAGE, count)
    warm = median_time(lambda _: warm_store.window(session_id, limit=PAGE), 200)
    middle = f"m{count // 2}"
    around = median_time(lambda _: warm_store.window(session_id, around=middle, limit=PAGE), 200)
    return {
        "messages": count,
        "size_mb": path.stat().st_size / 1e6,
        "baseline": baseline,
        "warm": warm,
        "cold": cold,
        "cached": cached,
        "around": around,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="1000,10000,100000", help="comma-separated message counts")
    add_quick(parser, sizes="1000,10000")
    arguments = parser.parse_args()
    sizes = [int(size) for size in arguments.sizes.split(",")]
    rng = random.Random(20260726)
    pool = text_pool(rng)

    header = (
        f"{'messages':>9} {'file MB':>8} {'full parse':>11} | {'warm newest':>18} | {'first open, no cache':>21} | "
        f"{'open, disk cache':>18} | {'warm around middle':>19}"
    )
    print(f"window = {PAGE} messages; times are medians; (x) = full parse time / window time")
    print(header)
    print("-" * len(header))
    with tempfile.TemporaryDirectory(prefix="pidesktop-bench-") as root:
        for count in sizes:
            row = bench_size(Path(root), count, rng, pool)
            base = row["baseline"]

            def cell(seconds: float, width: int) -> str:
                return f"{seconds * 1e3:9.3f} ms ({base / seconds:6.1f}x)".rjust(width)

            print(
                f"{row['messages']:>9} {row['size_mb']:>8.1f} {base * 1e3:>8.1f} ms | {cell(row['warm'], 18)} | "
                f"{cell(row['cold'], 21)} | {cell(row['cached'], 18)} | {cell(row['around'], 19)}",
                flush=True,
            )


if __name__ == "__main__":
    main()
