"""Indexing a transcript from scratch a batch at a time gives the rows the whole-file rebuild gives.

A real database and real transcript files; batches made small so that a
short file spans many of them.
"""

from __future__ import annotations

import threading
from pathlib import Path

import orjson
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from pidesktop.formats.index.db import open_database
from pidesktop.host import boot
from pidesktop.host.context import HostContext
from pidesktop.host.sessions import commands as sessions
from pidesktop.host.sessions import index_build, message_index
from pidesktop.host.transcripts.store import TranscriptChanged
from tests.support.cli import run_cli

COLUMNS = "id, turn_id, seq, role, tool_name, is_error, text, created_at"


def line(record: dict) -> bytes:
    return orjson.dumps(record) + b"\n"


def text(mid: str, words: str, role: str = "user", at: str | None = None) -> dict:
    record = {"type": "message", "id": mid, "role": role, "blocks": [{"type": "text", "text": words}]}
    if at is not None:
        record["createdAt"] = at
    return record


@pytest.fixture
def ctx(tmp_path: Path):
    root = tmp_path / "data"
    (root / "sessions").mkdir(parents=True)
    conn = open_database(root / "pi.sqlite")
    yield HostContext(conn, root, lambda name, payload: None, clock=lambda: 1_000)
    conn.close()


def write(ctx: HostContext, sid: str, records: list[dict], tail: bytes = b"") -> None:
    header = {"type": "session", "schema": 2, "sessionId": sid, "createdAt": "2026-07-26T09:00:00.000Z"}
    ctx.transcripts.path(sid).write_bytes(b"".join(line(r) for r in [header, *records]) + tail)


def rows(ctx: HostContext, sid: str) -> list[tuple]:
    return list(ctx.conn.execute(f"SELECT {COLUMNS} FROM messages WHERE session_id = ? ORDER BY seq", (sid,)))


def whole_file_rebuild(ctx: HostContext, sid: str) -> list[tuple]:
    records = [{k: v for k, v in r.items() if k != "type"} for _, r in ctx.transcripts.read_all(sid).messages]
    with ctx.conn:
        message_index.rebuild(ctx.conn, sid, records, 1_000)
    return rows(ctx, sid)


def a_chat() -> list[dict]:
    records: list[dict] = []
    for i in range(60):
        records.append(text(f"u{i}", f"question {i} " + "é字" * i, at=f"2026-07-26T09:{i:02d}:00.000Z"))
        records.append(text(f"a{i}", f"answer {i}", "assistant"))
        if i % 7 == 0:
            tool = {"type": "tool_call", "callId": f"c{i}", "name": "Bash", "args": {}, "status": "error"}
            records.append({"type": "message", "id": f"t{i}", "role": "tool", "blocks": [tool]})
        if i % 11 == 0:
            records.append({"type": "session_info", "title": f"T{i}", "at": "2026-07-26T09:00:00.000Z"})
        if i % 13 == 0:
            records.append({"type": "compaction", "id": f"cp{i}", "summary": "so far"})
    records.append(text("a5", "answer 5, edited", "assistant"))  # a repeated id: the later line wins, here
    return records


@pytest.mark.parametrize("block", [1, 300, 1 << 22])
def test_a_streamed_build_gives_the_rows_of_a_whole_file_rebuild(ctx, block):
    with ctx.conn:
        ctx.conn.execute("INSERT INTO sessions(id, title, created_at, updated_at) VALUES ('s1', '', 0, 0)")
    write(ctx, "s1", a_chat(), tail=b'{"type":"message","id":"torn')
    built = index_build.build(ctx, "s1", 1_000, block=block)
    streamed = rows(ctx, "s1")
    assert built.count == len(streamed) == 60 * 2 + 9
    assert streamed[-1][:3] == ("a5", None, built.count) and streamed[-1][6] == "answer 5, edited"
    assert built.newest == message_index.created_ms({"createdAt": "2026-07-26T09:59:00.000Z"}, 0)
    assert streamed == whole_file_rebuild(ctx, "s1")
    (last_seq,) = ctx.conn.execute("SELECT last_seq FROM sessions WHERE id = 's1'").fetchone()
    assert last_seq == built.count


