"""What a new user met in the first hour, in the main window: edit mode, drafts, Esc, focus, unread, errors."""

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

from tests.support.waits import spin_until
from tests.support.windows import stored_messages


def run(qloop, coro_or_predicate):
    """Wait for a condition, or run a coroutine to its end."""
    if callable(coro_or_predicate):
        return spin_until(qloop, coro_or_predicate)
    return qloop.run_until_complete(coro_or_predicate)


def texts(messages):
    return [b.get("text") for m in messages for b in m["blocks"] if b.get("type") == "text"]


@pytest.fixture
def two_chats(chat, qloop):
    """Chat A with one offline exchange, chat B with another; A is open."""
    run(qloop, chat.chats.send_prompt("question in B"))
    b = chat.current_session_id
    chat.chats.new_chat()
    run(qloop, lambda: chat.current_session_id is None)
    run(qloop, chat.chats.send_prompt("question in A"))
    a = chat.current_session_id
    run(qloop, lambda: not chat.runner.is_running(a) and chat.transcript_model.rowCount() == 2)
    return chat, a, b


def open_chat(win, qloop, session_id):
    win.sidebar.select(session_id)
    run(
        qloop,
        lambda: (
            win.current_session_id == session_id
            and win.transcript_model.session_id == session_id
            and not win.transcript_model.loading
        ),
    )


def test_switching_chats_ends_edit_mode_and_keeps_the_typed_text_with_its_chat(two_chats, qtbot, qloop):
    win, a, b = two_chats
    prompt = stored_messages(win)[0]
    run(qloop, win.chats.run_message_action("edit", prompt["id"]))
    assert win.composer.edit_bar.isVisible()
    win.composer.edit.setPlainText("question in A, reworded")

    open_chat(win, qloop, b)
    assert not win.composer.edit_bar.isVisible() and win.chats.editing is None
    assert win.composer.edit.toPlainText() == ""  # B has its own (empty) draft
    win.composer.edit.setPlainText("a follow-up for B")
    qtbot.keyClick(win.composer.edit, Qt.Key.Key_Return)
    run(qloop, lambda: len(stored_messages(win, b)) == 4 and not win.runner.is_running(b))
    assert texts(stored_messages(win, b))[2] == "a follow-up for B"  # sent normally, to B
    assert win.notices.host_error is None
    assert texts(stored_messages(win, a))[0] == "question in A"  # A untouched

    open_chat(win, qloop, a)
    assert win.composer.edit.toPlainText() == "question in A, reworded"  # nothing typed was lost


def test_esc_and_cancel_end_an_edit_and_give_back_the_earlier_draft(two_chats, qtbot, qloop):
    win, a, _b = two_chats
    win.composer.edit.setPlainText("half-written thought")
    prompt = stored_messages(win)[0]
    run(qloop, win.chats.run_message_action("edit", prompt["id"]))
    assert win.composer.edit.toPlainText() == "question in A"
    qtbot.keyClick(win.composer.edit, Qt.Key.Key_Escape)
    assert win.chats.editing is None and not win.composer.edit_bar.isVisible()
    assert win.composer.edit.toPlainText() == "half-written thought"

    run(qloop, win.chats.run_message_action("edit", prompt["id"]))
    qtbot.mouseClick(win.composer.edit_cancel, Qt.MouseButton.LeftButton)
    assert win.chats.editing is None and win.composer.edit.toPlainText() == "half-written thought"
    assert len(stored_messages(win, a)) == 2


def test_esc_closes_the_inbox_before_anything_else(chat, qtbot, qloop):
    chat.dialogs.toggle_inbox()
    run(qloop, lambda: chat.inbox.isVisible())
    chat.stop_action.trigger()  # Esc anywhere in the window
    run(qloop, lambda: not chat.inbox.isVisible())


def test_the_revision_pager_shows_right_after_edit_and_resend(two_chats, qtbot, qloop):
    win, a, _b = two_chats
    prompt = stored_messages(win)[0]
    run(qloop, win.chats.run_message_action("edit", prompt["id"]))
    win.composer.edit.setPlainText("question in A, better")
    qtbot.keyClick(win.composer.edit, Qt.Key.Key_Return)
    run(qloop, lambda: not win.runner.is_running(a) and texts(stored_messages(win))[:1] == ["question in A, better"])

    def pager():
        rendered = win.transcript.delegate.rendered(win.transcript_model.index(0))
        return [x.label for x in rendered.actions if x.always]

    run(qloop, lambda: win.transcript_model.rowCount() == 2 and pager() == ["‹", "2 / 2", "›"])


def test_a_prompt_that_cannot_be_sent_stays_in_the_composer_with_the_reason(two_chats, qtbot, qloop):
    win, a, _b = two_chats
    prompt = stored_messages(win)[0]
    run(qloop, win.chats.run_message_action("edit", prompt["id"]))
    win.client.call_blocking("session.truncateFrom", {"sessionId": a, "messageId": prompt["id"]})  # elsewhere
    win.composer.edit.setPlainText("this must not vanish")
    qtbot.keyClick(win.composer.edit, Qt.Key.Key_Return)
    run(qloop, lambda: win.notices.host_error is not None)
    assert win.notices.host_error.code == "NOT_FOUND"
    assert win.composer.edit.toPlainText() == "this must not vanish"
    assert "Not sent" in win.composer.status_label.text()
    assert "NOT_FOUND" not in win.composer.status_label.text() + win.notice.label.text()
    assert stored_messages(win, a) == []  # and nothing was stored in its place


