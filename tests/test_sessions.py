"""session.create / list / rename / delete, projects and the workspace."""

import pytest


def make(host, **params):
    return host.call("session.create", params)["session"]


def test_create_defaults_and_placeholder_titles(host):
    plain = make(host)
    assert plain["title"] == "" and plain["titleSource"] == "default"
    assert plain["mode"] == "agent" and plain["thinkingLevel"] == "off" and plain["messageCount"] == 0
    assert make(host, title="  New chat ")["titleSource"] == "default"
    assert make(host, title="新对话")["titleSource"] == "default"
    named = make(host, title="  Trip notes  ", mode="plan", thinkingLevel="high", providerId="p", modelId="m")
    assert (named["title"], named["titleSource"], named["mode"], named["thinkingLevel"]) == (
        "Trip notes",
        "manual",
        "plan",
        "high",
    )
    assert (named["providerId"], named["modelId"]) == ("p", "m")


def test_create_with_a_project_path_upserts_one_normalised_project(host):
    a = make(host, projectPath="  /home/me/work/ ")
    b = make(host, projectPath="/home/me/work")
    c = make(host, projectPath="\\home\\me\\work\\\\")
    assert a["projectId"] == b["projectId"] == c["projectId"]
    assert a["projectPath"] == "/home/me/work"
    projects = host.call("projects.list")["projects"]
    assert [(p["path"], p["name"], p["sessionCount"]) for p in projects] == [("/home/me/work", "work", 3)]
    assert make(host, projectPath=" /// ")["projectPath"] == "/"


def test_blank_project_path_is_refused(host):
    error = host.error("session.create", {"projectPath": "   "})
    assert error.code == "INVALID_PARAMS" and "projectPath" in error.message
    assert host.call("session.list")["sessions"] == []


def test_list_is_newest_first_with_cursor_paging(host):
    ids = []
    for i in range(7):
        ids.append(make(host, title=f"chat {i}")["id"])
    seen, cursor = [], None
    while True:
        page = host.call("session.list", {"limit": 3} | ({"cursor": cursor} if cursor else {}))
        assert len(page["sessions"]) <= 3
        seen += [s["id"] for s in page["sessions"]]
        cursor = page["nextCursor"]
        if cursor is None:
            break
    listed = host.call("session.list")["sessions"]
    assert seen == [s["id"] for s in listed]
    assert sorted(ids) == sorted(seen)
    keys = [(s["updatedAt"], s["id"]) for s in listed]
    assert keys == sorted(keys, reverse=True)


def test_list_filters_by_project(host):
    work = make(host, projectPath="/w")
    make(host)
    listed = host.call("session.list", {"projectId": work["projectId"]})["sessions"]
    assert [s["id"] for s in listed] == [work["id"]]


def test_rename_trims_validates_and_keeps_updated_at(ticking_host):
    host = ticking_host  # a rename that stamped updatedAt would show: the next reading is a later time
    session = make(host, title="first")
    renamed = host.call("session.rename", {"sessionId": session["id"], "title": "  Better name  "})["session"]
    assert renamed["title"] == "Better name" and renamed["titleSource"] == "manual"
    assert renamed["updatedAt"] == session["updatedAt"]
    eighty = "é" * 80
    assert host.call("session.rename", {"sessionId": session["id"], "title": eighty})["session"]["title"] == eighty
    for bad in ("", "   ", "x" * 81, "字" * 81):
        error = host.error("session.rename", {"sessionId": session["id"], "title": bad})
        assert error.code == "INVALID_PARAMS" and "'title'" in error.message
    assert host.call("session.list")["sessions"][0]["title"] == eighty


def test_rename_of_an_unknown_session_is_not_found(host):
    assert host.error("session.rename", {"sessionId": "nope", "title": "x"}).code == "NOT_FOUND"
    assert host.error("session.rename", {"sessionId": "../../etc", "title": "x"}).code == "INVALID_PARAMS"


