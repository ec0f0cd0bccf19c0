"""The approval card, the checklist and the waiting proposals in the window (pytest-qt, offline demo:
it proposes through SubmitPlan in Plan mode and ticks a checklist when a plan is carried out)."""

from PySide6.QtCore import Qt

from tests.support.waits import spin_until


def open_plan_chat(chat, qloop, mode="plan"):
    sid = chat.client.call_blocking("session.create", {"mode": mode})["session"]["id"]
    spin_until(qloop, lambda: chat.model.session(sid) is not None)
    chat.sidebar.select(sid)
    spin_until(qloop, lambda: chat.current_session_id == sid and chat.plans.card.session_id == sid)
    return sid


def ask(chat, qtbot, qloop, text):
    qtbot.keyClicks(chat.composer.edit, text)
    qtbot.keyClick(chat.composer.edit, Qt.Key.Key_Return)
    spin_until(
        qloop,
        lambda: (
            chat.current_session_id
            and not chat.runner.is_running(chat.current_session_id)
            and chat.transcript_model.rows
            and not chat.transcript_model.rows[-1]["live"]
        ),
    )


def test_a_proposed_plan_is_approved_from_the_card_and_its_checklist_folds_away(chat, qtbot, qloop, shots):
    sid = open_plan_chat(chat, qloop)
    ask(chat, qtbot, qloop, "Move the blog to a new host")
    card = chat.plans.card
    spin_until(qloop, lambda: card.isVisible() and card.approval and card.approval["status"] == "pending")
    assert card.title.text() == "Plan waiting for your approval: Move the blog to a new host"  # not "Plan: Plan:"
    assert card.approve_button.isVisible() and card.reject_button.isVisible() and card.feedback.isVisible()
    assert card.approve_button.text() == "Approve and allow edits" and card.approve_ask_button.isVisible()
    assert "Read what is there now" in card.body.toPlainText()  # the Markdown, rendered
    assert not card.ask_again_button.isVisible()
    chat.grab().save(str(shots / "plan-pending.png"))

    qtbot.mouseClick(card.approve_button, Qt.MouseButton.LeftButton)
    spin_until(qloop, lambda: card.approval["status"] == "approved" and card.approval["executionStatus"] == "completed")
    spin_until(qloop, lambda: not chat.runner.is_running(sid))
    assert card.title.text().startswith("Plan approved")
    assert not card.approve_button.isVisible() and not card.feedback.isVisible()
    assert card.state.text() == "Carried out in Agent mode."
    session = chat.client.call_blocking("session.get", {"sessionId": sid})["session"]
    assert session["mode"] == "agent" and session["permissionMode"] == "accept-edits"  # "Approve and allow edits"
    todo = chat.plans.todo
    spin_until(qloop, lambda: todo.isVisible() and todo.todo and todo.todo["revision"] == 1)
    assert todo.folded and not todo.items.isVisible()  # every step done: folded away
    assert "Checklist done: 3 of 3" in todo.fold_button.text()
    qtbot.mouseClick(todo.fold_button, Qt.MouseButton.LeftButton)
    assert todo.items.isVisible()
    bar = chat.transcript.verticalScrollBar()
    spin_until(qloop, lambda: bar.value() == bar.maximum())  # the panels took room: the newest line stays in view
    chat.grab().save(str(shots / "plan-approved.png"))


def test_approve_ask_first_makes_the_chat_ask_before_changes(chat, qtbot, qloop):
    chat.client.call_blocking("settings.set", {"patch": {"permissionMode": "auto"}})  # not what the chat gets
    sid = open_plan_chat(chat, qloop)
    ask(chat, qtbot, qloop, "Move the blog to a new host")
    card = chat.plans.card
    spin_until(qloop, lambda: card.isVisible() and card.approval and card.approval["status"] == "pending")
    qtbot.mouseClick(card.approve_ask_button, Qt.MouseButton.LeftButton)
    spin_until(qloop, lambda: card.approval["status"] == "approved")
    spin_until(qloop, lambda: not chat.runner.is_running(sid))
    session = chat.client.call_blocking("session.get", {"sessionId": sid})["session"]
    assert (session["mode"], session["permissionMode"]) == ("agent", "ask")
    spin_until(qloop, lambda: chat.composer.permission_picker.currentData() == "ask")  # the chip shows it


