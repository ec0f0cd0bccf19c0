"""The transcript store through the host's own commands, each next to a baseline.

Runs the host in this process (``Host.dispatch``, no thread hop) on a
temporary data root and prints, for 1k / 10k / 100k-message sessions:

- ``session.get`` newest 50 (warm layout) vs a whole-file orjson parse, which
  is what apps that load a chat whole pay on every open (target >= 500x at 100k);
- the same on a first open with no layout cache (target >= 2x);
- ``messageAround`` in the middle, warm;
- ``session.appendMessage`` (file fsync + index commit) vs the floor: a bare
  fsync'd append of the same line plus one empty SQLite commit (target <= 1.5x);
- growth: window and append at 100k vs at 1k (target within 1.3x);

and ``search.sessions`` over 200k indexed messages vs a ``LIKE '%term%'`` scan
(target >= 20x).

    python bench/transcripts.py [--sizes 1000,10000,100000] [--search-messages 200000]
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

import apsw

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from machine import load
from quick import add_quick
from transcripts_files import full_parse, make_record, median_time, text_pool

from pidesktop import paths
from pidesktop.formats.transcript.records import encode_record, session_header
from pidesktop.host.core import Host

PAGE = 50
RARE = "persimmon"


def open_host(root: Path) -> Host:
    return Host.open(paths.resolve(data_dir=root), emit=lambda topic, payload: None, role="bench")


def write_session(root: Path, session_id: str, count: int, rng, pool, rare_every: int = 0) -> Path:
    sessions = root / "sessions"
    sessions.mkdir(parents=True, exist_ok=True)
    path = sessions / f"{session_id}.jsonl"
    with open(path, "wb") as f:
        f.write(encode_record(session_header(session_id, "2026-07-26T09:00:00.000Z")))
        for i in range(count):
            record = make_record(i, rng, pool)
            record["id"] = f"{session_id}-{i}"
            if rare_every and i % rare_every == 0 and record["role"] in ("user", "assistant"):
                record["blocks"].append({"type": "text", "text": f"we planted a {RARE} tree"})
            f.write(encode_record(record))
    return path


def call(host: Host, method: str, params: dict) -> dict:
    return host.dispatch(method, params)


def floor_db(path: Path) -> apsw.Connection:
    """The least an indexed append can commit to: a one-row table with a trigram FTS row beside it.

    The same journal settings as the host's database, each pragma in its own
    execute: apsw runs the next statement of a string only once the rows of
    the one before are read, so a second pragma after one that returns a row
    never runs."""
    conn = apsw.Connection(str(path))
    for pragma in ("PRAGMA journal_mode = WAL", "PRAGMA synchronous = NORMAL"):
        conn.execute(pragma).fetchall()
    mode = conn.execute("PRAGMA journal_mode").fetchone()[0]
    synchronous = conn.execute("PRAGMA synchronous").fetchone()[0]
    if (mode, synchronous) != ("wal", 1):
        raise SystemExit(f"floor database is journal_mode={mode}, synchronous={synchronous}; wanted wal, 1 (NORMAL)")
    conn.execute("CREATE TABLE floor (mid INTEGER PRIMARY KEY, text TEXT)")
    conn.execute(
        "CREATE VIRTUAL TABLE floor_fts USING fts5(text, content='floor', content_rowid='mid', tokenize='trigram')"
    )
    return conn


def floor_append(path: Path, line: bytes, text: str, conn: apsw.Connection) -> None:
    """One fsync'd transcript line, then one committed row with its FTS row: what an append must at least do."""
    fd = os.open(path, os.O_WRONLY | os.O_APPEND)
    try:
        os.write(fd, line)
        os.fsync(fd)
    finally:
        os.close(fd)
    with conn:
        conn.execute("INSERT INTO floor (text) VALUES (?)", (text,))
        conn.execute("INSERT INTO floor_fts (rowid, text) VALUES (last_insert_rowid(), ?)", (text,))


def alternating_medians(first, second, runs: int) -> tuple[float, float]:
    """Medians of two actions run in turn, so a burst of load on the shared machine weighs on both alike."""
    times: tuple[list[float], list[float]] = ([], [])
    for _ in range(runs):
        for action, samples in zip((first, second), times):
            started = time.perf_counter()
            action(None)
            samples.append(time.perf_counter() - started)
    return statistics.median(times[0]), statistics.median(times[1])