def test_delete_cascades_and_removes_the_session_files(host):
    session = make(host, title="doomed")
    keep = make(host, title="keep")
    root = host.location.data_root
    sid = session["id"]
    files = [
        root / "sessions" / f"{sid}{suffix}"
        for suffix in (".jsonl", ".jsonl.layout", ".revisions.jsonl", ".inflight.json")
    ]
    for path in files:
        path.write_text("{}\n")
    (root / "scratch" / sid).mkdir()
    (root / "scratch" / sid / "pasted.txt").write_text("x")
    other = root / "sessions" / f"{keep['id']}.jsonl"
    other.write_text("keep\n")
    assert host.call("session.delete", {"sessionId": sid, "forGood": True}) == {"deleted": True}
    assert all(not p.exists() for p in files)
    assert not (root / "scratch" / sid).exists()
    assert other.read_text() == "keep\n"
    assert [s["id"] for s in host.call("session.list")["sessions"]] == [keep["id"]]
    assert host.error("session.delete", {"sessionId": sid}).code == "NOT_FOUND"
    assert ("session.changed", {"sessionId": sid, "reason": "deleted"}) in host.events


def test_workspace_get_and_set(host):
    assert host.call("workspace.get") == {"currentProjectId": None, "project": None}
    chosen = host.call("workspace.set", {"projectPath": "/srv/site/"})
    assert chosen["project"]["path"] == "/srv/site"
    assert host.call("workspace.get")["currentProjectId"] == chosen["currentProjectId"]
    other = host.call("workspace.set", {"projectPath": "/srv/other"})
    back = host.call("workspace.set", {"projectId": chosen["currentProjectId"]})
    assert back["project"]["path"] == "/srv/site" and other["project"]["path"] == "/srv/other"
    assert host.error("workspace.set", {"projectId": 999}).code == "NOT_FOUND"
    assert host.call("workspace.set", {}) == {"currentProjectId": None, "project": None}


@pytest.mark.parametrize(
    "params,field", [({"limit": 0}, "limit"), ({"limit": 501}, "limit"), ({"includeDeleted": "yes"}, "includeDeleted")]
)
def test_list_params_are_validated(host, params, field):
    error = host.error("session.list", params)
    assert error.code == "INVALID_PARAMS" and field in error.message


def test_first_prompt_names_an_untitled_chat_but_never_a_renamed_one(host):
    sid = make(host)["id"]
    text = "  How do I make sourdough bread at home without a proofing box or any special tools?\nsecond line"
    host.call(
        "session.appendMessage",
        {"sessionId": sid, "message": {"id": "u1", "role": "user", "blocks": [{"type": "text", "text": text}]}},
    )
    session = host.call("session.list")["sessions"][0]
    assert session["title"] == "How do I make sourdough bread at home without a proofing…"
    assert session["titleSource"] == "default"
    host.call(
        "session.appendMessage",
        {
            "sessionId": sid,
            "message": {"id": "u2", "role": "user", "blocks": [{"type": "text", "text": "another question"}]},
        },
    )
    assert host.call("session.list")["sessions"][0]["title"].startswith("How do I make")
    named = make(host, title="Mine")["id"]
    host.call(
        "session.appendMessage",
        {
            "sessionId": named,
            "message": {"id": "n1", "role": "user", "blocks": [{"type": "text", "text": "ignored for the title"}]},
        },
    )
    renamed = make(host)["id"]
    host.call("session.rename", {"sessionId": renamed, "title": "Chosen"})
    host.call(
        "session.appendMessage",
        {
            "sessionId": renamed,
            "message": {"id": "r1", "role": "user", "blocks": [{"type": "text", "text": "ignored too"}]},
        },
    )
    titles = {s["id"]: s["title"] for s in host.call("session.list")["sessions"]}
    assert titles[named] == "Mine" and titles[renamed] == "Chosen"


