"""session.editReply through a real host: the edit lives in a fork, the source is never rewritten."""

import orjson

from tests.support.host_helpers import append, assistant, msg, new_session
from tests.support.host_helpers import transcript_path as transcript


def chat(host):
    sid = new_session(host)
    append(host, sid, msg("u1", text="name a bird"))
    append(host, sid, assistant("a1", text="a quokka"))
    append(host, sid, msg("u2", text="another"))
    append(host, sid, assistant("a2", text="a kea"))
    return sid


def texts(messages):
    return ["".join(b.get("text", "") for b in m["blocks"] if b["type"] == "text") for m in messages]


def test_an_edited_reply_is_a_fork_whose_prompt_pages_between_original_and_edit(host):
    sid = chat(host)
    source_bytes = transcript(host, sid).read_bytes()
    revisions_file = host.location.data_root / "sessions" / f"{sid}.revisions.jsonl"

    child = host.call("session.editReply", {"sessionId": sid, "messageId": "a1", "text": "a numbat"})["session"]

    assert child["id"] != sid and child["messageCount"] == 2
    assert transcript(host, sid).read_bytes() == source_bytes
    assert not revisions_file.exists()
    messages = host.call("session.get", {"sessionId": child["id"]})["messages"]
    assert texts(messages) == ["name a bird", "a numbat"]
    root = messages[0]
    assert root["meta"]["revisionCount"] == 2 and root["meta"]["activeRevision"] == 2
    listed = host.call("session.listRevisions", {"sessionId": child["id"], "rootUserId": root["id"]})
    assert [(r["revisionIndex"], r["isActive"], r["messageCount"]) for r in listed["revisions"]] == [
        (1, False, 2),
        (2, True, 2),
    ]

    host.call("session.activateRevision", {"sessionId": child["id"], "rootUserId": root["id"], "revisionIndex": 1})
    assert texts(host.call("session.get", {"sessionId": child["id"]})["messages"]) == ["name a bird", "a quokka"]
    host.call("session.activateRevision", {"sessionId": child["id"], "rootUserId": root["id"], "revisionIndex": 2})
    assert texts(host.call("session.get", {"sessionId": child["id"]})["messages"]) == ["name a bird", "a numbat"]
    hits = host.call("search.query", {"query": "numbat"})
    assert orjson.dumps(hits).decode().count(child["id"]) >= 1


def test_only_a_reply_can_be_edited_and_a_refusal_creates_nothing(host):
    sid = chat(host)
    count = len(host.call("session.list")["sessions"])
    assert host.error("session.editReply", {"sessionId": sid, "messageId": "u2", "text": "x"}).code == "INVALID_PARAMS"
    blank = host.error("session.editReply", {"sessionId": sid, "messageId": "a2", "text": "  "})
    assert blank.code == "INVALID_PARAMS" and blank.data["field"] == "text"
    assert host.error("session.editReply", {"sessionId": sid, "messageId": "gone", "text": "x"}).code == "NOT_FOUND"
    assert host.error("session.editReply", {"sessionId": "nope", "messageId": "a1", "text": "x"}).code == "NOT_FOUND"
    assert len(host.call("session.list")["sessions"]) == count
    assert len(list((host.location.data_root / "sessions").glob("*.jsonl"))) == 1
