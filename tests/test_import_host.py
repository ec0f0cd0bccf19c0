"""import.scan / import.run through a real host thread: chats, origins, idempotence, growth, edits, failures."""

from __future__ import annotations

import os
import shutil
import time
from pathlib import Path

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pidesktop import paths as _paths
from pidesktop.host.core import Host
from pidesktop.host.imports import commands as _imports
from tests.support.hosts import InProcessHost
from tests.test_import_readers import CLAUDE, CODEX, FIXTURES, PI_NATIVE


def job(host: InProcessHost, method: str, params: dict, timeout: float = 30.0) -> dict:
    started = host.call(method, params)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for topic, payload in list(host.events):
            if topic == "data.finished" and payload["job"] == started["job"]:
                assert payload["status"] == "done", payload
                return payload["result"]
        time.sleep(0.01)
    raise AssertionError(f"{method} did not finish")


def run(host: InProcessHost, source: str, *paths: Path) -> dict:
    return job(host, "import.run", {"source": source, "paths": [str(p) for p in paths]})


@pytest.fixture
def claude_dir(tmp_path) -> Path:
    folder = tmp_path / "claude" / "-tmp"
    folder.mkdir(parents=True)
    for name in ("representative_messages.jsonl", "2b4ed4c0-b905-41de-9238-273db3ec737a.jsonl"):
        shutil.copy(CLAUDE / name, folder / name)
    return folder.parent


def imported(host: InProcessHost) -> list[dict]:
    return [s for s in host.call("session.list", {"includeDeleted": True})["sessions"] if s["source"]]


def test_import_makes_chats_with_origin_title_times_and_project(host, claude_dir):
    scan = job(host, "import.scan", {"source": "claude-code", "paths": [str(claude_dir)]})
    assert (scan["files"], scan["new"], scan["unchanged"]) == (2, 2, 0)
    result = run(host, "claude-code", claude_dir)
    assert (result["imported"], result["updated"], result["unchanged"], result["failed"]) == (2, 0, 0, 0)
    chats = {s["title"]: s for s in imported(host)}
    chat = chats["User learned about Python decorators, including basic decorators and…"]
    assert chat["source"] == "claude-code" and chat["messageCount"] == 7 and chat["titleSource"] == "generated"
    assert chat["createdAt"] == 1751557807874 and chat["projectPath"] == "/tmp"
    other = next(s for s in chats.values() if s is not chat)
    assert other["projectPath"] == "/src/experiments/claude_p" and other["messageCount"] == 2
    assert other["titleSource"] == "default" and other["title"]  # the first prompt
    got = host.call("session.get", {"sessionId": chat["id"]})
    assert [m["role"] for m in got["messages"]][:2] == ["user", "assistant"]
    assert got["messages"][0]["createdAt"] == "2025-07-03T15:50:07.874Z"
    progress = [p for t, p in host.events if t == "data.progress" and p["kind"] == "import"]
    assert progress and progress[-1]["done"] == progress[-1]["total"] == 2
    found = host.call("search.sessions", {"query": "decorators"})["results"]
    assert [r["sessionId"] for r in found] == [chat["id"]]
    pi = run(host, "pi", FIXTURES / "pi-sessions" / "v1")  # its first prompt is "/mode": not a title
    assert pi["imported"] == 1 and next(s for s in imported(host) if s["source"] == "pi")["title"].startswith(
        "read packages/coding-agent/docs/theme.md in full"
    )


def test_importing_again_changes_nothing_and_a_grown_source_appends_only_the_new_messages(host, claude_dir, data_root):
    run(host, "claude-code", claude_dir)
    chat = next(s for s in imported(host) if s["messageCount"] == 7)
    transcript = data_root / "sessions" / f"{chat['id']}.jsonl"
    before = transcript.read_bytes()
    again = run(host, "claude-code", claude_dir)
    assert (again["imported"], again["updated"], again["unchanged"]) == (0, 0, 2)
    assert transcript.read_bytes() == before

    source = claude_dir / "-tmp" / "representative_messages.jsonl"
    os.utime(source, ns=(source.stat().st_atime_ns, source.stat().st_mtime_ns + 5_000_000_000))  # touched
    assert job(host, "import.scan", {"source": "claude-code", "paths": [str(claude_dir)]})["unchanged"] == 1
    assert run(host, "claude-code", claude_dir)["unchanged"] == 2  # same bytes: nothing written...
    scan = job(host, "import.scan", {"source": "claude-code", "paths": [str(claude_dir)]})
    assert (scan["new"], scan["unchanged"]) == (0, 2)  # ...and the new time is remembered
    assert transcript.read_bytes() == before
    grown = {
        "type": "user",
        "timestamp": "2025-07-03T16:30:00Z",
        "uuid": "msg_new",
        "sessionId": "test_session",
        "message": {"role": "user", "content": [{"type": "text", "text": "One more question"}]},
    }
    with open(source, "ab") as handle:
        handle.write(orjson.dumps(grown) + b"\n")
    result = run(host, "claude-code", claude_dir)
    assert (result["imported"], result["updated"], result["unchanged"]) == (0, 1, 1)
    after = transcript.read_bytes()
    assert after.startswith(before) and after.count(b"\n") == before.count(b"\n") + 1
    session = host.call("session.get", {"sessionId": chat["id"]})
    assert session["session"]["messageCount"] == 8
    assert session["messages"][-1]["blocks"][0]["text"] == "One more question"
    assert session["session"]["updatedAt"] == 1751560200000
    assert len(imported(host)) == 2


