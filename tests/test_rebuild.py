"""A lost ``pi.sqlite`` gives back every chat's title, project and settings from the transcripts.

Real ``pidesktop host --stdio`` subprocesses; the database and its WAL are
deleted (or cut to nothing) between two runs, as a damaged disk or a careless
clean-up would.
"""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from tests.support.hosts import InProcessHost
from tests.support.windows import started_window


def lose_database(root: Path, how: str) -> None:
    for suffix in ("-wal", "-shm"):
        (root / f"pi.sqlite{suffix}").unlink(missing_ok=True)
    if how == "delete":
        (root / "pi.sqlite").unlink()
    else:
        (root / "pi.sqlite").write_bytes(b"")


def text(mid: str, words: str, role: str = "user") -> dict:
    return {"id": mid, "role": role, "blocks": [{"type": "text", "text": words}]}


@pytest.mark.parametrize("how", ["delete", "truncate"])
def test_titles_projects_and_settings_come_back_after_the_database_is_lost(stdio_host, data_root, tmp_path, how):
    project = tmp_path / "work" / "atlas"
    project.mkdir(parents=True)
    h = stdio_host()
    named = h.call("session.create", {"title": "Trip to Lisbon", "projectPath": str(project)})["session"]["id"]
    h.call("session.appendMessage", {"sessionId": named, "message": text("a1", "plan the trip")})
    h.call("session.update", {"sessionId": named, "mode": "plan", "thinkingLevel": "high"})
    h.call("session.update", {"sessionId": named, "permissionMode": "ask"})
    h.call("session.rename", {"sessionId": named, "title": "Lisbon, final"})
    untitled = h.call("session.create", {})["session"]["id"]
    h.call("session.appendMessage", {"sessionId": untitled, "message": text("b1", "Why is the sky blue?")})
    before = {sid: h.call("session.get", {"sessionId": sid}) for sid in (named, untitled)}
    assert h.close() == 0

    lose_database(data_root, how)
    h = stdio_host()
    hello = h.call("app.handshake", {"protocolVersion": 1})
    assert hello["rebuilt"] == {"sessions": 2, "notRecovered": ["settings", "providers", "projectMemory"]}
    after = {sid: h.call("session.get", {"sessionId": sid}) for sid in (named, untitled)}
    got = after[named]["session"]
    assert got["title"] == "Lisbon, final" and got["titleSource"] == "manual"
    assert got["projectPath"] == before[named]["session"]["projectPath"] == str(project)
    assert (got["mode"], got["thinkingLevel"], got["permissionMode"]) == ("plan", "high", "ask")
    assert after[untitled]["session"]["title"] == before[untitled]["session"]["title"] == "Why is the sky blue?"
    for sid in (named, untitled):  # the lines are for the rebuild: the window sees the same messages
        assert after[sid]["messages"] == before[sid]["messages"]
    assert [p["path"] for p in h.call("projects.list")["projects"]] == [str(project)]
    assert h.close() == 0


@pytest.mark.parametrize("mode", ["plan", "goal"])
def test_every_mode_a_chat_can_be_in_comes_back(stdio_host, data_root, mode):
    h = stdio_host()
    sid = h.call("session.create", {"title": "Moded"})["session"]["id"]
    h.call("session.update", {"sessionId": sid, "mode": mode})
    assert h.close() == 0
    lose_database(data_root, "delete")
    h = stdio_host()
    assert h.call("session.get", {"sessionId": sid})["session"]["mode"] == mode
    assert h.close() == 0


def test_a_rewrite_keeps_what_the_info_lines_said(stdio_host, data_root):
    h = stdio_host()
    sid = h.call("session.create", {"title": "Kept"})["session"]["id"]
    h.call("session.appendMessage", {"sessionId": sid, "message": text("u1", "first")})
    h.call("session.appendMessage", {"sessionId": sid, "message": text("r1", "reply", "assistant")})
    streaming = {**text("r2", "partial", "assistant"), "meta": {"status": "streaming"}}
    h.call("session.appendMessage", {"sessionId": sid, "message": streaming})
    h.call("session.appendMessage", {"sessionId": sid, "message": text("r2", "whole", "assistant")})  # a rewrite
    assert h.close() == 0
    lines = [orjson.loads(line) for line in (data_root / "sessions" / f"{sid}.jsonl").read_bytes().splitlines()]
    assert [line["type"] for line in lines if line["type"] == "session_info"] == ["session_info"]

    lose_database(data_root, "delete")
    h = stdio_host()
    assert h.call("session.get", {"sessionId": sid})["session"]["title"] == "Kept"
    assert h.close() == 0


