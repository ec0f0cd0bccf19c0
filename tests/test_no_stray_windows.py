"""Opening the window and what it opens shows those windows and no other.

A widget made without a parent is a window of its own: ``setVisible(True)`` on it before it is put in a
layout shows it on the screen for a moment as a small bare window (it vanishes when the layout takes it).
On a desktop that is a flash; for a program that drives the app by its windows it is one more window.
"""

from __future__ import annotations

import pytest
import shiboken6
from PySide6.QtCore import QEvent, QObject
from PySide6.QtWidgets import QApplication, QWidget

from tests.support.waits import spin_until
from tests.support.windows import started_window


class ShownWindows(QObject):
    """Every widget shown as a window of its own while it listens, in order."""

    def __init__(self):
        super().__init__()
        self.shown: list[tuple[QWidget, str, str]] = []  # (the widget, its class and object name, its title)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.Show and isinstance(watched, QWidget) and watched.isWindow():
            self.shown.append((watched, f"{type(watched).__name__} {watched.objectName()!r}", watched.windowTitle()))
        return False

    def titles(self) -> list[str]:
        return [title for _widget, _name, title in self.shown]

    def strays(self) -> list[str]:
        """Those shown as a window that are a part of another now: put in a layout after they were shown."""
        return [name for widget, name, _title in self.shown if shiboken6.isValid(widget) and not widget.isWindow()]


@pytest.fixture
def shown_windows(qapp):
    listener = ShownWindows()
    qapp.installEventFilter(listener)
    yield listener
    qapp.removeEventFilter(listener)


def test_the_window_and_each_dialog_it_opens_show_no_bare_widget(qtbot, qloop, host_client, shown_windows):
    win = started_window(qtbot, qloop, host_client)
    assert shown_windows.titles()[:1] == ["pidesktop"]
    assert shown_windows.strays() == []
    try:
        # Each is looked at while open: closing a dialog deletes it, and its parts with it.
        win.settings_action.trigger()
        dialog = win.settings_dialog
        qloop.run_until_complete(dialog.loading)
        for page in ("General", "Providers", "Tools", "Usage", "Data", "Sync"):
            dialog.show_page(page)
            QApplication.processEvents()
        adding = dialog.tools.edit(None)  # Tools > Add…
        QApplication.processEvents()
        assert shown_windows.strays() == []
        adding.reject()
        dialog.close()
        win.search_action.trigger()
        spin_until(qloop, lambda: win.search_dialog is not None and win.search_dialog.isVisible())
        assert shown_windows.strays() == []
        win.search_dialog.close()
        automations = win.dialogs.open_automations()
        qloop.run_until_complete(automations.loading)
        assert shown_windows.strays() == []
        automations.close()
        assert {"Settings", "Add MCP server", "Search chats", "Automations"} <= set(shown_windows.titles())
    finally:
        for widget in QApplication.topLevelWidgets():
            if widget is not win and widget.isVisible():
                widget.close()
        win.close()