def bench_sessions(sizes: list[int], rng, pool) -> list[dict]:
    rows = []
    with tempfile.TemporaryDirectory(prefix="pidesktop-bench-") as tmp:
        root = Path(tmp) / "data"
        for count in sizes:
            write_session(root, f"s{count}", count, rng, pool)
        host = open_host(root)  # boot restores the transcripts as sessions (D318)
        try:
            for count in sizes:
                sid = f"s{count}"
                path = root / "sessions" / f"{sid}.jsonl"
                full_parse(path)
                slow = 3 if count >= 50000 else 7
                baseline = median_time(lambda _: full_parse(path), slow)

                def cold_open(_):
                    host.ctx.transcripts.evict(sid, save=False)
                    host.ctx.transcripts.layout_path(sid).unlink(missing_ok=True)

                cold = median_time(
                    lambda _: call(host, "session.get", {"sessionId": sid, "messageLimit": PAGE}),
                    slow,
                    lambda: cold_open(None),
                )
                call(host, "session.get", {"sessionId": sid, "messageLimit": PAGE})
                warm = median_time(lambda _: call(host, "session.get", {"sessionId": sid, "messageLimit": PAGE}), 100)
                middle = f"{sid}-{count // 2}"
                around = median_time(
                    lambda _: call(
                        host, "session.get", {"sessionId": sid, "messageAround": middle, "messageLimit": PAGE}
                    ),
                    100,
                )

                floor_file = Path(tmp) / f"floor{count}.jsonl"
                floor_file.write_bytes(path.read_bytes()[:0])
                floor_conn = floor_db(Path(tmp) / f"floor{count}.sqlite")
                counter = iter(range(10**9))

                def one_append(_):
                    n = next(counter)
                    call(
                        host,
                        "session.appendMessage",
                        {
                            "sessionId": sid,
                            "message": {
                                "id": f"{sid}-new-{n}",
                                "role": "user",
                                "blocks": [{"type": "text", "text": f"a new question number {n} about the layout"}],
                            },
                        },
                    )

                floor_text = "a new question number 1 about the layout"
                line = encode_record(
                    {
                        "type": "message",
                        "id": "x" * 40,
                        "role": "user",
                        "createdAt": "2026-07-26T09:00:00.000Z",
                        "blocks": [{"type": "text", "text": floor_text}],
                    }
                )
                append, floor = alternating_medians(
                    one_append, lambda _: floor_append(floor_file, line, floor_text, floor_conn), 200
                )
                floor_conn.close()
                rows.append(
                    {
                        "messages": count,
                        "baseline": baseline,
                        "warm": warm,
                        "cold": cold,
                        "around": around,
                        "append": append,
                        "floor": floor,
                    }
                )
        finally:
            host.close()
    return rows


def bench_search(total: int, rng, pool) -> dict:
    per_session = 500
    sessions = max(1, total // per_session)
    with tempfile.TemporaryDirectory(prefix="pidesktop-bench-") as tmp:
        root = Path(tmp) / "data"
        for s in range(sessions):
            write_session(root, f"q{s}", per_session, rng, pool, rare_every=97)
        started = time.perf_counter()
        host = open_host(root)
        indexing = time.perf_counter() - started
        try:
            indexed = host.ctx.conn.execute("SELECT count(*) FROM messages").fetchone()[0]
            like_sql = "SELECT session_id, count(*) FROM messages WHERE text LIKE ? GROUP BY session_id"
            fts_sql = "SELECT count(*) FROM messages_fts WHERE messages_fts MATCH ?"
            results = {}
            for term in (RARE, "function value", "function"):
                search = median_time(lambda _: call(host, "search.sessions", {"query": term, "limit": 20}), 7)
                like = median_time(lambda _: host.ctx.conn.execute(like_sql, (f"%{term}%",)).fetchall(), 5)
                reply = call(host, "search.sessions", {"query": term, "limit": 20})
                messages = host.ctx.conn.execute(fts_sql, (f'"{term}"',)).fetchone()[0]
                results[term] = (search, like, reply["totalSessions"], reply["totalSessionsExact"], messages)
        finally:
            host.close()
    return {"indexed": indexed, "indexing": indexing, "terms": results}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="1000,10000,100000")
    parser.add_argument("--search-messages", type=int, default=200_000)
    add_quick(parser, sizes="1000,10000", search_messages=20_000)
    args = parser.parse_args()
    rng = random.Random(20261130)
    pool = text_pool(rng)
    sizes = [int(s) for s in args.sizes.split(",")]

    print(load())
    print(
        f"session.get window = {PAGE} messages; medians; (x) = baseline / measured. Baselines: a whole-file "
        "orjson parse (targets: newest warm >= 500x at 100k, no cache >= 2x); the append floor, one fsync'd line "
        "plus a one-row commit with its FTS row, the two run in turn (target appendMessage <= 1.5x floor)"
    )
    header = (
        f"{'messages':>9} {'full parse':>11} | {'get newest, warm':>22} | {'get newest, no cache':>22} | "
        f"{'get around, warm':>22} | {'appendMessage':>13} {'floor':>9} {'ratio':>6}"
    )
    print(header)
    print("-" * len(header))
    rows = bench_sessions(sizes, rng, pool)
    for row in rows:
        base = row["baseline"]

        def cell(seconds: float) -> str:
            return f"{seconds * 1e3:9.3f} ms ({base / seconds:7.1f}x)"

        print(
            f"{row['messages']:>9} {base * 1e3:>8.1f} ms | {cell(row['warm']):>22} | {cell(row['cold']):>22} | "
            f"{cell(row['around']):>22} | {row['append'] * 1e3:>10.3f} ms {row['floor'] * 1e3:>6.3f} ms "
            f"{row['append'] / row['floor']:>5.2f}x",
            flush=True,
        )
    if len(rows) > 1:
        small, big = rows[0], rows[-1]
        print(
            f"growth {small['messages']} -> {big['messages']}: window {big['warm'] / small['warm']:.2f}x, "
            f"append {big['append'] / small['append']:.2f}x (target <= 1.3x); {load()}"
        )
    print()
    result = bench_search(args.search_messages, rng, pool)
    print(
        f"search.sessions over {result['indexed']} indexed messages "
        f"(index built at boot in {result['indexing']:.1f} s); "
        f"baseline: a LIKE '%term%' scan counting per chat; {load()}"
    )
    for term, (search, like, hits, exact, messages) in result["terms"].items():
        print(
            f"  {term!r:>18}: search.sessions first page {search * 1e3:8.2f} ms vs LIKE scan {like * 1e3:8.2f} ms "
            f"({like / search:6.1f}x, target >= 20x for the rare word); in {messages} messages, "
            f"{hits}{'' if exact else '+'} chats"
        )


if __name__ == "__main__":
    main()
