"""The window's first frame: painted before its widgets exist, in the remembered theme, then replaced in place."""

from __future__ import annotations

from PySide6.QtGui import QColor

from pidesktop.agent.runner import TurnRunner
from pidesktop.ui.kit import theme as themes
from pidesktop.ui.kit.prefs import Preferences
from pidesktop.ui.startup.first_frame import COMPOSER_BOTTOM, SIDEBAR_WIDTH, FirstFrame
from pidesktop.ui.window.main_window import MainWindow


def _pixel(widget, x: int, y: int) -> str:
    return QColor(widget.grab().toImage().pixel(x, y)).name().upper()


def test_the_first_frame_paints_the_layout_in_the_theme_and_says_when(qtbot):
    painted = []
    for theme in (themes.LIGHT, themes.DARK):
        frame = FirstFrame(theme, SIDEBAR_WIDTH)
        qtbot.addWidget(frame)
        frame.resize(1280, 800)
        frame.painted = lambda name=theme.name: painted.append(name)
        frame.show()
        qtbot.waitUntil(lambda name=theme.name: name in painted)
        assert _pixel(frame, 10, 400) == theme.sidebar
        assert _pixel(frame, SIDEBAR_WIDTH - 1, 400) == theme.border
        assert _pixel(frame, 700, 400) == theme.background
        assert _pixel(frame, 700, 55) == theme.border  # the header's rule
        assert _pixel(frame, 700, 800 - COMPOSER_BOTTOM - 1) == theme.border  # the composer box's lower edge
    assert painted == ["light", "dark"]  # once each


def test_a_hidden_sidebar_leaves_no_column(qtbot):
    frame = FirstFrame(themes.LIGHT, 0)
    qtbot.addWidget(frame)
    frame.resize(900, 600)
    assert _pixel(frame, 10, 300) == themes.LIGHT.background


def test_the_window_is_built_in_place_of_its_frame_and_a_close_meanwhile_waits_for_it(
    qtbot, qloop, host_client, tmp_path
):
    prefs = Preferences(tmp_path / "ui")
    prefs.data["window"] = {"splitter": [300, 900], "theme": "dark"}
    win = MainWindow(None, themes.DARK, prefs=prefs)
    qtbot.addWidget(win)
    win.resize(1200, 800)
    win.show()
    assert not win.built and win.centralWidget() is win.first_frame
    assert win.first_frame.sidebar_width == 300  # where the saved splitter puts the sidebar
    assert _pixel(win, 10, 400) == themes.DARK.sidebar
    win.close()  # a close before the widgets exist is kept for when they do
    assert win.isVisible()
    win.build(host_client, TurnRunner(host_client, offline_delay=0.0))
    assert win.built and win.first_frame is None and win.centralWidget() is win.splitter
    qtbot.waitUntil(lambda: not win.isVisible())  # the close came through, and kept the window's state
    saved = Preferences(tmp_path / "ui").data["window"]
    assert saved["theme"] == "dark" and saved["splitter"][0] == 300


def test_keys_typed_while_the_window_builds_reach_the_composer(qtbot, qloop, host_client):
    win = MainWindow(None, themes.LIGHT)
    qtbot.addWidget(win)
    win.show()
    qtbot.waitExposed(win)
    win.build(host_client, TurnRunner(host_client, offline_delay=0.0))
    qtbot.keyClicks(win.focusWidget(), "hello")  # the queued keys go to the widget that has the focus
    assert win.composer.edit.toPlainText() == "hello"
    assert win.focusWidget() is win.composer.edit