def test_a_chat_changed_here_is_never_overwritten_the_source_comes_in_as_a_copy(host, claude_dir):
    run(host, "claude-code", claude_dir)
    chat = next(s for s in imported(host) if s["messageCount"] == 7)
    host.call(
        "session.appendMessage",
        {
            "sessionId": chat["id"],
            "message": {"id": "mine", "role": "user", "blocks": [{"type": "text", "text": "my own follow-up"}]},
        },
    )
    source = claude_dir / "-tmp" / "representative_messages.jsonl"
    with open(source, "ab") as handle:
        handle.write(
            orjson.dumps({"type": "user", "uuid": "later", "message": {"role": "user", "content": "later"}}) + b"\n"
        )
    result = run(host, "claude-code", claude_dir)
    assert (result["copied"], result["updated"], result["unchanged"]) == (1, 0, 1)
    (copy,) = result["copies"]
    assert copy["editedSessionId"] == chat["id"] and copy["sessionId"] != chat["id"]
    mine = host.call("session.get", {"sessionId": chat["id"]})["messages"]
    assert [m["blocks"][0].get("text") for m in mine][-1] == "my own follow-up" and len(mine) == 8
    theirs = host.call("session.get", {"sessionId": copy["sessionId"]})["messages"]
    assert len(theirs) == 8 and theirs[-1]["blocks"][0]["text"] == "later"
    # the copy now carries the origin: importing again leaves both alone
    assert run(host, "claude-code", claude_dir)["unchanged"] == 2


def test_codex_and_pi_import_with_tool_calls_thinking_and_a_compaction_checkpoint(host, tmp_path):
    codex = run(host, "codex", CODEX)
    assert codex["imported"] == 1 and codex["skippedEntries"] == {"future_synthetic_record": 1}
    pi_file = next(PI_NATIVE.glob("*/2026-12-01T14-16-07-462Z_*.jsonl"))
    pi = run(host, "pi", pi_file)
    assert pi["imported"] == 1
    chat = next(s for s in imported(host) if s["source"] == "pi")
    assert chat["title"] == "Fixture: RPC extras" and chat["messageCount"] == 21
    got = host.call("session.get", {"sessionId": chat["id"]})
    (checkpoint,) = got["compactions"]
    assert checkpoint["throughMessageId"] == f"{chat['id']}:533f5a11"
    assert checkpoint["summary"].startswith("## Goal")
    reply = next(s for s in imported(host) if s["source"] == "codex")
    blocks = host.call("session.get", {"sessionId": reply["id"]})["messages"][1]["blocks"]
    assert [b["type"] for b in blocks] == ["thinking", "tool_call", "tool_call", "tool_call", "text"]


def test_unreadable_files_are_reported_with_path_and_reason_and_the_rest_goes_on(host, tmp_path):
    folder = tmp_path / "mixed"
    folder.mkdir()
    shutil.copy(CLAUDE / "representative_messages.jsonl", folder / "good.jsonl")
    (folder / "garbage.jsonl").write_bytes(b"\x00\x01 not json at all\n")
    (folder / "not_a_session.jsonl").write_bytes(b"{}\n")
    torn = folder / "torn.jsonl"
    torn.write_bytes(
        (CLAUDE / "representative_messages.jsonl")
        .read_bytes()
        .replace(b"msg_0", b"tmsg_0")
        .replace(b"test_session", b"torn_session")
        + b'{"type":"user","mess'
    )
    result = run(host, "claude-code", folder)
    assert result["imported"] == 2 and result["failed"] == 2, result
    reasons = {Path(f["path"]).name: f["reason"] for f in result["failures"]}
    assert set(reasons) == {"garbage.jsonl", "not_a_session.jsonl"} and all(reasons.values())
    assert sorted(s["messageCount"] for s in imported(host)) == [7, 7]  # the torn one without its last line


