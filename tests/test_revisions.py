"""Regenerate branches: saveActiveRevision / activateRevision / listRevisions through a real host."""

import apsw
import orjson

from tests.support.host_helpers import append, msg, new_session, transcript_lines
from tests.support.hosts import InProcessHost

PAGER = ("revisionCount", "activeRevision")


def revisions_path(host, sid):
    return host.location.data_root / "sessions" / f"{sid}.revisions.jsonl"


def live(host, sid):
    """The live messages as stored, without the pager stamp (presentation, not content)."""
    messages = []
    for m in host.call("session.get", {"sessionId": sid})["messages"]:
        m = {k: v for k, v in m.items() if k not in ("seq", "index")}
        if "meta" in m:
            m["meta"] = {k: v for k, v in m["meta"].items() if k not in PAGER}
            if not m["meta"]:
                del m["meta"]
        messages.append(m)
    return messages


def turn_links(host, sid):
    conn = apsw.Connection(str(host.location.data_root / "pi.sqlite"), flags=apsw.SQLITE_OPEN_READONLY)
    try:
        return dict(conn.execute("SELECT id, turn_id FROM messages WHERE session_id = ?", (sid,)))
    finally:
        conn.close()


def revision_rows(host, sid):
    conn = apsw.Connection(str(host.location.data_root / "pi.sqlite"), flags=apsw.SQLITE_OPEN_READONLY)
    try:
        return [
            tuple(r)
            for r in conn.execute(
                "SELECT root_user_id, revision_index, is_active, message_count FROM message_revisions "
                "WHERE session_id = ? ORDER BY revision_index",
                (sid,),
            )
        ]
    finally:
        conn.close()


def answer(host, sid, turn_id, *messages):
    host.call("session.startTurn", {"sessionId": sid, "turnId": turn_id})
    for message in messages:
        append(host, sid, message, turnId=turn_id)
    host.call(
        "session.endTurn", {"sessionId": sid, "turnId": turn_id, "status": "completed", "createNotification": False}
    )
    return host.call("session.saveActiveRevision", {"sessionId": sid, "rootUserId": "u1"})["revision"]


def three_variants(host):
    """u0 a0 u1, answered three times (regenerate twice); returns the session and each live branch."""
    sid = new_session(host)
    append(host, sid, msg("u0", text="warm up"))
    append(host, sid, msg("a0", "assistant", "ready"))
    append(host, sid, msg("u1", text="write a poem"))
    branches = {}
    assert answer(host, sid, "t1", msg("a1", "assistant", "roses"))["revisionIndex"] == 1
    branches[1] = live(host, sid)
    host.call("session.truncateFrom", {"sessionId": sid, "messageId": "a1"})
    assert answer(host, sid, "t2", msg("a1b", "assistant", "violets"))["revisionIndex"] == 2
    branches[2] = live(host, sid)
    host.call("session.truncateFrom", {"sessionId": sid, "messageId": "a1b"})
    tool = {
        "id": "tool1",
        "role": "tool",
        "toolName": "Read",
        "blocks": [
            {
                "type": "tool_call",
                "callId": "c1",
                "name": "Read",
                "args": {"path": "poem.txt"},
                "status": "ok",
                "result": {"text": "tulips"},
            }
        ],
    }
    assert answer(host, sid, "t3", tool, msg("a1c", "assistant", "tulips"))["revisionIndex"] == 3
    branches[3] = live(host, sid)
    return sid, branches


def root_meta(host, sid):
    return next(line for line in transcript_lines(host, sid) if line.get("id") == "u1")["meta"]


def test_each_variant_comes_back_exactly_and_the_file_only_grows(host):
    sid, branches = three_variants(host)
    listed = host.call("session.listRevisions", {"sessionId": sid, "rootUserId": "u1"})["revisions"]
    assert [(r["revisionIndex"], r["messageCount"], r["isActive"]) for r in listed] == [
        (1, 2, False),
        (2, 2, False),
        (3, 3, True),
    ]
    assert root_meta(host, sid) == {"revisionCount": 3, "activeRevision": 3}
    assert turn_links(host, sid)["a1c"] == "t3"
    for target in (1, 3, 2, 1, 2, 3):
        before = revisions_path(host, sid).read_bytes()
        count = host.call("session.activateRevision", {"sessionId": sid, "rootUserId": "u1", "revisionIndex": target})[
            "messageCount"
        ]
        assert revisions_path(host, sid).read_bytes().startswith(before)
        assert live(host, sid) == branches[target] and count == len(branches[target])
        assert root_meta(host, sid) == {"revisionCount": 3, "activeRevision": target}
        rows = revision_rows(host, sid)
        assert [(index, active) for _, index, active, _ in rows] == [(i, int(i == target)) for i in (1, 2, 3)]
        # Turn links come back from the stored map for messages that had left the index.
        links = turn_links(host, sid)
        assert links["u1"] is None and links.get({1: "a1", 2: "a1b", 3: "a1c"}[target]) == f"t{target}"
    assert host.call("search.query", {"query": "tulips"})["results"][0]["messageId"] == "a1c"
    assert host.call("search.query", {"query": "roses"})["results"] == []


