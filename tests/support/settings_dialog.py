"""Fixtures for the Settings dialog's tests: the host client and a dialog opened and loaded."""

import pytest
import shiboken6

from pidesktop.ui.kit import theme as themes
from pidesktop.ui.settings.settings_dialog import SettingsDialog


@pytest.fixture
def client(host_client):
    return host_client


@pytest.fixture
def open_settings(qloop, client):
    """Opens a loaded dialog; closes whichever are still open at the end."""
    opened: list[SettingsDialog] = []

    def open_(theme: themes.Theme = themes.LIGHT) -> SettingsDialog:
        dialog = SettingsDialog.ask(client, theme)
        opened.append(dialog)
        dialog.open()
        qloop.run_until_complete(dialog.loading)
        return dialog

    yield open_
    for dialog in opened:
        if shiboken6.isValid(dialog):
            dialog.close()