def test_import_run_refuses_bad_params_naming_the_field(host):
    error = host.error("import.run", {"source": "cursor"})
    assert error.code == "INVALID_PARAMS" and error.data["field"] == "source"
    error = host.error("import.scan", {"source": "codex", "paths": ["relative/path"]})
    assert error.code == "INVALID_PARAMS" and error.data["field"] == "paths[0]"


def test_default_folders_come_from_home_or_the_tools_own_variable(host, tmp_path, monkeypatch):
    for moved in ("PI_CODING_AGENT_DIR", "CLAUDE_CONFIG_DIR", "CODEX_HOME"):
        monkeypatch.delenv(moved, raising=False)
    home = Path(__import__("os").environ["HOME"])
    target = home / ".codex" / "sessions" / "2026" / "01" / "02"
    target.mkdir(parents=True)
    shutil.copy(next(CODEX.glob("*.jsonl")), target)
    archived = home / ".codex" / "archived_sessions"
    archived.mkdir()
    (archived / "rollout-2025-01-01T00-00-00-22222222-2222-4222-8222-222222222222.jsonl").write_bytes(
        next(CODEX.glob("*.jsonl"))
        .read_bytes()
        .replace(b"11111111-1111-4111-8111-111111111111", b"22222222-2222-4222-8222-222222222222")
    )
    result = job(host, "import.run", {"source": "codex"})
    assert result["imported"] == 2 and result["files"] == 2  # Codex's archived sessions too
    elsewhere = tmp_path / "claude-config"
    (elsewhere / "projects" / "-tmp").mkdir(parents=True)
    shutil.copy(CLAUDE / "representative_messages.jsonl", elsewhere / "projects" / "-tmp")
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(elsewhere))
    scan = job(host, "import.scan", {"source": "claude-code"})
    assert scan["folders"] == [str(elsewhere / "projects")] and scan["new"] == 1


def test_trash_hides_an_imported_chat_restore_brings_it_back_and_purge_removes_it(host, claude_dir, data_root):
    run(host, "claude-code", claude_dir)
    chat = next(s for s in imported(host) if s["messageCount"] == 7)
    transcript = data_root / "sessions" / f"{chat['id']}.jsonl"
    assert host.call("session.delete", {"sessionId": chat["id"]}) == {"deleted": True, "trashed": True}
    listed = [s["id"] for s in host.call("session.list", {})["sessions"]]
    assert chat["id"] not in listed and transcript.exists()
    assert host.call("search.sessions", {"query": "decorators"})["results"] == []
    trash = host.call("session.listTrash", {})
    assert [s["id"] for s in trash["sessions"]] == [chat["id"]] and trash["sessions"][0]["deletedAt"]
    assert chat["id"] in [s["id"] for s in host.call("session.list", {"includeDeleted": True})["sessions"]]
    # the source is left alone while its chat is in the trash
    assert run(host, "claude-code", claude_dir)["imported"] == 0

    restored = host.call("session.restore", {"sessionId": chat["id"]})["session"]
    assert restored["deletedAt"] is None and chat["id"] in [s["id"] for s in host.call("session.list", {})["sessions"]]
    assert [r["sessionId"] for r in host.call("search.sessions", {"query": "decorators"})["results"]] == [chat["id"]]

    host.call("session.delete", {"sessionId": chat["id"]})
    assert host.call("session.purge", {"sessionId": chat["id"]}) == {"purged": True}
    assert not transcript.exists() and host.call("session.listTrash", {})["sessions"] == []
    assert host.error("session.get", {"sessionId": chat["id"]}).code == "NOT_FOUND"
    assert host.error("session.purge", {"sessionId": chat["id"]}).code == "NOT_FOUND"

    others = imported(host)
    for session in others:
        host.call("session.delete", {"sessionId": session["id"]})
    assert host.call("session.emptyTrash", {}) == {"purged": len(others)}
    assert imported(host) == []


def test_a_chat_of_the_apps_own_shares_the_trash_and_for_good_skips_it(host, data_root):
    sid = host.call("session.create", {"title": "mine"})["session"]["id"]
    assert host.call("session.delete", {"sessionId": sid}) == {"deleted": True, "trashed": True}
    assert [s["id"] for s in host.call("session.listTrash", {})["sessions"]] == [sid]
    other = host.call("session.create", {"title": "scratch"})["session"]["id"]
    assert host.call("session.delete", {"sessionId": other, "forGood": True}) == {"deleted": True}
    assert [s["id"] for s in host.call("session.listTrash", {})["sessions"]] == [sid]