def test_search_finds_what_a_streamed_build_indexed(ctx):
    with ctx.conn:
        ctx.conn.execute("INSERT INTO sessions(id, title, created_at, updated_at) VALUES ('s1', '', 0, 0)")
    write(ctx, "s1", a_chat())
    index_build.build(ctx, "s1", 1_000, block=200)
    hits = ctx.conn.execute(
        "SELECT m.id FROM messages_fts f JOIN messages m ON m.mid = f.rowid WHERE messages_fts MATCH ?",
        (
            '"é字é字é字é字é字é字é字é字é字é字é字é字é字é字é字é字é字é字é字é字é字é字é字é字é字é字é字é字é字é字é字é字é字é字é字é字é字é字é字é字é字é字é字é字é字é字é字é字é字é字é字é字é字é字é字é字é字é字é字"',
        ),
    )
    assert [row[0] for row in hits] == ["u59"]
    assert ctx.conn.execute("SELECT count(*) FROM messages_fts WHERE messages_fts MATCH 'answer'").fetchone() == (60,)
    integrity = "INSERT INTO messages_fts(messages_fts, rank) VALUES ('integrity-check', 0)"
    ctx.conn.execute(integrity)  # raises when the index disagrees with the rows


def test_an_id_another_chat_owns_is_left_out_and_turn_links_are_kept(ctx):
    with ctx.conn:
        for sid in ("s1", "other"):
            ctx.conn.execute("INSERT INTO sessions(id, title, created_at, updated_at) VALUES (?, '', 0, 0)", (sid,))
        ctx.conn.execute("INSERT INTO turns(id, session_id, status, started_at) VALUES ('turn1', 's1', 'completed', 0)")
        message_index.insert(ctx.conn, "other", {"id": "a3", "role": "assistant", "blocks": []}, None, 0)
        message_index.insert(ctx.conn, "s1", {"id": "u2", "role": "user", "blocks": []}, "turn1", 0)
    write(ctx, "s1", a_chat())
    index_build.build(ctx, "s1", 1_000, block=250)
    built = {row[0]: row for row in rows(ctx, "s1")}
    assert "a3" not in built and "u2" in built and built["u2"][1] == "turn1"
    assert ctx.conn.execute("SELECT session_id FROM messages WHERE id = 'a3'").fetchone() == ("other",)


def test_progress_goes_up_to_the_last_message_line(ctx):
    with ctx.conn:
        ctx.conn.execute("INSERT INTO sessions(id, title, created_at, updated_at) VALUES ('s1', '', 0, 0)")
    write(ctx, "s1", a_chat())
    told: list[tuple[int, int]] = []
    index_build.build(ctx, "s1", 1_000, progress=lambda done, total: told.append((done, total)), block=400)
    assert len(told) > 3
    assert [done for done, _ in told] == sorted({done for done, _ in told})  # strictly rising
    size = ctx.transcripts.path("s1").stat().st_size
    assert told[-1] == (size, size)  # bytes: the file ends with a message line


