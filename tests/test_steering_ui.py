"""Steer and smart Stop in the window: the composer's Steer (Ctrl+Enter), and Stop giving a prompt back."""

from PySide6.QtCore import Qt

from tests.support.waits import spin_until


def texts(message: dict) -> str:
    return "".join(block.get("text", "") for block in message["blocks"] if block.get("type") == "text")


def live_text(chat) -> bool:
    rows = chat.transcript_model.rows
    return bool(rows) and rows[-1]["live"] and bool(texts(rows[-1]["message"]))


def test_ctrl_enter_steers_the_running_reply(chat, qtbot, qloop, shots):
    chat.runner.offline_delay = 0.03
    assert chat.composer.steer_button.isHidden()  # nothing to steer while idle
    qtbot.keyClicks(chat.composer.edit, "Tell me a long story please")
    qtbot.keyClick(chat.composer.edit, Qt.Key.Key_Return)
    spin_until(qloop, lambda: live_text(chat))
    assert chat.composer.steer_button.isVisible()
    qtbot.keyClicks(chat.composer.edit, "Make it about a lighthouse")
    chat.composer.grab().save(str(shots / "composer-steer.png"))
    qtbot.keyClick(chat.composer.edit, Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier)
    sid = chat.current_session_id
    spin_until(qloop, lambda: not chat.runner.is_running(sid), timeout=60)
    stored = chat.client.call_blocking("session.get", {"sessionId": sid})
    assert [(m["role"], bool((m.get("meta") or {}).get("steering"))) for m in stored["messages"]] == [
        ("user", False),
        ("assistant", False),
        ("user", True),
        ("assistant", False),
    ]
    assert texts(stored["messages"][2]) == "Make it about a lighthouse"
    spin_until(
        qloop,
        lambda: (
            [r["message"]["id"] for r in chat.transcript_model.rows if r["kind"] == "message"]
            == [m["id"] for m in stored["messages"]]
        ),
    )  # the steering prompt is drawn where it was stored, between the two replies
    chat.grab().save(str(shots / "window-steered.png"))
    assert chat.client.call_blocking("session.queueList", {"sessionId": sid})["entries"] == []
    assert chat.composer.edit.toPlainText() == ""
    assert chat.composer.steer_button.isHidden()


def test_stop_before_the_first_word_puts_the_prompt_back_in_the_composer(chat, qtbot, qloop, shots):
    chat.runner.offline_delay = 0.4
    qtbot.keyClicks(chat.composer.edit, "Explain tides")
    qtbot.keyClick(chat.composer.edit, Qt.Key.Key_Return)
    # the turn has started (the button says Stop a little earlier, while the send is checked)
    spin_until(qloop, lambda: chat.current_session_id and chat.runner.is_running(chat.current_session_id))
    sid = chat.current_session_id
    assert chat.composer.send_button.text() == "Stop"
    qtbot.mouseClick(chat.composer.send_button, Qt.MouseButton.LeftButton)
    spin_until(qloop, lambda: not chat.runner.is_running(sid) and chat.composer.edit.toPlainText() == "Explain tides")
    spin_until(qloop, lambda: not chat.transcript_model.rows)  # the unanswered prompt left the transcript too
    stored = chat.client.call_blocking("session.get", {"sessionId": sid})
    assert stored["messages"] == []
    assert "back here" in chat.composer.status_label.text()
    chat.composer.grab().save(str(shots / "composer-taken-back.png"))
