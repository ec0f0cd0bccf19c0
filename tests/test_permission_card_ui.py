"""The permission card in the window: an Agent chat in a project asks before an edit, shows the diff,
and the person's answer decides (a real window, a real host, a loopback server scripted to call edit)."""

import pytest
from PySide6.QtCore import Qt

from tests.support.sse_server import Script
from tests.support.waits import spin_until
from tests.test_plan_approval import text_body, tool_call_body


def ask(win, qtbot, text):
    qtbot.keyClicks(win.composer.edit, text)
    qtbot.keyClick(win.composer.edit, Qt.Key.Key_Return)


@pytest.fixture
def project(tmp_path):
    folder = tmp_path / "greeting"
    folder.mkdir()
    (folder / "hello.py").write_text('def greet():\n    return "Hello"\n')
    return folder


@pytest.fixture
def window(scripted_window):
    return scripted_window


def open_project_chat(win, qloop, project, permission_mode="ask"):
    sid = win.client.call_blocking("session.create", {"projectPath": str(project)})["session"]["id"]
    win.client.call_blocking("session.update", {"sessionId": sid, "permissionMode": permission_mode})
    spin_until(qloop, lambda: win.model.session(sid) is not None)
    win.sidebar.select(sid)
    spin_until(qloop, lambda: win.current_session_id == sid and win.permission_card.session_id == sid)
    return sid


def edit_then_answer(server):
    edit = {"path": "hello.py", "oldText": 'return "Hello"', "newText": 'return "Hello, world"'}
    server.serve_in_turn(
        "/v1/chat/completions",
        Script(chunks=[tool_call_body("edit", edit)]),
        Script(chunks=[text_body("Done.")]),
    )


def card_waiting(window, qtbot, qloop, sse_server, project):
    """An Agent chat in the project asked to make its greeting friendlier: the edit's card waits."""
    sid = open_project_chat(window, qloop, project)
    edit_then_answer(sse_server)
    ask(window, qtbot, "Make the greeting friendlier")
    card = window.permission_card
    spin_until(qloop, lambda: card.isVisible())
    return sid, card


def test_an_edit_waits_on_the_card_with_its_diff(window, qtbot, qloop, sse_server, project, shots):
    sid, card = card_waiting(window, qtbot, qloop, sse_server, project)
    assert card.title.text() == "Allow this change? Edit hello.py"
    assert (
        '-    return "Hello"' in card.detail.toPlainText() and '+    return "Hello, world"' in card.detail.toPlainText()
    )
    assert card.allow_chat_button.isVisible()
    assert project.joinpath("hello.py").read_text() == 'def greet():\n    return "Hello"\n'  # nothing yet
    window.grab().save(str(shots / "permission-card-edit.png"))
    qtbot.mouseClick(card.allow_once_button, Qt.MouseButton.LeftButton)
    spin_until(qloop, lambda: not window.runner.is_running(sid))
    assert not card.isVisible()
    assert project.joinpath("hello.py").read_text() == 'def greet():\n    return "Hello, world"\n'
    [snapshot] = window.client.call_blocking("review.list", {"sessionId": sid})["snapshots"]
    window.client.call_blocking("review.revert", {"sessionId": sid, "snapshotId": snapshot["snapshotId"]})
    assert project.joinpath("hello.py").read_text() == 'def greet():\n    return "Hello"\n'


def test_deny_with_a_reason_tells_the_model(window, qtbot, qloop, sse_server, project):
    sid, card = card_waiting(window, qtbot, qloop, sse_server, project)
    qtbot.keyClicks(card.reason, "Keep it short")
    qtbot.keyClick(card.reason, Qt.Key.Key_Return)
    spin_until(qloop, lambda: not window.runner.is_running(sid))
    assert project.joinpath("hello.py").read_text() == 'def greet():\n    return "Hello"\n'
    tool_message = [m for m in sse_server.requests[-1].json["messages"] if m["role"] == "tool"][-1]
    assert "Keep it short" in tool_message["content"]


def test_esc_denies_the_call_and_the_reply_goes_on(window, qtbot, qloop, sse_server, project):
    sid, card = card_waiting(window, qtbot, qloop, sse_server, project)
    qtbot.keyClick(window.composer.edit, Qt.Key.Key_Escape)  # the prompt keeps the focus while the card waits
    spin_until(qloop, lambda: not window.runner.is_running(sid))
    assert not card.isVisible()
    assert project.joinpath("hello.py").read_text() == 'def greet():\n    return "Hello"\n'
    # Denied, not stopped: the model was told and answered.
    assert len(sse_server.requests) == 2
    [edit] = [
        b
        for m in window.client.call_blocking("session.get", {"sessionId": sid})["messages"]
        for b in m["blocks"]
        if b["type"] == "tool_call"
    ]
    assert edit["status"] == "denied"


def test_enter_in_the_card_allows_once(window, qtbot, qloop, sse_server, project):
    sid, card = card_waiting(window, qtbot, qloop, sse_server, project)
    card.detail.setFocus()
    qtbot.keyClick(card.detail, Qt.Key.Key_Return)
    spin_until(qloop, lambda: not window.runner.is_running(sid))
    assert project.joinpath("hello.py").read_text() == 'def greet():\n    return "Hello, world"\n'


def test_stop_withdraws_the_card(window, qtbot, qloop, sse_server, project):
    sid, card = card_waiting(window, qtbot, qloop, sse_server, project)
    window.runner.stop(sid)
    spin_until(qloop, lambda: not window.runner.is_running(sid))
    assert not card.isVisible() and card.pending_count() == 0
    assert project.joinpath("hello.py").read_text() == 'def greet():\n    return "Hello"\n'


def test_a_request_from_another_chat_waits_until_that_chat_is_shown(qtbot, qloop):
    import asyncio

    from pidesktop.agent.permissions import Decision, PermissionRequest
    from pidesktop.ui.chat.permission_card import PermissionCard
    from pidesktop.ui.kit import theme as themes

    card = PermissionCard(themes.LIGHT)
    qtbot.addWidget(card)
    card.show_session("chat-b")
    changes = []
    card.pendingChanged.connect(lambda: changes.append(card.pending_count()))
    request = PermissionRequest("r1", "chat-a", "t1", "c1", "bash", {"command": "make"}, "Run make", "make", False)
    asked = asyncio.ensure_future(card.ask(request), loop=qloop)
    spin_until(qloop, lambda: card.pending_count("chat-a") == 1)
    assert card.isHidden() and card.current() is None
    card.show_session("chat-a")
    assert card.isVisible() and card.title.text() == "Run this command?" and card.detail.toPlainText() == "make"
    qtbot.mouseClick(card.allow_chat_button, Qt.MouseButton.LeftButton)
    answer = spin_until(qloop, lambda: asked.done() and asked.result())
    assert answer.decision == Decision.ALLOW_FOR_CHAT and card.isHidden() and changes == [1, 0]
