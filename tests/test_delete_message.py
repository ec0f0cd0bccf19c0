"""session.deleteMessage: one message out of a transcript in one streaming pass, a prompt's reply kept as a revision."""

import random
import shutil

import apsw
import orjson
import pytest

from pidesktop.host.transcripts import TranscriptStore
from tests.support.crash_support import (
    db_rows,
    integrity_ok,
    killed_during,
    reference,
    rewrite_outcome,
    transcript_ids,
    without_rewrite_id,
)
from tests.support.host_helpers import append, msg, new_session, transcript_path
from tests.support.host_helpers import transcript_lines as lines
from tests.test_history import checkpoint, conversation, found, index_rows
from tests.test_history_stdio import AFTER_MIDDLE, MIDDLE, big_template, marker


def delete(host, sid, mid):
    return host.call("session.deleteMessage", {"sessionId": sid, "messageId": mid})


def revisions_path(host, sid):
    return host.location.data_root / "sessions" / f"{sid}.revisions.jsonl"


def listed(host, sid, root):
    rows = host.call("session.listRevisions", {"sessionId": sid, "rootUserId": root})["revisions"]
    return [(r["revisionIndex"], r["messageCount"], r["isActive"]) for r in rows]


def three_turns(host):
    """u1 a1 | u2 tool2 a2 | u3 a3, each turn with its own turn row."""
    sid = new_session(host)
    for n, reply in ((1, ["a1"]), (2, ["tool2", "a2"]), (3, ["a3"])):
        turn = host.call("session.startTurn", {"sessionId": sid, "turnId": f"t{n}"})["turn"]["id"]
        append(host, sid, msg(f"u{n}", text=f"question {n} about kelp{n}"), turnId=turn)
        for mid in reply:
            role = "tool" if mid.startswith("tool") else "assistant"
            append(host, sid, msg(mid, role, f"answer {mid} about okapi{n}"), turnId=turn)
        host.call(
            "session.endTurn", {"sessionId": sid, "turnId": turn, "status": "completed", "createNotification": False}
        )
    return sid


# -- what leaves and what is kept -----------------------------------------------------------
def test_a_prompt_leaves_with_its_reply_which_is_kept_as_a_revision(host):
    sid = three_turns(host)
    host.events.clear()
    result = delete(host, sid, "u2")
    assert result == {
        "messageCount": 4,
        "removedMessageIds": ["u2", "tool2", "a2"],
        "revision": {"rootUserId": "u2", "revisionIndex": 1, "messageCount": 3, "isActive": False},
    }
    assert [r["id"] for r in lines(host, sid)[1:]] == ["u1", "a1", "u3", "a3"]
    assert [row for row in index_rows(host, sid)] == [
        ("u1", 1, "t1"),
        ("a1", 2, "t1"),
        ("u3", 3, "t3"),
        ("a3", 4, "t3"),
    ]
    # The stored branch is exactly what left, with its turn links; the revision commands reach it.
    line = orjson.loads(revisions_path(host, sid).read_bytes().splitlines()[-1])
    assert line["type"] == "revision" and line["rootUserId"] == "u2" and line["revisionIndex"] == 1
    assert [m["id"] for m in line["messages"]] == ["u2", "tool2", "a2"]
    assert line["messages"][2]["blocks"][0]["text"] == "answer a2 about okapi2"
    assert line["turns"] == {"u2": "t2", "tool2": "t2", "a2": "t2"}
    assert listed(host, sid, "u2") == [(1, 3, False)]
    events = [p for t, p in host.events if t == "session.changed"]
    assert len(events) == 1 and events[0]["reason"] == "history" and events[0]["sessionId"] == sid
    assert events[0]["session"]["messageCount"] == 4
    assert host.call("session.list")["sessions"][0]["messageCount"] == 4


def test_a_saved_family_keeps_every_variant_and_the_live_one_is_stored_in_full(host):
    sid = conversation(host)
    host.call("session.saveActiveRevision", {"sessionId": sid, "rootUserId": "u2"})  # variant 1 is live
    host.call("session.truncateFrom", {"sessionId": sid, "messageId": "a2"})  # regenerate: variant 1 stored
    append(host, sid, msg("a2b", "assistant", "second try"))
    host.call("session.saveActiveRevision", {"sessionId": sid, "rootUserId": "u2"})  # variant 2 is live
    assert orjson.loads(revisions_path(host, sid).read_bytes().splitlines()[-1])["type"] == "revision_live"
    result = delete(host, sid, "u2")
    assert result["revision"] == {"rootUserId": "u2", "revisionIndex": 2, "messageCount": 2, "isActive": False}
    last = orjson.loads(revisions_path(host, sid).read_bytes().splitlines()[-1])
    assert last["type"] == "revision" and last["revisionIndex"] == 2
    assert [m["id"] for m in last["messages"]] == ["u2", "a2b"]
    assert "meta" not in last["messages"][0]  # the pager stamp is presentation, not branch content
    assert listed(host, sid, "u2") == [(1, 2, False), (2, 2, False)]
    assert [r["id"] for r in lines(host, sid)[1:] if r["type"] == "message"] == ["u1", "a1"]


