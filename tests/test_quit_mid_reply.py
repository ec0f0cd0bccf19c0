"""Ctrl+Q or closing the window while a reply is being written asks first; nothing is left half-written."""

import pytest
from PySide6.QtCore import Qt

from .conftest import spin_until


@pytest.fixture
def writing(chat, qloop, keep_running):
    """The window with a long offline reply being written."""
    chat.runner.offline_delay = 0.05
    from pidesktop.ui.tasks import spawn

    spawn(chat.chats.send_prompt("Tell me a long story please"), name="send")
    spin_until(
        qloop,
        lambda: (
            chat.transcript_model.rows
            and chat.transcript_model.rows[-1]["live"]
            and any(b.get("type") == "text" for b in chat.transcript_model.rows[-1]["message"]["blocks"])
        ),
    )
    return chat


def last_reply(win, sid):
    return win.client.call_blocking("session.get", {"sessionId": sid})["messages"][-1]


def click(qtbot, box, label):
    qtbot.mouseClick(next(b for b in box.buttons() if b.text() == label), Qt.MouseButton.LeftButton)


def test_ctrl_q_mid_reply_asks_and_stop_and_quit_keeps_the_reply_stopped(writing, qtbot, qloop):
    sid = writing.current_session_id
    writing.quit_action.trigger()
    box = spin_until(qloop, lambda: writing.quit_question.box)
    assert writing.isVisible() and "still being written" in box.text()
    click(qtbot, box, "Stop and quit")
    spin_until(qloop, lambda: not writing.isVisible())
    assert not writing.runner.running_sessions()  # closed only once the reply was stored
    spin_until(qloop, lambda: last_reply(writing, sid)["role"] == "assistant")
    assert last_reply(writing, sid)["meta"]["status"] == "aborted"


def test_wait_then_quit_closes_once_the_reply_is_finished(writing, qtbot, qloop):
    sid = writing.current_session_id
    writing.close()
    box = spin_until(qloop, lambda: writing.quit_question.box)
    click(qtbot, box, "Wait, then quit")
    assert writing.isVisible()  # still writing
    spin_until(qloop, lambda: not writing.isVisible(), timeout=60)
    assert last_reply(writing, sid)["meta"]["status"] == "completed"


def test_cancel_keeps_the_window_and_the_reply_going(writing, qtbot, qloop):
    writing.close()
    box = spin_until(qloop, lambda: writing.quit_question.box)
    click(qtbot, box, "Cancel")
    spin_until(qloop, lambda: writing.quit_question.box is None)
    spin_until(qloop, lambda: not writing.runner.running_sessions(), timeout=60)
    assert writing.isVisible()  # the reply went on to its end and the window stayed
