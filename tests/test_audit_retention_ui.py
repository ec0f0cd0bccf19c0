"""Settings > General > Keep the tool log: stored at once as ``auditRetentionDays``."""

from PySide6.QtCore import Qt

from tests.support.waits import spin_until
from tests.test_settings_ui import stored_settings


def test_the_tool_log_retention_is_stored_and_shown_again(qtbot, qloop, client, open_settings):
    page = open_settings().general
    assert page.audit_spin.value() == 90
    page.audit_spin.lineEdit().selectAll()
    qtbot.keyClicks(page.audit_spin.lineEdit(), "30")
    qtbot.keyClick(page.audit_spin.lineEdit(), Qt.Key.Key_Return)
    spin_until(qloop, lambda: stored_settings(client)["auditRetentionDays"] == 30)
    assert open_settings().general.audit_spin.value() == 30