def test_an_edited_prompt_is_archived_in_its_family(host):
    sid = conversation(host)
    host.call("session.truncateFrom", {"sessionId": sid, "messageId": "u2"})  # edit: variant 1 stored
    append(host, sid, msg("u2b", text="second question, edited", meta={"revisionRootId": "u2"}))
    append(host, sid, msg("a2b", "assistant", "edited answer"))
    host.call("session.saveActiveRevision", {"sessionId": sid, "rootUserId": "u2"})
    result = delete(host, sid, "u2b")
    assert result["revision"] == {"rootUserId": "u2", "revisionIndex": 2, "messageCount": 2, "isActive": False}
    assert listed(host, sid, "u2") == [(1, 2, False), (2, 2, False)]


def test_an_assistant_message_leaves_alone(host):
    sid = conversation(host)
    result = delete(host, sid, "a2")
    assert result == {"messageCount": 3, "removedMessageIds": ["a2"], "revision": None}
    assert [(r["type"], r["id"]) for r in lines(host, sid)[1:]] == [
        ("message", "u1"),
        ("message", "a1"),
        ("compaction", "cp1"),
        ("message", "u2"),
    ]  # cp2 lost its anchor
    assert index_rows(host, sid) == [("u1", 1, None), ("a1", 2, None), ("u2", 3, "t2")]
    assert not revisions_path(host, sid).exists()
    assert [c["id"] for c in host.call("session.get", {"sessionId": sid})["compactions"]] == ["cp1"]


def test_the_first_message_with_its_reply(host):
    sid = three_turns(host)
    checkpoint(host, sid, "cp1", "a1")
    checkpoint(host, sid, "cp3", "a3")
    result = delete(host, sid, "u1")
    assert result["removedMessageIds"] == ["u1", "a1"] and result["messageCount"] == 5
    assert [(r["type"], r["id"]) for r in lines(host, sid)[1:]] == [
        ("message", "u2"),
        ("message", "tool2"),
        ("message", "a2"),
        ("message", "u3"),
        ("message", "a3"),
        ("compaction", "cp3"),
    ]
    assert [row[:2] for row in index_rows(host, sid)] == [("u2", 1), ("tool2", 2), ("a2", 3), ("u3", 4), ("a3", 5)]
    got = host.call("session.get", {"sessionId": sid, "messageLimit": 2})
    assert [(m["id"], m["seq"], m["index"]) for m in got["messages"]] == [("u3", 4, 3), ("a3", 5, 4)]
    assert (got["messageStart"], got["totalMessages"], got["hasMoreBefore"]) == (3, 5, True)


def test_the_last_message_an_unanswered_prompt_leaves_no_revision(host):
    sid = conversation(host)
    append(host, sid, msg("u3", text="never answered"))
    result = delete(host, sid, "u3")
    assert result == {"messageCount": 4, "removedMessageIds": ["u3"], "revision": None}
    assert not revisions_path(host, sid).exists()
    assert [row[0] for row in index_rows(host, sid)] == ["u1", "a1", "u2", "a2"]
    # The next append takes the next ordinal: last_seq was reseated.
    assert append(host, sid, msg("u4"))["message"]["seq"] == 5


def test_the_only_message(host):
    sid = new_session(host)
    append(host, sid, msg("u1"))
    assert delete(host, sid, "u1") == {"messageCount": 0, "removedMessageIds": ["u1"], "revision": None}
    assert lines(host, sid)[1:] == [] and index_rows(host, sid) == []
    assert host.call("session.get", {"sessionId": sid})["messages"] == []


def test_every_line_of_a_repeated_id_leaves_and_other_lines_stay_byte_for_byte(host):
    sid = conversation(host)
    # A replayed line (keep-last) and a line of a kind this build does not know.
    path = transcript_path(host, sid)
    with open(path, "ab") as f:
        f.write(orjson.dumps({"type": "future-kind", "id": "z", "note": "kept"}) + b"\n")
    append(host, sid, msg("a1", "assistant", "first answer"))  # indexed id: a no-op replay
    before = path.read_bytes().splitlines()
    a2 = next(line for line in before if orjson.loads(line).get("id") == "a2")
    with open(path, "ab") as f:  # a2 written again: its first line is now hidden (keep-last)
        f.write(a2 + b"\n")
    delete(host, sid, "a2")
    after = path.read_bytes().splitlines()
    assert all(orjson.loads(line).get("id") != "a2" for line in after)
    assert after[1:] == [line for line in before[1:] if orjson.loads(line).get("id") not in ("a2", "cp2")]
    assert orjson.loads(after[0])["sessionId"] == sid and "rewriteId" in orjson.loads(after[0])


