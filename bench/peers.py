"""pidesktop next to ``llm`` (Simon Willison's CLI, which keeps chats in SQLite with FTS5).

Installs nothing by itself. When ``llm`` is importable (``.venv/bin/pip install llm``;
it is not a dependency of pidesktop) this builds the same corpus in both stores and
prints, in one run, our figure next to llm's for:

- opening a chat to continue it: our ``session.get`` of the newest 50 messages (warm,
  and with the in-memory layout dropped) against llm's ``load_conversation``, which
  is what ``llm -c`` runs before it can send the next prompt;
- searching a rare word: our ``search.sessions`` first page against the query
  ``llm logs -q WORD`` runs (its FTS5 word match joined to its turns, best 3 by bm25),
  and against the whole ``log_rows`` call that also builds the three rows it prints;
- appending one exchange: our two ``session.appendMessage`` calls (user line, reply
  line, each fsync'd and indexed) against llm's ``Response.log_to_db`` of a prompt
  and its reply at the end of the same chat;
- bytes on disk, per message.

The corpus: one long chat holding ``--long`` messages and chats of 1,000 messages for
the rest, alternating a short prompt and a long reply (the paragraphs of
``bench/transcripts_files.py``), a rare word in every 97th message. llm's store is
made by its own migrations, then its tables are filled with the rows ``LogStore.log``
writes (message hashes from ``llm.logs.message_hash``, so llm reads and extends the
chain as its own); going through ``log_to_db`` for every exchange would re-hash the
whole chain each time. Ours is written as transcript files that the host indexes
when it opens, as it does for a restored data folder.

    python bench/peers.py [--messages 100000] [--long 50000] [--quick]
"""

from __future__ import annotations

import argparse
import importlib.metadata
import importlib.util
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from machine import load
from quick import add_quick
from transcripts import open_host
from transcripts_files import text_pool

from pidesktop.formats.transcript.records import encode_record, session_header

RARE = "persimmon"
RARE_EVERY = 97
CHAT = 1000
PAGE = 50
MODEL = "gpt-4o-mini"  # a model llm knows without a plugin; nothing is sent to it


def llm_missing() -> str | None:
    if importlib.util.find_spec("llm") is None:
        return (
            "llm is not installed, so there is nothing to compare with.\n"
            "Install it into this environment (it is not a dependency of pidesktop):\n"
            f"    {Path(sys.executable).parent / 'pip'} install llm\n"
            'then run `make bench ARGS="peers"` or `python bench/peers.py` again.'
        )
    return None


# -- the corpus ------------------------------------------------------------------------------------


