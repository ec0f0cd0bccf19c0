"""The main window on the offscreen platform, driven like a person would."""

import os
import subprocess
import sys

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLineEdit

from pidesktop.bus import HostError
from pidesktop.ui.kit import theme as themes
from pidesktop.ui.sidebar.session_model import SessionTreeModel
from pidesktop.ui.window.main_window import MainWindow
from tests.support.clock import TickingClock
from tests.support.host_helpers import crash_mid_reply
from tests.support.hosts import InProcessHost
from tests.support.repo import REPO
from tests.support.waits import spin_until
from tests.support.windows import started_window


@pytest.fixture
def window(qtbot, qloop, host_client):
    win = started_window(qtbot, qloop, host_client, size=None)
    yield win
    win.close()


def host_sessions(window):
    return window.client.call_blocking("session.list")["sessions"]


def test_a_click_on_the_header_s_title_renames_the_chat(window, qtbot, qloop):
    title = window.header_title
    qtbot.mouseClick(title, Qt.MouseButton.LeftButton)
    assert not title.editing()  # the empty page has no chat to rename
    qloop.run_until_complete(window.chats.create_session())
    spin_until(qloop, lambda: title.text() == "New chat")
    qtbot.mouseClick(title, Qt.MouseButton.LeftButton)
    assert title.editing() and title.field.hasFocus() and title.field.selectedText() == "New chat"
    assert title.field.maxLength() == 80  # what session.rename takes: a longer title would be refused
    qtbot.keyClicks(title.field, "Lisbon  weekend ")
    qtbot.keyClick(title.field, Qt.Key.Key_Return)
    assert not title.editing() and title.text() == "Lisbon weekend"
    spin_until(qloop, lambda: host_sessions(window)[0]["title"] == "Lisbon weekend")

    # Esc puts the title back and leaves the chat as it was
    qtbot.mouseClick(title, Qt.MouseButton.LeftButton)
    qtbot.keyClicks(title.field, "Something else")
    title.setText("Lisbon weekend")  # a host event while typing: what is typed stays
    assert title.editing() and title.field.text() == "Something else"
    qtbot.keyClick(title.field, Qt.Key.Key_Escape)
    assert not title.editing() and title.text() == "Lisbon weekend"

    # leaving the field keeps what was typed; an empty title changes nothing
    qtbot.mouseClick(title, Qt.MouseButton.LeftButton)
    qtbot.keyClicks(title.field, "Porto")
    window.composer.focus_prompt()
    spin_until(qloop, lambda: host_sessions(window)[0]["title"] == "Porto")
    qtbot.mouseClick(title, Qt.MouseButton.LeftButton)
    qtbot.keyClick(title.field, Qt.Key.Key_Delete)
    qtbot.keyClick(title.field, Qt.Key.Key_Return)
    assert title.text() == "Porto"


def test_empty_window_invites_a_first_chat(window):
    assert window.pages.currentWidget() is window.empty_page
    assert window.model.rowCount() == 0
    assert window.windowIcon().isNull() is False


def test_create_rename_and_delete_a_session(window, qtbot, qloop):
    qloop.run_until_complete(window.chats.create_session())
    spin_until(qloop, lambda: window.model.session_count() == 1)
    [session] = host_sessions(window)
    assert window.sidebar.current_session_id() == session["id"]
    assert window.pages.currentWidget() is window.empty_page  # nothing written yet: the first-start page
    assert window.header_title.text() == "New chat"

    # rename inline: F2 opens the editor, Enter commits
    window.sidebar.tree.setFocus()
    window.sidebar.rename_action.trigger()
    editor = spin_until(qloop, lambda: window.sidebar.tree.viewport().findChild(QLineEdit))
    editor.setText("  Kyoto itinerary ")
    qtbot.keyClick(editor, Qt.Key.Key_Return)
    spin_until(qloop, lambda: host_sessions(window)[0]["title"] == "Kyoto itinerary")
    spin_until(qloop, lambda: window.header_title.text() == "Kyoto itinerary")
    index = window.model.index_of(session["id"])
    assert index.data() == "Kyoto itinerary"

    # delete asks first; Cancel keeps it
    window.sidebar.delete_action.trigger()
    box = window.chats.confirm_box
    assert box is not None and "Kyoto itinerary" in box.text()
    qtbot.mouseClick(box.button(box.StandardButton.Cancel), Qt.MouseButton.LeftButton)
    spin_until(qloop, lambda: window.chats.confirm_box is None)
    assert len(host_sessions(window)) == 1

    window.sidebar.delete_action.trigger()
    box = window.chats.confirm_box
    delete = next(b for b in box.buttons() if b.text() == "Delete")
    qtbot.mouseClick(delete, Qt.MouseButton.LeftButton)
    spin_until(qloop, lambda: window.model.session_count() == 0)
    assert host_sessions(window) == []
    assert window.pages.currentWidget() is window.empty_page