# -- errors ---------------------------------------------------------------------------------
def test_unknown_session_or_message_is_not_found_and_nothing_changes(host):
    sid = conversation(host)
    before = transcript_path(host, sid).read_bytes()
    rows = index_rows(host, sid)
    assert host.error("session.deleteMessage", {"sessionId": sid, "messageId": "ghost"}).code == "NOT_FOUND"
    assert host.error("session.deleteMessage", {"sessionId": "nope", "messageId": "u1"}).code == "NOT_FOUND"
    empty = new_session(host)
    assert host.error("session.deleteMessage", {"sessionId": empty, "messageId": "u1"}).code == "NOT_FOUND"
    assert transcript_path(host, sid).read_bytes() == before and index_rows(host, sid) == rows
    assert not revisions_path(host, sid).exists()
    delete(host, sid, "a1")
    assert host.error("session.deleteMessage", {"sessionId": sid, "messageId": "a1"}).code == "NOT_FOUND"


def test_bad_params_are_refused_naming_the_field(host):
    sid = conversation(host)
    before = transcript_path(host, sid).read_bytes()
    cases = [
        ({"messageId": "u1"}, "sessionId"),
        ({"sessionId": sid}, "messageId"),
        ({"sessionId": sid, "messageId": 7}, "messageId"),
        ({"sessionId": sid, "messageId": ""}, "messageId"),
        ({"sessionId": 3, "messageId": "u1"}, "sessionId"),
    ]
    for params, field in cases:
        error = host.error("session.deleteMessage", params)
        assert error.code == "INVALID_PARAMS" and field in error.message, error.message
        assert error.data.get("field") == field, error.data
    assert transcript_path(host, sid).read_bytes() == before
    assert [t for t, _ in host.events if t == "session.changed" and _.get("reason") == "history"] == []


# -- the index ------------------------------------------------------------------------------
def long_chat(host, turns=40):
    sid = new_session(host)
    for n in range(turns):
        append(host, sid, msg(f"u{n}", text=f"prompt number {n} word{n:03d}q"))
        append(host, sid, msg(f"a{n}", "assistant", f"reply number {n} word{n:03d}r"))
    return sid


def test_search_windows_and_a_fresh_reader_agree_after_a_delete(host):
    sid = long_chat(host)
    delete(host, sid, "u17")
    expected = [m for n in range(40) for m in (f"u{n}", f"a{n}") if n != 17]
    assert found(host, "word017q") == [] and found(host, "word017r") == []
    assert found(host, "word016r") == ["a16"] and found(host, "word018q") == ["u18"]
    assert [row[:2] for row in index_rows(host, sid)] == [(mid, n) for n, mid in enumerate(expected, start=1)]
    # Pages backwards from the end, and around a message after the gap.
    pages, before = [], None
    while True:
        params = {"sessionId": sid, "messageLimit": 7, **({"messageBefore": before} if before is not None else {})}
        got = host.call("session.get", params)
        pages = [m["id"] for m in got["messages"]] + pages
        if not got["hasMoreBefore"]:
            break
        before = got["messageStart"]
    assert pages == expected
    around = host.call("session.get", {"sessionId": sid, "messageAround": "a18", "messageLimit": 3})
    assert [(m["id"], m["index"], m["seq"]) for m in around["messages"]] == [
        ("u18", 34, 35),
        ("a18", 35, 36),
        ("u19", 36, 37),
    ]
    # The layout the host adopted is the one a fresh reader builds from the file.
    fresh = TranscriptStore(host.location.data_root / "sessions").window(sid, start=30, limit=10)
    assert [(p, r["id"]) for p, r in fresh.messages] == [
        (m["index"], m["id"])
        for m in host.call("session.get", {"sessionId": sid, "messageStart": 30, "messageLimit": 10})["messages"]
    ]
    assert host.call("session.get", {"sessionId": sid})["totalMessages"] == 78


def test_an_index_that_lost_a_row_is_healed_by_the_delete(host):
    sid = long_chat(host, turns=5)
    conn = apsw.Connection(str(host.location.data_root / "pi.sqlite"))
    try:
        with conn:
            conn.execute("DELETE FROM messages WHERE id = 'a1'")  # a commit that never landed
    finally:
        conn.close()
    assert found(host, "word001r") == []
    assert delete(host, sid, "a3")["messageCount"] == 9
    assert [row[0] for row in index_rows(host, sid)] == ["u0", "a0", "u1", "a1", "u2", "a2", "u3", "u4", "a4"]
    assert found(host, "word001r") == ["a1"]


