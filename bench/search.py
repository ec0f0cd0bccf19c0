"""Search at every size, next to llm's FTS query and a LIKE scan of the same messages, in one run per size.

For each size (default 1k, 10k, 100k messages: one chat of half of them, the
rest in chats of 1,000, as ``bench/peers.py`` builds them) this prints:

- ``search.sessions``' first page for a rare word (in every 97th message)
  against llm's FTS query for it (``llm logs -q``, best 3; target >= 1.0x) and
  against ``LIKE '%word%'`` counting per chat (target >= 20x from 10k up);
- the same for a word in 7,700 messages (above the 5,000-candidate switch,
  where the chats are walked newest first; target within 3x of the rare word,
  the two timed in turn on their own, and beside the very common word's searches)
  and for a very common word (in most messages);
- ``search.query``'s 50-row page for the very common word in the long chat,
  with the Python memory it peaked at (target: what the page holds, not what
  every hit holds);
- growth: each figure at the size against itself at the smallest size (target
  within 1.3x);
- and the same rare-word search once the index is merged into one segment
  (FTS5 ``optimize``), since the index's segments are what a short query pays
  for (each of a trigram phrase's trigrams is looked up in every segment); a
  start that builds the index now merges it (``host/search/fts_segments.py``).

The rare word's search, llm's query and its LIKE scan are timed in turn as
one group, the other searches and their baselines as another; the LIKE scans
run on a read-only connection of their own (as llm's query does), so they do
not empty the host's page cache before the search they are compared with.

llm is optional (``.venv/bin/pip install llm``); without it its column is empty.

    python bench/search.py [--sizes 1000,10000,100000] [--runs 15] [--quick]
"""

from __future__ import annotations

import argparse
import importlib.util
import random
import statistics
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

import apsw

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from machine import load
from peers import RARE, build_llm, build_ours, corpus, llm_search_sql
from quick import add_quick
from transcripts import open_host

from pidesktop.host.search.fts_segments import segment_count

SWITCH_WORD = "kumquat"  # in SWITCH_HITS messages: above search.SPARSE_LIMIT candidates
SWITCH_HITS = 7700
COMMON = "function"  # a word of the corpus' vocabulary: in most messages
PAGE = 50


