"""session.truncateFrom / session.replaceMessages through a real host, and TranscriptStore.read_records."""

import apsw
import orjson

from pidesktop.host.transcripts import TranscriptStore
from tests.support.host_helpers import append, msg, new_session, transcript_path
from tests.support.host_helpers import transcript_lines as lines


def index_rows(host, sid):
    conn = apsw.Connection(str(host.location.data_root / "pi.sqlite"), flags=apsw.SQLITE_OPEN_READONLY)
    try:
        rows = conn.execute("SELECT id, seq, turn_id FROM messages WHERE session_id = ? ORDER BY seq", (sid,))
        return [tuple(row) for row in rows]
    finally:
        conn.close()


def checkpoint(host, sid, cid, through):
    host.call(
        "session.appendCompaction",
        {
            "sessionId": sid,
            "compaction": {
                "id": cid,
                "summary": f"summary {cid}",
                "firstKeptMessageId": through,
                "throughMessageId": through,
                "tokensBefore": 10,
            },
        },
    )


def conversation(host):
    """u1 a1 [cp1 -> a1] u2 a2 [cp2 -> a2], the turn of u2/a2 linked."""
    sid = new_session(host)
    append(host, sid, msg("u1", text="first question"))
    append(host, sid, msg("a1", "assistant", "first answer"))
    checkpoint(host, sid, "cp1", "a1")
    turn = host.call("session.startTurn", {"sessionId": sid, "turnId": "t2"})["turn"]["id"]
    append(host, sid, msg("u2", text="second question"), turnId=turn)
    append(host, sid, msg("a2", "assistant", "zebra answer"), turnId=turn)
    checkpoint(host, sid, "cp2", "a2")
    host.call("session.endTurn", {"sessionId": sid, "turnId": turn, "status": "completed", "createNotification": False})
    return sid


def found(host, query):
    return [r["messageId"] for r in host.call("search.query", {"query": query})["results"]]


# -- session.truncateFrom -------------------------------------------------------------------
def test_regenerate_cuts_the_reply_and_archives_the_branch(host):
    sid = conversation(host)
    host.events.clear()
    assert host.call("session.truncateFrom", {"sessionId": sid, "messageId": "a2"}) == {"messageCount": 3}
    stored = lines(host, sid)[1:]
    assert [(r["type"], r["id"]) for r in stored] == [
        ("message", "u1"),
        ("message", "a1"),
        ("compaction", "cp1"),
        ("message", "u2"),
    ]
    assert [row[:2] for row in index_rows(host, sid)] == [("u1", 1), ("a1", 2), ("u2", 3)]
    assert index_rows(host, sid)[2][2] == "t2"  # the surviving message keeps its turn link
    assert host.call("session.list")["sessions"][0]["messageCount"] == 3
    assert found(host, "zebra") == [] and found(host, "second question") == ["u2"]
    got = host.call("session.get", {"sessionId": sid})
    assert [c["id"] for c in got["compactions"]] == ["cp1"]
    # The discarded branch (root u2 and its reply) is the family's first variant.
    listed = host.call("session.listRevisions", {"sessionId": sid, "rootUserId": "u2"})["revisions"]
    assert [(r["revisionIndex"], r["messageCount"], r["isActive"]) for r in listed] == [(1, 2, False)]
    assert stored[3]["meta"] == {"revisionCount": 2, "activeRevision": 2}  # the reply to come is variant 2
    assert ("session.changed", "history") in [(t, p.get("reason")) for t, p in host.events]


def test_edit_cuts_the_user_message_and_archives_from_it(host):
    sid = conversation(host)
    host.call("session.truncateFrom", {"sessionId": sid, "messageId": "u2"})
    assert [r["id"] for r in lines(host, sid)[1:]] == ["u1", "a1", "cp1"]
    assert [row[0] for row in index_rows(host, sid)] == ["u1", "a1"]
    listed = host.call("session.listRevisions", {"sessionId": sid, "rootUserId": "u2"})["revisions"]
    assert [(r["revisionIndex"], r["messageCount"]) for r in listed] == [(1, 2)]
    revisions = (host.location.data_root / "sessions" / f"{sid}.revisions.jsonl").read_bytes().splitlines()
    line = orjson.loads(revisions[-1])
    assert line["type"] == "revision" and [m["id"] for m in line["messages"]] == ["u2", "a2"]
    assert line["turns"] == {"u2": "t2", "a2": "t2"}
    # The resent prompt joins the same family through meta.revisionRootId.
    append(host, sid, msg("u2b", text="second question, edited", meta={"revisionRootId": "u2"}))
    append(host, sid, msg("a2b", "assistant", "new answer"))
    saved = host.call("session.saveActiveRevision", {"sessionId": sid, "rootUserId": "u2b"})["revision"]
    assert saved == {"rootUserId": "u2", "revisionIndex": 2, "messageCount": 2, "isActive": True}


def test_an_unknown_message_is_not_found_and_nothing_changes(host):
    sid = conversation(host)
    before = transcript_path(host, sid).read_bytes()
    error = host.error("session.truncateFrom", {"sessionId": sid, "messageId": "ghost"})
    assert error.code == "NOT_FOUND"
    assert transcript_path(host, sid).read_bytes() == before
    assert not (host.location.data_root / "sessions" / f"{sid}.revisions.jsonl").exists()
    assert host.error("session.truncateFrom", {"sessionId": "nope", "messageId": "u1"}).code == "NOT_FOUND"
    assert "messageId" in host.error("session.truncateFrom", {"sessionId": sid}).message