def test_update_changes_model_thinking_and_mode_but_not_recency(host):
    session = make(host, title="tune me")
    updated = host.call(
        "session.update",
        {
            "sessionId": session["id"],
            "providerId": "p1",
            "modelId": "m1",
            "thinkingLevel": "high",
            "mode": "plan",
            "fastMode": True,
        },
    )["session"]
    assert (
        updated["providerId"],
        updated["modelId"],
        updated["thinkingLevel"],
        updated["mode"],
        updated["fastMode"],
    ) == ("p1", "m1", "high", "plan", True)
    assert updated["updatedAt"] == session["updatedAt"]
    cleared = host.call("session.update", {"sessionId": session["id"], "providerId": None, "modelId": None})
    assert cleared["session"]["providerId"] is None and cleared["session"]["thinkingLevel"] == "high"
    for bad, field in (
        ({"thinkingLevel": "huge"}, "thinkingLevel"),
        ({"mode": "chat"}, "mode"),
        ({"fastMode": "yes"}, "fastMode"),
        ({}, "at least one"),
    ):
        error = host.error("session.update", {"sessionId": session["id"], **bad})
        assert error.code == "INVALID_PARAMS" and field in error.message
    assert host.error("session.update", {"sessionId": "nope", "mode": "agent"}).code == "NOT_FOUND"


def test_every_chat_goes_to_the_trash_first_and_comes_back_whole(host):
    """One trash for every chat: a chat of the app's own is restorable, like an imported one."""
    session = make(host, title="mine")
    sid = session["id"]
    host.call(
        "session.appendMessage",
        {"sessionId": sid, "message": {"id": "u1", "role": "user", "blocks": [{"type": "text", "text": "keep me"}]}},
    )
    transcript = host.location.data_root / "sessions" / f"{sid}.jsonl"
    assert host.call("session.delete", {"sessionId": sid}) == {"deleted": True, "trashed": True}
    assert transcript.exists() and host.call("session.list")["sessions"] == []
    assert [s["id"] for s in host.call("session.listTrash")["sessions"]] == [sid]
    assert host.call("search.sessions", {"query": "keep me"})["results"] == []
    restored = host.call("session.restore", {"sessionId": sid})["session"]
    assert restored["deletedAt"] is None and [s["id"] for s in host.call("session.list")["sessions"]] == [sid]
    assert [m["id"] for m in host.call("session.get", {"sessionId": sid})["messages"]] == ["u1"]

    host.call("session.delete", {"sessionId": sid})
    assert host.call("session.delete", {"sessionId": sid}) == {"deleted": True}  # again, from the trash: for good
    assert not transcript.exists() and host.call("session.listTrash")["total"] == 0


def test_one_chat_s_summary_is_its_row_in_the_list(ticking_host):
    """``session.get`` (and every ``session.changed``) reads one chat in two statements; the list in one join.
    Both must give the same summary: project path, newest turn by start, and none for a chat without."""
    host = ticking_host
    bare = make(host)
    placed = make(host, title="Placed", projectPath="/work/site")
    for n, status in enumerate(("completed", "error", "aborted")):
        host.call("session.startTurn", {"sessionId": placed["id"], "turnId": f"t{n}"})
        end = {"sessionId": placed["id"], "turnId": f"t{n}", "status": status, "createNotification": False}
        host.call("session.endTurn", {**end, **({"errorCode": "rate_limited"} if status == "error" else {})})
    listed = {s["id"]: s for s in host.call("session.list", {"native": False})["sessions"]}
    for chat in (bare, placed):
        assert host.call("session.get", {"sessionId": chat["id"], "messageLimit": 1})["session"] == listed[chat["id"]]
    assert listed[placed["id"]]["projectPath"] == "/work/site" and "lastTurn" not in listed[bare["id"]]
    assert listed[placed["id"]]["lastTurn"] == {"id": "t2", "status": "aborted", "errorCode": None}
