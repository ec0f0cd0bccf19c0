"""session.appendMessage / session.get / session.appendCompaction through a real host."""

from tests.support.host_helpers import append, msg, new_session
from tests.support.host_helpers import transcript_lines as lines


def test_append_writes_the_line_then_indexes_it(host):
    sid = new_session(host)
    assert append(host, sid, msg("u1")) == {"message": {"id": "u1", "seq": 1}}
    assert (
        append(
            host,
            sid,
            msg(
                "a1",
                "assistant",
                "hi there",
                blocks=[{"type": "thinking", "text": "secret plan"}, {"type": "text", "text": "hi there"}],
            ),
        )["message"]["seq"]
        == 2
    )
    header, first, second = lines(host, sid)
    assert header["type"] == "session" and header["schema"] == 2 and header["sessionId"] == sid
    assert list(first)[0] == "type" and first["id"] == "u1" and "createdAt" in first
    assert second["blocks"][0] == {"type": "thinking", "text": "secret plan"}
    summary = host.call("session.list")["sessions"][0]
    assert summary["messageCount"] == 2
    # thinking never reaches the search text
    assert host.call("search.query", {"query": "secret"})["results"] == []
    assert [r["messageId"] for r in host.call("search.query", {"query": "there"})["results"]] == ["a1"]


def test_replay_of_a_completed_message_is_idempotent(host):
    sid = new_session(host)
    append(host, sid, msg("u1", text="first"))
    again = append(host, sid, msg("u1", text="changed later"))
    assert again == {"message": {"id": "u1", "seq": 1}}
    assert [line.get("blocks") for line in lines(host, sid)[1:]] == [[{"type": "text", "text": "first"}]]


def test_a_terminal_assistant_replaces_its_streaming_row_in_place(host):
    sid = new_session(host)
    append(host, sid, msg("u1"))
    append(host, sid, msg("a1", "assistant", "partial", meta={"status": "streaming"}))
    append(host, sid, msg("u2", text="steer"))
    done = append(host, sid, msg("a1", "assistant", "complete answer", meta={"status": "completed"}))
    assert done["message"]["seq"] == 2
    stored = lines(host, sid)[1:]
    assert [m["id"] for m in stored] == ["u1", "a1", "u2"]
    assert stored[1]["blocks"][0]["text"] == "complete answer"
    # a late partial cannot overwrite the settled answer
    append(host, sid, msg("a1", "assistant", "late partial", meta={"status": "streaming"}))
    assert lines(host, sid)[2]["blocks"][0]["text"] == "complete answer"
    assert [r["messageId"] for r in host.call("search.query", {"query": "complete"})["results"]] == ["a1"]
    assert host.call("search.query", {"query": "partial"})["results"] == []


def test_an_id_owned_by_another_session_is_remapped(host):
    a, b = new_session(host), new_session(host)
    append(
        host, a, msg("call_1", "tool", blocks=[{"type": "tool_call", "callId": "c", "name": "Read", "status": "ok"}])
    )
    result = append(host, b, msg("call_1", "tool", blocks=[]))
    assert result["remappedId"] == f"{b}:call_1" and result["message"]["id"] == f"{b}:call_1"
    assert lines(host, b)[1]["id"] == f"{b}:call_1"
    replay = append(host, b, msg("call_1", "tool", blocks=[]))
    assert replay["message"] == {"id": f"{b}:call_1", "seq": 1}
    assert len(lines(host, b)) == 2


def test_a_stale_or_foreign_turn_id_keeps_the_message_without_a_link(host, caplog):
    sid = new_session(host)
    result = append(host, sid, msg("u1"), turnId="no-such-turn")
    assert result["message"]["seq"] == 1
    assert "without its turn link" in caplog.text