def test_a_running_turn_is_aborted_and_the_inflight_checkpoint_dropped(host):
    sid = new_session(host)
    turn = host.call("session.startTurn", {"sessionId": sid})["turn"]["id"]
    append(host, sid, msg("u1"), turnId=turn)
    host.call(
        "session.saveInflightMessage",
        {"sessionId": sid, "turnId": turn, "message": msg("a1", "assistant", "half a repl")},
    )
    inflight = host.location.data_root / "sessions" / f"{sid}.inflight.json"
    assert inflight.exists()
    assert host.call("session.truncateFrom", {"sessionId": sid, "messageId": "u1"}) == {"messageCount": 0}
    assert not inflight.exists()
    last = host.call("session.list")["sessions"][0]["lastTurn"]
    assert last == {"id": turn, "status": "aborted", "errorCode": None}
    changes = [p["turn"] for t, p in host.events if t == "turn.changed" and p["turn"]["status"] == "aborted"]
    assert changes and changes[0]["endedAt"] is not None
    assert lines(host, sid)[1:] == [] and index_rows(host, sid) == []


# -- session.replaceMessages ----------------------------------------------------------------
def test_deleting_one_message_keeps_transcript_index_and_search_in_step(host):
    sid = conversation(host)
    current = host.call("session.get", {"sessionId": sid})["messages"]
    kept = [{k: v for k, v in m.items() if k not in ("seq", "index")} for m in current if m["id"] != "a2"]
    assert host.call("session.replaceMessages", {"sessionId": sid, "messages": kept}) == {"messageCount": 3}
    stored = lines(host, sid)[1:]
    assert [r["id"] for r in stored] == ["u1", "a1", "cp1", "u2"]  # cp2 lost its anchor
    assert [row[:2] for row in index_rows(host, sid)] == [("u1", 1), ("a1", 2), ("u2", 3)]
    assert index_rows(host, sid)[2][2] == "t2"
    assert found(host, "zebra") == [] and found(host, "first answer") == ["a1"]
    assert host.call("session.get", {"sessionId": sid})["totalMessages"] == 3


def test_bad_or_repeated_messages_are_refused_and_nothing_changes(host):
    sid = conversation(host)
    before = transcript_path(host, sid).read_bytes()
    cases = [
        ([msg("x"), msg("x")], "messages[1].id"),
        ([msg("x"), {"id": "y", "role": "robot", "blocks": []}], "messages[1].role"),
        ([{"id": "y", "role": "user"}], "messages[0].blocks"),
        (["text"], "messages[0]"),
        ("all", "messages"),
    ]
    for messages, field in cases:
        error = host.error("session.replaceMessages", {"sessionId": sid, "messages": messages})
        assert error.code == "INVALID_PARAMS" and field in error.message, error.message
    assert transcript_path(host, sid).read_bytes() == before
    assert host.error("session.replaceMessages", {"sessionId": "nope", "messages": []}).code == "NOT_FOUND"


def test_a_deleted_root_has_its_live_branch_stored_in_full_first(host):
    sid = conversation(host)
    host.call("session.saveActiveRevision", {"sessionId": sid, "rootUserId": "u2"})
    revisions = host.location.data_root / "sessions" / f"{sid}.revisions.jsonl"
    assert orjson.loads(revisions.read_bytes().splitlines()[-1])["type"] == "revision_live"
    kept = [msg("u1", text="first question"), msg("a1", "assistant", "first answer")]
    host.call("session.replaceMessages", {"sessionId": sid, "messages": kept})
    last = orjson.loads(revisions.read_bytes().splitlines()[-1])
    assert last["type"] == "revision" and last["revisionIndex"] == 1
    assert [m["id"] for m in last["messages"]] == ["u2", "a2"]
    assert "revisionCount" not in last["messages"][0].get("meta", {})  # stamps are not branch content
    listed = host.call("session.listRevisions", {"sessionId": sid, "rootUserId": "u2"})["revisions"]
    assert [(r["revisionIndex"], r["messageCount"], r["isActive"]) for r in listed] == [(1, 2, False)]


# -- TranscriptStore.read_records ------------------------------------------------------------
def test_read_records_interleaves_in_file_order_keeping_the_last_duplicate(tmp_path):
    store = TranscriptStore(tmp_path)
    for record in (
        {"type": "message", "id": "m1", "role": "user", "blocks": []},
        {"type": "message", "id": "m2", "role": "assistant", "blocks": [{"type": "text", "text": "old"}]},
        {"type": "compaction", "id": "c1", "throughMessageId": "m1"},
        {"type": "future", "id": "z"},
        {"type": "message", "id": "m2", "role": "assistant", "blocks": [{"type": "text", "text": "new"}]},
        {"type": "compaction", "id": "c2", "throughMessageId": "m2"},
    ):
        store.append("s", record)
    header, records = store.read_records("s")
    assert header["sessionId"] == "s"
    assert [(r["type"], r["id"]) for r in records] == [
        ("message", "m1"),
        ("compaction", "c1"),
        ("message", "m2"),
        ("compaction", "c2"),
    ]
    assert records[2]["blocks"][0]["text"] == "new"
