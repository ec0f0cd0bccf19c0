"""The window's side of the agent tools' "Done when": Stop (the composer's button) kills a running
command and everything it started, and a path outside the project waits on a card that says so, whose
Deny is told to the model and audited. A real window, a real host, the real runner (bash in bubblewrap
when it works here) and a loopback OpenAI-compatible server scripted to call the tools."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from PySide6.QtCore import Qt

from pidesktop.agent.runner import ProviderChoice, TurnRunner
from tests.support.sse_server import Script
from tests.support.waits import spin_until
from tests.support.windows import started_window
from tests.test_plan_approval import text_body, tool_call_body
from tests.test_tool_rows_runner_ui import shown

SLEEP = "sleep 987.25"  # a command line no other process has: found in /proc while it runs


@pytest.fixture
def project(tmp_path):
    folder = tmp_path / "proj"
    folder.mkdir()
    (folder / "README.md").write_text("# Demo\n")
    return folder


@pytest.fixture
def window(qtbot, qloop, host_client, sse_server):
    # confirm_unconfined=False: where bubblewrap cannot run, auto would first ask to run unconfined
    runner = TurnRunner(
        host_client, override=ProviderChoice(base_url=sse_server.base_url, model="m"), confirm_unconfined=False
    )
    win = started_window(qtbot, qloop, host_client, runner=runner)
    yield win
    win.close()


def open_project_chat(win, qloop, project, permission_mode):
    sid = win.client.call_blocking("session.create", {"projectPath": str(project)})["session"]["id"]
    win.client.call_blocking("session.update", {"sessionId": sid, "permissionMode": permission_mode})
    spin_until(qloop, lambda: win.model.session(sid) is not None)
    win.sidebar.select(sid)
    spin_until(qloop, lambda: win.current_session_id == sid and win.permission_card.session_id == sid)
    return sid


def ask(win, qtbot, text):
    qtbot.keyClicks(win.composer.edit, text)
    qtbot.keyClick(win.composer.edit, Qt.Key.Key_Return)


def sleeping() -> list[int]:
    """The processes running ``SLEEP`` (sandboxed ones too: /proc shows every pid namespace's processes)."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            argv = Path("/proc", entry, "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if b" ".join(part for part in argv if part) == SLEEP.encode():
            found.append(int(entry))
    return found


def stored_calls(win, sid):
    messages = win.client.call_blocking("session.get", {"sessionId": sid})["messages"]
    return [b for m in messages for b in m["blocks"] if b["type"] == "tool_call"]


def test_stop_kills_a_running_command_and_what_it_started(window, qtbot, qloop, sse_server, project, shots):
    assert sleeping() == []
    sid = open_project_chat(window, qloop, project, "auto")
    command = f"echo started; ({SLEEP}; touch child-ran) & {SLEEP}; touch ran"
    sse_server.serve_in_turn(
        "/v1/chat/completions",
        Script(chunks=[tool_call_body("bash", {"command": command}, "call_0")]),
        Script(chunks=[text_body("Not reached.")]),
    )
    ask(window, qtbot, "Wait a while")
    spin_until(qloop, lambda: len(sleeping()) == 2 and "started" in shown(window, "call_0"), timeout=30)
    assert window.composer.send_button.text() == "Stop"
    window.grab().save(str(shots / "tools-running-command.png"))
    qtbot.mouseClick(window.composer.send_button, Qt.MouseButton.LeftButton)
    spin_until(qloop, lambda: not window.runner.is_running(sid), timeout=30)
    spin_until(qloop, lambda: sleeping() == [], timeout=10)  # both sleeps: the whole group is gone
    assert not (project / "ran").exists() and not (project / "child-ran").exists()
    [call] = stored_calls(window, sid)
    assert "The person stopped the command" in call["result"] and call["status"] != "ok"
    assert len(sse_server.requests) == 1  # the model is not asked again after a Stop
    row = spin_until(qloop, lambda: "stopped the command" in shown(window, "call_0") and shown(window, "call_0"))
    assert "✓" not in row
    window.grab().save(str(shots / "tools-stopped-command.png"))


def test_a_path_outside_the_project_waits_on_a_card_and_its_deny_is_audited(
    window, qtbot, qloop, sse_server, project, tmp_path, shots
):
    secret = tmp_path / "secret.txt"
    secret.write_text("top secret\n")
    sid = open_project_chat(window, qloop, project, "auto")  # even allowing everything, an escape asks
    sse_server.serve_in_turn(
        "/v1/chat/completions",
        Script(chunks=[tool_call_body("read", {"path": "../secret.txt"}, "call_0")]),
        Script(chunks=[text_body("I will stay in the project.")]),
    )
    ask(window, qtbot, "Read the secret next door")
    card = window.permission_card
    spin_until(qloop, lambda: card.isVisible(), timeout=30)
    assert card.title.text() == f"Allow this? Read {secret.resolve()}"
    assert "outside the project folder" in card.explanation.text() and card.explanation.property("warning")
    assert not card.allow_chat_button.isVisible()  # an escape is allowed one call at a time, never for the chat
    window.grab().save(str(shots / "permission-card-outside.png"))
    qtbot.keyClicks(card.reason, "Stay in the project")
    qtbot.mouseClick(card.deny_button, Qt.MouseButton.LeftButton)
    spin_until(qloop, lambda: not window.runner.is_running(sid), timeout=30)
    tool_message = [m for m in sse_server.requests[-1].json["messages"] if m["role"] == "tool"][-1]
    assert "Stay in the project" in tool_message["content"] and "top secret" not in tool_message["content"]
    [call] = stored_calls(window, sid)
    assert call["status"] == "denied"
    [entry] = window.client.call_blocking("audit.list", {"sessionId": sid})["entries"]
    assert entry["kind"] == "tool_denied" and entry["payload"]["tool"] == "read"
    assert entry["payload"]["outsideWorkspace"] is True and entry["payload"]["reason"] == "Stay in the project"