def test_append_to_a_missing_session_restores_an_orphan_or_makes_a_stub(host):
    root = host.location.data_root
    orphan = "orphan-1"
    (root / "sessions" / f"{orphan}.jsonl").write_bytes(
        b'{"type":"session","schema":2,"sessionId":"orphan-1","createdAt":"2026-01-02T03:04:05.000Z"}\n'
        b'{"type":"message","id":"o1","role":"user","blocks":[{"type":"text","text":"kept forever"}]}\n'
    )
    append(host, orphan, msg("o2", "assistant", "and answered"))
    got = host.call("session.get", {"sessionId": orphan})
    assert [m["id"] for m in got["messages"]] == ["o1", "o2"]
    assert [m["seq"] for m in got["messages"]] == [1, 2]
    assert host.call("search.query", {"query": "kept forever"})["results"][0]["sessionId"] == orphan
    append(host, "stub-1", msg("s1"))
    assert host.call("session.get", {"sessionId": "stub-1"})["totalMessages"] == 1


def test_bad_messages_are_refused_naming_the_field_and_nothing_is_written(host):
    sid = new_session(host)
    cases = [
        ({"role": "user", "blocks": []}, "message.id"),
        ({"id": "x", "role": "robot", "blocks": []}, "role"),
        ({"id": "x", "role": "user", "blocks": "hi"}, "blocks"),
        ({"id": "x", "role": "user", "blocks": [{"text": "no type"}]}, "blocks[0]"),
        ({"id": "x", "role": "user", "blocks": [], "meta": []}, "meta"),
    ]
    for message, field in cases:
        error = host.error("session.appendMessage", {"sessionId": sid, "message": message})
        assert error.code == "INVALID_PARAMS" and field in error.message
    assert not (host.location.data_root / "sessions" / f"{sid}.jsonl").exists()


def test_windows_page_backwards_forwards_and_around(host):
    sid = new_session(host)
    for i in range(25):
        append(host, sid, msg(f"m{i}", "user" if i % 2 == 0 else "assistant", f"text {i}"))
    newest = host.call("session.get", {"sessionId": sid, "messageLimit": 10})
    assert [m["index"] for m in newest["messages"]] == list(range(15, 25))
    assert (
        newest["messageStart"],
        newest["messageEnd"],
        newest["hasMoreBefore"],
        newest["hasMoreAfter"],
        newest["totalMessages"],
    ) == (15, 25, True, False, 25)
    older = host.call("session.get", {"sessionId": sid, "messageBefore": 15, "messageLimit": 10})
    assert older["messageStart"] == 5 and older["hasMoreBefore"]
    around = host.call("session.get", {"sessionId": sid, "messageAround": "m12", "messageLimit": 5})
    assert [m["id"] for m in around["messages"]] == ["m10", "m11", "m12", "m13", "m14"]
    forward = host.call("session.get", {"sessionId": sid, "messageEnd": around["messageEnd"], "messageLimit": 5})
    assert forward["messageStart"] == 15 and forward["hasMoreAfter"]
    beyond = host.call("session.get", {"sessionId": sid, "messageBefore": 1000, "messageLimit": 3})
    assert beyond["messageEnd"] == 25
    missing = host.error("session.get", {"sessionId": sid, "messageAround": "nope", "messageLimit": 5})
    assert missing.code == "NOT_FOUND"
    both = host.error("session.get", {"sessionId": sid, "messageBefore": 3, "messageAround": "m1"})
    assert both.code == "INVALID_PARAMS"


def test_content_limit_caps_only_the_projection(host):
    sid = new_session(host)
    long_text = "x" * 5000
    append(host, sid, msg("u1", text=long_text))
    append(
        host,
        sid,
        msg(
            "t1",
            "tool",
            blocks=[
                {"type": "tool_call", "callId": "c", "name": "Bash", "status": "ok", "result": {"stdout": "y" * 3000}}
            ],
        ),
    )
    got = host.call("session.get", {"sessionId": sid, "contentLimit": 100})
    text_block = got["messages"][0]["blocks"][0]
    assert len(text_block["text"]) == 100 and text_block["truncated"] is True
    assert got["messages"][1]["blocks"][0]["truncated"] is True
    full = host.call("session.get", {"sessionId": sid})
    assert full["messages"][0]["blocks"][0]["text"] == long_text
    assert "truncated" not in full["messages"][0]["blocks"][0]


