"""Which pi session files are listed: roots, configured folders, symlinks, duplicates, broken files."""

from __future__ import annotations

import logging
import os
import shutil
import time
from pathlib import Path

import orjson
import pytest

from tests.support.repo import FIXTURES

NATIVE = FIXTURES / "pi-native" / "sessions"
ONE_TURN = "2026-12-01T14-13-50-016Z_01a231f4-653f-75e0-b557-9081058b407f.jsonl"
FIVE_TURNS = "2026-12-01T14-13-52-060Z_01a231f4-6d3b-74c0-8a0e-6f9f6aede47c.jsonl"
WORK = "--home-ada-code-work--"


def session_file(header_id: str, cwd: str, prompt: str, stamp: int = 1_700_000_000_000) -> bytes:
    header = {"type": "session", "version": 3, "id": header_id, "timestamp": "2025-01-01T00:00:00.000Z", "cwd": cwd}
    user = {
        "type": "message",
        "id": "u1",
        "parentId": None,
        "timestamp": "2025-01-01T00:00:01.000Z",
        "message": {"role": "user", "content": [{"type": "text", "text": prompt}], "timestamp": stamp},
    }
    reply = {
        "type": "message",
        "id": "a1",
        "parentId": "u1",
        "timestamp": "2025-01-01T00:00:02.000Z",
        "message": {
            "role": "assistant",
            "content": [{"type": "text", "text": "ok"}],
            "provider": "p",
            "model": "m",
            "stopReason": "stop",
            "timestamp": stamp + 1,
        },
    }
    return b"".join(orjson.dumps(line) + b"\n" for line in (header, user, reply))


@pytest.fixture
def agent(isolated_home) -> Path:
    folder = Path(os.environ["PI_CODING_AGENT_DIR"])
    (folder / "sessions").mkdir(parents=True)
    return folder


def native_rows(host, **params) -> list[dict]:
    return [
        r for r in host.call("session.list", {"limit": 500, **params})["sessions"] if r["id"].startswith("native-pi:")
    ]


def titles(host) -> list[str]:
    return sorted(r["title"] for r in native_rows(host))


def test_symlinks_aliases_and_duplicates(host, agent, tmp_path):
    root = agent / "sessions"
    shutil.copytree(NATIVE / WORK, root / WORK)
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (outside / "secret.jsonl").write_bytes(session_file("secret", "/x", "outside the root"))
    (root / WORK / "escape.jsonl").symlink_to(outside / "secret.jsonl")  # escapes: omitted
    (root / "escaped-dir").symlink_to(outside, target_is_directory=True)  # a folder link is not followed
    (root / WORK / "alias.jsonl").symlink_to(root / WORK / ONE_TURN)  # an alias: not a second row
    copy = root / "copies"
    copy.mkdir()
    shutil.copy2(root / WORK / FIVE_TURNS, copy / "five-again.jsonl")  # same header id: listed once
    rows = native_rows(host)
    assert len(rows) == 9
    assert "outside the root" not in [r["title"] for r in rows]
    assert len({r["nativeId"] for r in rows}) == 9
    ids = {r["id"] for r in rows}
    assert host.call("session.get", {"sessionId": rows[0]["id"]})["messages"]
    # the same ids after a restart of the scan (derived from the real path)
    assert {r["id"] for r in native_rows(host)} == ids