def test_import_over_stdio_is_a_job_with_the_one_line_counts(stdio_host, claude_dir):
    stdio = stdio_host()
    started = stdio.call("import.run", {"source": "claude-code", "paths": [str(claude_dir)]})
    assert started["kind"] == "import"
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        listed = stdio.call("session.list", {})["sessions"]
        if len([s for s in listed if s["source"] == "claude-code"]) == 2:
            break
        time.sleep(0.05)
    else:
        raise AssertionError("the import over stdio did not land")
    assert stdio.close() == 0


def test_a_claude_session_brings_its_subagent_files_and_they_count_in_its_content(host, tmp_path):
    folder = tmp_path / "claude" / "-w"
    folder.mkdir(parents=True)
    sid = "5e0a4d52-0000-4000-8000-000000000001"
    lines = [
        {
            "type": "user",
            "uuid": "u1",
            "sessionId": sid,
            "cwd": "/w",
            "timestamp": "2026-02-01T00:00:00Z",
            "message": {"role": "user", "content": "Explore"},
        },
        {
            "type": "assistant",
            "uuid": "a1",
            "timestamp": "2026-02-01T00:00:01Z",
            "message": {
                "id": "r1",
                "role": "assistant",
                "content": [
                    {
                        "type": "tool_use",
                        "id": "task-1",
                        "name": "Task",
                        "input": {"prompt": "look", "subagent_type": "x"},
                    }
                ],
            },
        },
        {
            "type": "user",
            "uuid": "u2",
            "timestamp": "2026-02-01T00:00:05Z",
            "message": {
                "role": "user",
                "content": [{"type": "tool_result", "tool_use_id": "task-1", "content": "ok\nagentId: aa11"}],
            },
        },
    ]
    (folder / f"{sid}.jsonl").write_bytes(b"".join(orjson.dumps(x) + b"\n" for x in lines))
    subagents = folder / sid / "subagents"
    subagents.mkdir(parents=True)
    agent_file = subagents / "agent-aa11.jsonl"
    agent_file.write_bytes(
        orjson.dumps(
            {"type": "user", "uuid": "s1", "isSidechain": True, "message": {"role": "user", "content": "look"}}
        )
        + b"\n"
    )
    result = run(host, "claude-code", folder.parent)
    assert (result["imported"], result["files"]) == (1, 1)  # the subagent file is not a session of its own
    (chat,) = imported(host)
    messages = host.call("session.get", {"sessionId": chat["id"]})["messages"]
    assert [m.get("meta", {}).get("parentToolCallId") for m in messages] == [None, None, "task-1"]


def test_a_chat_left_by_an_import_cut_off_before_its_transaction_is_adopted_not_imported_twice(location, claude_dir):
    import apsw

    from pidesktop.formats.index.schema import DB_NAME

    first = InProcessHost(location)
    run(first, "claude-code", claude_dir)
    chats = imported(first)
    first.stop()
    # a kill between the transcript and the transaction: the transcripts are there, their rows are not;
    # the next start's boot pass restores each as a chat of its own (no source, no title, no origin)
    conn = apsw.Connection(str(location.data_root / DB_NAME))
    conn.execute("PRAGMA foreign_keys = ON")
    conn.execute("DELETE FROM sessions")
    conn.close()
    second = InProcessHost(location)
    try:
        restored = second.call("session.list", {})["sessions"]
        assert len(restored) == 2 and {s["source"] for s in restored} == {None}
        result = run(second, "claude-code", claude_dir)
        assert result["imported"] == 2
        again = second.call("session.list", {})["sessions"]
        assert sorted(s["id"] for s in again) == sorted(s["id"] for s in chats)
        assert all(s["source"] == "claude-code" and s["title"] for s in again)
        assert run(second, "claude-code", claude_dir)["unchanged"] == 2
    finally:
        second.stop()


