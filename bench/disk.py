"""What each part of the database costs per message (SQLite's dbstat), and what the options that would cut it
do to search, measured on copies in the same run.

Builds the corpus of ``bench/peers.py`` (``--messages``, one chat of half of
them), lets the host index it, and prints bytes per message for: the
transcript lines, the ``messages`` table and its indexes, each FTS5 shadow
table, the rest; next to llm's whole store for the same corpus when llm is
installed (target: at most 1.2x llm's bytes per message). Then, each on a
copy of ``pi.sqlite``, with the search's SQL core timed on the copy and on the
original in turn (a rare word's hits with their chat and order, then the text
of the newest 60 for snippets):

- ``page_size = 8192`` and ``16384`` (a pragma and a VACUUM; the schema is unchanged);
- a trigram index with ``detail=column`` beside the spec's (which has
  ``detail=full``): without positions a phrase cannot be asked, so the
  trigrams are ANDed and every candidate's text is tested (the phrase
  fallback). Spec 004 fixes ``messages_fts``' DDL, so this one is measured,
  not adoptable.

A contentless index is not tried: ``messages_fts`` already keeps no text of
its own (its content is ``messages.text``, which snippets need), so there is
nothing for it to drop.

    python bench/disk.py [--messages 100000] [--quick]
"""

from __future__ import annotations

import argparse
import importlib.util
import random
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

import apsw

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from machine import load
from peers import RARE, build_llm, build_ours, corpus
from quick import add_quick
from transcripts import open_host

PHRASE_SQL = (
    "SELECT m.session_id, m.seq, m.mid FROM messages_fts f JOIN messages m ON m.mid = f.rowid "
    "WHERE messages_fts MATCH ? AND m.role IN ('user', 'assistant') ORDER BY m.mid DESC"
)
COLUMN_SQL = (
    "SELECT m.session_id, m.seq, m.mid FROM fts_column f JOIN messages m ON m.mid = f.rowid "
    "WHERE fts_column MATCH ? AND m.role IN ('user', 'assistant') AND instr(lower(m.text), ?) > 0 "
    "ORDER BY m.mid DESC"
)


def parts(conn: apsw.Connection) -> dict[str, tuple[int, int]]:
    """``{table or index: (bytes, of which unused)}`` from dbstat."""
    return {
        name: (size, unused)
        for name, size, unused in conn.execute("SELECT name, sum(pgsize), sum(unused) FROM dbstat GROUP BY name")
    }


def core(conn: apsw.Connection, sql: str, args: tuple) -> None:
    """The search's SQL: the hits in order, then the text of the newest 60 (three snippets for 20 chats)."""
    hits = conn.execute(sql, args).fetchall()
    newest = [mid for _sid, _seq, mid in hits[:60]]
    conn.execute(
        f"SELECT text FROM messages WHERE mid IN ({','.join('?' * len(newest))})" if newest else "SELECT 1", newest
    ).fetchall()


def in_turn(first, second, runs: int = 21) -> tuple[float, float]:
    times: tuple[list[float], list[float]] = ([], [])
    first(), second()
    for _ in range(runs):
        for action, samples in zip((first, second), times):
            started = time.perf_counter()
            action()
            samples.append(time.perf_counter() - started)
    return statistics.median(times[0]), statistics.median(times[1])