def test_editing_keeps_the_pickers_whole(two_chats, qloop):
    win, _a, _b = two_chats
    run(qloop, win.chats.run_message_action("edit", stored_messages(win)[0]["id"]))
    QApplication.processEvents()
    for picker in (win.composer.mode_picker, win.composer.model_picker, win.composer.thinking):
        assert picker.width() >= picker.sizeHint().width(), picker.currentText()


def test_the_cursor_is_in_the_composer_after_ctrl_n_and_after_sending(chat, qtbot, qloop):
    chat.activateWindow()
    qtbot.waitActive(chat)
    chat.sidebar.new_chat_button.setFocus()
    qtbot.keyClick(chat, Qt.Key.Key_N, Qt.KeyboardModifier.ControlModifier)
    run(qloop, lambda: chat.composer.edit.hasFocus())
    qtbot.keyClicks(chat.composer.edit, "typed after Ctrl+N")
    qtbot.keyClick(chat.composer.edit, Qt.Key.Key_Return)
    run(
        qloop,
        lambda: (
            chat.current_session_id
            and not chat.runner.is_running(chat.current_session_id)
            and len(stored_messages(chat)) == 2
        ),
    )
    assert texts(stored_messages(chat))[0] == "typed after Ctrl+N"
    chat.sidebar.tree.setFocus()
    chat.sidebar.tree.clicked.emit(chat.model.index_of(chat.current_session_id))  # a click on the row
    assert chat.composer.edit.hasFocus()


def test_reading_a_chat_marks_its_notifications_read(chat, qtbot, qloop):
    call = chat.client.call_blocking
    sid = call("session.create", {"title": "Finished elsewhere"})["session"]["id"]
    other = call("session.create", {"title": "Also finished"})["session"]["id"]
    for n, session_id in enumerate((sid, other)):
        call("session.startTurn", {"sessionId": session_id, "turnId": f"t{n}"})
        call(
            "session.endTurn",
            {"sessionId": session_id, "turnId": f"t{n}", "status": "completed", "createNotification": True},
        )
    run(qloop, lambda: chat.inbox.model.unread_count == 2 and sid in chat.sidebar.delegate.unread)
    chat.activateWindow()
    qtbot.waitActive(chat)
    open_chat(chat, qloop, sid)
    run(qloop, lambda: sid not in chat.sidebar.delegate.unread and chat.inbox.model.unread_count == 1)
    unread = [n["sessionId"] for n in call("notifications.list", {"unreadOnly": True})["notifications"]]
    assert unread == [other]  # only the chat that was read


def test_a_rename_is_applied_once(chat, qloop, monkeypatch):
    run(qloop, chat.chats.send_prompt("hello"))
    sid = chat.current_session_id
    applied = []
    upsert = chat.model.upsert
    monkeypatch.setattr(chat.model, "upsert", lambda session: (applied.append(session["title"]), upsert(session)))
    chat.chats.rename(sid, "Renamed once")
    run(qloop, lambda: chat.header_title.text() == "Renamed once")
    run(qloop, lambda: not chat.runner.is_running(sid))
    assert applied.count("Renamed once") == 1


def test_a_model_list_loaded_after_the_window_shows_is_not_clipped(chat, qloop):
    """QComboBox measures its hint once, from the choices it had when first shown; the chip must not."""
    composer = chat.composer
    label = "My endpoint · accounts/example/models/a-rather-long-model-name"
    composer.set_models([("p1", "accounts/example/models/a-rather-long-model-name", label)], "Offline demo")
    composer.show_model("p1", "accounts/example/models/a-rather-long-model-name")
    QApplication.processEvents()
    picker = composer.model_picker
    assert picker.currentText() == label
    assert picker.width() >= picker.fontMetrics().horizontalAdvance(label)


def test_the_model_chip_shows_only_once_it_names_a_model(qtbot, qloop, host_client):
    from pidesktop.ui.kit import theme as themes
    from pidesktop.ui.window.main_window import MainWindow

    win = MainWindow(host_client, themes.LIGHT)
    qtbot.addWidget(win)
    win.show()
    assert not win.model_chip.isVisible()  # the host has not answered yet: no blank pill
    run(qloop, win.start())
    assert win.model_chip.isVisible() and win.model_chip.text() == "Offline demo (no AI)"
    win.close()


def test_the_empty_page_shows_the_choices_the_next_chat_gets_not_the_last_chat_s(chat, qtbot, qloop):
    run(qloop, chat.chats.send_prompt("a first chat"))
    first = chat.current_session_id
    run(qloop, lambda: not chat.runner.is_running(first))
    chat.composer.permission_picker.activated.emit(chat.composer.permission_picker.findData("accept-edits"))
    chat.composer.mode_picker.activated.emit(chat.composer.mode_picker.findData("plan"))
    run(qloop, lambda: (s := chat.model.session(first)) and s.get("mode") == "plan")
    chat.chats.new_chat()
    composer = chat.composer
    assert composer.mode_picker.currentData() == "agent"  # what a chat made now gets
    assert composer.permission_picker.currentData() == "inherit"
    composer.mode_picker.activated.emit(composer.mode_picker.findData("goal"))  # picked here: kept for the send
    chat.sidebar.select(first)
    run(qloop, lambda: chat.current_session_id == first)
    assert composer.mode_picker.currentData() == "plan"
    chat.chats.new_chat()
    assert composer.mode_picker.currentData() == "goal"
    run(qloop, chat.chats.send_prompt("a second chat"))
    second = chat.current_session_id
    assert second != first and chat.model.session(second)["mode"] == "goal"
