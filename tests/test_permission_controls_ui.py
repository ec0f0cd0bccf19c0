"""Permission controls: the Settings default and each chat's own mode, stored by the real host and shown again."""

from __future__ import annotations

import shiboken6
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest

from pidesktop.ui.kit import theme as themes
from pidesktop.ui.settings.settings_dialog import SettingsDialog
from tests.support.waits import spin_until
from tests.support.windows import started_window


def stored(client):
    return client.call_blocking("settings.get")["settings"]


def open_general(qloop, client):
    dialog = SettingsDialog.ask(client, themes.LIGHT)
    dialog.open()
    qloop.run_until_complete(dialog.loading)
    return dialog


def test_the_settings_default_is_ask_and_a_change_is_stored_and_shown_again(qtbot, qloop, host_client):
    dialog = open_general(qloop, host_client)
    page = dialog.general
    assert page.permission_combo.currentData() == "ask"
    assert page.permission_combo.currentText() == "Ask before changes"
    assert [page.permission_combo.itemText(i) for i in range(page.permission_combo.count())] == [
        "Ask before changes",
        "Allow file edits",
        "Allow everything",
    ]
    page.permission_combo.setCurrentIndex(page.permission_combo.findData("accept-edits"))
    spin_until(qloop, lambda: stored(host_client)["permissionMode"] == "accept-edits")
    if page.network_check.isEnabled():
        page.network_check.click()
        spin_until(qloop, lambda: stored(host_client)["sandboxNetwork"] is False)
    dialog.close()
    again = open_general(qloop, host_client).general
    assert again.permission_combo.currentData() == "accept-edits"
    if again.network_check.isEnabled():
        assert not again.network_check.isChecked()
    if shiboken6.isValid(again):
        again.window().close()


def test_a_chats_own_mode_is_stored_and_its_default_names_the_setting(qtbot, qloop, host_client):
    first = host_client.call_blocking("session.create", {"title": "First"})["session"]["id"]
    second = host_client.call_blocking("session.create", {"title": "Second"})["session"]["id"]
    win = started_window(qtbot, qloop, host_client)
    chip = win.composer.permission_picker
    win.sidebar.select(first)
    spin_until(qloop, lambda: win.current_session_id == first)
    assert chip.currentText() == "Default: Ask first" and chip.currentData() == "inherit"
    assert "Ask before changes" in chip.toolTip() and "Settings" in chip.toolTip()
    chip.setFocus()
    chip.setCurrentIndex(chip.findData("auto"))
    chip.activated.emit(chip.currentIndex())  # what a pick in its list does
    spin_until(
        qloop,
        lambda: (
            host_client.call_blocking("session.get", {"sessionId": first, "messageLimit": 1})["session"][
                "permissionMode"
            ]
            == "auto"
        ),
    )
    win.sidebar.select(second)
    spin_until(qloop, lambda: win.current_session_id == second and chip.currentData() == "inherit")
    host_client.call_blocking("settings.set", {"patch": {"permissionMode": "accept-edits"}})
    qloop.run_until_complete(win.dialogs.apply_settings(stored(host_client)))
    assert chip.currentText() == "Default: Allow edits"
    win.sidebar.select(first)
    spin_until(qloop, lambda: win.current_session_id == first and chip.currentText() == "Allow all")
    QTest.keyClick(chip, Qt.Key.Key_Up)  # keyboard: one step back, stored like a pick
    spin_until(
        qloop,
        lambda: (
            host_client.call_blocking("session.get", {"sessionId": first, "messageLimit": 1})["session"][
                "permissionMode"
            ]
            == "accept-edits"
        ),
    )
    win.close()


def test_settings_say_where_commands_run(qtbot, qloop, host_client, monkeypatch):
    from pidesktop.agent import sandbox

    monkeypatch.setenv(sandbox.FORCE_OFF, "1")
    page = open_general(qloop, host_client).general
    assert page.sandbox_label.isVisibleTo(page) and "unconfined" in page.sandbox_label.text()
    assert not page.network_check.isEnabled()  # nothing to keep off the network without the sandbox
    page.window().close()
    monkeypatch.delenv(sandbox.FORCE_OFF)
    if sandbox.status().available:
        page = open_general(qloop, host_client).general
        assert "sandbox" in page.sandbox_label.text() and page.network_check.isEnabled()
        page.window().close()
