"""Review snapshots are made durable with the result that names them: a snapshot the transcript refers to is
there after a kill -9, a torn one (a power cut before its flush) is swept at the next start after a crash,
and Revert never writes kept bytes whose SHA-256 is not the recorded one."""

import pytest

from pidesktop import paths
from tests.support.hosts import InProcessHost


@pytest.fixture
def project(tmp_path):
    folder = tmp_path / "proj"
    folder.mkdir()
    (folder / "notes.txt").write_text("one\ntwo\n")
    return folder


def edit(host, sid, old="two", new="2", call_id="c1"):
    args = {"path": "notes.txt", "oldText": old, "newText": new}
    answer = host.call("tools.run", {"sessionId": sid, "turnId": "t1", "callId": call_id, "tool": "edit", "args": args})
    assert answer["ok"], answer
    return answer


def stored(answer, mid="a1", call_id="c1"):
    block = {
        "type": "tool_call",
        "callId": call_id,
        "name": "edit",
        "args": {},
        "status": "ok",
        "result": answer["result"],
        "details": answer["details"],
        "audit": answer["audit"],
    }
    return {"id": mid, "role": "assistant", "blocks": [block], "meta": {"status": "completed"}}


def snapshot_dir(data_root, sid, answer):
    return data_root / "review-changes" / sid / answer["details"]["review"]["snapshotId"]


def test_a_snapshot_the_transcript_names_is_there_after_a_kill(stdio_host, data_root, project):
    host = stdio_host()
    sid = host.call("session.create", {"projectPath": str(project)})["session"]["id"]
    answer = edit(host, sid)
    host.call("session.appendMessage", {"sessionId": sid, "message": stored(answer)})
    host.kill()
    again = InProcessHost(paths.resolve(data_dir=data_root))
    try:
        [listed] = again.call("review.list", {"sessionId": sid})["snapshots"]
        assert listed["snapshotId"] == answer["details"]["review"]["snapshotId"]
        assert again.call("review.revert", {"sessionId": sid, "snapshotId": listed["snapshotId"]}) == {"reverted": True}
        assert (project / "notes.txt").read_text() == "one\ntwo\n"
    finally:
        again.stop()


def test_a_torn_snapshot_is_swept_after_a_crash_and_a_whole_one_kept(location, project):
    first = InProcessHost(location)
    try:
        sid = first.call("session.create", {"projectPath": str(project)})["session"]["id"]
        whole = edit(first, sid)
        torn = edit(first, sid, old="one", new="1", call_id="c2")
        first.call("session.startTurn", {"sessionId": sid, "turnId": "t1"})  # never ended: a crash mid-turn
    finally:
        first.stop()
    (snapshot_dir(location.data_root, sid, torn) / "meta.json").write_bytes(b"")  # what a power cut can leave
    again = InProcessHost(location)
    try:
        listed = again.call("review.list", {"sessionId": sid})["snapshots"]
        assert [s["snapshotId"] for s in listed] == [whole["details"]["review"]["snapshotId"]]
        assert not snapshot_dir(location.data_root, sid, torn).exists()
        assert snapshot_dir(location.data_root, sid, whole).is_dir()
    finally:
        again.stop()


def test_revert_refuses_kept_bytes_that_are_damaged_and_changes_nothing(host, data_root, project):
    sid = host.call("session.create", {"projectPath": str(project)})["session"]["id"]
    answer = edit(host, sid)
    (snapshot_dir(data_root, sid, answer) / "before").write_bytes(b"one\n")  # cut short
    error = host.error("review.revert", {"sessionId": sid, "snapshotId": answer["details"]["review"]["snapshotId"]})
    assert error.code == "CONFLICT" and error.data.get("damaged") is True and "damaged" in error.message
    assert (project / "notes.txt").read_text() == "one\n2\n"
    assert not host.call("review.list", {"sessionId": sid})["snapshots"][0]["reverted"]


def pending_round(mid="a1", call_id="c1", name="edit"):
    """The round's checkpoint as the tool loop saves it before its calls run: the call still pending."""
    block = {"type": "tool_call", "callId": call_id, "name": name, "args": {}, "status": "pending"}
    return {"id": mid, "role": "assistant", "blocks": [block], "meta": {"status": "streaming"}}


@pytest.mark.parametrize("file_replaced", [True, False])
def test_a_change_made_before_a_kill_mid_round_is_recorded_with_its_round(
    stdio_host, data_root, project, file_replaced
):
    host = stdio_host()
    sid = host.call("session.create", {"projectPath": str(project)})["session"]["id"]
    host.call("session.startTurn", {"sessionId": sid, "turnId": "t1"})
    host.call("session.saveInflightMessage", {"sessionId": sid, "turnId": "t1", "message": pending_round()})
    answer = edit(host, sid)  # the file is changed; the round holding its result is never stored
    if not file_replaced:  # as if the kill came between the snapshot and the file's replacement
        (project / "notes.txt").write_text("one\ntwo\n")
    host.kill()
    again = InProcessHost(paths.resolve(data_dir=data_root))
    try:
        got = again.call("session.get", {"sessionId": sid})
        assert got["session"]["lastTurn"]["status"] == "aborted"
        [call] = [b for m in got["messages"] for b in m["blocks"] if b["type"] == "tool_call"]
        assert call["status"] == "aborted" and "result" not in call
        audit = again.call("audit.list", {"sessionId": sid})["entries"]
        artifacts = again.call("artifacts.list", {"sessionId": sid})["artifacts"]
        if not file_replaced:  # nothing happened, so nothing is recorded
            assert audit == [] and artifacts == [] and "review" not in (call.get("details") or {})
            return
        snapshot_id = answer["details"]["review"]["snapshotId"]
        assert call["details"]["review"]["snapshotId"] == snapshot_id
        [row] = audit
        assert row["kind"] == "tool_execute" and row["payload"]["snapshotId"] == snapshot_id
        assert [(a["path"], a["op"]) for a in artifacts] == [(str((project / "notes.txt").resolve()), "edit")]
        assert again.call("review.revert", {"sessionId": sid, "snapshotId": snapshot_id}) == {"reverted": True}
        assert (project / "notes.txt").read_text() == "one\ntwo\n"
    finally:
        again.stop()