def test_saving_a_live_branch_appends_small_references_and_refreshes_one_row(host):
    sid = new_session(host)
    append(host, sid, msg("u1", text="plan a trip"))
    append(host, sid, msg("a1", "assistant", "where to?"))
    first = host.call("session.saveActiveRevision", {"sessionId": sid, "rootUserId": "u1"})["revision"]
    append(host, sid, msg("u2", text="Kyoto"))
    append(host, sid, msg("a2", "assistant", "lovely " * 500))
    second = host.call("session.saveActiveRevision", {"sessionId": sid, "rootUserId": "u1"})["revision"]
    assert first == {"rootUserId": "u1", "revisionIndex": 1, "messageCount": 2, "isActive": True}
    assert second == {"rootUserId": "u1", "revisionIndex": 1, "messageCount": 4, "isActive": True}
    raw = revisions_path(host, sid).read_bytes().splitlines()
    assert len(raw) == 2 and all(len(line) < 200 for line in raw)
    assert [orjson.loads(line)["type"] for line in raw] == ["revision_live", "revision_live"]
    assert revision_rows(host, sid) == [("u1", 1, 1, 4)]
    # The stamp rewrote only the root line: everything else is as appended.
    stored = transcript_lines(host, sid)[1:]
    assert [m["id"] for m in stored] == ["u1", "a1", "u2", "a2"]
    assert stored[0]["meta"] == {"revisionCount": 1, "activeRevision": 1}
    assert all("meta" not in m for m in stored[1:])


def test_revisions_survive_a_restart(location):
    first = InProcessHost(location)
    try:
        sid, branches = three_variants(first)
        first.call("session.activateRevision", {"sessionId": sid, "rootUserId": "u1", "revisionIndex": 2})
        before = revisions_path(first, sid).read_bytes()
    finally:
        first.stop()
    second = InProcessHost(location)
    try:
        assert revisions_path(second, sid).read_bytes() == before
        listed = second.call("session.listRevisions", {"sessionId": sid, "rootUserId": "u1"})["revisions"]
        assert [(r["revisionIndex"], r["isActive"]) for r in listed] == [(1, False), (2, True), (3, False)]
        assert live(second, sid) == branches[2]
        assert root_meta(second, sid) == {"revisionCount": 3, "activeRevision": 2}
        for target in (3, 1):
            second.call("session.activateRevision", {"sessionId": sid, "rootUserId": "u1", "revisionIndex": target})
            assert live(second, sid) == branches[target]
    finally:
        second.stop()


def test_a_file_from_an_older_build_reads_back_message_for_message(host):
    sid = new_session(host)
    append(host, sid, msg("u1", text="tell a joke"))
    append(host, sid, msg("a3", "assistant", "third joke"))
    old = {
        1: [msg("u1", text="tell a joke"), msg("a1", "assistant", "first joke", meta={"usage": {"input": 3}})],
        2: [
            msg("u1", text="tell a joke"),
            msg("a2", "assistant", "second joke"),
            msg("u2", text="another"),
            msg("a2b", "assistant", "fine"),
        ],
    }
    legacy = b"".join(
        orjson.dumps(
            {
                "rootUserId": "u1",
                "revisionIndex": index,
                "createdAt": "2025-01-01T00:00:00.000Z",
                "messages": [{"type": "message", **m} for m in messages],
                "turns": {},
                "type": "revision",
            }
        )
        + b"\n"
        for index, messages in old.items()
    )
    revisions_path(host, sid).write_bytes(legacy + b'{"type":"revision","rootUserId":"u1","revisi')  # torn tail
    listed = host.call("session.listRevisions", {"sessionId": sid, "rootUserId": "u1"})["revisions"]
    assert [(r["revisionIndex"], r["messageCount"], r["isActive"]) for r in listed] == [(1, 2, False), (2, 4, False)]
    for target in (1, 2):
        host.call("session.activateRevision", {"sessionId": sid, "rootUserId": "u1", "revisionIndex": target})
        assert live(host, sid) == old[target]
    assert revisions_path(host, sid).read_bytes().startswith(legacy)
    # The branch that was live before the first switch was stored as its own new variant.
    host.call("session.activateRevision", {"sessionId": sid, "rootUserId": "u1", "revisionIndex": 3})
    assert [m["id"] for m in live(host, sid)] == ["u1", "a3"]
    assert host.call("search.query", {"query": "third joke"})["results"][0]["messageId"] == "a3"


def test_errors_name_the_field_and_unknown_revisions_are_not_found(host):
    sid = new_session(host)
    append(host, sid, msg("u1"))
    append(host, sid, msg("a1", "assistant", "hi"))
    host.call("session.saveActiveRevision", {"sessionId": sid, "rootUserId": "u1"})
    before = revisions_path(host, sid).read_bytes()
    bad = host.error("session.activateRevision", {"sessionId": sid, "rootUserId": "u1", "revisionIndex": 0})
    assert bad.code == "INVALID_PARAMS" and "revisionIndex" in bad.message
    assert "rootUserId" in host.error("session.saveActiveRevision", {"sessionId": sid}).message
    for params in ({"rootUserId": "u1", "revisionIndex": 9}, {"rootUserId": "ghost", "revisionIndex": 1}):
        assert host.error("session.activateRevision", {"sessionId": sid, **params}).code == "NOT_FOUND"
    assert host.error("session.saveActiveRevision", {"sessionId": sid, "rootUserId": "a1"}).code == "NOT_FOUND"
    assert host.error("session.listRevisions", {"sessionId": "nope", "rootUserId": "u1"}).code == "NOT_FOUND"
    assert host.call("session.listRevisions", {"sessionId": sid, "rootUserId": "other"})["revisions"] == []
    # Activating the live variant changes nothing.
    assert host.call("session.activateRevision", {"sessionId": sid, "rootUserId": "u1", "revisionIndex": 1}) == {
        "messageCount": 2
    }
    assert revisions_path(host, sid).read_bytes() == before
