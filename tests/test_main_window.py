"""The main window on the offscreen platform, driven like a person would."""

import os
import subprocess
import sys
import time

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLineEdit

from pidesktop.bus import HostClient, HostError, HostThread
from pidesktop.host.core import opener
from pidesktop.ui import theme as themes
from pidesktop.ui.main_window import MainWindow
from pidesktop.ui.session_model import SessionTreeModel

from .conftest import REPO, InProcessHost, wait_until


@pytest.fixture
def window(qtbot, qloop, location):
    thread = HostThread(opener(location, role="test GUI")).start()
    client = HostClient(thread, qloop)
    win = MainWindow(client, themes.LIGHT)
    qtbot.addWidget(win)
    win.show()
    qloop.run_until_complete(win.start())
    yield win
    win.close()
    client.close()
    thread.stop()
    assert not thread.alive


def run(qloop, predicate):
    return qloop.run_until_complete(wait_until(predicate))


def host_sessions(window):
    return window.client.call_blocking("session.list")["sessions"]


def test_empty_window_invites_a_first_chat(window):
    assert window.pages.currentWidget() is window.empty_page
    assert window.model.rowCount() == 0
    assert window.windowIcon().isNull() is False


def test_create_rename_and_delete_a_session(window, qtbot, qloop):
    qtbot.mouseClick(window.sidebar.new_chat_button, Qt.MouseButton.LeftButton)
    run(qloop, lambda: window.model.session_count() == 1)
    [session] = host_sessions(window)
    assert window.sidebar.current_session_id() == session["id"]
    assert window.pages.currentWidget() is window.session_page
    assert window.header_title.text() == "New chat"

    # rename inline: F2 opens the editor, Enter commits
    window.sidebar.tree.setFocus()
    window.sidebar.rename_action.trigger()
    editor = run(qloop, lambda: window.sidebar.tree.viewport().findChild(QLineEdit))
    editor.setText("  Kyoto itinerary ")
    qtbot.keyClick(editor, Qt.Key.Key_Return)
    run(qloop, lambda: host_sessions(window)[0]["title"] == "Kyoto itinerary")
    run(qloop, lambda: window.header_title.text() == "Kyoto itinerary")
    index = window.model.index_of(session["id"])
    assert index.data() == "Kyoto itinerary"

    # delete asks first; Cancel keeps it
    window.sidebar.delete_action.trigger()
    box = window.confirm_box
    assert box is not None and "Kyoto itinerary" in box.text()
    qtbot.mouseClick(box.button(box.StandardButton.Cancel), Qt.MouseButton.LeftButton)
    qloop.run_until_complete(wait_until(lambda: window.confirm_box is None))
    assert len(host_sessions(window)) == 1

    window.sidebar.delete_action.trigger()
    box = window.confirm_box
    delete = next(b for b in box.buttons() if b.text() == "Delete")
    qtbot.mouseClick(delete, Qt.MouseButton.LeftButton)
    run(qloop, lambda: window.model.session_count() == 0)
    assert host_sessions(window) == []
    assert window.pages.currentWidget() is window.empty_page


def test_ctrl_n_creates_a_chat(window, qtbot, qloop):
    qtbot.keyClick(window, Qt.Key.Key_N, Qt.KeyboardModifier.ControlModifier)
    run(qloop, lambda: window.model.session_count() == 1)
    assert len(host_sessions(window)) == 1


