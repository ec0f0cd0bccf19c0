"""The composer's "allowed for this chat" chip, against a real host: it shows what "Allow for this chat"
kept, follows changes, and "Ask me again" forgets them, by keyboard too."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt, QTimer
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication

from tests.support.waits import spin_until
from tests.support.windows import started_window


@pytest.fixture
def granted(qloop, host_client, tmp_path):
    def call(method, params):
        return qloop.run_until_complete(host_client.call(method, params))

    sid = call("session.create", {"projectPath": str(tmp_path)})["session"]["id"]
    user = {"id": "u1", "role": "user", "blocks": [{"type": "text", "text": "Tidy the project"}]}
    call("session.appendMessage", {"sessionId": sid, "message": user})
    call("permissions.grant", {"sessionId": sid, "tool": "edit"})
    return sid, call


def test_the_chip_shows_the_chats_grants_and_asking_again_forgets_them(qtbot, qloop, host_client, granted):
    sid, call = granted
    other = call("session.create", {})["session"]["id"]
    win = started_window(qtbot, qloop, host_client)
    chip = win.composer.grants_chip
    win.sidebar.select(sid)
    spin_until(qloop, lambda: chip.isVisible())
    assert chip.text() == "Edits allowed for this chat"
    call("permissions.grant", {"sessionId": sid, "tool": "bash"})  # followed as it changes
    spin_until(qloop, lambda: chip.text() == "Edits and commands allowed for this chat")
    listed = [a.text().strip() for a in chip.menu_.actions() if a.text()]
    assert "Edit files (edit)" in listed and "Run commands (bash)" in listed
    win.sidebar.select(other)  # another chat has none
    spin_until(qloop, lambda: not chip.isVisible())
    win.sidebar.select(sid)
    spin_until(qloop, lambda: chip.isVisible())

    seen = []

    def choose_in_the_open_menu():  # runs inside the menu's own event loop
        seen.append(chip.menu_.isVisible())
        chip.menu_.setActiveAction(chip.reset_action)
        QTest.keyClick(chip.menu_, Qt.Key.Key_Return)

    QTimer.singleShot(0, choose_in_the_open_menu)
    chip.setFocus()
    QTest.keyClick(chip, Qt.Key.Key_Space)  # the menu opens from the keyboard
    assert seen == [True]
    spin_until(qloop, lambda: not chip.isVisible())
    assert call("permissions.grants", {"sessionId": sid}) == {"tools": [], "unconfined": False}
    call("permissions.grant", {"sessionId": sid, "unconfined": True})  # "commands run unconfined" was accepted
    spin_until(qloop, lambda: chip.text() == "Commands without a sandbox allowed for this chat")
    win.close()


@pytest.mark.parametrize("theme_name", ["light", "dark"])
def test_mcp_tools_are_named_by_their_server(qtbot, qloop, host_client, granted, shots, theme_name, keep_running):
    from pidesktop.ui.kit import theme as themes

    sid, call = granted
    call("permissions.grant", {"sessionId": sid, "tool": "mcp__files__delete"})
    theme = themes.LIGHT if theme_name == "light" else themes.DARK
    win = started_window(qtbot, qloop, host_client, theme=theme, size=(900, 640))
    themes.apply(QApplication.instance(), theme)
    win.dialogs.set_theme(theme)
    chip = win.composer.grants_chip
    win.sidebar.select(sid)
    spin_until(qloop, lambda: chip.text() == "Edits and MCP tools allowed for this chat")
    assert "delete from the MCP server files" in [a.text().strip() for a in chip.menu_.actions()]
    QApplication.processEvents()
    assert win.composer.grab().save(str(shots / f"grants-chip-{theme_name}.png"))
    win.close()
    themes.apply(QApplication.instance(), themes.LIGHT)
