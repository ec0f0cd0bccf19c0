"""Revert by keyboard only: from the edit's tool row in the transcript (Tab into the transcript, arrows to
the row, Enter unfolds it, arrows to Revert, Space presses it) and from the Files changed window
(Ctrl+Shift+E, Tab to Revert, Space), against a real host's file tools."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication

from tests.support.waits import spin_until
from tests.test_file_changes_ui import BEFORE, edited, open_chat  # noqa: F401  (edited is a fixture)

MAX_KEYS = 60  # more presses than any of these walks needs


def focused():
    return QApplication.focusWidget()


def press(key, modifier=Qt.KeyboardModifier.NoModifier):
    widget = focused()
    assert widget is not None, "nothing has the keyboard focus"
    QTest.keyClick(widget, key, modifier)


def press_until(key, done, modifier=Qt.KeyboardModifier.NoModifier):
    for _ in range(MAX_KEYS):
        if done():
            return
        press(key, modifier)
    assert done(), f"{key} pressed {MAX_KEYS} times without getting there"


def test_the_tool_rows_revert_by_keyboard(qtbot, qloop, host_client, edited, shots):  # noqa: F811 - edited is the imported fixture
    _sid, target = edited
    win = open_chat(qtbot, qloop, host_client, edited[0])
    view = win.transcript
    win.activateWindow()
    win.composer.focus_prompt()
    spin_until(qloop, lambda: focused() is not None)
    press_until(Qt.Key.Key_Backtab, lambda: view.hasFocus(), Qt.KeyboardModifier.ShiftModifier)
    assert view.keys.target is not None  # entering the transcript puts the focus on something in view

    press_until(Qt.Key.Key_Up, lambda: view.keys.target.name == "tool:a1:0")
    QApplication.processEvents()
    assert view.grab().save(str(shots / "tool-row-keyboard-focus.png"))
    press(Qt.Key.Key_Return)  # unfolds the edit's row: its diff and Revert show
    assert "tool:a1:0" in view.expanded and view.keys.target.name == "tool:a1:0"
    press_until(Qt.Key.Key_Down, lambda: view.keys.target.name.startswith("revert:"))
    QApplication.processEvents()
    assert view.grab().save(str(shots / "revert-keyboard-focus.png"))
    press(Qt.Key.Key_Space)
    spin_until(qloop, lambda: target.read_bytes() == BEFORE)
    spin_until(qloop, lambda: win.file_changes.reviews.snapshots[0]["reverted"])
    QTest.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=view.viewport().rect().bottomLeft())
    assert not view.keys.drawn  # a mouse user gets no keyboard ring
    win.close()


def test_the_files_changed_windows_revert_by_keyboard(qtbot, qloop, host_client, edited, keep_running):  # noqa: F811 - edited is the imported fixture
    sid, target = edited
    win = open_chat(qtbot, qloop, host_client, sid)
    win.activateWindow()
    win.composer.focus_prompt()
    spin_until(qloop, lambda: win.file_changes.button.isVisible())
    press(Qt.Key.Key_E, Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier)
    spin_until(qloop, lambda: win.file_changes.panel is not None and win.file_changes.panel.isVisible())
    panel = win.file_changes.panel
    spin_until(qloop, lambda: panel.buttons)
    panel.activateWindow()
    spin_until(qloop, lambda: focused() is not None and focused().window() is panel)
    revert = panel.buttons[str(target.resolve())][1]
    press_until(Qt.Key.Key_Tab, lambda: focused() is revert)
    press(Qt.Key.Key_Space)
    spin_until(qloop, lambda: target.read_bytes() == BEFORE)
    panel.close()
    win.close()


def test_arrows_in_an_empty_transcript_do_nothing(qtbot, qloop, host_client):
    from tests.support.windows import started_window

    win = started_window(qtbot, qloop, host_client)
    view = win.transcript
    view.setFocus(Qt.FocusReason.TabFocusReason)
    for key in (Qt.Key.Key_Down, Qt.Key.Key_Up, Qt.Key.Key_End, Qt.Key.Key_Return):
        QTest.keyClick(view, key)
    assert view.keys.target is None
    win.close()