def test_a_transcript_changed_under_a_build_stops_it_and_leaves_no_reader_behind(ctx):
    with ctx.conn:
        ctx.conn.execute("INSERT INTO sessions(id, title, created_at, updated_at) VALUES ('s1', '', 0, 0)")
    write(ctx, "s1", a_chat())
    path = ctx.transcripts.path("s1")

    def rewrite_the_end(done: int, total: int) -> None:
        # Same length, other ids: the lines no longer match the layout the build reads them by.
        data = path.read_bytes()
        path.write_bytes(data[: total // 2] + data[total // 2 :].replace(b'"id":"a', b'"id":"b'))

    with pytest.raises(TranscriptChanged):
        index_build.build(ctx, "s1", 1_000, progress=rewrite_the_end, block=300)
    assert [t for t in threading.enumerate() if t.name == "pidesktop-read-ahead"] == []
    assert ctx.conn.execute("SELECT count(*) FROM messages WHERE session_id = 's1'").fetchone()[0] > 0


def test_a_build_checkpoints_less_often_only_while_it_runs(ctx):
    with ctx.conn:
        ctx.conn.execute("INSERT INTO sessions(id, title, created_at, updated_at) VALUES ('s1', '', 0, 0)")
    write(ctx, "s1", a_chat())
    usual = ctx.conn.execute("PRAGMA wal_autocheckpoint").fetchone()[0]
    during: list[int] = []

    def look(done: int, total: int) -> None:
        during.append(ctx.conn.execute("PRAGMA wal_autocheckpoint").fetchone()[0])
        if len(during) == 2:
            raise OSError("disk full")

    with pytest.raises(OSError, match="disk full"):
        index_build.build(ctx, "s1", 1_000, progress=look, block=300)
    assert during == [index_build.BUILD_CHECKPOINT_PAGES] * 2 and usual < index_build.BUILD_CHECKPOINT_PAGES
    assert ctx.conn.execute("PRAGMA wal_autocheckpoint").fetchone()[0] == usual
    assert [t for t in threading.enumerate() if t.name == "pidesktop-read-ahead"] == []


def test_a_restored_chat_is_named_after_its_info_lines_and_dated_by_its_newest_message(ctx):
    write(ctx, "s1", a_chat())
    count = sessions.restore_orphan(ctx, "s1", 1_000)
    title, updated, last_seq = ctx.conn.execute(
        "SELECT title, updated_at, last_seq FROM sessions WHERE id = 's1'"
    ).fetchone()
    assert count == last_seq == 129 and title == "T55"
    assert updated == message_index.created_ms({"createdAt": "2026-07-26T09:59:00.000Z"}, 0)


def test_a_big_build_leaves_no_big_wal_behind(ctx):
    wal = Path(ctx.conn.filename + "-wal")
    long_words = " ".join(f"word{i}" for i in range(400))
    write(ctx, "s1", [text(f"m{i}", f"{i} {long_words}") for i in range(3000)])
    sessions.restore_orphan(ctx, "s1", 1_000)
    assert ctx.conn.execute("SELECT count(*) FROM messages").fetchone() == (3000,)
    assert wal.stat().st_size <= index_build.WAL_LIMIT
    assert index_build.WAL_LIMIT < Path(ctx.conn.filename).stat().st_size  # the build was big enough to tell


def test_a_big_build_leaves_no_free_pages_in_the_file(ctx):
    long_words = " ".join(f"word{i}" for i in range(400))
    write(ctx, "s1", [text(f"m{i}", f"{i} {long_words}") for i in range(3000)])
    sessions.restore_orphan(ctx, "s1", 1_000)
    assert ctx.conn.execute("SELECT count(*) FROM messages").fetchone() == (3000,)
    assert ctx.conn.execute("PRAGMA freelist_count").fetchone() == (0,)  # FTS5's merges freed pages on the way


def test_the_boot_pass_gives_every_free_page_back(ctx):
    db = Path(ctx.conn.filename)
    with ctx.conn:
        big = orjson.dumps("x" * 3000).decode()
        ctx.conn.executemany(
            "INSERT INTO kv(ns, key, value_json, updated_at) VALUES ('bench', ?, ?, 0)",
            [(f"k{i}", big) for i in range(2000)],
        )
    with ctx.conn:
        ctx.conn.execute("DELETE FROM kv WHERE ns = 'bench'")
    freed = ctx.conn.execute("PRAGMA freelist_count").fetchone()[0]
    assert freed > 1000
    report = boot.boot_pass(ctx, audit_retention_days=90)
    assert report["freePagesGivenBack"] == freed
    assert ctx.conn.execute("PRAGMA freelist_count").fetchone() == (0,)
    ctx.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchall()
    assert db.stat().st_size == ctx.conn.execute("PRAGMA page_count").fetchone()[0] * 4096


def test_a_start_that_restores_chats_tells_how_far_it_got(stdio_host, data_root):
    sessions_dir = data_root / "sessions"
    sessions_dir.mkdir(parents=True)
    words = " ".join(f"word{i}" for i in range(300))
    for n in range(3):
        sid = f"chat{n}"
        header = {"type": "session", "schema": 2, "sessionId": sid, "createdAt": "2026-07-26T09:00:00.000Z"}
        lines = [line(header)] + [line(text(f"{sid}-{i}", f"{i} {words}")) for i in range(1500 * (n + 1))]
        (sessions_dir / f"{sid}.jsonl").write_bytes(b"".join(lines))
    total = sum(path.stat().st_size for path in sessions_dir.glob("*.jsonl"))
    h = stdio_host()
    h.call("app.handshake", {"protocolVersion": 1})  # the boot pass ran before its reply
    told = [event["payload"] for event in h.events if event["topic"] == "index.progress"]
    assert h.close() == 0
    assert len(told) >= 3
    assert told[0] == {**told[0], "bytesDone": 0, "chatsDone": 0, "done": False}
    assert {(p["phase"], p["bytesTotal"], p["chatsTotal"]) for p in told} == {("restore", total, 3)}
    steps = [(p["bytesDone"], p["chatsDone"]) for p in told]
    assert steps == sorted(set(steps))  # rising, never the same twice
    assert [p["chatsDone"] for p in told] == sorted(p["chatsDone"] for p in told)
    assert told[-1] == {**told[-1], "bytesDone": total, "chatsDone": 3, "done": True}
    assert [p["done"] for p in told].count(True) == 1


def test_a_command_without_the_window_prints_the_restore_on_stderr(data_root):
    sessions_dir = data_root / "sessions"
    sessions_dir.mkdir(parents=True)
    header = {"type": "session", "schema": 2, "sessionId": "chat0", "createdAt": "2026-07-26T09:00:00.000Z"}
    records = [text(f"m{i}", f"note {i}") for i in range(50)]
    (sessions_dir / "chat0.jsonl").write_bytes(b"".join(line(r) for r in [header, *records]))
    done = run_cli("export", "chat0", "--format", "md", env={"PI_DESKTOP_DATA_DIR": str(data_root)})
    assert done.returncode == 0, done.stderr
    assert "note 49" in done.stdout
    lines = [text for text in done.stderr.splitlines() if "restoring chats" in text]
    assert lines == [
        "pidesktop export: restoring chats from their files   0% (0/1 chats)",
        "pidesktop export: restoring chats from their files 100% (1/1 chats)",
    ]


def test_rows_go_in_exactly_as_given_whatever_their_text(ctx):
    with ctx.conn:
        ctx.conn.execute("INSERT INTO sessions(id, title, created_at, updated_at) VALUES ('s1', '', 0, 0)")
    texts = ['quotes " and \\ backslashes', "emoji 🙂 and 字", "a NUL \x00 inside", "", None, "line\nbreak\ttab"]
    rows = [(f"m{i}", "s1", None, i + 1, "user", None, 0, t, 2**53 + i) for i, t in enumerate(texts)]
    rows.append(("m-tool", "s1", None, len(texts) + 1, "tool", "Bash", 1, None, -5))
    with ctx.conn:
        message_index.insert_rows(ctx.conn, rows)
    stored = list(ctx.conn.execute(f"SELECT id, session_id, {COLUMNS.removeprefix('id, ')} FROM messages ORDER BY seq"))
    assert stored == rows
    assert (
        ctx.conn.execute("SELECT count(*) FROM messages_fts WHERE messages_fts MATCH '\"backslashes\"'").fetchone()[0]
        == 1
    )


# Blocks and metadata of every shape a line may hold, the odd ones included (a rebuild reads old files).
_block = st.one_of(
    st.fixed_dictionaries(
        {},
        optional={
            "type": st.sampled_from(["text", "thinking", "tool_call", "attachment"]) | st.none() | st.integers(),
            "text": st.text(max_size=8) | st.none() | st.integers(),
            "name": st.sampled_from(["Bash", "Read", ""]) | st.none() | st.integers(),
            "status": st.sampled_from(["ok", "error", "running"]) | st.none(),
        },
    ),
    st.text(max_size=4),
    st.none(),
)
_message = st.fixed_dictionaries(
    {"id": st.just("m1"), "role": st.sampled_from(["user", "assistant", "tool", "system", "other"])},
    optional={
        "blocks": st.lists(_block, max_size=5),
        "toolName": st.sampled_from(["Task", ""]) | st.none() | st.integers(),
        "meta": st.fixed_dictionaries(
            {},
            optional={
                "status": st.sampled_from(["error", "ok", "aborted"]) | st.none(),
                "error": st.none() | st.just("") | st.just({}) | st.just({"message": "failed"}),
                "modelSystem": st.none() | st.just(True) | st.just(""),
            },
        )
        | st.lists(st.integers(), max_size=1)
        | st.none(),
    },
)


_text_block = {"type": "text", "text": "hi"}


@settings(max_examples=400, deadline=None)
@given(_message)
@example({"id": "m1", "role": "system", "meta": {"modelSystem": True}, "blocks": [_text_block]})
@example(
    {"id": "m1", "role": "tool", "blocks": [_text_block, {"type": "tool_call", "name": "Bash", "status": "error"}]}
)
@example({"id": "m1", "role": "assistant", "toolName": 3, "blocks": [{"type": "tool_call", "name": "Read"}, "x"]})
@example({"id": "m1", "role": "user", "meta": {"error": {"message": "failed"}}, "blocks": [_text_block, _text_block]})
def test_one_pass_over_the_blocks_derives_what_the_three_readers_do(message):
    assert message_index.derived_columns(message) == (
        message_index.tool_name(message),
        int(message_index.is_error(message)),
        message_index.extract_text(message),
    )
