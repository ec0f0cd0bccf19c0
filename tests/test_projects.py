"""Projects over the bus: upsert, update, remove, memory, groups, missing folders (spec 004, 4.1 and 4.2)."""

from __future__ import annotations

import shutil

import pytest

from pidesktop.bus import ErrorCode

LIMIT = 32 * 1024


@pytest.fixture
def folder(tmp_path):
    path = tmp_path / "work" / "blog"
    path.mkdir(parents=True)
    return path


def test_upsert_normalises_the_path_and_the_same_folder_is_the_same_project(host, folder):
    first = host.call("projects.upsert", {"path": f"  {folder}//  "})["project"]
    assert first["path"] == str(folder) and first["name"] == "blog" and first["missing"] is False
    again = host.call("projects.upsert", {"path": str(folder) + "/", "name": "  The blog "})["project"]
    assert again["id"] == first["id"] and again["name"] == "The blog"
    kept = host.call("projects.upsert", {"path": str(folder)})["project"]
    assert kept["name"] == "The blog"  # upserting without a name keeps the chosen one
    windows = host.call("projects.upsert", {"path": "C:\\Users\\ann\\site\\"})["project"]
    assert windows["path"] == "C:/Users/ann/site" and windows["name"] == "site"
    assert [p["id"] for p in host.call("projects.list")["projects"]].count(first["id"]) == 1
    assert ("projects.changed", {"reason": "upserted", "project": kept}) in host.events


@pytest.mark.parametrize(
    "params,field",
    [
        ({"path": "   "}, "path"),
        ({"path": "relative/folder"}, "path"),
        ({}, "path"),
        ({"path": 3}, "path"),
        ({"path": "/tmp/x", "name": "  "}, "name"),
        ({"path": "/tmp/x", "name": "n" * 121}, "name"),
    ],
)
def test_upsert_refuses_bad_input_naming_the_field(host, params, field):
    error = host.error("projects.upsert", params)
    assert error.code == ErrorCode.INVALID_PARAMS and error.data["field"] == field
    assert host.call("projects.list")["projects"] == []


def test_update_renames_and_pins(host, folder):
    project = host.call("projects.upsert", {"path": str(folder)})["project"]
    renamed = host.call("projects.update", {"projectId": project["id"], "name": "Blog"})["project"]
    assert renamed["name"] == "Blog" and renamed["pinned"] is False and renamed["path"] == str(folder)
    pinned = host.call("projects.update", {"projectId": project["id"], "pinned": True})["project"]
    assert pinned["pinned"] is True and pinned["name"] == "Blog"
    assert host.error("projects.update", {"projectId": project["id"]}).code == ErrorCode.INVALID_PARAMS
    assert host.error("projects.update", {"projectId": 999, "name": "x"}).code == ErrorCode.NOT_FOUND


def test_session_update_moves_a_chat_in_and_out_of_a_project(host, folder):
    project = host.call("projects.upsert", {"path": str(folder)})["project"]
    session = host.call("session.create", {})["session"]
    moved = host.call("session.update", {"sessionId": session["id"], "projectId": project["id"]})["session"]
    assert moved["projectId"] == project["id"] and moved["projectPath"] == str(folder)
    assert host.call("projects.list")["projects"][0]["sessionCount"] == 1
    out = host.call("session.update", {"sessionId": session["id"], "projectId": None})["session"]
    assert out["projectId"] is None and out["projectPath"] is None
    error = host.error("session.update", {"sessionId": session["id"], "projectId": 4242})
    assert error.code == ErrorCode.NOT_FOUND
    error = host.error("session.update", {"sessionId": session["id"], "projectId": "x"})
    assert error.code == ErrorCode.INVALID_PARAMS and error.data["field"] == "projectId"


