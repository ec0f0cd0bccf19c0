"""A data root worth moving, shared by the storage tests, and a check that it is what they expect.

``seed()`` fills a root through a real host (sessions, messages, a compaction),
then adds what no command writes yet straight to the files and the database:
kv rows, artifacts, a worktree, a queued turn with attachments, a revisions
line, a plugin registry, front-end files, links inside and outside the root,
unusual modes, and optional bulk attachments. Paths under the root appear in
exactly the fields relocation owns, and also in narrative text, commands and
external paths, which it must leave alone.
"""

from __future__ import annotations

import hashlib
import os
import random
from dataclasses import dataclass
from pathlib import Path

import apsw
import orjson

from pidesktop import paths
from pidesktop.host.core import WRITER_LOCK
from tests.support.hosts import InProcessHost


@dataclass
class Seeded:
    location: paths.StorageLocation
    external: Path
    a: str  # session in an external project
    b: str  # session whose project lives under the data root

    @property
    def root(self) -> Path:
        return self.location.data_root


def text(value: str) -> dict:
    return {"type": "text", "text": value}


def seed(location: paths.StorageLocation, external: Path, bulk_mb: int = 0, seed_value: int = 1) -> Seeded:
    root = location.data_root
    r = str(root)
    external.mkdir(parents=True, exist_ok=True)
    host = InProcessHost(location)
    try:
        a = host.call("session.create", {"title": "external", "projectPath": str(external)})["session"]["id"]
        b = host.call("session.create", {"title": "inside", "projectPath": f"{r}/scratch/projB"})["session"]["id"]

        def append(sid, message):
            return host.call("session.appendMessage", {"sessionId": sid, "message": message})

        append(
            a,
            {
                "id": "u1",
                "role": "user",
                "blocks": [
                    text(f"please read {r}/scratch/{a}/notes.txt"),
                    {"type": "attachment", "name": "photo.png", "ref": f"{r}/attachments/{'ab' * 32}"},
                ],
            },
        )
        append(
            a,
            {
                "id": "a1",
                "role": "assistant",
                "blocks": [
                    {"type": "thinking", "text": f"the file is in {r}/scratch/{a}"},
                    {
                        "type": "tool_call",
                        "callId": "c1",
                        "name": "Write",
                        "status": "ok",
                        "args": {
                            "path": f"{r}/scratch/{a}/out.txt",
                            "command": f"ls {r}",
                            "other": "/elsewhere/scratch/x",
                        },
                        "result": f"wrote {r}/scratch/{a}/out.txt and {r}/visualizations/{a}/v.html",
                    },
                    text(f"done, see {r}/visualizations/{a}/v.html"),
                ],
            },
        )
        append(a, {"id": "t1", "role": "tool", "blocks": [text(f"saved to {r}/scratch/{a}/pasted/p1.txt")]})
        append(
            a,
            {
                "id": "u2",
                "role": "user",
                "blocks": [
                    text("and the external one"),
                    {"type": "attachment", "name": "x", "ref": str(external / "x.txt")},
                ],
            },
        )
        host.call(
            "session.appendCompaction",
            {
                "sessionId": a,
                "compaction": {
                    "id": "k1",
                    "throughMessageId": "u2",
                    "summary": f"summary naming {r}",
                    "retainedTail": [
                        {
                            "id": "u2",
                            "role": "user",
                            "blocks": [{"type": "attachment", "name": "y", "ref": f"{r}/attachments/{'cd' * 32}"}],
                        }
                    ],
                },
            },
        )
        append(b, {"id": "b1", "role": "user", "blocks": [text("hello from inside")]})
        append(b, {"id": "b2", "role": "assistant", "blocks": [text("searchable answer zebra")]})
    finally:
        host.stop()

    conn = apsw.Connection(str(root / "pi.sqlite"))
    try:
        with conn:
            kv = [
                ("app", "workspaceRoot", orjson.dumps(f"{r}/scratch/ws").decode()),
                (
                    "projectGroups",
                    "g1",
                    orjson.dumps(
                        {
                            "name": "g",
                            "roots": [str(external), f"{r}/scratch/projB"],
                            "note": f"kept in {r}/scratch/projB",
                        }
                    ).decode(),
                ),
                ("projectMemory", f"{r}/scratch/projB", orjson.dumps(f"remember {r}/scratch/projB").decode()),
                ("projectMemory", str(external), orjson.dumps("external memory").decode()),
            ]
            conn.executemany("INSERT INTO kv(ns, key, value_json, updated_at) VALUES (?, ?, ?, 1)", kv)
            conn.executemany(
                "INSERT INTO artifacts(session_id, path, op, updated_at) VALUES (?, ?, 'write', 1)",
                [(a, f"{r}/scratch/{a}/out.txt"), (a, str(external / "src.py"))],
            )
            project_b = conn.execute("SELECT id FROM projects WHERE path = ?", (f"{r}/scratch/projB",)).fetchone()[0]
            conn.execute(
                "INSERT INTO worktrees(id, project_id, session_id, path, branch, created_at, updated_at) "
                "VALUES ('w1', ?, ?, ?, 'main', 1, 1)",
                (project_b, b, f"{r}/scratch/wt1"),
            )
            conn.execute(
                "INSERT INTO turn_queue(id, session_id, principal, input_hash, content, attachments_json, "
                "permission_mode, position, created_at) VALUES ('q1', ?, 'user', 'h', ?, ?, 'ask', 0, 1)",
                (
                    a,
                    f"queued text naming {r}",
                    orjson.dumps([{"ref": f"{r}/attachments/{'ef' * 32}", "name": "e"}]).decode(),
                ),
            )
    finally:
        conn.close()

    sessions = root / "sessions"
    (sessions / f"{a}.revisions.jsonl").write_bytes(
        orjson.dumps(
            {
                "type": "revision",
                "rootUserId": "u1",
                "revisionIndex": 1,
                "messages": [
                    {
                        "type": "message",
                        "id": "old-a1",
                        "role": "assistant",
                        "blocks": [
                            {
                                "type": "tool_call",
                                "callId": "c0",
                                "name": "Read",
                                "args": {"path": f"{r}/scratch/{a}/notes.txt"},
                            },
                            text(f"narrative {r}/scratch/{a}/notes.txt"),
                        ],
                    }
                ],
            }
        )
        + b"\n"
    )
    (root / "plugins").mkdir(mode=0o700, exist_ok=True)
    (root / "plugins" / "registry.json").write_bytes(
        orjson.dumps(
            {
                "plugins": [
                    {"id": "p1", "installPath": f"{r}/plugins/p1", "description": f"lives in {r}/plugins"},
                    {"id": "dev", "installPath": str(external / "dev-plugin")},
                ]
            },
            option=orjson.OPT_INDENT_2,
        )
    )
    location.ui_root.mkdir(parents=True, exist_ok=True)
    (location.ui_root / "preferences.json").write_bytes(
        orjson.dumps(
            {
                "window": {"geometry": "abc"},
                "sidebar": {
                    "projectMeta": {f"{r}/scratch/projB": {"pinned": True}, str(external): {"collapsed": True}},
                    "openProjectPaths": [f"{r}/scratch/projB", str(external)],
                    "projectSort": "recent",
                },
            },
            option=orjson.OPT_INDENT_2,
        )
    )
    (location.ui_root / "session-message-outbox.dead-letter.json").write_bytes(
        orjson.dumps(
            [
                {
                    "sessionId": a,
                    "turnId": None,
                    "failures": 5,
                    "error": f"could not write {r}",
                    "message": {
                        "id": "dl1",
                        "role": "assistant",
                        "blocks": [
                            {"type": "attachment", "name": "z", "ref": f"{r}/attachments/{'aa' * 32}"},
                            text(f"see {r}"),
                        ],
                    },
                }
            ]
        )
    )
    # Files, links and modes the copy must reproduce.
    for digest in ("ab" * 32, "cd" * 32):
        (root / "attachments" / digest).write_bytes(hashlib.sha256(digest.encode()).digest() * 100)
    (root / "scratch" / a).mkdir(mode=0o750)
    (root / "scratch" / a / "notes.txt").write_text("notes\n")
    os.chmod(root / "scratch" / a / "notes.txt", 0o640)
    os.symlink(root / "attachments" / ("ab" * 32), root / "scratch" / a / "abs-inside")
    os.symlink(f"../../attachments/{'cd' * 32}", root / "scratch" / a / "rel-inside")
    os.symlink(external / "x.txt", root / "scratch" / a / "abs-outside")
    os.symlink("../../../outside-target", root / "scratch" / a / "rel-outside")
    (root / "cache" / "thumb.bin").write_bytes(b"\0" * 1000)
    rng = random.Random(seed_value)
    bulk = root / "attachments"
    remaining = bulk_mb << 20
    while remaining > 0:
        size = min(remaining, rng.randint(4 << 10, 512 << 10))
        (bulk / f"{rng.getrandbits(128):032x}{rng.getrandbits(128):032x}").write_bytes(rng.randbytes(size))
        remaining -= size
    return Seeded(location, external, a, b)


