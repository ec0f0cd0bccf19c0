"""One Trash for every chat: a chat of the app's own, deleted in the window, comes back from the Trash."""

from __future__ import annotations

from PySide6.QtCore import Qt

from tests.support.waits import spin_until


def send(chat, qloop, text):
    qloop.run_until_complete(chat.chats.send_prompt(text, []))
    spin_until(qloop, lambda: chat.current_session_id and not chat.runner.is_running(chat.current_session_id))
    return chat.current_session_id


def test_a_deleted_chat_of_ones_own_waits_in_the_trash_and_works_again_when_restored(chat, qloop, qtbot, shots):
    sid = send(chat, qloop, "Plans for the garden")
    chat.sidebar.select(sid)
    chat.sidebar.delete_action.trigger()
    box = chat.chats.confirm_box
    assert "Trash" in box.informativeText() and "cannot be undone" not in box.informativeText()
    qtbot.mouseClick(next(b for b in box.buttons() if b.text() == "Delete"), Qt.MouseButton.LeftButton)
    spin_until(qloop, lambda: chat.model.session(sid) is None)

    chat.trash_action.trigger()
    trash = chat.trash_dialog_open
    spin_until(qloop, lambda: trash.list.topLevelItemCount() == 1)
    item = trash.list.topLevelItem(0)
    assert item.text(0) == "Plans for the garden" and item.text(1) == "pidesktop"
    assert trash.empty_button.isEnabled()
    trash.grab().save(str(shots / "trash-own-chat.png"))
    item.setSelected(True)
    trash.restore_button.click()
    spin_until(qloop, lambda: chat.model.session(sid) is not None)
    trash.close()

    chat.sidebar.select(sid)
    spin_until(qloop, lambda: chat.current_session_id == sid)
    again = send(chat, qloop, "And the roses?")  # back from the trash, it is written to as before
    assert again == sid
    messages = chat.client.call_blocking("session.get", {"sessionId": sid})["messages"]
    assert [m["role"] for m in messages] == ["user", "assistant", "user", "assistant"]