def corpus(messages: int, long: int, rng: random.Random) -> list[tuple[str, list[tuple[str, str]]]]:
    """``[(chat id, [(prompt, reply), ...])]``: the long chat first, then chats of 1,000 messages."""
    pool = text_pool(rng)
    sizes = [min(long, messages)] if long else []
    rest = messages - sum(sizes)
    sizes += [CHAT] * (rest // CHAT) + ([rest % CHAT] if rest % CHAT else [])
    chats, n = [], 0
    for index, size in enumerate(s for s in sizes if s >= 2):
        exchanges = []
        for _ in range(size // 2):
            texts = []
            for kind in ("short", "long"):
                text = rng.choice(pool[kind])
                if n % RARE_EVERY == 0:
                    text += f" We planted a {RARE} tree."
                texts.append(text)
                n += 1
            exchanges.append((texts[0], texts[1]))
        chats.append((f"chat{index:04d}", exchanges))
    return chats


def stamp(n: int) -> tuple[str, int]:
    """RFC 3339 time and epoch milliseconds of the n-th message, one second apart."""
    ms = 1_780_000_000_000 + n * 1000
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(ms // 1000)) + ".000Z", ms


def build_ours(root: Path, chats) -> None:
    folder = root / "sessions"
    folder.mkdir(parents=True, exist_ok=True)
    n = 0
    for chat_id, exchanges in chats:
        with open(folder / f"{chat_id}.jsonl", "wb") as f:
            f.write(encode_record(session_header(chat_id, stamp(n)[0])))
            for prompt, reply in exchanges:
                for role, text in (("user", prompt), ("assistant", reply)):
                    f.write(
                        encode_record(
                            {
                                "type": "message",
                                "id": f"{chat_id}-{n}",
                                "role": role,
                                "createdAt": stamp(n)[0],
                                "blocks": [{"type": "text", "text": text}],
                            }
                        )
                    )
                    n += 1


def build_llm(path: Path, chats) -> dict[str, str]:
    """llm's store with the same chats; returns chat id -> llm conversation (thread) id."""
    import sqlite_utils
    from llm.logs import message_hash
    from llm.migrations import migrate
    from llm.parts import Message, TextPart

    db = sqlite_utils.Database(path)
    migrate(db)
    conn = db.conn
    threads, n = {}, 0
    conn.execute("BEGIN")
    for index, (chat_id, exchanges) in enumerate(chats):
        thread_id = f"01k{index:023d}"
        threads[chat_id] = thread_id
        parent = None
        message_rows, part_rows, turn_rows, search_rows = [], [], [], []
        for i, (prompt, reply) in enumerate(exchanges):
            hashes = []
            for role, text in (("user", prompt), ("assistant", reply)):
                digest = message_hash(Message(role=role, parts=[TextPart(text=text)]), parent)
                message_rows.append((digest, parent, role, None))
                part_rows.append((digest, 0, "text", None, text, None))
                hashes.append(digest)
                parent = digest
            iso = stamp(n)[0].replace("T", " ").rstrip("Z")
            turn_id = f"{thread_id}{i:06d}"
            turn_rows.append(
                (
                    turn_id,
                    thread_id,
                    hashes[0],
                    hashes[1],
                    MODEL,
                    None,
                    None,
                    None,
                    len(prompt) // 4,
                    len(reply) // 4,
                    None,
                    1200,
                    iso,
                    None,
                )
            )
            search_rows.append((turn_id, prompt, reply))
            n += 2
        conn.execute(
            "INSERT INTO threads (id, name, tip_message_hash, forked_from, datetime_utc) VALUES (?, ?, NULL, NULL, ?)",
            (thread_id, exchanges[0][0][:32], stamp(n)[0]),
        )
        conn.executemany(
            "INSERT OR IGNORE INTO messages (hash, parent_hash, role, provider_metadata) VALUES (?, ?, ?, ?)",
            message_rows,
        )
        conn.executemany(
            "INSERT OR IGNORE INTO parts (message_hash, position, type, tool_name, text, payload) "
            "VALUES (?, ?, ?, ?, ?, ?)",
            part_rows,
        )
        conn.executemany(
            "INSERT INTO turns (id, thread_id, parent_message_hash, tip_message_hash, model, "
            "resolved_model, options_json, schema_id, input_tokens, output_tokens, token_details, "
            "duration_ms, datetime_utc, response_json) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            turn_rows,
        )
        conn.executemany("INSERT INTO turn_search (turn_id, prompt, response) VALUES (?, ?, ?)", search_rows)
        conn.execute("UPDATE threads SET tip_message_hash = ? WHERE id = ?", (parent, thread_id))
    conn.execute("COMMIT")
    db.close()
    return threads


# -- measuring -------------------------------------------------------------------------------------


def median(fn, runs: int, before=None) -> float:
    times = []
    for _ in range(runs):
        if before:
            before()
        started = time.perf_counter()
        fn()
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def llm_search_sql(word: str, count: int = 3) -> tuple[str, dict]:
    """The statement ``llm logs -q WORD`` runs against its turns (``llm.logs.log_rows``)."""
    from llm.logs import LOG_ROWS_SQL, TURN_SEARCH_RANK

    sql = LOG_ROWS_SQL.format(
        rank_select=f",\n    {TURN_SEARCH_RANK} as _search_rank",
        join="\njoin turn_search on turn_search.turn_id = turns.id"
        "\njoin turn_search_fts on turn_search_fts.rowid = turn_search.id",
        where="where turn_search_fts match :query",
        order_by=TURN_SEARCH_RANK,
        limit=f" limit {count}",
    )
    return sql, {"query": word}


def echo_model():
    import llm

    class Echo(llm.Model):
        """Answers at once, so only the store's part of a turn is timed."""

        model_id = "bench-echo"

        def execute(self, prompt, stream, response, conversation):
            yield "The same reply every time, long enough to be a sentence or two of an answer."

    return Echo()


def measure_llm(path: Path, threads: dict[str, str], long_chat: str, short_chat: str, runs: int) -> dict:
    import sqlite_utils
    from llm.cli import load_conversation
    from llm.logs import LogStore, log_rows

    out = {}
    load_conversation(threads[short_chat], database=str(path))  # imports, plugin registry
    out["open_long"] = median(lambda: load_conversation(threads[long_chat], database=str(path)), max(1, runs // 3))
    out["open_short"] = median(lambda: load_conversation(threads[short_chat], database=str(path)), runs)
    db = sqlite_utils.Database(path)
    sql, params = llm_search_sql(RARE)
    db.conn.execute(sql, params).fetchall()
    out["search_sql"] = median(lambda: db.conn.execute(sql, params).fetchall(), runs * 3)
    out["search_hits"] = db.conn.execute(
        "SELECT count(*) FROM turn_search_fts WHERE turn_search_fts MATCH ?", (RARE,)
    ).fetchone()[0]
    store = LogStore(db)
    out["search_rows"] = median(lambda: log_rows(store, count=3, query=RARE), max(1, runs // 3))

    model = echo_model()
    for key, chat in (("append_long", long_chat), ("append_short", short_chat)):
        conversation = load_conversation(threads[chat], database=str(path))
        conversation.model = model
        times = []
        for i in range(max(3, runs // 2)):
            response = conversation.prompt(f"one more question, number {i}")
            response.text()
            started = time.perf_counter()
            response.log_to_db(db)
            times.append(time.perf_counter() - started)
        out[key] = statistics.median(times)
    db.close()
    out["bytes"] = sum(p.stat().st_size for p in path.parent.glob(path.name + "*"))
    return out


def measure_ours(root: Path, long_chat: str, short_chat: str, runs: int) -> dict:
    host = open_host(root)
    out = {}
    try:
        call = host.dispatch
        for key, chat in (("long", long_chat), ("short", short_chat)):
            params = {"sessionId": chat, "messageLimit": PAGE}
            call("session.get", params)
            out[f"open_{key}"] = median(lambda: call("session.get", params), runs * 3)
            out[f"open_{key}_cold"] = median(
                lambda: call("session.get", params), runs, lambda: host.ctx.transcripts.evict(chat, save=True)
            )
        query = {"query": RARE, "limit": 20}
        call("search.sessions", query)
        out["search"] = median(lambda: call("search.sessions", query), runs * 3)
        out["search_sessions"] = call("search.sessions", query)["totalSessions"]
        counter = iter(range(10**9))

        def exchange(chat: str) -> None:
            n = next(counter)
            for role, text in (
                ("user", f"one more question, number {n}"),
                ("assistant", "The same reply every time, long enough to be a sentence or two."),
            ):
                call(
                    "session.appendMessage",
                    {
                        "sessionId": chat,
                        "message": {
                            "id": f"{chat}-new-{n}-{role}",
                            "role": role,
                            "blocks": [{"type": "text", "text": text}],
                        },
                    },
                )

        for key, chat in (("append_long", long_chat), ("append_short", short_chat)):
            exchange(chat)
            out[key] = median(lambda: exchange(chat), runs * 2)
        host.ctx.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    finally:
        host.close()
    out["bytes_db"] = sum(p.stat().st_size for p in root.glob("pi.sqlite*"))
    files = [p for p in (root / "sessions").rglob("*") if p.is_file()]
    out["bytes_transcripts"] = sum(p.stat().st_size for p in files if not p.name.endswith(".layout"))
    out["bytes_cache"] = sum(p.stat().st_size for p in files if p.name.endswith(".layout"))  # rebuilt if lost
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--messages", type=int, default=100_000, help="messages in the corpus")
    parser.add_argument("--long", type=int, default=50_000, help="messages in its one long chat")
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--keep", type=Path, help="build the corpus in this folder and leave it there")
    add_quick(parser, messages=10_000, long=5_000, runs=3)
    args = parser.parse_args()
    missing = llm_missing()
    if missing:
        print(missing)
        return 0
    rng = random.Random(20261201)
    chats = corpus(args.messages, args.long, rng)
    total = sum(2 * len(exchanges) for _, exchanges in chats)
    long_chat, short_chat = chats[0][0], chats[-1][0]
    with tempfile.TemporaryDirectory(prefix="pidesktop-peers-") as tmp:
        work = args.keep or Path(tmp)
        started = time.perf_counter()
        build_ours(work / "data", chats)
        host = open_host(work / "data")  # indexes the transcripts, as after restoring a data folder
        host.close()
        ours_built = time.perf_counter() - started
        started = time.perf_counter()
        threads = build_llm(work / "logs.db", chats)
        llm_built = time.perf_counter() - started
        sizes = {chat: 2 * len(ex) for chat, ex in chats}
        print(
            f"{total:,} messages in {len(chats)} chats (the long one {sizes[long_chat]:,}, the last "
            f"{sizes[short_chat]:,}); built in {ours_built:.0f} s (pidesktop, transcripts + boot index) "
            f"and {llm_built:.0f} s (llm {importlib.metadata.version('llm')}, its tables); "
            f"medians; ratio = llm / pidesktop"
        )
        ours = measure_ours(work / "data", long_chat, short_chat, args.runs)
        theirs = measure_llm(work / "logs.db", threads, long_chat, short_chat, args.runs)

    def ms(seconds: float) -> str:
        return f"{seconds * 1e3:10.3f} ms" if seconds < 1e-3 else f"{seconds * 1e3:10.2f} ms"

    def row(label: str, mine: float, peer: float, note: str = "") -> None:
        ratio = peer / mine
        digits = 2 if ratio < 10 else 1  # a ratio near the 1.0x target needs its second digit
        print(f"{label:<46} {ms(mine)} {ms(peer)} {ratio:9.{digits}f}x  {note}")

    print(load())
    print(f"{'':<46} {'pidesktop':>13} {'llm':>13} {'ratio':>10}")
    row(
        "open the long chat to continue it",
        ours["open_long"],
        theirs["open_long"],
        f"(ours with no layout in memory: {ours['open_long_cold'] * 1e3:.2f} ms)",
    )
    row(
        f"open a {sizes[short_chat]:,}-message chat",
        ours["open_short"],
        theirs["open_short"],
        f"(ours with no layout in memory: {ours['open_short_cold'] * 1e3:.2f} ms)",
    )
    row(
        f"search {RARE!r}: first page vs the FTS query",
        ours["search"],
        theirs["search_sql"],
        f"({ours['search_sessions']} chats; llm: {theirs['search_hits']} turns, best 3; target >= 1.0x)",
    )
    row(
        f"search {RARE!r}: vs `llm logs -q` rows",
        ours["search"],
        theirs["search_rows"],
        "(log_rows: the query and the 3 rows it prints)",
    )
    row("append one exchange to the long chat", ours["append_long"], theirs["append_long"])
    row(f"append one exchange to a {sizes[short_chat]:,}-message chat", ours["append_short"], theirs["append_short"])
    ours_bytes = ours["bytes_db"] + ours["bytes_transcripts"]
    print(
        f"{'bytes on disk':<46} {ours_bytes / 2**20:10.1f} MiB {theirs['bytes'] / 2**20:10.1f} MiB "
        f"{theirs['bytes'] / ours_bytes:9.2f}x  (target >= 0.83x, ours at most 1.2x llm's; "
        f"ours: pi.sqlite {ours['bytes_db'] / 2**20:.1f} MiB + "
        f"transcripts {ours['bytes_transcripts'] / 2**20:.1f} MiB; layout caches "
        f"{ours['bytes_cache'] / 2**20:.1f} MiB not counted)"
    )
    print(f"{'bytes per message':<46} {ours_bytes / total:13,.0f} {theirs['bytes'] / total:13,.0f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