def test_cancel_stops_an_import_between_two_sessions_and_keeps_what_was_written(host, tmp_path):
    folder = tmp_path / "many"
    folder.mkdir()
    source = (CLAUDE / "representative_messages.jsonl").read_bytes()
    for number in range(200):
        (folder / f"s{number:03d}.jsonl").write_bytes(source.replace(b"test_session", f"s{number}".encode()))
    started = host.call("import.run", {"source": "claude-code", "paths": [str(folder)]})
    assert host.call("data.cancel", {"job": started["job"]}) == {"cancelled": True}
    deadline = time.monotonic() + 30
    end = None
    while end is None and time.monotonic() < deadline:
        end = next((p for t, p in list(host.events) if t == "data.finished" and p["job"] == started["job"]), None)
        time.sleep(0.01)
    assert end is not None and end["status"] == "cancelled"
    kept = imported(host)
    assert len(kept) < 200 and all(s["messageCount"] == 7 for s in kept)  # whole chats only
    rest = run(host, "claude-code", folder)
    assert rest["imported"] == 200 - len(kept) and rest["unchanged"] == len(kept)


def test_a_folder_with_too_many_entries_ends_the_search_with_a_sentence(host, tmp_path, monkeypatch):
    from pidesktop.host import imports as importers

    monkeypatch.setattr(importers, "MAX_ENTRIES", 5)
    for number in range(8):
        (tmp_path / "wide" / f"d{number}").mkdir(parents=True)
    started = host.call("import.scan", {"source": "pi", "paths": [str(tmp_path / "wide")]})
    deadline = time.monotonic() + 10
    end = None
    while end is None and time.monotonic() < deadline:
        end = next((p for t, p in list(host.events) if t == "data.finished" and p["job"] == started["job"]), None)
        time.sleep(0.01)
    assert end["status"] == "failed" and end["error"]["code"] == "LIMIT_EXCEEDED"
    assert "too many files" in end["error"]["message"] and str(tmp_path / "wide") in end["error"]["message"]


# -- a property: however a source grows between imports, the chat ends up as the source reads ---------


GROWING = {
    "claude-code": (CLAUDE / "2b4ed4c0-b905-41de-9238-273db3ec737a.jsonl").read_bytes().splitlines(keepends=True),
    "pi": next(PI_NATIVE.glob("*/2026-12-01T14-16-07-462Z_*.jsonl")).read_bytes().splitlines(keepends=True),
}


@pytest.fixture(scope="module")
def bare_host(tmp_path_factory):
    host = Host.open(_paths.resolve(data_dir=tmp_path_factory.mktemp("grow") / "data"), lambda *_: None)
    yield host
    host.close()


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    source=st.sampled_from(["claude-code", "pi"]),
    cuts=st.lists(st.integers(1, 60), min_size=1, max_size=4),
    name=st.uuids(),
)
def test_any_growth_between_imports_leaves_the_chat_as_the_source_reads(bare_host, tmp_path, source, cuts, name):
    lines = GROWING[source]
    path = tmp_path / f"{name}.jsonl"
    ctx = bare_host.ctx
    sizes = sorted({min(c, len(lines)) for c in cuts}) + [len(lines)]
    if source == "pi":  # a pi file needs its header; its id is the session's
        lines = [lines[0].replace(b'"id":"01a231f6-7e25-7604-a24b-cc803de2a902"', f'"id":"{name}"'.encode())] + lines[
            1:
        ]
    session_id = None
    for size in sizes:
        path.write_bytes(b"".join(lines[:size]))
        data = path.read_bytes()
        try:
            plan = _imports.prepare(source, path, data, len(data), size)
        except _imports.ReadFailure:
            continue
        if not plan.session.messages:
            continue
        outcome = _imports.apply(ctx, plan)
        assert outcome["outcome"] in ("imported", "updated", "unchanged")  # never a copy: nothing changed here
        assert session_id in (None, outcome["sessionId"])
        session_id = outcome["sessionId"]
    stored = [_imports._local(session_id, r) for _, r in ctx.transcripts.read_all(session_id).messages]
    assert stored == plan.session.messages
    (count,) = ctx.conn.execute("SELECT count(*) FROM messages WHERE session_id = ?", (session_id,)).fetchone()
    assert (
        count
        == len(stored)
        == ctx.conn.execute("SELECT last_seq FROM sessions WHERE id = ?", (session_id,)).fetchone()[0]
    )


def test_an_import_files_chats_in_projects_without_marking_them_opened(ticking_host, claude_dir):
    host = ticking_host  # an import that stamped lastOpenedAt would show: every reading is a later time
    before = host.call("projects.upsert", {"path": "/tmp"})["project"]
    run(host, "claude-code", claude_dir)
    after = {p["path"]: p for p in host.call("projects.list")["projects"]}
    assert after["/tmp"]["lastOpenedAt"] == before["lastOpenedAt"]  # the recent-projects order stays
    assert "/src/experiments/claude_p" in after  # a new folder still becomes a project