def snapshot(*roots: Path) -> dict[str, tuple]:
    """Every entry under ``roots``: (kind, mode, sha256 or link target); writer lock files excluded."""
    found: dict[str, tuple] = {}
    for base in roots:
        if not base.exists():
            continue
        for folder, dirs, files in os.walk(base):
            for name in dirs + files:
                path = Path(folder) / name
                if name == WRITER_LOCK:  # lock bookkeeping, rewritten by whoever takes the lock
                    continue
                st = path.lstat()
                if path.is_symlink():
                    found[str(path)] = ("link", os.readlink(path))
                elif path.is_dir():
                    found[str(path)] = ("dir", st.st_mode & 0o7777)
                else:
                    found[str(path)] = ("file", st.st_mode & 0o7777, hashlib.sha256(path.read_bytes()).hexdigest())
    return found


def test_the_seed_holds_paths_in_every_relocated_kind_of_field(location, tmp_path):
    seeded = seed(location, tmp_path / "external")
    r = str(seeded.root)
    transcript = (seeded.root / "sessions" / f"{seeded.a}.jsonl").read_bytes()
    assert transcript.count(r.encode()) >= 8
    assert (seeded.root / "sessions" / f"{seeded.a}.revisions.jsonl").exists()
    assert r in (location.ui_root / "preferences.json").read_text()
    assert os.readlink(seeded.root / "scratch" / seeded.a / "rel-inside").startswith("../")
