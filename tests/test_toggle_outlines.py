"""Check boxes and radio buttons show their box on the dark theme, in every dialog that has them.

Fusion draws the box's outline as a darker shade of the window colour, which on the dark theme is
nearly the background itself (the search dialog's "Automation runs" box was all but invisible).
"""

from __future__ import annotations

import pytest
import shiboken6
from PySide6.QtGui import QColor

from pidesktop.ui.kit import theme as themes
from pidesktop.ui.search.search_dialog import SearchDialog
from pidesktop.ui.settings.mcp_server_dialog import McpServerDialog

VISIBLE = 40  # the least lightness between the box's outline and the background a person can see at once


def outline_contrast(box, background: str) -> int:
    """The most any pixel of the box's left part (where the style draws it) differs in lightness from the
    background: an unchecked box shows only its outline there."""
    image = box.grab().toImage()
    base = QColor(background).lightness()
    return max(
        abs(QColor(image.pixel(x, y)).lightness() - base)
        for x in range(min(18, image.width()))
        for y in range(image.height())
    )


@pytest.fixture
def dark(qapp):
    themes.apply(qapp, themes.DARK)
    yield themes.DARK
    themes.apply(qapp, themes.LIGHT)


def test_the_search_dialogs_filter_box_shows_on_the_dark_theme(qtbot, dark):
    dialog = SearchDialog(None, dark)
    qtbot.addWidget(dialog)
    assert not dialog.runs_filter.isChecked()
    assert outline_contrast(dialog.runs_filter, dark.background) >= VISIBLE


def test_the_mcp_server_dialogs_choices_show_on_the_dark_theme(qtbot, dark):
    dialog = McpServerDialog(None)
    qtbot.addWidget(dialog)
    assert dialog.stdio.isChecked() and not dialog.http.isChecked()
    assert outline_contrast(dialog.http, dark.background) >= VISIBLE


def test_the_settings_check_boxes_show_on_the_dark_theme_and_after_a_switch_back(open_settings, dark, qapp):
    dialog = open_settings(dark)
    box = dialog.general.network_check
    box.setChecked(False)
    assert outline_contrast(box, dark.background) >= VISIBLE
    themes.apply(qapp, themes.LIGHT)
    dialog.apply_theme(themes.LIGHT)
    assert outline_contrast(box, themes.LIGHT.background) >= VISIBLE
    assert shiboken6.isValid(box)
