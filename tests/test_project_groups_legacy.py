"""Project groups (spec 004, 1.6 and 1.8): ``detachedPaths`` bookkeeping, and path projects read as legacy
single-root groups with their memory and filesystem instructions."""

from pidesktop.bus.errors import ErrorCode


def projects(host, tmp_path, *names):
    ids = []
    for name in names:
        (tmp_path / name).mkdir()
        ids.append(host.call("projects.upsert", {"path": str(tmp_path / name)})["project"]["id"])
    return ids


def stored(host, group_id):
    return next(g for g in host.call("projectGroups.list")["groups"] if g["id"] == group_id)


def test_a_removed_root_without_chats_is_detached_and_one_with_chats_is_not(host, tmp_path):
    a, b, c = projects(host, tmp_path, "a", "b", "c")
    host.call("session.create", {"projectPath": str(tmp_path / "b")})  # b has a chat
    group = host.call("projectGroups.set", {"name": "Sites", "projectIds": [a, b, c]})["group"]
    assert group["detachedPaths"] == []
    group = host.call("projectGroups.set", {"groupId": group["id"], "name": "Sites", "projectIds": [c]})["group"]
    assert group["detachedPaths"] == [str(tmp_path / "a")]  # b has chats: not detached, it stands alone again
    legacy = host.call("projectGroups.list", {"includeLegacy": True})["groups"]
    legacy_roots = [g["roots"] for g in legacy if g.get("legacy")]
    assert legacy_roots == [[str(tmp_path / "b")]]  # a is detached: not recreated as a legacy group
    # taken back into the group: no longer detached
    group = host.call("projectGroups.set", {"groupId": group["id"], "name": "Sites", "projectIds": [c, a]})["group"]
    assert group["detachedPaths"] == []


def test_path_projects_read_as_single_root_groups_with_memory_and_instructions(host, tmp_path):
    a, b = projects(host, tmp_path, "a", "b")
    (tmp_path / "b" / "AGENTS.md").write_text("Use tabs.\n", encoding="utf-8")
    host.call("projects.memorySet", {"projectId": b, "text": "The site deploys on Fridays."})
    host.call("projectGroups.set", {"name": "Only a", "projectIds": [a]})
    assert all(not g.get("legacy") for g in host.call("projectGroups.list")["groups"])  # the default is unchanged
    groups = host.call("projectGroups.list", {"includeLegacy": True})["groups"]
    legacy = [g for g in groups if g.get("legacy")]
    assert [(g["id"], g["roots"], g["primaryRoot"], g["projectIds"]) for g in legacy] == [
        (f"legacy:{b}", [str(tmp_path / "b")], str(tmp_path / "b"), [b])
    ]
    assert legacy[0]["name"] == "b"
    memory = host.call("projectGroups.memoryGet", {"groupId": f"legacy:{b}"})
    assert memory["text"] == "The site deploys on Fridays."
    instructions = host.call("projectGroups.instructionsGet", {"groupId": f"legacy:{b}"})
    assert instructions["text"] == "Use tabs.\n" and instructions["path"] == str(tmp_path / "b" / "AGENTS.md")
    assert host.call("projectGroups.instructionsGet", {"groupId": f"legacy:{a}"}).get("text") is not None
    error = host.error("projectGroups.memorySet", {"groupId": f"legacy:{b}", "text": "x"})
    assert error.code == ErrorCode.NOT_FOUND  # read-only: a legacy group is not stored
    assert host.error("projectGroups.memoryGet", {"groupId": "legacy:999"}).code == ErrorCode.NOT_FOUND
