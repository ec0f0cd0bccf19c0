"""A prompt the context budget says cannot fit is never sent: it stays in the composer, with a question."""

import pytest
from PySide6.QtCore import Qt

from pidesktop.agent import context as budget
from pidesktop.agent.runner import TurnRunner
from tests.support.waits import spin_until
from tests.support.windows import started_window


@pytest.fixture
def small(qtbot, qloop, host_client):
    """A window whose model has a 2,000-token window (1,500 for a request)."""
    win = started_window(
        qtbot, qloop, host_client, runner=TurnRunner(host_client, offline_delay=0.0, context_window=2000)
    )
    yield win
    win.close()


def sessions(win):
    return win.client.call_blocking("session.list", {})["sessions"]


def test_a_paste_larger_than_the_window_is_not_sent_and_stays(small, qtbot, qloop):
    paste = "word " * 2000  # about 2,500 tokens
    small.composer.edit.setPlainText(paste)
    qtbot.keyClick(small.composer.edit, Qt.Key.Key_Return)
    box = spin_until(qloop, lambda: small.chats.too_long_box)
    assert "too long" in box.text() and "1.5k" in box.informativeText()
    assert [b.text() for b in box.buttons()] == ["Keep editing"]  # nothing to summarise, nothing attached
    assert small.composer.edit.toPlainText() == paste
    assert sessions(small) == []  # not even a chat was made
    box.reject()


def test_a_long_prompt_after_a_conversation_can_be_sent_after_summarising(small, qtbot, qloop):
    qloop.run_until_complete(small.chats.send_prompt("first " * 200))
    sid = small.current_session_id
    spin_until(qloop, lambda: not small.runner.is_running(sid))
    before = small.client.call_blocking("session.get", {"sessionId": sid})["messages"]
    long_prompt = "second " * 1000  # about 1,750 tokens with the conversation: over 1,500 together
    small.composer.edit.setPlainText(long_prompt[: 4 * 1100])
    qtbot.keyClick(small.composer.edit, Qt.Key.Key_Return)
    box = spin_until(qloop, lambda: small.chats.too_long_box)
    assert small.client.call_blocking("session.get", {"sessionId": sid})["messages"] == before
    summarise = next(b for b in box.buttons() if b.text() == "Summarise earlier messages and send")
    qtbot.mouseClick(summarise, Qt.MouseButton.LeftButton)
    spin_until(qloop, lambda: small.client.call_blocking("session.get", {"sessionId": sid})["compactions"])
    spin_until(qloop, lambda: len(small.client.call_blocking("session.get", {"sessionId": sid})["messages"]) == 4)
    assert small.composer.edit.toPlainText() == ""


def test_trimming_takes_the_largest_attachments_out_first():
    text = {"type": "text", "text": "look at these"}
    big = {"type": "attachment", "name": "big.txt", "mimeType": "text/plain", "size": 40_000}
    mid = {"type": "attachment", "name": "mid.txt", "mimeType": "text/plain", "size": 4_000}
    small = {"type": "attachment", "name": "small.txt", "mimeType": "text/plain", "size": 400}
    kept, removed = budget.trimmed([text, mid, big, small], 1_200)
    assert removed == [big] and kept == [text, mid, small]
    kept, removed = budget.trimmed([text, mid, big, small], 50)
    assert kept == [text] and removed == [big, mid, small]