def test_the_rebuild_is_told_once(stdio_host, data_root):
    h = stdio_host()
    sid = h.call("session.create", {"title": "Once"})["session"]["id"]
    h.call("settings.set", {"patch": {"theme": "dark"}})
    assert h.close() == 0
    (data_root / "sessions" / f"{sid}.jsonl").rename(data_root / "aside.jsonl")
    h = stdio_host()  # the row stays; the kv keeps the settings
    h.call("session.delete", {"sessionId": sid})
    assert h.close() == 0
    (data_root / "aside.jsonl").rename(data_root / "sessions" / "11111111-2222-3333-4444-555555555555.jsonl")
    h = stdio_host()
    hello = h.call("app.handshake", {"protocolVersion": 1})
    assert hello["rebuilt"] == {"sessions": 1, "notRecovered": []}  # the database was there: nothing else lost
    assert h.close() == 0
    h = stdio_host()
    assert "rebuilt" not in h.call("app.handshake", {"protocolVersion": 1})
    assert h.close() == 0


def test_the_window_says_which_chats_were_rebuilt(qtbot, qloop, location, loop_hosts, shot):
    seed = InProcessHost(location)
    try:
        seed.call("session.create", {"title": "Lisbon"})
    finally:
        seed.stop()
    lose_database(location.data_root, "delete")
    win = started_window(qtbot, qloop, loop_hosts.start(), size=None)
    assert win.notice.isVisible()
    assert "A chat was rebuilt from its file" in win.notice.label.text()
    assert "could not be recovered: app settings, providers, project memory." in win.notice.label.text()
    assert "damaged" not in win.notice.label.text()  # lost, not damaged: nothing was set aside
    assert not win.notice.details_button.isVisible()  # news, not an error
    shot(win, "rebuilt-note")
    win.close()


def test_the_window_says_a_damaged_database_was_set_aside_and_what_came_back(qtbot, qloop, location, loop_hosts, shot):
    from tests.test_repair import damage_schema_page

    seed = InProcessHost(location)
    try:
        seed.call("session.create", {"title": "Lisbon"})
        seed.call("settings.set", {"patch": {"theme": "dark"}})
    finally:
        seed.stop()
    damage_schema_page(location.data_root)
    win = started_window(qtbot, qloop, loop_hosts.start(), size=None)
    said = win.notice.label.text()
    shot(win, "repaired-at-start-note")
    assert said.startswith(
        "Your database was damaged and has been rebuilt; the damaged copy is kept as pi.sqlite.damaged-"
    )
    assert "A chat was rebuilt from its file" in said
    assert "could not be recovered" not in said  # state-snapshot.json gave the settings back
    assert [s["title"] for s in win.client.call_blocking("session.list", {})["sessions"]] == ["Lisbon"]
    win.close()


def test_settings_providers_and_project_memory_come_back_from_the_snapshot(stdio_host, data_root, tmp_path):
    folder = tmp_path / "atlas"
    folder.mkdir()
    h = stdio_host()
    h.call("settings.set", {"patch": {"theme": "dark"}})
    h.call("providers.upsert", {"provider": {"id": "acme", "name": "Acme", "baseUrl": "https://api.example.com/v1"}})
    project = h.call("projects.upsert", {"path": str(folder)})["project"]
    h.call("projects.memorySet", {"projectId": project["id"], "text": "Deploys go through staging."})
    sid = h.call("session.create", {"title": "Kept", "projectPath": str(folder)})["session"]["id"]
    assert h.close() == 0
    assert (data_root / "state-snapshot.json").is_file()

    lose_database(data_root, "delete")
    h = stdio_host()
    assert h.call("app.handshake", {"protocolVersion": 1})["rebuilt"] == {"sessions": 1, "notRecovered": []}
    assert h.call("settings.get", {})["settings"]["theme"] == "dark"
    assert [p["id"] for p in h.call("providers.list", {})["providers"]] == ["acme"]
    (restored,) = h.call("projects.list", {})["projects"]
    assert restored["path"] == str(folder)
    memory = h.call("projects.memoryGet", {"projectId": restored["id"]})
    assert "Deploys go through staging." in orjson.dumps(memory).decode()
    assert h.call("session.get", {"sessionId": sid})["session"]["projectPath"] == str(folder)
    assert h.close() == 0