def test_rejecting_keeps_the_typed_feedback_until_it_is_sent(chat, qtbot, qloop):
    sid = open_plan_chat(chat, qloop)
    ask(chat, qtbot, qloop, "Tidy the garage")
    card = chat.plans.card
    spin_until(qloop, lambda: card.approval and card.approval["status"] == "pending")
    first = card.approval["id"]
    assert card.open_button.isVisible() and card.open_button.toolTip() == card.approval["artifactPath"]
    qtbot.keyClicks(card.feedback, "Start with the shelves")
    qtbot.keyClick(card.feedback, Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier)  # same as Reject
    spin_until(qloop, lambda: card.approval["id"] != first and card.approval["status"] == "pending")
    spin_until(qloop, lambda: not chat.runner.is_running(sid))
    assert card.feedback.toPlainText() == ""  # sent with the rejection; the new proposal starts empty
    listed = chat.client.call_blocking("plan.list", {"sessionId": sid})["approvals"]
    assert [a["status"] for a in listed] == ["pending", "rejected"]
    assert listed[1]["feedback"] == "Start with the shelves"
    prompts = [
        m for m in chat.client.call_blocking("session.get", {"sessionId": sid})["messages"] if m["role"] == "user"
    ]
    assert "Start with the shelves" in prompts[-1]["blocks"][0]["text"]


def test_an_interrupted_plan_says_so_and_asks_again(chat, qtbot, qloop):
    sid = open_plan_chat(chat, qloop)
    card = chat.plans.card
    interrupted = {
        "id": "a1",
        "sessionId": sid,
        "kind": "plan",
        "status": "interrupted",
        "title": "Old plan",
        "markdown": "# Old plan\n",
        "executionStatus": None,
    }
    card.set_approval(interrupted)
    assert card.isVisible() and card.ask_again_button.isVisible() and not card.approve_button.isVisible()
    assert "restarted" in card.state.text()
    qtbot.mouseClick(card.ask_again_button, Qt.MouseButton.LeftButton)
    spin_until(qloop, lambda: card.approval and card.approval["status"] == "pending" and card.approval["id"] != "a1")
    spin_until(qloop, lambda: not chat.runner.is_running(sid))
    [prompt] = [
        m for m in chat.client.call_blocking("session.get", {"sessionId": sid})["messages"] if m["role"] == "user"
    ]
    assert "submit the plan again" in prompt["blocks"][0]["text"]


def test_the_inbox_lists_plans_waiting_in_other_chats(chat, qtbot, qloop):
    waiting = chat.client.call_blocking("session.create", {"mode": "plan", "title": "Garden"})["session"]["id"]
    chat.client.call_blocking(
        "plan.submit", {"sessionId": waiting, "kind": "plan", "markdown": "# Dig\n", "turnId": "t", "toolCallId": "t:c"}
    )
    pending = chat.plans.pending
    spin_until(qloop, lambda: pending.count == 1)
    assert "Plan waiting for approval" in pending._rows[0].text() and "Garden" in pending._rows[0].text()
    pending._rows[0].click()
    spin_until(qloop, lambda: chat.current_session_id == waiting)
    spin_until(qloop, lambda: pending.count == 0)  # the chat on screen has its card instead
    spin_until(qloop, lambda: chat.plans.card.isVisible())


def test_the_checklist_shows_progress_and_ignores_an_older_revision(chat, qtbot, qloop, shots):
    sid = open_plan_chat(chat, qloop, mode="agent")
    ask(chat, qtbot, qloop, "The date parser test fails on leap years")
    items = [
        {"content": "Read the code", "status": "completed"},
        {"content": "Write the fix", "status": "in_progress"},
        {"content": "Run the tests", "status": "pending"},
    ]
    chat.client.call_blocking("todo.set", {"sessionId": sid, "items": items})
    todo = chat.plans.todo
    spin_until(qloop, lambda: todo.isVisible() and todo.todo["revision"] == 1)
    assert not todo.folded and todo.items.isVisible()
    assert "1 of 3 done" in todo.fold_button.text()
    assert todo.progress.value() == 1 and todo.progress.maximum() == 3
    chat.client.call_blocking("todo.set", {"sessionId": sid, "items": items[:1]})
    spin_until(qloop, lambda: todo.todo["revision"] == 2)
    todo.set_todo({"revision": 1, "items": items})  # late and older: ignored
    assert len(todo.todo["items"]) == 1
    chat.client.call_blocking("todo.set", {"sessionId": sid, "items": items})
    spin_until(qloop, lambda: todo.todo["revision"] == 3)
    chat.grab().save(str(shots / "todo-checklist.png"))
    chat.client.call_blocking("todo.set", {"sessionId": sid, "items": []})
    spin_until(qloop, lambda: not todo.isVisible())


