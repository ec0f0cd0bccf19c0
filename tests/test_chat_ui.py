"""Chatting in the window: the offline provider end to end, paging, stop, the transcript model."""

from PySide6.QtCore import Qt

from pidesktop.ui.chat.transcript_model import TranscriptModel
from tests.support.hosts import InProcessHost
from tests.support.waits import spin_until
from tests.support.windows import started_window


def rows(window):
    return [(r["message"]["role"] if r["kind"] == "message" else "divider") for r in window.transcript_model.rows]


def test_typing_a_prompt_and_pressing_enter_gets_a_stored_offline_reply(chat, qtbot, qloop):
    qtbot.keyClicks(chat.composer.edit, "What is a layout cache?")
    qtbot.keyClick(chat.composer.edit, Qt.Key.Key_Return)
    spin_until(
        qloop,
        lambda: (
            rows(chat) == ["user", "assistant"]
            and not chat.runner.is_running(chat.current_session_id)
            and not chat.transcript_model.rows[-1]["live"]
        ),
    )
    sid = chat.current_session_id
    stored = chat.client.call_blocking("session.get", {"sessionId": sid})
    assert [m["role"] for m in stored["messages"]] == ["user", "assistant"]
    reply = stored["messages"][1]
    assert reply["meta"]["status"] == "completed"
    assert "Offline demo" in "".join(b.get("text", "") for b in reply["blocks"])
    assert chat.transcript_model.rows[1]["message"]["id"] == reply["id"]
    assert chat.composer.edit.toPlainText() == ""
    assert chat.composer.send_button.text() == "Send"
    # the untitled chat was named after its first prompt
    assert stored["session"]["title"] == "What is a layout cache?"
    turn = stored["session"]["lastTurn"]
    assert turn["status"] == "completed"


def test_stop_keeps_the_partial_reply_and_creates_no_notification(chat, qtbot, qloop):
    chat.runner.offline_delay = 0.05
    qtbot.keyClicks(chat.composer.edit, "Tell me a long story please")
    qtbot.keyClick(chat.composer.edit, Qt.Key.Key_Return)
    spin_until(
        qloop,
        lambda: (
            chat.transcript_model.rows
            and chat.transcript_model.rows[-1]["live"]
            and any(b.get("type") == "text" for b in chat.transcript_model.rows[-1]["message"]["blocks"])
        ),
    )
    assert chat.composer.send_button.text() == "Stop"
    qtbot.mouseClick(chat.composer.send_button, Qt.MouseButton.LeftButton)
    sid = chat.current_session_id
    spin_until(qloop, lambda: not chat.runner.is_running(sid))
    stored = chat.client.call_blocking("session.get", {"sessionId": sid})
    assert stored["session"]["lastTurn"]["status"] == "aborted"
    reply = stored["messages"][-1]
    assert reply["meta"]["status"] == "aborted" and reply["blocks"]
    assert chat.client.call_blocking("notifications.list")["notifications"] == []
    spin_until(qloop, lambda: not chat.transcript_model.rows[-1]["live"])


def seed_long_session(location, count):
    host = InProcessHost(location)
    sid = host.call("session.create", {"title": "long"})["session"]["id"]
    for i in range(count):
        host.call(
            "session.appendMessage",
            {
                "sessionId": sid,
                "message": {
                    "id": f"m{i}",
                    "role": "user" if i % 2 == 0 else "assistant",
                    "blocks": [{"type": "text", "text": f"message number {i} " + "words " * (i % 7 * 10)}],
                },
            },
        )
    host.stop()
    return sid


def test_scrolling_to_the_top_loads_the_older_page_and_keeps_the_reader_in_place(qtbot, qloop, location, loop_hosts):
    sid = seed_long_session(location, 130)
    win = started_window(qtbot, qloop, loop_hosts.start(), size=(1000, 700))
    win.sidebar.select(sid)
    model = win.transcript_model
    spin_until(qloop, lambda: model.rowCount() == 50)
    assert model.start == 80 and model.has_more_before
    view = win.transcript
    spin_until(
        qloop,
        lambda: (
            view.verticalScrollBar().maximum() > 0
            and view.verticalScrollBar().value() == view.verticalScrollBar().maximum()
        ),
    )
    anchor_row = 3
    view.scrollTo(model.index(anchor_row), view.ScrollHint.PositionAtTop)
    anchor_key = model.rows[anchor_row]["key"]
    before_top = view.visualRect(model.index(anchor_row)).top()
    spin_until(qloop, lambda: model.rowCount() == 100)

    def anchor_top():
        return view.visualRect(model.index(model.row_of(anchor_key))).top()

    # the rows above go in, then the view puts the anchor back where it was, a tick later
    spin_until(qloop, lambda: abs(anchor_top() - before_top) <= 2)
    assert model.start == 30
    assert [r["message"]["id"] for r in model.rows[:2]] == ["m30", "m31"]
    win.close()


def test_opening_around_a_message_pages_forward(qtbot, qloop, location, loop_hosts):
    sid = seed_long_session(location, 200)
    model = TranscriptModel(loop_hosts.start())
    qloop.run_until_complete(model.open(sid, around="m100"))
    assert model.highlight_id == "m100" and model.has_more_after and model.has_more_before
    assert model.rows[25]["message"]["id"] == "m100"
    assert model.canFetchMore()
    qloop.run_until_complete(model.load_newer())
    assert model.rowCount() == 100 and model.rows[-1]["message"]["id"] == "m174"