def test_an_older_database_put_back_brings_no_deleted_chat_back_as_a_ghost(stdio_host, data_root, tmp_path):
    h = stdio_host()
    sids = []
    for title in ("Kept", "Deleted later"):
        sid = h.call("session.create", {"title": title})["session"]["id"]
        h.call("session.appendMessage", {"sessionId": sid, "message": text(f"{sid[:4]}-u", "hello")})
        sids.append(sid)
    assert h.close() == 0
    old = tmp_path / "old.sqlite"
    old.write_bytes((data_root / "pi.sqlite").read_bytes())  # a copy taken after a clean close
    h = stdio_host()
    h.call("session.delete", {"sessionId": sids[1], "forGood": True})  # past the Trash: gone for good
    assert h.close() == 0
    (data_root / "pi.sqlite").write_bytes(old.read_bytes())  # the older copy put back
    for suffix in ("-wal", "-shm"):
        (data_root / f"pi.sqlite{suffix}").unlink(missing_ok=True)
    h = stdio_host()
    assert [s["id"] for s in h.call("session.list", {})["sessions"]] == [sids[0]]
    assert h.close() == 0


def differences(before, after, where: str = "") -> list[str]:
    """Where two JSON values differ (paths), for a readable failure."""
    if isinstance(before, dict) and isinstance(after, dict):
        return [
            d for k in before.keys() | after.keys() for d in differences(before.get(k), after.get(k), f"{where}.{k}")
        ]
    if isinstance(before, list) and isinstance(after, list) and len(before) == len(after):
        return [d for i, (b, a) in enumerate(zip(before, after)) for d in differences(b, a, f"{where}[{i}]")]
    return [] if before == after else [f"{where}: {before!r} -> {after!r}"]


