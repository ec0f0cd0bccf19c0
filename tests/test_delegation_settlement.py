"""Delegation settlement snapshots (spec 004, preface): a later terminal snapshot of a Task call replaces
only that tool result; stale, foreign or later replays cannot overwrite the settled one."""

import copy

from tests.support.host_helpers import append, new_session, transcript_lines


def task_block(status, result, delegation_id="d1", **extra):
    return {
        "type": "tool_call",
        "callId": "c1",
        "name": "Task",
        "args": {"prompt": "look into the flaky test"},
        "status": "ok",
        "result": result,
        "details": {"display": result},
        "delegation": {"id": delegation_id, "status": status},
        **extra,
    }


def reply(block, text="I asked a helper task to look."):
    return {
        "id": "a1",
        "role": "assistant",
        "blocks": [{"type": "text", "text": text}, block],
        "meta": {"model": "m", "note": "kept"},
    }


def stored(host, sid, message_id="a1"):
    return next(r for r in transcript_lines(host, sid)[1:] if r.get("id") == message_id)


def test_a_terminal_snapshot_replaces_only_that_tool_result(host):
    sid = new_session(host)
    append(host, sid, {"id": "u1", "role": "user", "blocks": [{"type": "text", "text": "why is it flaky?"}]})
    first = append(host, sid, reply(task_block("running", "Working on it")))
    append(host, sid, {"id": "u2", "role": "user", "blocks": [{"type": "text", "text": "thanks"}]})
    before = stored(host, sid)

    settled = reply(task_block("completed", "The test races the clock."), text="a different text, not applied")
    again = append(host, sid, settled)
    assert again["message"] == first["message"]  # same id, same place
    after = stored(host, sid)
    assert after["blocks"][0] == before["blocks"][0]  # only the tool result moves
    assert after["meta"] == before["meta"]
    block = after["blocks"][1]
    assert (block["result"], block["delegation"], block["details"]) == (
        "The test races the clock.",
        {"id": "d1", "status": "completed"},
        {"display": "The test races the clock."},
    )
    assert [r["id"] for r in transcript_lines(host, sid)[1:]] == ["u1", "a1", "u2"]
    got = host.call("session.get", {"sessionId": sid})["messages"]
    assert [m["id"] for m in got] == ["u1", "a1", "u2"]
    assert got[1]["blocks"][1]["result"] == "The test races the clock."


def test_stale_foreign_and_later_replays_cannot_overwrite_the_settled_snapshot(host):
    sid = new_session(host)
    append(host, sid, reply(task_block("running", "Working on it")))
    append(host, sid, reply(task_block("completed", "Another delegation's answer", delegation_id="d2")))
    assert stored(host, sid)["blocks"][1]["result"] == "Working on it"  # another delegation: ignored
    append(host, sid, reply(task_block("completed", "Settled.")))
    settled = copy.deepcopy(stored(host, sid))
    for late in (
        task_block("running", "Working on it"),  # a stale running replay
        task_block("completed", "A later terminal replay"),
        task_block("failed", "A later failure"),
        task_block("completed", "Foreign", delegation_id="d2"),
    ):
        append(host, sid, reply(late))
        assert stored(host, sid) == settled


def test_other_duplicate_appends_stay_idempotent(host):
    sid = new_session(host)
    plain = {"id": "a1", "role": "assistant", "blocks": [{"type": "text", "text": "first"}]}
    append(host, sid, plain)
    append(host, sid, {**plain, "blocks": [{"type": "text", "text": "second"}]})
    assert stored(host, sid)["blocks"] == [{"type": "text", "text": "first"}]
