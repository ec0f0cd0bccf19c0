"""A start that builds the index from the transcripts leaves it merged, and search finds the same."""

from __future__ import annotations

from pathlib import Path

import orjson

from pidesktop import paths
from pidesktop.host.core import Host
from pidesktop.host.search import fts_segments

CHATS = 6
MESSAGES = 200  # six chats of 200: a build's worth of rows, one FTS segment per chat before any merge


def write_chats(root: Path) -> None:
    folder = root / "sessions"
    folder.mkdir(parents=True)
    for n in range(CHATS):
        sid = f"chat{n}"
        header = {"type": "session", "schema": 2, "sessionId": sid, "createdAt": "2026-07-26T09:00:00.000Z"}
        lines = [header] + [
            {
                "type": "message",
                "id": f"{sid}-{i}",
                "role": "user" if i % 2 == 0 else "assistant",
                "createdAt": f"2026-07-26T{10 + n:02d}:{i // 60:02d}:{i % 60:02d}.000Z",
                "blocks": [
                    {"type": "text", "text": f"message {i} of {sid}" + (" a persimmon tree" if i % 50 == 7 else "")}
                ],
            }
            for i in range(MESSAGES)
        ]
        (folder / f"{sid}.jsonl").write_bytes(b"".join(orjson.dumps(line) + b"\n" for line in lines))


def open_host(root: Path) -> Host:
    return Host.open(paths.resolve(data_dir=root), emit=lambda topic, payload: None, role="test")


def test_a_start_that_restores_chats_leaves_the_index_in_one_segment(tmp_path):
    root = tmp_path / "data"
    write_chats(root)
    host = open_host(root)
    try:
        conn = host.ctx.conn
        assert conn.execute("SELECT count(*) FROM messages").fetchone() == (CHATS * MESSAGES,)
        assert fts_segments.segment_count(conn) == 1
        conn.execute("INSERT INTO messages_fts(messages_fts, rank) VALUES ('integrity-check', 0)")
        found = host.dispatch("search.sessions", {"query": "persimmon", "native": False})
        assert sorted(r["sessionId"] for r in found["results"]) == [f"chat{n}" for n in range(CHATS)]
        assert {r["matchCount"] for r in found["results"]} == {4}
    finally:
        host.close()


def test_a_start_with_nothing_to_build_merges_nothing(tmp_path):
    root = tmp_path / "data"
    write_chats(root)
    open_host(root).close()
    host = open_host(root)
    try:
        conn = host.ctx.conn
        for n in range(3):  # three appends' worth of segments
            with conn:
                conn.execute(
                    "INSERT INTO messages(id, session_id, seq, role, is_error, text, created_at) "
                    "VALUES (?, 'chat0', ?, 'user', 0, 'one more persimmon', 0)",
                    (f"late{n}", MESSAGES + n + 1),
                )
        assert fts_segments.settle_after_build(conn, conn.total_changes()) == 0  # a few rows are no build
        assert fts_segments.segment_count(conn) == 4
        assert fts_segments.settle(conn, 10_000) > 0  # asked, it folds them
        assert fts_segments.segment_count(conn) == 1
        found = host.dispatch("search.query", {"query": "persimmon", "sessionId": "chat0"})
        assert found["total"] == 7
    finally:
        host.close()