def test_turns_usage_inbox_plans_automations_and_revisions_come_back(stdio_host, data_root, tmp_path):
    """Everything a chat and the app hold beyond titles: written, the database deleted, compared after."""
    h = stdio_host()
    sid = h.call("session.create", {"title": "Kept"})["session"]["id"]
    h.call("session.appendMessage", {"sessionId": sid, "message": text("u1", "plan the move")})
    h.call("session.startTurn", {"sessionId": sid, "turnId": "t1", "providerId": "offline", "modelId": "m"})
    h.call("session.appendMessage", {"sessionId": sid, "message": text("a1", "first answer", "assistant")})
    h.call(
        "session.recordUsage",
        {"sessionId": sid, "turnId": "t1", "records": [{"id": "op1", "inputTokens": 120, "outputTokens": 30}]},
    )
    h.call("session.endTurn", {"sessionId": sid, "turnId": "t1", "status": "completed", "createNotification": True})
    (first,) = h.call("notifications.list", {})["notifications"]
    h.call("notifications.markRead", {"id": first["id"]})
    h.call(  # usage that arrives after the turn ended
        "session.recordUsage",
        {"sessionId": sid, "turnId": "t1", "records": [{"id": "op2", "inputTokens": 5, "outputTokens": 7}]},
    )
    h.call("session.truncateFrom", {"sessionId": sid, "messageId": "a1"})  # a regenerate: a revision
    h.call("session.startTurn", {"sessionId": sid, "turnId": "t2"})
    h.call("session.appendMessage", {"sessionId": sid, "message": text("a2", "second answer", "assistant")})
    h.call("session.saveActiveRevision", {"sessionId": sid, "rootUserId": "u1"})  # the pager: 2 of 2
    submitted = {"sessionId": sid, "kind": "plan", "markdown": "# Move\n\n1. Pack", "turnId": "t2", "toolCallId": "c1"}
    approval = h.call("plan.submit", submitted)["approval"]
    h.call("plan.respond", {"approvalId": approval["id"], "decision": "approve", "permissionMode": "ask"})
    h.call(
        "session.endTurn",
        {"sessionId": sid, "turnId": "t2", "status": "error", "errorCode": "RATE_LIMIT", "createNotification": True},
    )
    h.call("session.startTurn", {"sessionId": sid, "turnId": "t3"})  # running when the database goes
    task = h.call(
        "tasks.create", {"name": "Standup", "prompt": "Summarise", "schedule": {"kind": "hourly", "everyHours": 2}}
    )

    def state() -> dict:
        got = h.call("session.get", {"sessionId": sid})
        return {
            "messages": got["messages"],
            "lastTurn": got["session"].get("lastTurn"),
            "mode": (got["session"]["mode"], got["session"]["permissionMode"]),
            "inbox": h.call("notifications.list", {}),
            "plans": h.call("plan.list", {"sessionId": sid})["approvals"],
            "tasks": h.call("tasks.list", {})["tasks"],
            "usage": h.call("usage.summary", {"sessionId": sid}),
            "revisions": h.call("session.listRevisions", {"sessionId": sid, "rootUserId": "u1"}),
        }

    assert h.close() == 0
    h = stdio_host()  # a plain restart first: it ends the running turn and the queued plan, as a rebuild must
    before = state()
    assert h.close() == 0
    assert before["lastTurn"]["status"] == "aborted" and before["plans"][0]["executionStatus"] == "interrupted"
    assert [t["id"] for t in before["tasks"]] == [task["task"]["id"]]
    assert len(before["inbox"]["notifications"]) == 2 and before["inbox"]["unreadCount"] == 1
    assert len(before["revisions"]["revisions"]) == 2

    lose_database(data_root, "delete")
    h = stdio_host()
    assert h.call("app.handshake", {"protocolVersion": 1})["rebuilt"]["notRecovered"] == []
    after = state()
    for plan in before["plans"] + after["plans"]:  # the time of the restart that interrupted it
        plan.pop("updatedAt")
    for part in before:
        assert after[part] == before[part], (part, differences(before[part], after[part]))
    assert h.close() == 0


def test_the_rebuild_knows_every_value_session_update_takes():
    from pidesktop.host.sessions import commands, session_info

    for field, values in (
        ("mode", commands.MODES),
        ("thinkingLevel", commands.THINKING_LEVELS),
        ("permissionMode", commands.PERMISSION_MODES),
    ):
        assert all(session_info._valid(field, value) for value in values), field


def test_a_pinned_chat_is_still_pinned_after_the_database_is_lost(qtbot, qloop, location, loop_hosts, tmp_path):
    """A chat's pin lives in the window's preferences.json, keyed by the chat's id, which the rebuild keeps
    (the transcript's name): losing pi.sqlite does not unpin it."""
    from pidesktop.ui.kit.prefs import Preferences

    seed = InProcessHost(location)
    try:
        pinned = seed.call("session.create", {"title": "Pinned one"})["session"]["id"]
        seed.call("session.create", {"title": "Loose one"})
    finally:
        seed.stop()
    prefs = Preferences(tmp_path / "ui")
    prefs.set_session_flag(pinned, "pinned", True)
    lose_database(location.data_root, "delete")
    win = started_window(qtbot, qloop, loop_hosts.start(), size=None, prefs=Preferences(tmp_path / "ui"))
    model = win.model
    groups = {model.index(r, 0).data(): model.index(r, 0) for r in range(model.rowCount())}
    assert list(groups) == ["Pinned", "Chats"]
    assert [model.index(r, 0, groups["Pinned"]).data() for r in range(model.rowCount(groups["Pinned"]))] == [
        "Pinned one"
    ]
    win.close()