def with_switch_word(chats, total: int):
    """The corpus with ``SWITCH_WORD`` in ``SWITCH_HITS`` messages spread evenly (all of them when fewer)."""
    every = max(1, total // SWITCH_HITS)
    n = 0
    out = []
    for chat_id, exchanges in chats:
        changed = []
        for prompt, reply in exchanges:
            texts = []
            for text in (prompt, reply):
                texts.append(f"{text} A {SWITCH_WORD} grows." if n % every == 0 else text)
                n += 1
            changed.append((texts[0], texts[1]))
        out.append((chat_id, changed))
    return out


def alternating(actions: dict, runs: int, cpu: dict | None = None) -> dict:
    """Median seconds of each action, the actions run in turn so that load weighs on all alike; ``cpu`` is
    given the median CPU seconds of this thread for each (what a loaded machine's waits leave out)."""
    times: dict = {name: [] for name in actions}
    cpu_times: dict = {name: [] for name in actions}
    for action in actions.values():
        action()  # warm
    for _ in range(runs):
        for name, action in actions.items():
            started, started_cpu = time.perf_counter(), time.thread_time()
            action()
            times[name].append(time.perf_counter() - started)
            cpu_times[name].append(time.thread_time() - started_cpu)
    if cpu is not None:
        cpu.update({name: statistics.median(samples) for name, samples in cpu_times.items()})
    return {name: statistics.median(samples) for name, samples in times.items()}


def segments(conn) -> int:
    """How many segments the FTS index has."""
    return segment_count(conn)


def measure(size: int, runs: int, have_llm: bool) -> dict:
    chats = with_switch_word(corpus(size, size // 2, random.Random(20261202)), size)
    long_chat = chats[0][0]
    with tempfile.TemporaryDirectory(prefix="pidesktop-search-") as tmp:
        work = Path(tmp)
        build_ours(work / "data", chats)
        llm_conn = None
        if have_llm:
            import sqlite3

            build_llm(work / "logs.db", chats)
            llm_conn = sqlite3.connect(work / "logs.db")
        host = open_host(work / "data")
        # The LIKE scans read every message: on a connection of their own, as llm's query has, so that they
        # do not empty the host's page cache before the search timed next to them.
        like_conn = apsw.Connection(host.ctx.conn.filename, flags=apsw.SQLITE_OPEN_READONLY)
        try:
            conn = host.ctx.conn
            call = host.dispatch
            like = "SELECT session_id, count(*) FROM messages WHERE text LIKE ? GROUP BY session_id"

            def first_page(word: str):
                return lambda: call("search.sessions", {"query": word, "limit": 20})

            # Each figure is compared with the baselines timed in turn in its own group.
            rare = {
                "rare": first_page(RARE),
                "rare_like": lambda: like_conn.execute(like, (f"%{RARE}%",)).fetchall(),
            }
            if llm_conn is not None:
                sql, params = llm_search_sql(RARE)
                rare["llm"] = lambda: llm_conn.execute(sql, params).fetchall()
            others = {
                "switch": first_page(SWITCH_WORD),
                "common": first_page(COMMON),
                "common_like": lambda: like_conn.execute(like, (f"%{COMMON}%",)).fetchall(),
                "query_page": lambda: call("search.query", {"query": COMMON, "sessionId": long_chat, "limit": PAGE}),
            }
            cpu: dict = {}
            out = {**alternating(rare, runs, cpu), **alternating(others, runs)}
            # The two words on their own, in turn: in the group above the switch word follows search.query's
            # page, which empties the host's page cache, while the rare word never does.
            pair = alternating({"rare": first_page(RARE), "switch": first_page(SWITCH_WORD)}, runs)
            out["pair"] = pair
            out["cpu"] = cpu
            out["segments"] = segments(conn)
            count = "SELECT count(*) FROM messages_fts WHERE messages_fts MATCH ?"
            out["hits"] = {w: conn.execute(count, (f'"{w}"',)).fetchone()[0] for w in (RARE, SWITCH_WORD, COMMON)}
            counted = call("search.query", {"query": COMMON, "sessionId": long_chat, "limit": PAGE})
            out["query_total"] = f"{counted['total']:,}{'+' if counted['totalCapped'] else ''}"
            tracemalloc.start()
            call("search.query", {"query": COMMON, "sessionId": long_chat, "limit": PAGE})
            out["query_peak"] = tracemalloc.get_traced_memory()[1]
            tracemalloc.stop()
            conn.execute("INSERT INTO messages_fts(messages_fts) VALUES ('optimize')")
            merged = {"rare": rare["rare"], "switch": others["switch"]}
            if "llm" in rare:
                merged["llm"] = rare["llm"]
            out["merged"] = alternating(merged, runs)
        finally:
            like_conn.close()
            host.close()
            if llm_conn is not None:
                llm_conn.close()
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="1000,10000,100000")
    parser.add_argument("--runs", type=int, default=15)
    add_quick(parser, sizes="1000,10000", runs=7)
    args = parser.parse_args()
    have_llm = importlib.util.find_spec("llm") is not None
    sizes = [int(s) for s in args.sizes.split(",")]
    print(f"search.sessions first page (20 chats), medians of {args.runs}, the actions of a size run in turn")
    if not have_llm:
        print("llm is not installed: its column is empty (.venv/bin/pip install llm; not a dependency)")
    rows = []
    for size in sizes:
        r = measure(size, args.runs, have_llm)
        rows.append((size, r))
        ms = {k: v * 1e3 for k, v in r.items() if isinstance(v, float)}
        llm = f"{ms['llm']:.3f} ms -> {r['llm'] / r['rare']:.2f}x" if "llm" in r else "-"
        print(f"\n{size:,} messages ({r['segments']} FTS segments); {load()}")
        print(
            f"  rare word ({r['hits'][RARE]:,} messages): {ms['rare']:.3f} ms; llm's FTS query {llm} (target >= 1.0x); "
            f"LIKE {ms['rare_like']:.2f} ms -> {r['rare_like'] / r['rare']:.1f}x (target >= 20x from 10k)"
        )
        cpu = r["cpu"]
        llm_cpu = f"llm {cpu['llm'] * 1e3:.3f} ms -> {cpu['llm'] / cpu['rare']:.2f}x; " if "llm" in cpu else ""
        print(
            f"  the same, CPU time of the thread: ours {cpu['rare'] * 1e3:.3f} ms; {llm_cpu}"
            f"LIKE {cpu['rare_like'] * 1e3:.2f} ms -> {cpu['rare_like'] / cpu['rare']:.1f}x"
        )
        pair = r["pair"]
        print(
            f"  word in {r['hits'][SWITCH_WORD]:,} messages, timed in turn with the rare word alone: "
            f"{pair['switch'] * 1e3:.3f} against {pair['rare'] * 1e3:.3f} ms, {pair['switch'] / pair['rare']:.2f}x "
            f"(target <= 3x above the 5,000-candidate switch); next to the common word's searches "
            f"{ms['switch']:.3f} ms ({r['switch'] / r['rare']:.2f}x the rare word above)"
        )
        print(
            f"  very common word ({r['hits'][COMMON]:,} messages): {ms['common']:.3f} ms; "
            f"LIKE {ms['common_like']:.2f} ms -> {r['common_like'] / r['common']:.1f}x"
        )
        print(
            f"  search.query {PAGE}-row page of the very common word in the {size // 2:,}-message chat: "
            f"{ms['query_page']:.2f} ms, Python peak {r['query_peak'] / 2**20:.1f} MiB (total {r['query_total']})"
        )
        m = r["merged"]
        llm_merged = f"; llm {m['llm'] * 1e3:.3f} ms -> {m['llm'] / m['rare']:.2f}x" if "llm" in m else ""
        print(
            f"  index merged to one segment: rare word {m['rare'] * 1e3:.3f} ms ({r['rare'] / m['rare']:.1f}x faster)"
            f"{llm_merged}; word in {r['hits'][SWITCH_WORD]:,}: {m['switch'] * 1e3:.3f} ms"
        )
    if len(rows) > 1:
        (small, first), (_big, last) = rows[0], rows[-1]
        print(f"\ngrowth {small:,} -> {rows[-1][0]:,} messages (target <= 1.3x):")
        for key in ("rare", "switch", "common", "query_page"):
            print(f"  {key:<11} {last[key] / first[key]:.2f}x")
        print(f"  rare, merged index {last['merged']['rare'] / first['merged']['rare']:.2f}x")


if __name__ == "__main__":
    main()
