"""A new chat's page (Ctrl+N, nothing sent yet) shows nothing of the chat that was on screen before it: not
its Files changed button, not the Stop of its running reply. A real window, a real host, and a loopback
server scripted to write a file and then answer slowly."""

from PySide6.QtCore import Qt

from tests.support.sse_server import Script
from tests.support.waits import spin_until
from tests.test_plan_approval import text_body, tool_call_body


def test_ctrl_n_while_a_chat_writes_shows_a_clean_page(scripted_window, qtbot, qloop, sse_server, tmp_path):
    window = scripted_window
    project = tmp_path / "garden"
    project.mkdir()
    sid = window.client.call_blocking("session.create", {"projectPath": str(project)})["session"]["id"]
    window.client.call_blocking("session.update", {"sessionId": sid, "permissionMode": "auto"})
    spin_until(qloop, lambda: window.model.session(sid) is not None)
    window.sidebar.select(sid)
    spin_until(qloop, lambda: window.current_session_id == sid)
    slow_answer = Script(chunks=[text_body("Planted.")], wait_before_headers=1.5)
    sse_server.serve_in_turn(
        "/v1/chat/completions",
        Script(chunks=[tool_call_body("write", {"path": "beds.txt", "content": "tomatoes\n"})]),
        slow_answer,
    )
    qtbot.keyClicks(window.composer.edit, "Write down the beds")
    qtbot.keyClick(window.composer.edit, Qt.Key.Key_Return)
    files_button = window.file_changes.button
    spin_until(qloop, lambda: files_button.isVisible())  # the write is done; the answer is still coming
    assert window.runner.is_running(sid) and window.composer.running

    window.new_chat_action.trigger()
    spin_until(qloop, lambda: window.current_session_id is None)
    assert not files_button.isVisible()
    assert not window.composer.running and window.composer.send_button.text() == "Send"
    assert window.runner.is_running(sid)  # the other chat's reply goes on

    spin_until(qloop, lambda: not window.runner.is_running(sid))
    assert not window.composer.running
    window.sidebar.select(sid)  # back in the chat: its button again
    spin_until(qloop, lambda: files_button.isVisible())