# -- over stdio -----------------------------------------------------------------------------
def test_delete_over_stdio_survives_a_restart(stdio_host):
    h = stdio_host()
    sid = h.call("session.create", {"title": "stdio"})["session"]["id"]
    for mid, role, text in (
        ("u1", "user", "hello kelp"),
        ("a1", "assistant", "hi there"),
        ("u2", "user", "tell me of narwhals"),
        ("a2", "assistant", "narwhal facts"),
    ):
        h.call("session.appendMessage", {"sessionId": sid, "message": msg(mid, role, text)})
    result = h.call("session.deleteMessage", {"sessionId": sid, "messageId": "u2"})
    assert result == {
        "messageCount": 2,
        "removedMessageIds": ["u2", "a2"],
        "revision": {"rootUserId": "u2", "revisionIndex": 1, "messageCount": 2, "isActive": False},
    }
    changed = [e["payload"] for e in h.events if e["topic"] == "session.changed"]
    assert changed and changed[-1]["reason"] == "history" and changed[-1]["session"]["messageCount"] == 2
    reply = h.request("session.deleteMessage", {"sessionId": sid})
    assert reply["error"]["data"] == {"code": "INVALID_PARAMS", "field": "messageId"}
    assert (
        h.request("session.deleteMessage", {"sessionId": sid, "messageId": "u2"})["error"]["data"]["code"]
        == "NOT_FOUND"
    )
    assert h.close() == 0
    again = stdio_host(h.data_root)
    assert [m["id"] for m in again.call("session.get", {"sessionId": sid})["messages"]] == ["u1", "a1"]
    assert again.call("search.query", {"query": "narwhal"})["results"] == []
    assert [
        r["messageCount"]
        for r in again.call("session.listRevisions", {"sessionId": sid, "rootUserId": "u2"})["revisions"]
    ] == [2]
    assert again.close() == 0


# -- kill -9 --------------------------------------------------------------------------------
TRIALS = 7


@pytest.mark.slow
def test_kill_during_a_delete_leaves_the_old_or_new_transcript_and_the_index_heals(stdio_host, tmp_path):
    rng = random.Random(20261201)
    template = tmp_path / "template"
    sid = big_template(stdio_host, template)  # MIDDLE is a user message with a saved live branch
    command = {"method": "session.deleteMessage", "params": {"sessionId": sid, "messageId": MIDDLE}}
    old = (template / "sessions" / f"{sid}.jsonl").read_bytes()
    ref = reference(stdio_host, template, tmp_path / "ref", sid, command)
    assert ref["result"]["removedMessageIds"] == [MIDDLE, AFTER_MIDDLE]
    new = ref["transcript"]
    assert transcript_ids(new) == ref["ids"] == [i for i in transcript_ids(old) if i not in (MIDDLE, AFTER_MIDDLE)]
    outcomes = {"old": 0, "new": 0}
    strata = list(range(TRIALS))
    rng.shuffle(strata)
    for trial, stratum in enumerate(strata):
        root = tmp_path / f"trial{trial}"
        delay = ref["duration"] * (stratum + rng.random()) / TRIALS
        where = f"trial {trial}, kill after {delay * 1e3:.1f} ms of {ref['duration'] * 1e3:.1f} ms"
        acknowledged = killed_during(stdio_host, template, root, sid, command, delay)
        assert integrity_ok(root), where
        data, outcome = rewrite_outcome(root, sid, old, new, acknowledged, where)
        outcomes[outcome] += 1

        again = stdio_host(root)
        got = again.call("session.get", {"sessionId": sid})
        assert [m["id"] for m in got["messages"]] == transcript_ids(data), where
        if outcome == "old":
            assert again.call(command["method"], command["params"]) == ref["result"], where
        assert without_rewrite_id((root / "sessions" / f"{sid}.jsonl").read_bytes()) == without_rewrite_id(new)
        assert again.call("search.query", {"query": marker(int(MIDDLE[1:])), "sessionId": sid})["results"] == []
        listed_rows = again.call("session.listRevisions", {"sessionId": sid, "rootUserId": MIDDLE})["revisions"]
        assert [(r["revisionIndex"], r["messageCount"]) for r in listed_rows] == [(1, 2)], where
        assert again.close() == 0
        assert db_rows(root, "SELECT id, seq FROM messages WHERE session_id = ? ORDER BY seq", (sid,)) == [
            (i, n) for n, i in enumerate(ref["ids"], start=1)
        ], where
        shutil.rmtree(root)
    print(f"\nkill outcomes over {TRIALS} trials: {outcomes}")
