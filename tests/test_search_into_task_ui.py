"""A search hit inside a subagent's run opens with its Task row, expanded, and the hit in view (W.24)."""

from tests.support.waits import spin_until


def seed_task_run(chat, qloop, nested: int) -> str:
    qloop.run_until_complete(chat.chats.send_prompt("research the coast"))
    sid = chat.current_session_id
    spin_until(qloop, lambda: not chat.runner.is_running(sid))
    task = {"type": "tool_call", "callId": "task-1", "name": "Task", "args": {"prompt": "walk"}, "status": "ok"}
    messages = [{"id": "t1", "role": "assistant", "blocks": [{"type": "text", "text": "Sending a scout."}, task]}]
    messages += [
        {
            "id": f"n{i}",
            "role": "assistant",
            "blocks": [{"type": "text", "text": f"scout step {i}"}],
            "meta": {"parentToolCallId": "task-1", "agentName": "scout"},
        }
        for i in range(nested)
    ]
    messages.append({"id": "a2", "role": "assistant", "blocks": [{"type": "text", "text": "The scout is back."}]})
    for message in messages:
        chat.client.call_blocking("session.appendMessage", {"sessionId": sid, "message": message})
    return sid


def test_a_hit_far_into_a_task_run_opens_the_task_expanded_with_the_hit_in_view(chat, qloop):
    sid = seed_task_run(chat, qloop, 60)
    qloop.run_until_complete(chat.open_transcript(sid, around="n50"))
    model, view = chat.transcript_model, chat.transcript
    assert model.navigation_parent["id"] == "t1"
    assert model.row_of("t1") >= 0  # 25 rows before the hit would not have reached it: the page reached back
    assert "tool:t1:0" in view.expanded
    hit = model.row_of("n50")
    assert not view.delegate._nesting(hit).hidden

    def hit_in_view() -> bool:
        rect = view.visualRect(model.index(model.row_of("n50")))
        return rect.height() > 0 and view.viewport().rect().intersects(rect)

    spin_until(qloop, hit_in_view)
    view.grab().save("/tmp/search-into-task.png")


def test_an_ordinary_hit_leaves_task_runs_folded(chat, qloop):
    sid = seed_task_run(chat, qloop, 3)
    qloop.run_until_complete(chat.open_transcript(sid, around="a2"))
    assert chat.transcript_model.navigation_parent is None
    assert "tool:t1:0" not in chat.transcript.expanded
    assert chat.transcript.delegate._nesting(chat.transcript_model.row_of("n1")).hidden
