"""session.fork through a real host: configuration, remapped ids, checkpoints, copied inputs."""

import apsw
import orjson

from tests.support.host_helpers import append, msg
from tests.support.host_helpers import transcript_path as transcript


def records(host, sid):
    """The transcript's message and checkpoint lines (its session_info lines are the row's, not history)."""
    lines = [orjson.loads(line) for line in transcript(host, sid).read_bytes().splitlines()[1:]]
    return [line for line in lines if line["type"] != "session_info"]


def info_lines(host, sid):
    lines = [orjson.loads(line) for line in transcript(host, sid).read_bytes().splitlines()[1:]]
    return [line for line in lines if line["type"] == "session_info"]


def source_session(host, tmp_path):
    """A configured session with a tool call, a delegate row, a checkpoint and referenced files."""
    project = tmp_path / "project"
    project.mkdir()
    created = host.call(
        "session.create",
        {
            "title": "Trip plan",
            "projectPath": str(project),
            "mode": "plan",
            "providerId": "prov",
            "modelId": "model-x",
            "thinkingLevel": "high",
        },
    )
    sid = created["session"]["id"]
    conn = apsw.Connection(str(host.location.data_root / "pi.sqlite"))
    conn.set_busy_timeout(5000)
    with conn:
        conn.execute("UPDATE sessions SET permission_mode = 'auto', fast_mode = 1 WHERE id = ?", (sid,))
    conn.close()
    root = host.location.data_root
    pasted = root / "scratch" / sid / "pasted"
    pasted.mkdir(parents=True)
    (pasted / "notes.txt").write_text("pasted notes")
    (pasted / "later.txt").write_text("later input")
    (pasted / "unreferenced.txt").write_text("stays behind")
    (root / "visualizations" / sid).mkdir(parents=True)
    (root / "visualizations" / sid / "map.html").write_text("<p>map</p>")
    host.call("session.queuePush", {"sessionId": sid, "content": "queued follow-up"})

    notes = str(pasted / "notes.txt")
    append(
        host,
        sid,
        msg(
            "u1",
            text=f"plan with @{notes}",
            blocks=[
                {"type": "text", "text": f"plan with @{notes}"},
                {"type": "attachment", "kind": "file", "name": "notes.txt", "ref": notes},
            ],
        ),
    )
    append(
        host,
        sid,
        {
            "id": "t1",
            "role": "tool",
            "toolName": "Task",
            "blocks": [
                {"type": "tool_call", "callId": "call-1", "name": "Task", "args": {}, "status": "ok", "result": "done"}
            ],
        },
    )
    append(
        host, sid, msg("d1", "assistant", "delegate work", meta={"parentToolCallId": "call-1", "agentName": "scout"})
    )
    append(
        host,
        sid,
        msg(
            "a1",
            "assistant",
            f"quokka itinerary ::visualize {root}/visualizations/{sid}/map.html",
            meta={"revisionCount": 2, "activeRevision": 2},
        ),
    )
    host.call(
        "session.appendCompaction",
        {
            "sessionId": sid,
            "compaction": {
                "id": "cp1",
                "summary": "trip so far",
                "firstKeptMessageId": "u1",
                "throughMessageId": "a1",
                "tokensBefore": 100,
                "retainedTail": [msg("u1", text="plan")],
            },
        },
    )
    append(host, sid, msg("u2", text=f"and this {pasted / 'later.txt'}"))
    append(host, sid, msg("a2", "assistant", "done"))
    return sid


