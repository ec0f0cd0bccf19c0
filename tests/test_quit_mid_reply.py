"""Ctrl+Q or closing the window while a reply is being written asks first; nothing is left half-written.

Each scenario runs as one coroutine on the running loop, as everything does in the app: a reply's task
stepped by Qt events handled while no loop runs would die with "no running event loop".
"""

import pytest
from PySide6.QtCore import Qt

from pidesktop.ui.kit.tasks import spawn
from tests.support.waits import wait_until


@pytest.fixture
def chat(chat, keep_running):
    chat.runner.offline_delay = 0.05  # a reply long enough to quit in the middle of
    return chat


async def writing(win) -> str:
    """Start a long offline reply and wait until some of it is on screen; the chat's id."""
    spawn(win.chats.send_prompt("Tell me a long story please"), name="send")

    def some_text() -> bool:
        rows = win.transcript_model.rows
        return bool(rows) and rows[-1]["live"] and any(b.get("type") == "text" for b in rows[-1]["message"]["blocks"])

    await wait_until(some_text)
    return win.current_session_id


def last_reply(win, sid):
    return win.client.call_blocking("session.get", {"sessionId": sid})["messages"][-1]


def click(qtbot, box, label):
    qtbot.mouseClick(next(b for b in box.buttons() if b.text() == label), Qt.MouseButton.LeftButton)


def test_ctrl_q_mid_reply_asks_and_stop_and_quit_keeps_the_reply_stopped(chat, qtbot, qloop):
    async def scenario():
        sid = await writing(chat)
        chat.quit_action.trigger()
        box = await wait_until(lambda: chat.quit_question.box)
        assert chat.isVisible() and "still being written" in box.text()
        click(qtbot, box, "Stop and quit")
        await wait_until(lambda: not chat.isVisible())
        assert not chat.runner.running_sessions()  # closed only once the reply was stored
        reply = last_reply(chat, sid)
        assert reply["role"] == "assistant" and reply["meta"]["status"] == "aborted"

    qloop.run_until_complete(scenario())


def test_wait_then_quit_closes_once_the_reply_is_finished(chat, qtbot, qloop):
    async def scenario():
        sid = await writing(chat)
        chat.close()
        box = await wait_until(lambda: chat.quit_question.box)
        click(qtbot, box, "Wait, then quit")
        assert chat.isVisible()  # still writing
        await wait_until(lambda: not chat.isVisible(), timeout=60)
        assert last_reply(chat, sid)["meta"]["status"] == "completed"

    qloop.run_until_complete(scenario())


def test_cancel_keeps_the_window_and_the_reply_going(chat, qtbot, qloop):
    async def scenario():
        await writing(chat)
        chat.close()
        box = await wait_until(lambda: chat.quit_question.box)
        click(qtbot, box, "Cancel")
        await wait_until(lambda: chat.quit_question.box is None)
        await wait_until(lambda: not chat.runner.running_sessions(), timeout=60)
        assert chat.isVisible()  # the reply went on to its end and the window stayed

    qloop.run_until_complete(scenario())


def test_the_system_asking_to_quit_mid_reply_stops_it_keeps_it_and_asks_nothing(chat, qtbot, qloop):
    async def scenario():
        sid = await writing(chat)
        chat.close()  # the question is up when the system asks too (a logout while it waits for an answer)
        await wait_until(lambda: chat.quit_question.box)
        chat.quit_unattended()
        await wait_until(lambda: not chat.isVisible())
        assert chat.quit_question.box is None and not chat.runner.running_sessions()
        reply = last_reply(chat, sid)
        assert reply["role"] == "assistant" and reply["meta"]["status"] == "aborted"

    qloop.run_until_complete(scenario())
