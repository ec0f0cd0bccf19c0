"""Fixes from a first hour with the app: each test pins one thing a person saw go wrong."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from pidesktop.ui import data_tools
from pidesktop.ui import theme as themes

from .conftest import InProcessHost, wait_until

SHOTS = Path(os.environ.get("PIDESKTOP_SHOTS", "/tmp/pidesktop-shots"))


def shot(widget, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    widget.grab().save(str(SHOTS / f"{name}.png"))


@pytest.fixture(params=[themes.LIGHT, themes.DARK], ids=["light", "dark"])
def theme(request, qapp):
    themes.apply(qapp, request.param)
    yield request.param
    themes.apply(qapp, themes.LIGHT)


@pytest.fixture
def keep_running(qapp):
    before = qapp.quitOnLastWindowClosed()
    qapp.setQuitOnLastWindowClosed(False)
    yield
    qapp.setQuitOnLastWindowClosed(before)


def one_chat(location) -> str:
    host = InProcessHost(location)
    try:
        sid = host.call("session.create", {"title": "Trip"})["session"]["id"]
        host.call("session.appendMessage", {"sessionId": sid, "message": {
            "id": "m-u", "role": "user", "blocks": [{"type": "text", "text": "hello"}]}})
        return sid
    finally:
        host.stop()


def shows_whole_report(dialog) -> bool:
    label = dialog.report
    return label.isVisible() and label.height() >= label.heightForWidth(label.width())


# -- 2. the result line of Verify and Back up shows whole -------------------------------------
def test_verify_result_line_is_not_squeezed(qtbot, qloop, location, theme, keep_running):
    one_chat(location)
    dialog = data_tools.VerifyDialog(location, theme)
    qtbot.addWidget(dialog)
    dialog.open()
    qloop.run_until_complete(wait_until(lambda: dialog.result is not None))
    qtbot.wait(20)
    assert dialog.report.text().startswith("No problems found.")
    assert shows_whole_report(dialog)
    shot(dialog, f"fixes-verify-{theme.name}")


def test_backup_result_line_is_not_squeezed(qtbot, qloop, location, theme, keep_running, isolated_home):
    one_chat(location)
    dialog = data_tools.BackupDialog(location, theme)
    qtbot.addWidget(dialog)
    dialog.open()
    dialog.path_edit.setText(str(isolated_home / "pi-backup.sqlite"))
    dialog.backup_button.click()
    qloop.run_until_complete(wait_until(lambda: dialog.result is not None))
    qtbot.wait(20)
    assert dialog.report.text().startswith("Backed up and verified")
    assert shows_whole_report(dialog)
    shot(dialog, f"fixes-backup-{theme.name}")