def test_configured_session_folders(host, agent, tmp_path, isolated_home):
    custom = tmp_path / "custom-sessions"
    (custom / "nested").mkdir(parents=True)
    (custom / "direct.jsonl").write_bytes(session_file("direct", "/somewhere", "from the global folder"))
    (custom / "nested" / "deep.jsonl").write_bytes(session_file("deep", "/somewhere", "nested: not scanned"))
    (agent / "settings.json").write_bytes(orjson.dumps({"sessionDir": str(custom)}))
    project = tmp_path / "proj"
    (project / ".pi").mkdir(parents=True)
    (project / ".pi" / "settings.json").write_bytes(orjson.dumps({"sessionDir": "pi-sessions"}))
    (project / "pi-sessions").mkdir()
    (project / "pi-sessions" / "p.jsonl").write_bytes(session_file("proj", str(project), "in the project folder"))
    home_folder = isolated_home / "home-sessions"
    home_folder.mkdir()
    (home_folder / "h.jsonl").write_bytes(session_file("home", "/h", "from a tilde path"))
    inside = agent / "sessions" / "configured-inside"
    inside.mkdir()
    (inside / "i.jsonl").write_bytes(session_file("inside", "/i", "inside the default root"))

    assert titles(host) == ["from the global folder", "inside the default root"]
    project_id = host.call("projects.upsert", {"path": str(project)})["project"]["id"]
    rows = {r["title"]: r for r in native_rows(host)}
    assert sorted(rows) == ["from the global folder", "in the project folder", "inside the default root"]
    assert rows["in the project folder"]["projectId"] == project_id
    assert rows["in the project folder"]["projectPath"] == str(project)
    assert [r["title"] for r in native_rows(host, projectId=project_id)] == ["in the project folder"]
    (agent / "settings.json").write_bytes(orjson.dumps({"sessionDir": "~/home-sessions"}))
    assert "from a tilde path" in titles(host)
    # a session already read stays readable after its folder leaves the settings
    (project / ".pi" / "settings.json").write_bytes(b"{}")
    assert host.call("session.get", {"sessionId": rows["in the project folder"]["id"]})["messages"]


def test_broken_files_never_break_the_listing(host, agent, caplog):
    root = agent / "sessions" / "mixed"
    root.mkdir()
    (root / "good.jsonl").write_bytes(session_file("good", "/g", "a good one"))
    (root / "garbage.jsonl").write_bytes(b"\x00\xff not json at all\n")
    (root / "empty.jsonl").write_bytes(b"")
    (root / "not-a-header.jsonl").write_bytes(b'{"type":"message","id":"x"}\n')
    (root / "torn.jsonl").write_bytes(session_file("torn", "/t", "torn tail") + b'{"type":"message","id":"ha')
    (root / "header-only-torn.jsonl").write_bytes(b'{"type":"session","version":3,"id":"h')
    (root / "dangling.jsonl").symlink_to(root / "does-not-exist.jsonl")
    (root / "notes.txt").write_bytes(session_file("txt", "/t", "not a jsonl name"))
    with caplog.at_level(logging.WARNING, logger="pidesktop.host.native"):
        rows = {r["title"]: r for r in native_rows(host)}
    assert sorted(rows) == ["a good one", "torn tail"]
    assert rows["torn tail"]["messageCount"] == 2
    assert any("dangling.jsonl" in record.getMessage() for record in caplog.records)  # unreadable: logged
    # the torn line counts once it is complete
    with (root / "torn.jsonl").open("ab") as handle:
        handle.write(
            b'lf","parentId":"a1","timestamp":"2025-01-01T00:00:03.000Z","message":{"role":"user",'
            b'"content":"more","timestamp":1700000000009}}\n'
        )
    rows = {r["title"]: r for r in native_rows(host)}
    assert rows["torn tail"]["messageCount"] == 3


def test_a_removed_file_is_not_found(host, agent):
    path = agent / "sessions" / "gone.jsonl"
    path.write_bytes(session_file("gone", "/g", "soon gone"))
    (row,) = native_rows(host)
    path.unlink()
    assert host.error("session.get", {"sessionId": row["id"]}).code == "NOT_FOUND"
    assert native_rows(host) == []
    assert host.error("session.get", {"sessionId": "native-pi:000000000000000000000000"}).code == "NOT_FOUND"