def test_remove_keeps_the_chats_and_the_folder_and_forgets_memory_and_membership(host, folder):
    (folder / "notes.txt").write_text("mine")
    project = host.call("projects.upsert", {"path": str(folder)})["project"]
    other = host.call("projects.upsert", {"path": str(folder.parent)})["project"]
    chats = [host.call("session.create", {"projectPath": str(folder)})["session"]["id"] for _ in range(2)]
    host.call(
        "session.appendMessage",
        {"sessionId": chats[0], "message": {"id": "u1", "role": "user", "blocks": [{"type": "text", "text": "hello"}]}},
    )
    host.call("projects.memorySet", {"projectId": project["id"], "text": "remember me"})
    group = host.call("projectGroups.set", {"name": "All", "projectIds": [project["id"], other["id"]]})["group"]
    host.call("workspace.set", {"projectId": project["id"]})
    host.events.clear()

    assert host.call("projects.remove", {"projectId": project["id"]}) == {"removed": True}

    assert (folder / "notes.txt").read_text() == "mine"  # the folder on disk is never touched
    for chat in chats:
        session = host.call("session.get", {"sessionId": chat})["session"]
        assert session["projectId"] is None
    assert host.call("session.get", {"sessionId": chats[0]})["messages"][0]["id"] == "u1"
    assert {p["id"] for p in host.call("projects.list")["projects"]} == {other["id"]}
    assert host.call("workspace.get")["currentProjectId"] is None
    [kept] = host.call("projectGroups.list")["groups"]
    assert (
        kept["id"] == group["id"] and kept["projectIds"] == [other["id"]] and kept["primaryRoot"] == str(folder.parent)
    )
    moved = {payload["sessionId"] for topic, payload in host.events if topic == "session.changed"}
    assert moved == set(chats)
    # the same folder added again starts with no memory
    again = host.call("projects.upsert", {"path": str(folder)})["project"]
    assert host.call("projects.memoryGet", {"projectId": again["id"]}) == {"text": "", "updatedAt": None}
    assert host.error("projects.remove", {"projectId": project["id"]}).code == ErrorCode.NOT_FOUND


