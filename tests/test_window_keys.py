"""Keys a person uses from anywhere in the window: F2 and Delete on the chat picked, focus after Regenerate."""

import asyncio

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QLineEdit

from tests.support.waits import spin_until


def stored(win, sid=None):
    return win.client.call_blocking("session.get", {"sessionId": sid or win.current_session_id})["messages"]


@pytest.fixture
def two_chats(chat, qtbot, qloop):
    """Two answered chats; the window shows the second, and is the active window."""
    for prompt in ("first chat", "second chat"):
        chat.chats.new_chat()
        qloop.run_until_complete(chat.chats.send_prompt(prompt))
        spin_until(qloop, lambda: not chat.runner.is_running(chat.current_session_id))
    chat.activateWindow()
    qtbot.waitUntil(chat.isActiveWindow)
    return chat


def click_chat(win, qtbot, qloop, title):
    sid = next(s["id"] for s in win.model.shown_sessions() if s.get("title") == title)
    rect = win.sidebar.tree.visualRect(win.model.index_of(sid))
    qtbot.mouseClick(win.sidebar.tree.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    spin_until(qloop, lambda: win.current_session_id == sid)
    return sid


def test_f2_after_clicking_a_chat_renames_it(two_chats, qtbot, qloop):
    win = two_chats
    click_chat(win, qtbot, qloop, "first chat")
    assert QApplication.focusWidget() is win.composer.edit  # the click hands the keyboard to the composer
    qtbot.keyClick(win.composer.edit, Qt.Key.Key_F2)
    editor = spin_until(qloop, lambda: win.sidebar.tree.viewport().findChild(QLineEdit))
    assert editor.text() == "first chat"


def test_delete_after_clicking_a_chat_asks_to_delete_it(two_chats, qtbot, qloop):
    win = two_chats
    click_chat(win, qtbot, qloop, "first chat")
    qtbot.keyClick(win.composer.edit, Qt.Key.Key_Delete)
    box = spin_until(qloop, lambda: win.chats.confirm_box)
    assert "first chat" in box.text()
    box.reject()


def test_delete_in_a_composer_with_text_deletes_text_not_the_chat(two_chats, qtbot, qloop):
    win = two_chats
    click_chat(win, qtbot, qloop, "first chat")
    qtbot.keyClicks(win.composer.edit, "abc")
    qtbot.keyClick(win.composer.edit, Qt.Key.Key_Home)
    qtbot.keyClick(win.composer.edit, Qt.Key.Key_Delete)
    assert win.composer.edit.toPlainText() == "bc"
    assert win.chats.confirm_box is None


def click_action(win, qtbot, row, name):
    index = win.transcript_model.index(row)
    action = next(a for a in win.transcript.delegate.rendered(index).actions if a.name == name)
    top_left = win.transcript.visualRect(index).topLeft()
    point = top_left + action.rect.center().toPoint()
    qtbot.mouseMove(win.transcript.viewport(), point)
    qtbot.mouseClick(win.transcript.viewport(), Qt.MouseButton.LeftButton, pos=point)


def test_after_regenerate_what_is_typed_goes_to_the_composer(two_chats, qtbot, qloop):
    win = two_chats
    sid = win.current_session_id
    spin_until(qloop, lambda: win.transcript_model.rowCount() == 2)
    reply = stored(win)[1]

    async def click():  # the click starts a task: the loop runs
        click_action(win, qtbot, 1, "regenerate")

    qloop.run_until_complete(click())
    spin_until(qloop, lambda: [m["id"] for m in stored(win, sid)][1:] not in ([], [reply["id"]]))
    spin_until(qloop, lambda: not win.runner.is_running(sid))
    spin_until(qloop, lambda: win.transcript_model.rowCount() == 2)
    focused = QApplication.focusWidget()
    assert focused is win.composer.edit, focused
    qtbot.keyClicks(focused, "next question")
    assert win.composer.edit.toPlainText() == "next question"


def test_an_edit_left_behind_is_still_there_when_coming_back(two_chats, qtbot, qloop):
    win = two_chats
    second = win.current_session_id
    prompt = stored(win)[0]
    qloop.run_until_complete(win.chats.run_message_action("edit", prompt["id"]))
    win.composer.edit.setPlainText("second chat, edited")
    first = click_chat(win, qtbot, qloop, "first chat")
    assert not win.composer.editing and win.composer.edit.toPlainText() == ""
    qtbot.keyClicks(win.composer.edit, "a draft for the first chat")
    click_chat(win, qtbot, qloop, "second chat")
    assert win.composer.editing and win.composer.edit.toPlainText() == "second chat, edited"
    qtbot.keyClick(win.composer.edit, Qt.Key.Key_Return)

    def prompts():
        return [m["blocks"][0]["text"] for m in stored(win, second) if m["role"] == "user"]

    spin_until(qloop, lambda: prompts() == ["second chat, edited"])  # replaced, not appended
    spin_until(qloop, lambda: len(stored(win, second)) == 2 and not win.runner.is_running(second))
    click_chat(win, qtbot, qloop, "first chat")
    assert win.composer.edit.toPlainText() == "a draft for the first chat" and not win.composer.editing
    assert len(stored(win, first)) == 2


def test_esc_after_coming_back_ends_the_edit_and_gives_back_the_draft(two_chats, qtbot, qloop):
    win = two_chats
    qtbot.keyClicks(win.composer.edit, "half a thought")
    qloop.run_until_complete(win.chats.run_message_action("edit", stored(win)[0]["id"]))
    click_chat(win, qtbot, qloop, "first chat")
    click_chat(win, qtbot, qloop, "second chat")
    assert win.composer.editing
    qtbot.keyClick(win.composer.edit, Qt.Key.Key_Escape)
    assert not win.composer.editing and win.composer.edit.toPlainText() == "half a thought"


def test_a_prompt_sent_right_after_regenerate_waits_for_the_new_reply(two_chats, qloop):
    win = two_chats
    sid = win.current_session_id
    reply = stored(win)[1]

    async def regenerate_then_type():
        regenerating = asyncio.ensure_future(win.runner.regenerate(sid, reply["id"]))
        await asyncio.sleep(0)  # the click's task has started; the person types before it reaches the host
        assert win.runner.is_running(sid)
        assert "queued" in await win.runner.send(sid, "typed at once")
        await regenerating

    qloop.run_until_complete(regenerate_then_type())
    spin_until(qloop, lambda: len(stored(win, sid)) == 4 and not win.runner.is_running(sid))
    messages = stored(win, sid)
    assert [m["role"] for m in messages] == ["user", "assistant", "user", "assistant"]
    assert messages[1]["id"] != reply["id"] and messages[2]["blocks"][0]["text"] == "typed at once"


def test_a_chat_opened_from_the_inbox_takes_the_keys_typed_next(chat, qtbot, qloop):
    call = chat.client.call_blocking
    sid = call("session.create", {"title": "Deploy the site"})["session"]["id"]
    call("session.startTurn", {"sessionId": sid, "turnId": "t1"})
    call("session.endTurn", {"sessionId": sid, "turnId": "t1", "status": "completed", "createNotification": True})
    chat.activateWindow()
    qtbot.waitUntil(chat.isActiveWindow)
    chat.dialogs.toggle_inbox()
    spin_until(qloop, lambda: chat.inbox.model.rowCount() == 1)
    assert QApplication.focusWidget() is chat.inbox.list
    rect = chat.inbox.list.visualRect(chat.inbox.model.index(0))
    qtbot.mouseClick(chat.inbox.list.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    spin_until(qloop, lambda: chat.current_session_id == sid and not chat.inbox.isVisible())
    assert QApplication.focusWidget() is chat.composer.edit
    qtbot.keyClicks(QApplication.focusWidget(), "next step")
    assert chat.composer.edit.toPlainText() == "next step" and chat.search_dialog is None
