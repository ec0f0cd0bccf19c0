"""The chat's checklist (spec 004, "Session Todo checklist"): whole-list writes, a revision that only
grows (also for a clear), refusals that store nothing, and the chat's own rows."""

import pytest


def test_every_write_advances_the_revision_and_replaces_the_whole_list(host):
    session_id = host.call("session.create")["session"]["id"]
    empty = host.call("todo.get", {"sessionId": session_id})["todo"]
    assert empty["revision"] == 0 and empty["items"] == [] and empty["updatedAt"] is None
    first = host.call(
        "todo.set",
        {
            "sessionId": session_id,
            "items": [
                {"content": "  Read the code \n", "status": "in_progress"},
                {"content": "Fix it", "status": "pending"},
            ],
        },
    )["todo"]
    assert first["revision"] == 1 and first["updatedAt"] is not None
    assert first["items"] == [
        {"content": "Read the code", "status": "in_progress", "priority": "medium"},
        {"content": "Fix it", "status": "pending", "priority": "medium"},
    ]
    second = host.call("todo.set", {"sessionId": session_id, "items": [{"content": "Fix it", "status": "completed"}]})
    assert second["todo"]["revision"] == 2 and len(second["todo"]["items"]) == 1
    cleared = host.call("todo.set", {"sessionId": session_id, "items": []})["todo"]
    assert cleared["revision"] == 3 and cleared["items"] == []
    event = [e for topic, e in host.events if topic == "session.changed" and e.get("reason") == "todo"][-1]
    assert event["todo"] == cleared


@pytest.mark.parametrize(
    "items,field",
    [
        ([{"content": "a", "status": "in_progress"}, {"content": "b", "status": "in_progress"}], "items[1].status"),
        ([{"content": "   ", "status": "pending"}], "items[0].content"),
        ([{"content": "x" * 501, "status": "pending"}], "items[0].content"),
        ([{"content": "a\x00b", "status": "pending"}], "items[0].content"),
        ([{"content": "a", "status": "done"}], "items[0].status"),
        (["a"], "items[0]"),
        ([{"content": str(n), "status": "pending"} for n in range(51)], "items"),
    ],
)
def test_a_refused_checklist_names_the_field_and_changes_nothing(host, items, field):
    session_id = host.call("session.create")["session"]["id"]
    host.call("todo.set", {"sessionId": session_id, "items": [{"content": "kept", "status": "pending"}]})
    error = host.error("todo.set", {"sessionId": session_id, "items": items})
    assert error.code == "INVALID_PARAMS" and error.data["field"] == field
    todo = host.call("todo.get", {"sessionId": session_id})["todo"]
    assert todo["revision"] == 1 and [i["content"] for i in todo["items"]] == ["kept"]


def test_an_expected_revision_that_moved_on_is_a_conflict(host):
    session_id = host.call("session.create")["session"]["id"]
    host.call("todo.set", {"sessionId": session_id, "items": [], "expectedRevision": 0})
    error = host.error("todo.set", {"sessionId": session_id, "items": [], "expectedRevision": 0})
    assert error.code == "CONFLICT" and error.data["revision"] == 1


def test_each_chat_has_its_own_checklist_and_deleting_the_chat_drops_it(host):
    one, two = (host.call("session.create")["session"]["id"] for _ in range(2))
    host.call("todo.set", {"sessionId": one, "items": [{"content": "a", "status": "pending"}]})
    assert host.call("todo.get", {"sessionId": two})["todo"]["revision"] == 0
    host.call("session.delete", {"sessionId": one, "forGood": True})
    assert host.error("todo.get", {"sessionId": one}).code == "NOT_FOUND"


def test_a_fork_starts_with_an_empty_checklist(host):
    session_id = host.call("session.create")["session"]["id"]
    host.call(
        "session.appendMessage",
        {"sessionId": session_id, "message": {"id": "u1", "role": "user", "blocks": [{"type": "text", "text": "hi"}]}},
    )
    host.call("todo.set", {"sessionId": session_id, "items": [{"content": "a", "status": "pending"}]})
    fork = host.call("session.fork", {"sessionId": session_id})["session"]["id"]
    assert host.call("todo.get", {"sessionId": fork})["todo"] == {
        "sessionId": fork,
        "revision": 0,
        "updatedAt": None,
        "items": [],
    }