def test_a_jump_target_comes_with_its_whole_text_and_only_it(host):
    # spec 004, W.23: only the selected user/assistant text bypasses the display cap
    sid = new_session(host)
    long_text = "x" * 500
    append(host, sid, msg("u1", text=long_text))
    reply = msg("a1", "assistant", text=long_text)
    reply["blocks"].append({"type": "thinking", "text": "t" * 500})
    append(host, sid, reply)
    append(host, sid, msg("u2", text=long_text))
    got = host.call("session.get", {"sessionId": sid, "contentLimit": 100, "messageAround": "a1"})
    by_id = {m["id"]: m for m in got["messages"]}
    assert by_id["a1"]["blocks"][0]["text"] == long_text and "truncated" not in by_id["a1"]["blocks"][0]
    assert by_id["a1"]["blocks"][1]["truncated"] is True  # its thinking stays capped
    assert all(by_id[other]["blocks"][0]["truncated"] is True for other in ("u1", "u2"))
    assert (
        host.error("session.get", {"sessionId": sid, "contentLimit": 100, "messageAround": "gone"}).code == "NOT_FOUND"
    )


def test_a_hit_inside_a_task_names_its_task_as_navigation_parent(host):
    sid = new_session(host)
    append(host, sid, msg("u1", text="look into it"))
    task_call = {"type": "tool_call", "callId": "task-1", "name": "Task", "status": "ok", "result": "r" * 3000}
    append(host, sid, msg("t1", "tool", blocks=[task_call], toolName="Task"))
    for i in range(30):
        append(host, sid, msg(f"n{i}", "assistant", f"step {i}", meta={"parentToolCallId": "task-1"}))
    append(host, sid, msg("a1", "assistant", "all done"))

    near = host.call("session.get", {"sessionId": sid, "messageAround": "n3", "messageLimit": 5, "contentLimit": 100})
    parent = near["navigationParent"]
    assert parent["id"] == "t1" and parent["index"] == 1 and parent["seq"] == 2
    assert parent["blocks"][0]["truncated"] is True and len(parent["blocks"][0]["result"]) == 100  # capped
    # far from its Task: the parent is found on an earlier page and adds no row to this one
    far = host.call("session.get", {"sessionId": sid, "messageAround": "n28", "messageLimit": 5})
    assert far["navigationParent"]["id"] == "t1"
    assert "t1" not in [m["id"] for m in far["messages"]] and len(far["messages"]) == 5
    plain = host.call("session.get", {"sessionId": sid, "messageAround": "a1", "messageLimit": 5})
    assert "navigationParent" not in plain
    assert "navigationParent" not in host.call("session.get", {"sessionId": sid, "messageLimit": 5})


def test_compactions_come_whole_with_every_window(host):
    sid = new_session(host)
    for i in range(6):
        append(host, sid, msg(f"m{i}"))
    host.call(
        "session.appendCompaction",
        {
            "sessionId": sid,
            "compaction": {
                "id": "cp1",
                "summary": "earlier talk",
                "firstKeptMessageId": "m2",
                "throughMessageId": "m3",
                "tokensBefore": 900,
            },
        },
    )
    host.call("session.appendCompaction", {"sessionId": sid, "compaction": {"id": "cp1", "throughMessageId": "m3"}})
    window = host.call("session.get", {"sessionId": sid, "messageLimit": 1})
    assert [c["id"] for c in window["compactions"]] == ["cp1"]
    assert window["totalMessages"] == 6
    error = host.error(
        "session.appendCompaction", {"sessionId": sid, "compaction": {"id": "cp2", "throughMessageId": "ghost"}}
    )
    assert error.code == "NOT_FOUND"


def test_delete_removes_index_entries_and_files(host):
    sid = new_session(host)
    append(host, sid, msg("u1", text="京都の旅行プラン"))
    assert host.call("search.sessions", {"query": "旅行"})["results"][0]["sessionId"] == sid
    host.call("session.delete", {"sessionId": sid, "forGood": True})
    assert host.call("search.sessions", {"query": "旅行"})["results"] == []
    assert not list((host.location.data_root / "sessions").glob(f"{sid}*"))