def test_a_settled_walk_is_only_restated_and_still_sees_every_change(agent):
    import apsw

    from pidesktop.host.native.catalog import Catalog

    conn = apsw.Connection(":memory:")
    conn.execute("CREATE TABLE projects(id INTEGER PRIMARY KEY, path TEXT, last_opened_at INTEGER)")
    folder = agent / "sessions" / "--w--"
    folder.mkdir()
    grows = folder / "grows.jsonl"
    grows.write_bytes(session_file("grows", "/w", "first"))
    (folder / "stays.jsonl").write_bytes(session_file("stays", "/w", "second"))
    past = 1_600_000_000
    for path in (folder, folder.parent):
        os.utime(path, (past, past))  # long settled: its mtime can be trusted
    catalog = Catalog()
    assert len(catalog.scan(conn)) == 2 and catalog._walked is not None
    listed = catalog.scan(conn)
    assert catalog.scan(conn) is listed  # nothing changed: the same listing, no walk
    with grows.open("ab") as handle:
        handle.write(
            orjson.dumps(
                {
                    "type": "message",
                    "id": "u2",
                    "parentId": "a1",
                    "timestamp": "t",
                    "message": {"role": "user", "content": "more", "timestamp": 9},
                }
            )
            + b"\n"
        )
    rows = {r["title"]: r for r in catalog.rows(conn, catalog.scan(conn))}
    assert rows["first"]["messageCount"] == 3  # a growing file is seen without a walk
    (folder / "new.jsonl").write_bytes(session_file("new", "/w", "third"))
    assert sorted(r["title"] for r in catalog.rows(conn, catalog.scan(conn))) == ["first", "second", "third"]
    (folder / "stays.jsonl").unlink()
    assert sorted(r["title"] for r in catalog.rows(conn, catalog.scan(conn))) == ["first", "third"]


def test_a_first_list_over_many_files_comes_at_once_and_the_rest_follows(host, agent, monkeypatch):
    from pidesktop.host.native import reading
    from pidesktop.host.native.catalog import native_id

    monkeypatch.setattr(reading, "FIRST_BUDGET", 0.0)  # as if the files were too many to index in time
    monkeypatch.setattr(reading, "SLICE", 0.0)  # one file per slice
    folder = agent / "sessions" / "--many--"
    folder.mkdir()
    for number in range(30):
        (folder / f"s{number:02d}.jsonl").write_bytes(session_file(f"s{number}", "/m", f"prompt {number}"))
    assert len(native_rows(host)) < 30
    direct = native_id(os.path.realpath(folder / "s29.jsonl"))
    assert host.call("session.get", {"sessionId": direct})["messages"]  # one not listed yet reads at once
    deadline = time.monotonic() + 10
    while len(native_rows(host)) < 30:
        assert time.monotonic() < deadline, "the rest never came"
        time.sleep(0.02)


def test_indexing_goes_on_in_slices_and_says_when_it_is_done(agent):
    import apsw

    from pidesktop.host.native import reading

    folder = agent / "sessions" / "--many--"
    folder.mkdir()
    for number in range(5):
        (folder / f"s{number}.jsonl").write_bytes(session_file(f"s{number}", "/m", f"prompt {number}"))

    class Context:  # what the slices use of a host: its database, the queue of host work, events
        conn = apsw.Connection(":memory:")
        native_catalog = None  # made by catalog_of, as on a HostContext
        queued: list = []
        events: list = []

        def post(self, work) -> bool:
            self.queued.append(work)
            return True

        def emit(self, topic: str, payload: dict) -> None:
            self.events.append(topic)

    ctx = Context()
    ctx.conn.execute("CREATE TABLE projects(id INTEGER PRIMARY KEY, path TEXT, last_opened_at INTEGER)")
    catalog = reading.catalog_of(ctx)
    assert catalog.scan(ctx.conn, budget=0.0) == [] and len(catalog.pending) == 5
    reading._go_on_indexing(ctx, catalog)
    reading._go_on_indexing(ctx, catalog)  # already queued: not twice
    assert len(ctx.queued) == 1
    steps = 0
    while ctx.queued:
        ctx.queued.pop(0)()
        steps += 1
    assert steps >= 1 and ctx.events == ["session.listChanged"] and not catalog.pending
    assert len(catalog.scan(ctx.conn)) == 5
