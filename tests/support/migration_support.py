"""An old ``pi.sqlite`` full of chats, for the migration engine's crash test and bench.

``build(path, version, sessions, messages)`` makes a database exactly as
``version`` had it (the v27 DDL with the later steps taken out:
``migration_steps.objects_at``) and fills it with ``sessions`` chats holding
``messages`` messages in all (prose-like text, so the FTS index is realistic),
committed in one transaction and checkpointed, WAL mode, mode 0600.
"""

from __future__ import annotations

import json
import os
import random
from pathlib import Path

import apsw

from pidesktop.formats.index import migration_steps

WORDS = (
    "the quick brown fox jumps over a lazy dog while streaming parser tokens flow into the index "
    "京都 旅行 明天 migration schema backup transaction checkpoint window session message reply "
    "provider model context compaction transcript attachment search trigram"
).split()


def text_of(rng: random.Random) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(rng.randint(8, 60)))


def build(path: Path, version: int, sessions: int = 20, messages: int = 2000, seed: int = 14) -> Path:
    rng = random.Random(seed)
    os.close(os.open(path, os.O_WRONLY | os.O_CREAT, 0o600))
    conn = apsw.Connection(str(path))
    try:
        conn.execute("PRAGMA auto_vacuum = INCREMENTAL")
        conn.execute("PRAGMA journal_mode = WAL")
        with conn:
            for _kind, _name, sql in migration_steps.objects_at(version):
                conn.execute(sql)
            conn.execute(f"PRAGMA user_version = {version}")
        per = max(1, messages // sessions)
        with conn:
            conn.executemany(
                "INSERT INTO sessions(id, title, created_at, updated_at, last_seq) VALUES (?, ?, ?, ?, ?)",
                [(f"s{i}", f"chat {i}", 1_700_000_000_000 + i, 1_700_000_000_000 + i, per) for i in range(sessions)],
            )
            conn.executemany(
                "INSERT INTO messages(id, session_id, seq, role, text, created_at) VALUES (?, ?, ?, ?, ?, ?)",
                (
                    (
                        f"m{i}",
                        f"s{i // per}",
                        i % per + 1,
                        "user" if i % 2 == 0 else "assistant",
                        text_of(rng),
                        1_700_000_000_000 + i,
                    )
                    for i in range(per * sessions)
                ),
            )
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    finally:
        conn.close()
    return path


def write_transcripts(path: Path) -> None:
    """Write each chat's transcript next to ``path``, as a real data root of that version has them.

    The transcript is the truth and the database its index: a host that opens a
    database whose chats have no transcript drops those rows as ghosts.
    """
    sessions = path.parent / "sessions"
    sessions.mkdir(exist_ok=True)
    conn = apsw.Connection(f"file:{path}?mode=ro", flags=apsw.SQLITE_OPEN_READONLY | apsw.SQLITE_OPEN_URI)
    try:
        for (session_id,) in conn.execute("SELECT id FROM sessions").fetchall():
            lines = [{"type": "session", "schema": 2, "sessionId": session_id, "createdAt": "2023-11-14T22:13:20.000Z"}]
            rows = conn.execute("SELECT id, role, text FROM messages WHERE session_id = ? ORDER BY seq", (session_id,))
            lines += [
                {"type": "message", "id": mid, "role": role, "blocks": [{"type": "text", "text": text}]}
                for mid, role, text in rows.fetchall()
            ]
            (sessions / f"{session_id}.jsonl").write_text("".join(json.dumps(line) + "\n" for line in lines))
    finally:
        conn.close()