def test_ctrl_n_never_piles_up_empty_chats(window, qtbot, qloop):
    for _ in range(3):
        qtbot.keyClick(window, Qt.Key.Key_N, Qt.KeyboardModifier.ControlModifier)
    spin_until(qloop, lambda: window.pages.currentWidget() is window.empty_page)
    assert host_sessions(window) == []  # the chat is made by the first prompt
    assert window.current_session_id is None

    blank = window.client.call_blocking("session.create", {})["session"]  # e.g. left by an older version
    spin_until(qloop, lambda: window.model.session_count() == 1)
    qtbot.keyClick(window, Qt.Key.Key_N, Qt.KeyboardModifier.ControlModifier)
    spin_until(qloop, lambda: window.current_session_id == blank["id"])  # reused, not another one
    assert [s["id"] for s in host_sessions(window)] == [blank["id"]]
    assert window.pages.currentWidget() is window.empty_page


def test_sessions_are_grouped_by_project_newest_first(qtbot, qloop, location, loop_hosts):
    seed = InProcessHost(location, clock=TickingClock())  # distinct updatedAt: "newest first" is decided by time
    seed.call("session.create", {"title": "older loose"})
    seed.call("session.create", {"title": "work item", "projectPath": "/home/me/work"})
    seed.call("session.create", {"title": "newer loose"})
    seed.stop()
    win = MainWindow(loop_hosts.start(), themes.DARK)
    qtbot.addWidget(win)
    qloop.run_until_complete(win.start())
    model = win.model
    groups = [model.index(r, 0).data() for r in range(model.rowCount())]
    assert groups == ["work", "Chats"]
    chats = model.index(1, 0)
    assert [model.index(r, 0, chats).data() for r in range(model.rowCount(chats))] == ["newer loose", "older loose"]
    win.close()


def test_events_from_elsewhere_update_the_sidebar(window, qloop):
    window.client.call_blocking("session.create", {"title": "made elsewhere"})
    spin_until(qloop, lambda: window.model.session_count() == 1)
    sid = host_sessions(window)[0]["id"]
    window.client.call_blocking("session.delete", {"sessionId": sid, "forGood": True})
    spin_until(qloop, lambda: window.model.session_count() == 0)


def test_storage_failure_is_shown_to_the_person(qtbot, qloop, location, loop_hosts):
    from pidesktop.paths import prepare_data_root

    root = prepare_data_root(location)
    (root / "pi.sqlite").mkdir()
    win = started_window(qtbot, qloop, loop_hosts.start(), size=None)
    assert win.banner.isVisible()
    assert "pi.sqlite" in win.banner_text.text()
    assert not win.sidebar.new_chat_button.isEnabled()
    win.close()


def test_session_model_passes_qt_model_tester(qtmodeltester):
    model = SessionTreeModel()
    sessions = [
        {"id": f"s{i}", "title": f"t{i}", "projectPath": ["/a", "/b", None][i % 3], "updatedAt": 1000 + i}
        for i in range(9)
    ]
    model.reset(sessions)
    qtmodeltester.check(model)
    model.upsert({"id": "new", "title": "n", "projectPath": "/c", "updatedAt": 5000})
    model.remove("s0")
    model.upsert({"id": "s4", "title": "renamed", "projectPath": "/b", "updatedAt": 1004})
    qtmodeltester.check(model)