def test_a_whole_fork_is_an_independent_copy(host, tmp_path):
    sid = source_session(host, tmp_path)
    source = host.call("session.list")["sessions"][0]
    source_bytes = transcript(host, sid).read_bytes()
    child = host.call("session.fork", {"sessionId": sid})["session"]
    assert child["id"] != sid and child["title"] == "Trip plan (fork)" and child["titleSource"] == "manual"
    for key in ("projectId", "providerId", "modelId", "mode", "thinkingLevel", "permissionMode", "fastMode"):
        assert child[key] == source[key], key
    assert (child["mode"], child["permissionMode"], child["fastMode"]) == ("plan", "auto", True)
    assert child["messageCount"] == 6
    (info,) = info_lines(host, child["id"])  # the child's row, for a rebuild
    assert (info["title"], info["mode"], info["permissionMode"], info["fastMode"]) == (
        "Trip plan (fork)",
        "plan",
        "auto",
        True,
    )
    assert transcript(host, sid).read_bytes() == source_bytes
    assert host.call("session.queueList", {"sessionId": child["id"]})["entries"] == []

    old, new = records(host, sid), records(host, child["id"])
    assert [r["type"] for r in new] == [r["type"] for r in old]
    ids = dict(zip([r["id"] for r in old if r["type"] == "message"], [r["id"] for r in new if r["type"] == "message"]))
    assert not set(ids) & set(ids.values()) and len(set(ids.values())) == 6
    by_id = {r["id"]: r for r in new}
    call_id = by_id[ids["t1"]]["blocks"][0]["callId"]
    assert call_id != "call-1" and by_id[ids["d1"]]["meta"] == {"parentToolCallId": call_id, "agentName": "scout"}
    assert "meta" not in by_id[ids["a1"]]  # the source's pager stamp describes revisions the child lacks
    checkpoint = next(r for r in new if r["type"] == "compaction")
    assert (checkpoint["throughMessageId"], checkpoint["firstKeptMessageId"]) == (ids["a1"], ids["u1"])
    assert checkpoint["retainedTail"][0]["id"] == ids["u1"]

    root = host.location.data_root
    copied = root / "scratch" / child["id"] / "pasted"
    assert by_id[ids["u1"]]["blocks"][1]["ref"] == str(copied / "notes.txt")
    assert str(copied / "notes.txt") in by_id[ids["u1"]]["blocks"][0]["text"]
    assert (copied / "notes.txt").read_text() == "pasted notes" and (copied / "later.txt").exists()
    assert not (copied / "unreferenced.txt").exists()
    assert f"visualizations/{child['id']}/map.html" in by_id[ids["a1"]]["blocks"][0]["text"]
    assert (root / "visualizations" / child["id"] / "map.html").read_text() == "<p>map</p>"

    hits = {r["sessionId"] for r in host.call("search.query", {"query": "quokka"})["results"]}
    assert hits == {sid, child["id"]}
    host.call("session.delete", {"sessionId": sid, "forGood": True})
    got = host.call("session.get", {"sessionId": child["id"]})
    assert len(got["messages"]) == 6 and [c["id"] for c in got["compactions"]] == ["cp1"]
    assert (copied / "notes.txt").exists() and (root / "visualizations" / child["id"] / "map.html").exists()


def test_a_fork_through_a_message_copies_only_that_prefix(host, tmp_path):
    sid = source_session(host, tmp_path)
    revisions = host.location.data_root / "sessions" / f"{sid}.revisions.jsonl"
    host.call("session.saveActiveRevision", {"sessionId": sid, "rootUserId": "u2"})
    revision_bytes = revisions.read_bytes()
    child = host.call("session.fork", {"sessionId": sid, "throughMessageId": "a1"})["session"]
    assert child["messageCount"] == 4
    new = records(host, child["id"])
    assert [r["type"] for r in new] == ["message"] * 4 + ["compaction"]
    assert [r["blocks"][0].get("text", "") for r in new[:4]][3].startswith("quokka itinerary")
    pasted = host.location.data_root / "scratch" / child["id"] / "pasted"
    assert (pasted / "notes.txt").exists() and not (pasted / "later.txt").exists()
    assert revisions.read_bytes() == revision_bytes
    assert host.call("session.listRevisions", {"sessionId": child["id"], "rootUserId": "u2"})["revisions"] == []

    shorter = host.call("session.fork", {"sessionId": sid, "throughMessageId": "t1"})["session"]
    assert [r["type"] for r in records(host, shorter["id"])] == ["message", "message"]  # cp1's boundary is out


def test_unknown_sessions_and_messages_are_not_found_and_create_nothing(host, tmp_path):
    sid = source_session(host, tmp_path)
    count = len(host.call("session.list")["sessions"])
    assert host.error("session.fork", {"sessionId": sid, "throughMessageId": "ghost"}).code == "NOT_FOUND"
    assert host.error("session.fork", {"sessionId": "nope"}).code == "NOT_FOUND"
    bad = host.error("session.fork", {"sessionId": sid, "throughMessageId": 7})
    assert bad.code == "INVALID_PARAMS" and "throughMessageId" in bad.message
    assert len(host.call("session.list")["sessions"]) == count
    assert len(list((host.location.data_root / "sessions").glob("*.jsonl"))) == 1


def test_a_default_title_stays_replaceable(host):
    sid = host.call("session.create", {})["session"]["id"]
    append(host, sid, msg("u1", text="Weekend in Lisbon"))
    child = host.call("session.fork", {"sessionId": sid})["session"]
    assert (child["title"], child["titleSource"]) == ("Weekend in Lisbon (fork)", "default")


def test_a_failed_fork_leaves_no_transcript_row_or_copied_file(host, tmp_path):
    sid = source_session(host, tmp_path)
    conn = apsw.Connection(str(host.location.data_root / "pi.sqlite"))
    conn.set_busy_timeout(5000)
    conn.execute(
        "CREATE TRIGGER refuse_forks BEFORE INSERT ON sessions WHEN NEW.title LIKE '%(fork)' "
        "BEGIN SELECT RAISE(ABORT, 'no forks today'); END"
    )
    conn.close()
    before = {p.name for p in (host.location.data_root / "sessions").iterdir()}
    error = host.error("session.fork", {"sessionId": sid})
    assert "no forks today" in error.message
    assert {p.name for p in (host.location.data_root / "sessions").iterdir()} == before
    assert [p.name for p in (host.location.data_root / "scratch").iterdir()] == [sid]
    assert [p.name for p in (host.location.data_root / "visualizations").iterdir()] == [sid]
    assert [s["id"] for s in host.call("session.list")["sessions"]] == [sid]
