"""Edit and resend keeps its pager from the moment the edited prompt is stored, whatever its reply does."""

from PySide6.QtCore import Qt

from tests.support.host_helpers import msg, new_session
from tests.support.waits import spin_until


def stored(win):
    return win.client.call_blocking("session.get", {"sessionId": win.current_session_id})["messages"]


def pager(win, row=0):
    rendered = win.transcript.delegate.rendered(win.transcript_model.index(row))
    return [a.label for a in rendered.actions if a.always]


def test_an_edited_prompt_is_stored_with_its_pager_stamp(host):
    sid = new_session(host)
    host.call("session.appendMessage", {"sessionId": sid, "message": msg("u1", text="A short")})
    host.call("session.appendMessage", {"sessionId": sid, "message": msg("a1", "assistant", "answer")})
    host.call("session.truncateFrom", {"sessionId": sid, "messageId": "u1"})
    edited = msg("u2", text="B long", meta={"revisionRootId": "u1"})
    host.call("session.appendMessage", {"sessionId": sid, "message": edited})
    root = host.call("session.get", {"sessionId": sid})["messages"][0]
    assert root["meta"] == {"revisionRootId": "u1", "revisionCount": 2, "activeRevision": 2}
    # paging back stores the stopped branch as variant 2 and restores variant 1
    host.call("session.activateRevision", {"sessionId": sid, "rootUserId": "u1", "revisionIndex": 1})
    back = host.call("session.get", {"sessionId": sid})["messages"]
    assert [m["id"] for m in back] == ["u1", "a1"] and back[0]["meta"]["activeRevision"] == 1
    host.call("session.activateRevision", {"sessionId": sid, "rootUserId": "u1", "revisionIndex": 2})
    assert [m["id"] for m in host.call("session.get", {"sessionId": sid})["messages"]] == ["u2"]


def test_a_prompt_with_no_stored_family_gets_no_stamp(host):
    sid = new_session(host)
    host.call("session.appendMessage", {"sessionId": sid, "message": msg("u9", meta={"revisionRootId": "ghost"})})
    assert host.call("session.get", {"sessionId": sid})["messages"][0]["meta"] == {"revisionRootId": "ghost"}


def test_edit_resend_then_stop_shows_the_pager_at_once_and_after_the_stop(chat, qtbot, qloop):
    qloop.run_until_complete(chat.chats.send_prompt("A short"))
    prompt = stored(chat)[0]
    chat.runner.offline_delay = 0.05
    qloop.run_until_complete(chat.chats.run_message_action("edit", prompt["id"]))
    chat.composer.edit.setPlainText("B long")
    qtbot.keyClick(chat.composer.edit, Qt.Key.Key_Return)
    sid = chat.current_session_id
    spin_until(qloop, lambda: chat.transcript_model.rows and chat.transcript_model.rows[-1]["live"])
    spin_until(qloop, lambda: chat.transcript_model.rowCount() >= 1 and pager(chat) == ["‹", "2 / 2", "›"])
    assert chat.runner.is_running(sid)  # shown while the reply is still being written
    chat.chats.stop_reply()
    spin_until(qloop, lambda: not chat.runner.is_running(sid))
    spin_until(qloop, lambda: not chat.transcript_model.rows[-1]["live"])
    assert stored(chat)[0]["meta"]["activeRevision"] == 2
    spin_until(qloop, lambda: pager(chat) == ["‹", "2 / 2", "›"])
    # the earlier version comes back from the pager
    qloop.run_until_complete(chat.chats.run_message_action("revision-prev", stored(chat)[0]["id"]))
    assert [m["blocks"][0]["text"] for m in stored(chat) if m["role"] == "user"] == ["A short"]