def test_sessions_are_grouped_by_project_newest_first(qtbot, qloop, location):
    seed = InProcessHost(location)
    seed.call("session.create", {"title": "older loose"})
    time.sleep(0.005)  # distinct updatedAt: chats made in the same millisecond are ordered by id
    seed.call("session.create", {"title": "work item", "projectPath": "/home/me/work"})
    time.sleep(0.005)
    seed.call("session.create", {"title": "newer loose"})
    seed.stop()
    thread = HostThread(opener(location)).start()
    win = MainWindow(HostClient(thread, qloop), themes.DARK)
    qtbot.addWidget(win)
    qloop.run_until_complete(win.start())
    model = win.model
    groups = [model.index(r, 0).data() for r in range(model.rowCount())]
    assert groups == ["work", "Chats"]
    chats = model.index(1, 0)
    assert [model.index(r, 0, chats).data() for r in range(model.rowCount(chats))] == ["newer loose", "older loose"]
    win.close()
    thread.stop()


def test_events_from_elsewhere_update_the_sidebar(window, qloop):
    window.client.call_blocking("session.create", {"title": "made elsewhere"})
    run(qloop, lambda: window.model.session_count() == 1)
    sid = host_sessions(window)[0]["id"]
    window.client.call_blocking("session.delete", {"sessionId": sid})
    run(qloop, lambda: window.model.session_count() == 0)


def test_storage_failure_is_shown_to_the_person(qtbot, qloop, location):
    from pidesktop.paths import prepare_data_root

    root = prepare_data_root(location)
    (root / "pi.sqlite").mkdir()
    thread = HostThread(opener(location)).start()
    win = MainWindow(HostClient(thread, qloop), themes.LIGHT)
    qtbot.addWidget(win)
    win.show()
    qloop.run_until_complete(win.start())
    assert win.banner.isVisible()
    assert "pi.sqlite" in win.banner_text.text()
    assert not win.sidebar.new_chat_button.isEnabled()
    win.close()
    thread.stop()


def test_session_model_passes_qt_model_tester(qtmodeltester):
    model = SessionTreeModel()
    sessions = [{"id": f"s{i}", "title": f"t{i}", "projectPath": ["/a", "/b", None][i % 3],
                 "updatedAt": 1000 + i} for i in range(9)]
    model.reset(sessions)
    qtmodeltester.check(model)
    model.upsert({"id": "new", "title": "n", "projectPath": "/c", "updatedAt": 5000})
    model.remove("s0")
    model.upsert({"id": "s4", "title": "renamed", "projectPath": "/b", "updatedAt": 1004})
    qtmodeltester.check(model)


def test_screenshot_command_renders_and_quits_cleanly(tmp_path):
    shot = tmp_path / "shot.png"
    result = subprocess.run([sys.executable, "-m", "pidesktop", "--data-dir", str(tmp_path / "d"),
                             "--screenshot", str(shot), "--theme", "dark"],
                            capture_output=True, text=True, cwd=REPO, timeout=120,
                            env={k: v for k, v in os.environ.items() if k not in ("QT_QPA_PLATFORM", "DISPLAY")})
    assert result.returncode == 0, result.stderr  # offscreen by itself, with no display and no platform set
    assert result.stderr == ""
    assert shot.stat().st_size > 10_000
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_a_host_error_is_one_line_in_the_status_bar_with_details_behind_it(window, qtbot, qloop):
    assert window.details_button.isHidden()
    qloop.run_until_complete(window.rename_session("no-such-session", "New name"))
    assert window.host_error is not None and window.host_error.code == "NOT_FOUND"
    assert "NOT_FOUND" in window.statusBar().currentMessage()
    assert not window.details_button.isHidden()
    window.show_host_error(HostError("INVALID_PARAMS", "attachments.import: field 'path' is a folder.",
                                     {"path": "/tmp/photos"}))
    qtbot.mouseClick(window.details_button, Qt.MouseButton.LeftButton)
    dialog = window.error_dialog
    assert dialog is not None and dialog.isVisible()
    text = dialog.text.toPlainText()
    # newest first, each with its code and message, the host's data included
    assert text.index("INVALID_PARAMS") < text.index("NOT_FOUND")
    assert "'path' is a folder" in text and '"path": "/tmp/photos"' in text
    assert window.details_button.isHidden()  # seen: the button goes until the next error
    dialog.close()