def test_screenshot_command_renders_and_quits_cleanly(tmp_path):
    shot = tmp_path / "shot.png"
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "pidesktop",
            "--data-dir",
            str(tmp_path / "d"),
            "--screenshot",
            str(shot),
            "--theme",
            "dark",
        ],
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=120,
        env={k: v for k, v in os.environ.items() if k not in ("QT_QPA_PLATFORM", "DISPLAY")},
    )
    assert result.returncode == 0, result.stderr  # offscreen by itself, with no display and no platform set
    assert result.stderr == ""
    assert shot.stat().st_size > 10_000
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_a_host_error_is_one_sentence_with_details_behind_it(window, qtbot, qloop):
    assert window.notice.isHidden()  # no empty strip waiting for errors
    window.chats.rename("no-such-session", "New name")
    spin_until(qloop, lambda: window.notices.host_error is not None)
    assert window.notices.host_error.code == "NOT_FOUND"
    line = window.notice.label.text()
    assert "NOT_FOUND" not in line and "no-such-session" not in line  # a sentence, not the code
    assert "no longer there" in line
    assert window.notice.details_button.isVisible()
    window.report_error(
        HostError("INVALID_PARAMS", "attachments.import: field 'path' is a folder.", {"path": "/tmp/photos"})
    )
    qtbot.mouseClick(window.notice.details_button, Qt.MouseButton.LeftButton)
    dialog = window.notices.error_dialog
    assert dialog is not None and dialog.isVisible()
    text = dialog.text.toPlainText()
    # newest first, each with its code and message, the host's data included
    assert text.index("INVALID_PARAMS") < text.index("NOT_FOUND")
    assert "'path' is a folder" in text and '"path": "/tmp/photos"' in text
    assert window.notice.isHidden()  # seen: the line goes until the next error
    dialog.close()
    qtbot.waitUntil(lambda: window.notices.error_dialog is None)  # closed is gone: each Details makes a new one


def test_error_details_and_question_boxes_use_the_app_look(qtbot, theme, shot):
    from PySide6.QtWidgets import QMessageBox

    from pidesktop.bus import HostError
    from pidesktop.ui.kit.dialog_style import style_message_box
    from pidesktop.ui.kit.error_details import ErrorDetailsDialog, ErrorLog

    log = ErrorLog()
    log.add(HostError("storage_unavailable", "disk gone")) if hasattr(log, "add") else None
    dialog = ErrorDetailsDialog(log)
    qtbot.addWidget(dialog)
    assert "QPushButton#primary" in dialog.styleSheet() or "pageTitle" in dialog.styleSheet()
    dialog.show()
    shot(dialog, f"error-details-{theme.name}")
    box = QMessageBox(
        QMessageBox.Icon.Warning, "Delete chat", "Delete “Trip” for good?", QMessageBox.StandardButton.Cancel
    )
    delete = box.addButton("Delete", QMessageBox.ButtonRole.DestructiveRole)
    style_message_box(box, theme)
    qtbot.addWidget(box)
    assert delete.objectName() == "danger" and box.styleSheet()
    box.show()
    shot(box, f"delete-box-{theme.name}")


def test_the_window_says_a_reply_was_cut_off_by_a_crash(qtbot, qloop, location, loop_hosts):
    crash_mid_reply(location)  # before the window's host starts
    win = started_window(qtbot, qloop, loop_hosts.start(), size=None)
    assert win.notice.isVisible()
    assert "“Story” was cut off" in win.notice.label.text()
    assert not win.notice.details_button.isVisible()  # news, not an error
    win.close()


def test_an_error_answered_after_the_window_is_gone_is_only_logged(window, caplog):
    """A reply that fails as the app quits ("the host is shutting down") reaches a window whose widgets Qt has
    deleted: it goes to the log, never to a traceback."""
    import shiboken6

    shiboken6.delete(window.conversation)  # what closing the window does to its widgets
    with caplog.at_level("INFO", logger="pidesktop.ui"):
        window.report_error(HostError("STORAGE_UNAVAILABLE", "The host is shutting down."))
    assert "error after the window closed" in caplog.text
