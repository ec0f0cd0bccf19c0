"""A search hit opens its chat with the hit in view; inside a subagent's run, with its Task row expanded (W.24)."""

from tests.support.waits import spin_until


def seed_task_run(chat, qloop, nested: int) -> str:
    """A chat (not the one shown) whose Task call ran a subagent for ``nested`` rows, then a last reply."""
    sid = chat.client.call_blocking("session.create", {"title": "Coast research"})["session"]["id"]
    prompt = {"id": "u1", "role": "user", "blocks": [{"type": "text", "text": "research the coast"}]}
    chat.client.call_blocking("session.appendMessage", {"sessionId": sid, "message": prompt})
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


def in_view(chat, message_id: str) -> bool:
    model, view = chat.transcript_model, chat.transcript
    rect = view.visualRect(model.index(model.row_of(message_id)))
    return rect.height() > 0 and view.viewport().rect().intersects(rect)


def test_a_hit_in_the_middle_of_a_long_chat_is_scrolled_into_view(chat, qloop):
    sid = chat.client.call_blocking("session.create", {"title": "Long talk"})["session"]["id"]
    for i in range(100):
        role = "user" if i % 2 == 0 else "assistant"
        message = {"id": f"m{i}", "role": role, "blocks": [{"type": "text", "text": f"line {i}"}]}
        chat.client.call_blocking("session.appendMessage", {"sessionId": sid, "message": message})
    spin_until(qloop, lambda: chat.model.session(sid) is not None)
    chat.dialogs.open_search_hit(sid, "m40")
    model = chat.transcript_model
    spin_until(qloop, lambda: model.session_id == sid and model.highlight_id == "m40" and model.row_of("m40") >= 0)
    spin_until(qloop, lambda: in_view(chat, "m40"))


def test_a_hit_far_into_a_task_run_opens_the_task_expanded_with_the_hit_in_view(chat, qloop):
    sid = seed_task_run(chat, qloop, 60)
    model, view = chat.transcript_model, chat.transcript
    spin_until(qloop, lambda: chat.model.session(sid) is not None)
    chat.dialogs.open_search_hit(sid, "n50")  # what choosing the hit in the search dialog does
    spin_until(qloop, lambda: model.session_id == sid and model.highlight_id == "n50" and model.row_of("n50") >= 0)
    assert model.navigation_parent["id"] == "t1"
    assert model.row_of("t1") >= 0  # 25 rows before the hit would not have reached it: the page reached back
    assert "tool:t1:0" in view.expanded
    hit = model.row_of("n50")
    assert not view.delegate._nesting(hit).hidden

    spin_until(qloop, lambda: in_view(chat, "n50"))
    view.grab().save("/tmp/search-into-task.png")


def test_an_ordinary_hit_leaves_task_runs_folded(chat, qloop):
    sid = seed_task_run(chat, qloop, 3)
    spin_until(qloop, lambda: chat.model.session(sid) is not None)
    chat.dialogs.open_search_hit(sid, "a2")
    model = chat.transcript_model
    spin_until(qloop, lambda: model.session_id == sid and model.highlight_id == "a2" and model.row_of("a2") >= 0)
    assert chat.transcript_model.navigation_parent is None
    assert "tool:t1:0" not in chat.transcript.expanded
    assert chat.transcript.delegate._nesting(chat.transcript_model.row_of("n1")).hidden
