"""Settings > General offers "Restart now" when a new language waits for a restart; Data is its own module."""

import pytest
import shiboken6
from PySide6.QtCore import Qt

from pidesktop.ui.data.relaunch import relaunch_pidesktop
from pidesktop.ui.data.settings_data import DataPage
from pidesktop.ui.kit import i18n
from pidesktop.ui.kit import theme as themes
from pidesktop.ui.settings.settings_dialog import SettingsDialog
from pidesktop.ui.settings.settings_general import GeneralPage
from tests.support.waits import spin_until


@pytest.fixture
def dialog(qloop, host_client, monkeypatch):
    monkeypatch.setattr(i18n.QLocale, "system", staticmethod(lambda: i18n.QLocale("en_US")))
    monkeypatch.setattr(i18n, "_active", i18n.SOURCE_LANGUAGE)
    opened = SettingsDialog.ask(host_client, themes.LIGHT)
    opened.open()
    qloop.run_until_complete(opened.loading)
    yield opened
    if shiboken6.isValid(opened):
        opened.close()


def test_restart_now_sits_next_to_the_language_note_and_relaunches(qtbot, qloop, host_client, dialog, monkeypatch):
    assert GeneralPage.relaunch is relaunch_pidesktop  # the same restart as the data-move wizard's
    calls = []
    monkeypatch.setattr(GeneralPage, "relaunch", staticmethod(lambda *args, **kwargs: calls.append((args, kwargs))))
    page = dialog.general
    assert not page.restart_button.isVisible()
    page.language_combo.setCurrentIndex(page.language_combo.findData("zh_CN"))
    spin_until(qloop, lambda: page.restart_button.isVisible())
    assert page.language_note.isVisible() and page.restart_button.text() == "Restart now"
    # the language is stored before the restart is offered
    assert host_client.call_blocking("settings.get")["settings"]["language"] == "zh_CN"
    qtbot.mouseClick(page.restart_button, Qt.MouseButton.LeftButton)
    assert calls == [((), {})]
    assert not page.restart_button.isEnabled()  # one restart at a time

    page.language_combo.setCurrentIndex(page.language_combo.findData("en"))
    spin_until(qloop, lambda: not page.restart_button.isVisible())


def test_the_data_page_lives_in_its_own_module(dialog, location):
    assert isinstance(dialog.data, DataPage) and DataPage.__module__ == "pidesktop.ui.data.settings_data"
    assert dialog.data.path_label.text() == str(location.data_root)