def test_memory_cap_is_counted_in_utf8_bytes(host, folder):
    project = host.call("projects.upsert", {"path": str(folder)})["project"]
    assert host.call("projects.memoryGet", {"projectId": project["id"]}) == {"text": "", "updatedAt": None}
    cjk = "项目记忆" * (LIMIT // 12) + "项记ab"  # 3 bytes a character: exactly 32 KiB, far fewer characters
    assert len(cjk.encode()) == LIMIT and len(cjk) < LIMIT // 2
    saved = host.call("projects.memorySet", {"projectId": project["id"], "text": cjk})
    assert saved["text"] == cjk and isinstance(saved["updatedAt"], int)
    assert host.call("projects.memoryGet", {"projectId": project["id"]}) == saved
    error = host.error("projects.memorySet", {"projectId": project["id"], "text": cjk + "记"})
    assert error.code == ErrorCode.LIMIT_EXCEEDED
    assert error.data == {"field": "text", "limit": LIMIT, "size": LIMIT + 3}
    assert host.call("projects.memoryGet", {"projectId": project["id"]})["text"] == cjk  # nothing lost
    cleared = host.call("projects.memorySet", {"projectId": project["id"], "text": "  \n"})
    assert cleared == {"text": "", "updatedAt": None}
    assert host.error("projects.memoryGet", {"projectId": 77}).code == ErrorCode.NOT_FOUND


def test_legacy_and_structured_memory_values_stay_readable(host, folder):
    import apsw

    project = host.call("projects.upsert", {"path": str(folder)})["project"]
    host.stop()
    conn = apsw.Connection(str(host.location.data_root / "pi.sqlite"))
    conn.execute(
        "INSERT INTO kv(ns, key, value_json, updated_at) VALUES ('projectMemory', ?, ?, 5)",
        (str(folder), '"plain legacy text"'),
    )
    conn.close()
    from tests.support.hosts import InProcessHost

    reopened = InProcessHost(host.location)
    try:
        assert reopened.call("projects.memoryGet", {"projectId": project["id"]}) == {
            "text": "plain legacy text",
            "updatedAt": 5,
        }
    finally:
        reopened.stop()


def test_memory_is_stored_as_the_specs_structured_value(host, folder):
    import apsw
    import orjson

    project = host.call("projects.upsert", {"path": str(folder)})["project"]
    host.call("projects.memorySet", {"projectId": project["id"], "text": "Use tabs."})
    host.stop()
    conn = apsw.Connection(str(host.location.data_root / "pi.sqlite"))
    (value,) = conn.execute(
        "SELECT value_json FROM kv WHERE ns = 'projectMemory' AND key = ?", (project["path"],)
    ).fetchone()
    conn.close()
    stored = orjson.loads(value)
    assert stored["format"] == "entries-v1" and stored["content"] == "Use tabs."
    assert [entry["content"] for entry in stored["entries"]] == ["Use tabs."]


def test_a_missing_folder_is_flagged_and_keeps_its_chats(host, folder):
    project = host.call("projects.upsert", {"path": str(folder)})["project"]
    host.call("session.create", {"projectPath": str(folder)})
    shutil.rmtree(folder)
    [listed] = host.call("projects.list")["projects"]
    assert listed["id"] == project["id"] and listed["missing"] is True and listed["sessionCount"] == 1
    assert not folder.exists()  # nothing recreates it
    assert host.call("workspace.set", {"projectId": project["id"]})["project"]["missing"] is True


def test_groups_share_notes_and_a_project_is_in_one_group_at_most(host, tmp_path):
    ids = []
    for name in ("a", "b", "c"):
        (tmp_path / name).mkdir()
        ids.append(host.call("projects.upsert", {"path": str(tmp_path / name)})["project"]["id"])
    first = host.call("projectGroups.set", {"name": " Sites ", "projectIds": [ids[1], ids[0], ids[1]]})["group"]
    assert first["name"] == "Sites" and first["projectIds"] == [ids[1], ids[0]]
    assert first["primaryRoot"] == str(tmp_path / "b")
    second = host.call("projectGroups.set", {"name": "Tools", "projectIds": [ids[0], ids[2]]})["group"]
    groups = {g["id"]: g for g in host.call("projectGroups.list")["groups"]}
    assert groups[first["id"]]["projectIds"] == [ids[1]] and groups[second["id"]]["projectIds"] == [ids[0], ids[2]]

    host.call("projectGroups.memorySet", {"groupId": second["id"], "text": "shared"})
    host.call("projectGroups.instructionsSet", {"groupId": second["id"], "text": "be brief"})
    notes = host.call("projects.notes", {"projectId": ids[2]})
    assert notes["group"]["name"] == "Tools" and notes["group"]["memory"]["text"] == "shared"
    assert notes["group"]["instructions"]["text"] == "be brief"
    assert host.call("projects.notes", {"projectId": ids[1]})["group"]["memory"]["text"] == ""
    renamed = host.call("projectGroups.set", {"groupId": second["id"], "name": "Tooling", "projectIds": [ids[2]]})
    assert renamed["group"]["id"] == second["id"] and renamed["group"]["createdAt"] == second["createdAt"]
    assert host.call("projects.notes", {"projectId": ids[0]})["group"] is None

    error = host.error("projectGroups.instructionsSet", {"groupId": second["id"], "text": "x" * (LIMIT + 1)})
    assert error.code == ErrorCode.LIMIT_EXCEEDED
    for params, field in (
        ({"name": "x", "projectIds": []}, "projectIds"),
        ({"name": "x", "projectIds": [True]}, "projectIds[0]"),
        ({"name": "", "projectIds": [ids[0]]}, "name"),
    ):
        error = host.error("projectGroups.set", params)
        assert error.code == ErrorCode.INVALID_PARAMS and error.data["field"] == field
    assert host.error("projectGroups.set", {"name": "x", "projectIds": [999]}).code == ErrorCode.NOT_FOUND
    assert (
        host.error("projectGroups.set", {"groupId": "g-nope", "name": "x", "projectIds": [ids[0]]}).code
        == ErrorCode.NOT_FOUND
    )

    assert host.call("projectGroups.remove", {"groupId": second["id"]}) == {"removed": True}
    assert [g["id"] for g in host.call("projectGroups.list")["groups"]] == [first["id"]]
    assert host.call("projects.notes", {"projectId": ids[2]})["group"] is None
    assert host.error("projectGroups.memoryGet", {"groupId": second["id"]}).code == ErrorCode.NOT_FOUND
    assert len(host.call("projects.list")["projects"]) == 3  # projects stay


def test_project_commands_over_stdio(stdio_host, tmp_path):
    folder = tmp_path / "repo"
    folder.mkdir()
    host = stdio_host()
    project = host.call("projects.upsert", {"path": str(folder) + "\\"})["project"]
    assert project["path"] == str(folder) and project["missing"] is False
    session = host.call("session.create", {})["session"]
    assert host.call("session.update", {"sessionId": session["id"], "projectId": project["id"]})["session"][
        "projectPath"
    ] == str(folder)
    text = "备注 " * 100
    assert host.call("projects.memorySet", {"projectId": project["id"], "text": text})["text"] == text
    reply = host.request("projects.memorySet", {"projectId": project["id"], "text": "字" * (LIMIT // 3 + 1)})
    assert reply["error"]["data"]["code"] == "LIMIT_EXCEEDED" and reply["error"]["code"] == -32005
    group = host.call("projectGroups.set", {"name": "G", "projectIds": [project["id"]]})["group"]
    assert host.call("projectGroups.list")["groups"] == [group]
    assert host.call("projects.remove", {"projectId": project["id"]}) == {"removed": True}
    assert host.call("session.get", {"sessionId": session["id"]})["session"]["projectId"] is None
    assert folder.is_dir()
    assert host.close() == 0