def test_transcript_model_passes_qt_model_tester(qtmodeltester, qloop, location, loop_hosts):
    sid = seed_long_session(location, 60)
    model = TranscriptModel(loop_hosts.start())
    qloop.run_until_complete(model.open(sid))
    qtmodeltester.check(model)
    qloop.run_until_complete(model.load_older())
    model.set_live({"id": "live1", "role": "assistant", "blocks": [{"type": "text", "text": "hi"}]})
    qtmodeltester.check(model)


def test_the_thinking_picker_stores_the_level_on_the_chat(chat, qtbot, qloop):
    picker = chat.composer.thinking
    picker.setCurrentIndex(picker.findData("high"))
    picker.activated.emit(picker.currentIndex())  # what choosing an entry does
    qtbot.keyClicks(chat.composer.edit, "think hard")
    qtbot.keyClick(chat.composer.edit, Qt.Key.Key_Return)
    spin_until(qloop, lambda: chat.current_session_id and not chat.runner.is_running(chat.current_session_id))
    sid = chat.current_session_id
    assert (
        chat.client.call_blocking("session.get", {"sessionId": sid, "messageLimit": 1})["session"]["thinkingLevel"]
        == "high"
    )
    picker.setCurrentIndex(picker.findData("off"))
    picker.activated.emit(picker.currentIndex())
    spin_until(
        qloop,
        lambda: (
            chat.client.call_blocking("session.get", {"sessionId": sid, "messageLimit": 1})["session"]["thinkingLevel"]
            == "off"
        ),
    )


def test_the_model_picker_lists_provider_models_and_stores_the_choice(chat, qloop):
    provider = chat.client.call_blocking(
        "providers.upsert", {"provider": {"name": "Local llama", "baseUrl": "http://127.0.0.1:9/v1"}}
    )["provider"]
    chat.client.call_blocking("models.upsert", {"providerId": provider["id"], "model": {"modelId": "llama-3"}})
    picker = chat.composer.model_picker
    from pidesktop.ui.chat.composer import model_key

    spin_until(qloop, lambda: picker.findData(model_key(provider["id"], "llama-3")) >= 0)
    assert picker.itemText(0).startswith("Default model")
    sid = chat.client.call_blocking("session.create", {})["session"]["id"]
    spin_until(qloop, lambda: chat.model.find(sid) is not None)  # the sidebar hears of it through an event
    chat.sidebar.select(sid)
    spin_until(qloop, lambda: chat.current_session_id == sid)
    row = picker.findData(model_key(provider["id"], "llama-3"))
    picker.setCurrentIndex(row)
    picker.activated.emit(row)
    spin_until(
        qloop,
        lambda: (
            chat.client.call_blocking("session.get", {"sessionId": sid, "messageLimit": 1})["session"]["modelId"]
            == "llama-3"
        ),
    )
    picker.setCurrentIndex(0)
    picker.activated.emit(0)
    spin_until(
        qloop,
        lambda: (
            chat.client.call_blocking("session.get", {"sessionId": sid, "messageLimit": 1})["session"]["modelId"]
            is None
        ),
    )


def test_the_mode_picker_stores_the_mode_and_shows_each_chats_own(chat, qtbot, qloop):
    picker = chat.composer.mode_picker
    assert [picker.itemData(i) for i in range(picker.count())] == ["agent", "plan", "goal"]
    assert picker.currentData() == "agent"
    picker.activated.emit(picker.findData("plan"))  # picked before the chat exists
    qtbot.keyClicks(chat.composer.edit, "plan my week")
    qtbot.keyClick(chat.composer.edit, Qt.Key.Key_Return)
    spin_until(qloop, lambda: chat.current_session_id and not chat.runner.is_running(chat.current_session_id))
    planned = chat.current_session_id

    def mode(sid):
        return chat.client.call_blocking("session.get", {"sessionId": sid, "messageLimit": 1})["session"]["mode"]

    assert mode(planned) == "plan"
    other = chat.client.call_blocking("session.create", {})["session"]["id"]
    spin_until(qloop, lambda: chat.model.find(other) is not None)
    chat.sidebar.select(other)
    spin_until(qloop, lambda: chat.current_session_id == other and picker.currentData() == "agent")
    picker.activated.emit(picker.findData("goal"))
    spin_until(qloop, lambda: mode(other) == "goal")
    assert "outcome" in picker.toolTip()
    chat.sidebar.select(planned)
    spin_until(qloop, lambda: chat.current_session_id == planned and picker.currentData() == "plan")


def test_what_is_typed_while_a_new_chat_is_being_created_stays_in_the_composer(chat, qtbot, qloop):
    assert chat.current_session_id is None
    qtbot.keyClicks(chat.composer.edit, "first")
    qtbot.keyClick(chat.composer.edit, Qt.Key.Key_Return)
    assert chat.current_session_id is None  # the chat is still being created
    qtbot.keyClicks(chat.composer.edit, "second thought")
    spin_until(
        qloop,
        lambda: (
            chat.current_session_id is not None
            and rows(chat) == ["user", "assistant"]
            and not chat.runner.is_running(chat.current_session_id)
        ),
    )
    assert chat.composer.edit.toPlainText() == "second thought"
    assert None not in chat.chats.drafts  # not left behind in the new-chat draft as well
