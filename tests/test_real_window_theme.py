"""Theme details only a real X display shows: Qt's xcb platform gives dialog buttons icons, offscreen does not."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests.support.realwindow import REPO, XDisplay, missing_tools

pytestmark = pytest.mark.realwindow

PROBE = """
import sys
from PySide6.QtWidgets import QApplication, QDialogButtonBox, QMessageBox
from pidesktop.ui.kit import theme
app = QApplication(sys.argv)
theme.apply(app, theme.DARK)
box = QDialogButtonBox(QDialogButtonBox.StandardButton.Close | QDialogButtonBox.StandardButton.Save)
message = QMessageBox(QMessageBox.Icon.Question, "Delete chat", "Delete?", QMessageBox.StandardButton.Cancel)
buttons = box.buttons() + message.buttons()
print(sum(not b.icon().isNull() for b in buttons), len(buttons))
"""


def test_dialog_buttons_carry_no_dark_icons_on_x11(tmp_path):
    reason = missing_tools()
    if reason:
        pytest.skip(reason)
    screen = XDisplay(tmp_path / "x")
    try:
        screen.start()
        env = screen.env(QT_QPA_PLATFORM="xcb", PYTHONPATH=str(REPO))
        probe = subprocess.run([sys.executable, "-c", PROBE], env=env, capture_output=True, text=True, timeout=60)
    finally:
        screen.close()
    assert probe.returncode == 0, probe.stderr
    with_icons, buttons = map(int, probe.stdout.split())
    assert buttons == 3 and with_icons == 0  # the Close ✗ was nearly invisible on the dark theme