def trigrams(word: str) -> str:
    return " AND ".join(f'"{word[i : i + 3]}"' for i in range(len(word) - 2))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--messages", type=int, default=100_000)
    add_quick(parser, messages=10_000)
    args = parser.parse_args()
    chats = corpus(args.messages, args.messages // 2, random.Random(20261201))
    total = sum(2 * len(exchanges) for _, exchanges in chats)
    with tempfile.TemporaryDirectory(prefix="pidesktop-disk-") as tmp:
        work = Path(tmp)
        build_ours(work / "data", chats)
        host = open_host(work / "data")
        db_path = Path(host.ctx.conn.filename)
        host.close()
        transcripts = sum(p.stat().st_size for p in (work / "data" / "sessions").glob("*.jsonl"))
        llm_bytes = None
        if importlib.util.find_spec("llm") is not None:
            build_llm(work / "logs.db", chats)
            llm_bytes = sum(p.stat().st_size for p in work.glob("logs.db*"))
        conn = apsw.Connection(str(db_path))
        table = parts(conn)
        ours = db_path.stat().st_size + transcripts
        print(f"{total:,} messages; {load()}")
        print("bytes per message by part (dbstat; unused = empty space in the part's pages):")
        print(f"  {'transcript lines (JSONL)':<34} {transcripts / total:8,.0f}")
        groups = {
            "messages (table)": ["messages"],
            "messages' indexes": [n for n in table if n.startswith("sqlite_autoindex_messages")],
            "messages_fts_data (the index)": ["messages_fts_data"],
            "messages_fts_idx, _docsize, _config": ["messages_fts_idx", "messages_fts_docsize", "messages_fts_config"],
        }
        named = {n for names in groups.values() for n in names}
        groups["everything else"] = [n for n in table if n not in named]
        for label, names in groups.items():
            size = sum(table.get(n, (0, 0))[0] for n in names)
            unused = sum(table.get(n, (0, 0))[1] for n in names)
            print(f"  {label:<34} {size / total:8,.0f}  (unused {unused / total:,.0f})")
        print(f"  {'total (pi.sqlite + transcripts)':<34} {ours / total:8,.0f}")
        if llm_bytes is not None:
            print(
                f"  llm, its whole store: {llm_bytes / total:,.0f} -> ours is {ours / llm_bytes:.2f}x llm's "
                "(target <= 1.2x)"
            )

        print(f"\neach option on a copy, its search SQL core for {RARE!r} against the original's, in turn:")
        phrase = (f'"{RARE}"',)
        for page_size in (8192, 16384):
            copy = work / f"page{page_size}.sqlite"
            shutil.copy(db_path, copy)
            other = apsw.Connection(str(copy))
            other.execute("PRAGMA journal_mode = DELETE").fetchall()
            other.execute(f"PRAGMA page_size = {page_size}")
            other.execute("VACUUM")
            base, tried = in_turn(lambda: core(conn, PHRASE_SQL, phrase), lambda: core(other, PHRASE_SQL, phrase))
            size, before = copy.stat().st_size, db_path.stat().st_size
            print(
                f"  page_size {page_size}: pi.sqlite {size / 2**20:,.1f} MiB against {before / 2**20:,.1f}"
                f" ({size / before - 1:+.1%}); search {tried * 1e3:.2f} ms against {base * 1e3:.2f} ms "
                f"({tried / base:.2f}x)"
            )
            other.close()
        copy = work / "column.sqlite"
        shutil.copy(db_path, copy)
        other = apsw.Connection(str(copy))
        other.execute(
            "CREATE VIRTUAL TABLE fts_column USING fts5(text, content='messages', content_rowid='mid', "
            "tokenize='trigram', detail='column')"
        )
        other.execute("INSERT INTO fts_column(fts_column) VALUES ('rebuild')")
        other.execute("INSERT INTO fts_column(fts_column) VALUES ('optimize')")
        other.execute("INSERT INTO messages_fts(messages_fts) VALUES ('optimize')")
        sizes = parts(other)
        full = sum(v[0] for k, v in sizes.items() if k.startswith("messages_fts_"))
        column = sum(v[0] for k, v in sizes.items() if k.startswith("fts_column_"))
        base, tried = in_turn(
            lambda: core(other, PHRASE_SQL, phrase), lambda: core(other, COLUMN_SQL, (trigrams(RARE), RARE))
        )
        saved = (full - column) / total
        print(
            f"  detail=column: index {column / total:,.0f} bytes per message against {full / total:,.0f} "
            f"(detail=full; both merged), {saved:,.0f} less -> total {(ours - saved * total) / total:,.0f} per message"
            + (f", {(ours - saved * total) / llm_bytes:.2f}x llm" if llm_bytes else "")
            + f"; search (trigrams ANDed, text tested) {tried * 1e3:.2f} ms against {base * 1e3:.2f} ms "
            f"({tried / base:.2f}x)"
        )
        other.close()
        conn.close()


if __name__ == "__main__":
    main()