def test_the_bell_counts_proposals_waiting_in_other_chats(chat, qloop):
    waiting = chat.client.call_blocking("session.create", {"mode": "goal", "title": "Trip"})["session"]["id"]
    assert chat.bell.count == 0
    approval = chat.client.call_blocking(
        "plan.submit", {"sessionId": waiting, "kind": "goal", "markdown": "# Go\n", "turnId": "t", "toolCallId": "t:c"}
    )["approval"]
    spin_until(qloop, lambda: chat.bell.count == 1)
    chat.client.call_blocking("plan.respond", {"approvalId": approval["id"], "decision": "reject"})
    spin_until(qloop, lambda: chat.bell.count == 0)


def test_a_finished_execution_is_not_shown_again_and_a_card_can_be_closed(chat, qtbot, qloop):
    sid = open_plan_chat(chat, qloop)
    ask(chat, qtbot, qloop, "Paint the fence")
    card = chat.plans.card
    spin_until(qloop, lambda: card.approval and card.approval["status"] == "pending")
    assert not card.close_button.isVisible()  # a pending proposal is answered, not closed
    qtbot.mouseClick(card.approve_button, Qt.MouseButton.LeftButton)
    spin_until(qloop, lambda: card.approval["executionStatus"] == "completed" and not chat.runner.is_running(sid))
    assert card.isVisible() and card.close_button.isVisible()
    qtbot.mouseClick(card.close_button, Qt.MouseButton.LeftButton)
    assert not card.isVisible()
    qloop.run_until_complete(card.show_session(sid))  # opening the chat again: history, not a card
    assert not card.isVisible()


def test_the_transcript_names_a_proposal_by_its_title_and_a_checklist_by_its_progress():
    from pidesktop.ui.chat.message_layout import _summary

    assert _summary({"plan": "\n# Move the blog\n\n1. Copy\n"}) == "Move the blog"
    assert _summary({"goal": "Faster builds " + "x" * 80}).endswith("…")
    assert (
        _summary({"todos": [{"content": "a", "status": "completed"}, {"content": "b", "status": "pending"}]})
        == "1 of 2 done"
    )


def test_a_chat_opened_late_does_not_put_its_plan_under_the_chat_on_screen(chat, qtbot, qloop):
    planned = open_plan_chat(chat, qloop)
    ask(chat, qtbot, qloop, "Move the blog to a new host")
    spin_until(qloop, lambda: chat.plans.card.approval and chat.plans.card.approval["status"] == "pending")
    other = open_plan_chat(chat, qloop, mode="agent")
    assert not chat.plans.card.isVisible()
    # the first chat's open finishing after the switch (a slow read) must not show its card here
    qloop.run_until_complete(chat.chat_view.open_transcript(planned))
    assert chat.current_session_id == other
    assert chat.plans.card.session_id == other and not chat.plans.card.isVisible()


def test_the_card_shows_the_models_question_while_the_proposal_waits(chat, qloop, shots):
    open_plan_chat(chat, qloop)
    card = chat.plans.card
    approval = {
        "id": "p1",
        "sessionId": card.session_id,
        "kind": "plan",
        "status": "pending",
        "title": "Move the blog",
        "question": "Should the old host stay up for a week?",
        "markdown": "# Move the blog\n\n1. Copy the files\n",
        "artifactPath": None,
        "executionStatus": None,
    }
    card.set_approval(approval)
    assert card.question.isVisible() and card.question.text() == "Should the old host stay up for a week?"
    chat.grab().save(str(shots / "plan-question.png"))
    card.set_approval({**approval, "status": "approved", "executionStatus": "running"})
    assert not card.question.isVisible()
