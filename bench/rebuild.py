"""Indexing transcripts from scratch (the restore and repair path), and reading a whole chat, against a bare parse.

For each size, one transcript of realistic lines (``transcripts_files``'s
generator: text, thinking, tool calls, a 100 KB tool output now and then) is
written to a data root with no database; then, each in a fresh child process:

- baseline: read the file and ``orjson.loads`` every line (the floor for
  anything that looks at every line);
- rebuild: ``sessions.restore_orphan``, what a start does for a transcript
  whose index is gone: the chat's row, every message row, the full-text index;
  messages/s, MB/s of JSONL and the time as a multiple of the baseline, with
  the child's peak resident memory (VmHWM) and what it held before the build;
- previous: the whole-file rebuild the streamed one replaced (every record
  in memory, one transaction, a statement per row), on the next line;
- exports: ``pidesktop export``'s work (the host's ``session.export`` writing
  the file in one streamed pass, on an in-process host), Markdown and JSON, on
  the next line, beside ``agent.export`` paging through ``session.get`` (the
  same bytes, formatted on the other side of the bus); both write the file
  (about 0.7x the parse for 22 MB here);
- whole read: ``TranscriptStore.read_all`` (every record in memory, what a
  rewrite, a fork's copy or an export reads) and ``stream_messages`` (the same
  records a batch at a time), each as a multiple of the baseline.

The load average is printed with every row: on a shared machine the ratios
matter, not the absolute times. CPU MB/s divides by the child's CPU time
(SQLite runs on the same thread, the export's host thread in the same
process), which a busy machine inflates far less than the wall clock; every
CPU (x) is against the parse's CPU time. Usage::

    python bench/rebuild.py [--sizes 10000,100000] [--quick]
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import orjson

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from quick import add_quick
from transcripts_files import full_parse, text_pool, write_transcript

SESSION = "rebuild0000"
# Targets of issue 36: a rebuild at >= 30 MB/s, a whole read <= 3x the parse, peak memory < 300 MB.
TARGET_MB_S = 30.0
TARGET_READ_X = 3.0
TARGET_PEAK_MB = 300.0


def memory_mb(field: str) -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1]) / 1024
    return float("nan")


def child(action: str, root: Path) -> dict:
    """Run one measured action in this (fresh) process; its figures as a dict."""
    from pidesktop.formats.index import db
    from pidesktop.host.context import HostContext
    from pidesktop.host.sessions import commands as sessions
    from pidesktop.host.transcripts import TranscriptStore

    path = root / "sessions" / f"{SESSION}.jsonl"
    before = memory_mb("VmRSS")
    if action == "parse":
        started, cpu_started = time.perf_counter(), time.process_time()
        count = full_parse(path)
    elif action == "rebuild":
        conn = db.open_database(root / "pi.sqlite")
        ctx = HostContext(conn, root, lambda name, payload: None)
        before = memory_mb("VmRSS")
        started, cpu_started = time.perf_counter(), time.process_time()
        count = sessions.restore_orphan(ctx, SESSION, 0)
        conn.close()
    elif action == "whole":
        conn = db.open_database(root / "pi.sqlite")
        ctx = HostContext(conn, root, lambda name, payload: None)
        before = memory_mb("VmRSS")
        started, cpu_started = time.perf_counter(), time.process_time()
        count = whole_file_restore(ctx)
        conn.close()
    elif action.startswith("export_"):
        seconds, cpu, count = export_chat(root, *action.removeprefix("export_").split("_"))
        return {"seconds": seconds, "cpu": cpu, "count": count, "before": before, "peak": memory_mb("VmHWM")}
    elif action == "read_all":
        store = TranscriptStore(root / "sessions")
        started, cpu_started = time.perf_counter(), time.process_time()
        count = len(store.read_all(SESSION).messages)
    else:
        store = TranscriptStore(root / "sessions")
        started, cpu_started = time.perf_counter(), time.process_time()
        count = sum(len(batch) for batch in store.stream_messages(SESSION))
    seconds = time.perf_counter() - started
    cpu = time.process_time() - cpu_started
    return {"seconds": seconds, "cpu": cpu, "count": count, "before": before, "peak": memory_mb("VmHWM")}


def export_chat(root: Path, fmt: str, how: str = "host") -> tuple[float, float, int]:
    """``pidesktop export``'s work: an in-process host (its start restores the chat first, not timed), then
    ``session.export`` writes the file (``how`` "host"), or ``agent.export`` pages through ``session.get``
    ("pages"); (seconds, CPU seconds, characters written)."""
    import asyncio

    from pidesktop import paths
    from pidesktop.agent import export
    from pidesktop.bus import HostClient, HostThread
    from pidesktop.host.core import opener

    host = HostThread(opener(paths.resolve(data_dir=root), "bench")).start()
    host.wait_ready(3600)

    async def run() -> tuple[float, float, int]:
        client = HostClient(host, asyncio.get_running_loop())
        await client.call("app.handshake", {"protocolVersion": 1})
        written: list[int] = []
        with tempfile.TemporaryDirectory(prefix="pidesktop-bench-export-") as folder:
            started, cpu_started = time.perf_counter(), time.process_time()
            if how == "host":
                params = {"sessionId": SESSION, "format": fmt, "path": f"{folder}/chat.{fmt}"}
                written.append((await client.call("session.export", params))["bytes"])
            else:  # written to a file as the command wrote it before the host did
                with open(f"{folder}/chat.{fmt}", "w", encoding="utf-8", newline="\n") as out:
                    await export.export(client, SESSION, fmt, lambda text: written.append(out.write(text)))
            return time.perf_counter() - started, time.process_time() - cpu_started, sum(written)

    try:
        return asyncio.run(run())
    finally:
        host.stop()


def whole_file_restore(ctx) -> int:
    """The rebuild as it was before it streamed: every record in memory, one transaction, a statement per row."""
    from pidesktop.host.sessions import message_index

    records = [record for _, record in ctx.transcripts.read_all(SESSION).messages]
    rows = [message_index.row_of(SESSION, record, None, seq, 0) for seq, record in enumerate(records, start=1)]
    with ctx.conn:
        ctx.conn.execute("INSERT INTO sessions(id, title, created_at, updated_at) VALUES (?, '', 0, 0)", (SESSION,))
        ctx.conn.executemany(
            "INSERT INTO messages(id, session_id, turn_id, seq, role, tool_name, is_error, text, created_at) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            rows,
        )
    return len(rows)


def measure(action: str, root: Path, runs: int = 1) -> dict:
    results = []
    for _ in range(runs):
        if action in ("rebuild", "whole"):
            for name in ("pi.sqlite", "pi.sqlite-wal", "pi.sqlite-shm"):
                (root / name).unlink(missing_ok=True)
        out = subprocess.run(
            [sys.executable, __file__, "--child", action, str(root)], check=True, capture_output=True, text=True
        ).stdout
        results.append(orjson.loads(out.strip().splitlines()[-1]))
    best = dict(results[0])
    best["seconds"] = statistics.median(r["seconds"] for r in results)
    best["cpu"] = statistics.median(r["cpu"] for r in results)
    best["peak"] = max(r["peak"] for r in results)
    return best


def load() -> str:
    return f"{os.getloadavg()[0]:.1f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="10000,100000", help="comma-separated message counts")
    parser.add_argument("--runs", type=int, default=3, help="runs of the baseline and the reads (median)")
    parser.add_argument(
        "--previous",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="also time the whole-file rebuild this replaced (all records in memory, a statement per row)",
    )
    parser.add_argument(
        "--reads",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="also time the whole reads (read_all holds every record: leave it out at a million messages)",
    )
    parser.add_argument("--child", nargs=2, metavar=("ACTION", "ROOT"), help=argparse.SUPPRESS)
    add_quick(parser, sizes="2000,10000", runs=1)
    arguments = parser.parse_args()
    if arguments.child:
        print(orjson.dumps(child(arguments.child[0], Path(arguments.child[1]))).decode())
        return
    sizes = [int(size) for size in arguments.sizes.split(",")]
    rng = random.Random(20260726)
    pool = text_pool(rng)
    print(
        f"targets: rebuild >= {TARGET_MB_S:.0f} MB/s of JSONL with a peak under {TARGET_PEAK_MB:.0f} MB; "
        f"a whole read <= {TARGET_READ_X:.0f}x the bare parse. (x) = time / bare orjson parse of the same file"
    )
    header = (
        f"{'messages':>9} {'MB':>7} {'parse':>14} | {'rebuild':>9} {'msg/s':>8} {'MB/s':>6} {'(x)':>6} "
        f"{'peak MB':>8} {'(held before)':>13} | {'CPU MB/s':>8} {'(x)':>6} | {'read_all':>27} | {'stream':>27} | load"
    )
    print(header)
    print("-" * len(header))
    with tempfile.TemporaryDirectory(prefix="pidesktop-bench-") as temporary:
        for count in sizes:
            root = Path(temporary) / f"n{count}"
            (root / "sessions").mkdir(parents=True)
            path = root / "sessions" / f"{SESSION}.jsonl"
            write_transcript(path, SESSION, count, rng, pool)
            megabytes = path.stat().st_size / 1e6
            with open(path, "rb") as warm:  # the page cache warm for everyone (a block at a time: 2 GB at 1M)
                while warm.read(1 << 24):
                    pass
            parse = measure("parse", root, arguments.runs)
            rebuild = measure("rebuild", root)
            before = measure("whole", root) if arguments.previous else None
            if arguments.reads:
                whole = measure("read_all", root, arguments.runs)
                stream = measure("stream", root, arguments.runs)
                assert rebuild["count"] == whole["count"] == stream["count"], (rebuild, whole, stream)
                exports = {
                    f"{fmt}_{how}": measure(f"export_{fmt}_{how}", root, arguments.runs)
                    for how in ("host", "pages")
                    for fmt in ("md", "json")
                }
            base = parse["seconds"]

            def cpu_cell(result: dict) -> str:
                return f"{megabytes / result['cpu']:>8.1f} {result['cpu'] / parse['cpu']:>5.1f}x"

            def cell(result: dict | None) -> str:
                if not result:
                    return "-"
                wall, cpu = result["seconds"] / base, result["cpu"] / parse["cpu"]
                return f"{result['seconds']:6.2f} s ({wall:4.1f}x, CPU {cpu:4.1f}x)"

            seconds = rebuild["seconds"]
            print(
                f"{count:>9} {megabytes:>7.1f} {base:>6.2f} s {megabytes / base:>4.0f}/s | {seconds:>7.2f} s "
                f"{count / seconds:>8.0f} {megabytes / seconds:>6.1f} {seconds / base:>5.1f}x "
                f"{rebuild['peak']:>8.0f} {rebuild['before']:>13.0f} | {cpu_cell(rebuild)} | "
                f"{cell(whole if arguments.reads else None):>27} | {cell(stream if arguments.reads else None):>27} | "
                f"{load()}",
                flush=True,
            )
            if arguments.reads:
                print(
                    f"{'':>9} {'':>7} {'':>14} | pidesktop export: Markdown {cell(exports['md_host'])}, "
                    f"JSON {cell(exports['json_host'])} | through session.get pages: Markdown "
                    f"{cell(exports['md_pages'])}, JSON {cell(exports['json_pages'])} | {load()}",
                    flush=True,
                )
            if before is not None:
                seconds = before["seconds"]
                print(
                    f"{'':>9} {'':>7} {'':>14} | {seconds:>7.2f} s {count / seconds:>8.0f} "
                    f"{megabytes / seconds:>6.1f} {seconds / base:>5.1f}x {before['peak']:>8.0f} "
                    f"{before['before']:>13.0f} | {cpu_cell(before)} | the whole-file rebuild this replaced | {load()}",
                    flush=True,
                )


if __name__ == "__main__":
    main()
