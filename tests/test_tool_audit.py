"""A tool call's audit row is written in the transaction that stores its result (spec 004, 4.13): the tool
commands hand back the record, the append of the message holding the call's block writes it; a refused
append writes none; a line whose index commit was lost gets its row once, when it is indexed at the next
start."""

import orjson
import pytest

from pidesktop import paths
from tests.support.host_helpers import append, new_session, transcript_lines
from tests.support.hosts import InProcessHost


@pytest.fixture
def project(tmp_path):
    folder = tmp_path / "proj"
    folder.mkdir()
    (folder / "README.md").write_text("# Demo\nhello world\n")
    return folder


def edit(host, sid, call_id="c1"):
    args = {"path": "README.md", "oldText": "hello", "newText": "bye"}
    return host.call("tools.run", {"sessionId": sid, "turnId": "t1", "callId": call_id, "tool": "edit", "args": args})


def round_message(mid, call_id, answer, status="ok"):
    """An assistant message whose one tool call carries the command's answer, as the runner stores it."""
    block = {
        "type": "tool_call",
        "callId": call_id,
        "name": "edit",
        "args": {},
        "status": status,
        "result": answer.get("result", ""),
        "audit": answer["audit"],
    }
    return {"id": mid, "role": "assistant", "blocks": [block], "meta": {"status": "completed"}}


def audit_rows(host, sid):
    return host.call("audit.list", {"sessionId": sid})["entries"]


def artifacts(host, sid):
    return [(a["path"], a["op"], a["updatedAt"]) for a in host.call("artifacts.list", {"sessionId": sid})["artifacts"]]


def test_the_append_that_stores_the_result_writes_the_audit_row(host, project):
    sid = new_session(host, projectPath=str(project))
    answer = edit(host, sid)
    assert answer["ok"] is True and (project / "README.md").read_text() == "# Demo\nbye world\n"
    assert audit_rows(host, sid) == [] and artifacts(host, sid) == []  # the command alone writes no row
    before = len(host.events)
    append(host, sid, round_message("a1", "c1", answer))
    [row] = audit_rows(host, sid)
    assert row["kind"] == "tool_execute" and row["ts"] == answer["audit"]["ts"]
    assert (
        row["payload"]["callId"] == "c1" and row["payload"]["snapshotId"] == answer["details"]["review"]["snapshotId"]
    )
    # the edited file's artifacts row comes with it (spec 004 4.10: same transaction as the audit row)
    assert artifacts(host, sid) == [(str(project.resolve() / "README.md"), "edit", answer["audit"]["ts"])]
    # one command stored all three; Files changed is told to ask again
    assert sorted(t for t, _ in host.events[before:]) == ["review.changed", "session.changed"]
    append(host, sid, round_message("a1", "c1", answer))  # a replay of the same message
    assert len(audit_rows(host, sid)) == 1 and len(artifacts(host, sid)) == 1


def test_a_denial_is_written_with_its_denied_result(host, project):
    sid = new_session(host, projectPath=str(project))
    record = host.call("tools.deny", {"sessionId": sid, "tool": "bash", "callId": "c9", "reason": "no"})
    assert audit_rows(host, sid) == []
    append(host, sid, round_message("a1", "c9", {"result": "denied", **record}, status="denied"))
    [row] = audit_rows(host, sid)
    assert row["kind"] == "tool_denied" and row["payload"]["reason"] == "no" and row["payload"]["callId"] == "c9"


@pytest.mark.parametrize(
    "bad",
    [
        {"kind": "review_revert", "ts": 1, "payload": {}},
        {"kind": "tool_execute", "ts": 1, "payload": "x"},
        {"kind": "tool_execute", "ts": "soon", "payload": {}},
        "tool_execute",
        {"kind": "tool_execute", "ts": 1, "payload": {}, "artifact": {"path": "relative.txt", "op": "edit"}},
        {"kind": "tool_execute", "ts": 1, "payload": {}, "artifact": {"path": "/abs/x.txt", "op": "delete"}},
        {"kind": "tool_denied", "ts": 1, "payload": {}, "artifact": {"path": "/abs/x.txt", "op": "edit"}},
    ],
)
def test_a_refused_append_writes_no_audit_row_and_no_line(host, project, bad):
    sid = new_session(host, projectPath=str(project))
    answer = edit(host, sid)
    lines = transcript_lines(host, sid)
    error = host.error(
        "session.appendMessage", {"sessionId": sid, "message": round_message("a1", "c1", {**answer, "audit": bad})}
    )
    assert error.code == "INVALID_PARAMS" and "audit" in error.message
    assert audit_rows(host, sid) == [] and transcript_lines(host, sid) == lines and artifacts(host, sid) == []
    assert host.call("session.get", {"sessionId": sid})["messages"] == []


def test_an_append_to_a_deleted_chat_writes_no_audit_row(host, project):
    sid = new_session(host, projectPath=str(project))
    answer = edit(host, sid)
    host.call("session.delete", {"sessionId": sid, "forGood": True})
    error = host.error("session.appendMessage", {"sessionId": sid, "message": round_message("a1", "c1", answer)})
    assert error.code == "NOT_FOUND"
    assert host.call("audit.list", {})["entries"] == []


def test_a_line_whose_index_commit_was_lost_gets_its_audit_row_once(location, project):
    first = InProcessHost(location)
    try:
        sid = new_session(first, projectPath=str(project))
        answer = edit(first, sid)
    finally:
        first.stop()
    # what a kill -9 between the line's write and its index commit leaves
    with open(location.data_root / "sessions" / f"{sid}.jsonl", "ab") as handle:
        message = {**round_message("a1", "c1", answer), "createdAt": "2030-01-01T00:00:00.000Z"}
        handle.write(orjson.dumps({"type": "message", **message}) + b"\n")
    for _ in range(2):  # indexed at the first start; the second start changes nothing
        again = InProcessHost(paths.resolve(data_dir=location.data_root))
        try:
            assert [m["id"] for m in again.call("session.get", {"sessionId": sid})["messages"]] == ["a1"]
            [row] = audit_rows(again, sid)
            assert row["kind"] == "tool_execute" and row["payload"]["callId"] == "c1"
            assert [a[:2] for a in artifacts(again, sid)] == [(str(project.resolve() / "README.md"), "edit")]
        finally:
            again.stop()


def test_a_terminal_reply_replacing_its_streaming_row_writes_the_rows_it_brings_once(host, project):
    sid = new_session(host, projectPath=str(project))
    answer = edit(host, sid)
    streaming = round_message("a1", "c1", answer)
    streaming["meta"] = {"status": "streaming"}
    del streaming["blocks"][0]["audit"]
    streaming["blocks"][0]["status"] = "pending"
    append(host, sid, streaming)
    assert audit_rows(host, sid) == []
    final = round_message("a1", "c1", answer)
    append(host, sid, final)  # the terminal row replaces the streaming one in place
    append(host, sid, final)  # and a replay of it changes nothing
    [row] = audit_rows(host, sid)
    assert row["payload"]["callId"] == "c1"
