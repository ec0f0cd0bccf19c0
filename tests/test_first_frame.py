"""The window's first frame: painted before its widgets exist, in the remembered theme, then replaced in place."""

from __future__ import annotations

import asyncio

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor

from pidesktop.agent.runner import TurnRunner
from pidesktop.storage.newest_chats import newest_chats
from pidesktop.ui.chat.chat_controller import ChatController
from pidesktop.ui.kit import theme as themes
from pidesktop.ui.kit.prefs import Preferences
from pidesktop.ui.startup.first_frame import COMPOSER_BOTTOM, SIDEBAR_WIDTH, FirstFrame
from pidesktop.ui.window.main_window import FIRST_PAGE, MainWindow
from tests.support.hosts import InProcessHost


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


def _early_window(qtbot, tmp_path=None):
    """A window showing its first frame with the composer's text box in it, as start-up has it before the build."""
    win = MainWindow(None, themes.LIGHT)
    qtbot.addWidget(win)
    win.resize(1100, 700)
    win.show()
    qtbot.waitExposed(win)
    prompt = win.first_frame.take_typing()
    return win, prompt.edit


def test_letters_typed_before_the_widgets_exist_show_at_once_and_stay_once_after(qtbot, qloop, host_client):
    win, box = _early_window(qtbot)
    assert win.focusWidget() is box and box.isVisible()
    qtbot.keyClicks(win.focusWidget(), "hello wrld")
    for _ in range(3):
        qtbot.keyClick(box, Qt.Key.Key_Left)
    qtbot.keyClicks(box, "ox")
    qtbot.keyClick(box, Qt.Key.Key_Backspace)  # moving and deleting act at once too
    assert box.toPlainText() == "hello world" and box.textCursor().position() == 8
    box.repaint()
    assert not win.built  # typed, shown and edited before a single widget of the window was built
    win.build(host_client, TurnRunner(host_client, offline_delay=0.0))
    edit = win.composer.edit
    assert edit.toPlainText() == "hello world"  # once: the composer has the very document typed into
    assert edit.textCursor().position() == 8 and win.focusWidget() is edit
    qtbot.keyClicks(edit, "!")
    assert edit.toPlainText() == "hello wo!rld"
    edit.undo()
    assert edit.toPlainText() == "hello world"
    edit.undo()  # the undo history came with it: the Backspace typed before the build is undone
    assert edit.toPlainText() == "hello woxrld"


def test_enter_typed_early_waits_with_what_follows_and_sends_once_the_window_is_built(
    qtbot, qloop, host_client, monkeypatch
):
    sent = []

    def send_prompt(_controller, text, _attachments):
        sent.append(text)
        return asyncio.sleep(0)

    monkeypatch.setattr(ChatController, "send_prompt", send_prompt)
    win, box = _early_window(qtbot)
    qtbot.keyClicks(box, "first")
    qtbot.keyClick(box, Qt.Key.Key_Return)
    qtbot.keyClicks(box, "second")
    assert box.toPlainText() == "first"  # no newline: Enter means Send, which only the built window can do
    win.build(host_client, TurnRunner(host_client, offline_delay=0.0))
    # the kept keys were replayed on the build, in order: "first" was sent, once, and "second" is the new prompt
    assert sent == ["first"]
    assert win.composer.edit.toPlainText() == "second"


def test_a_shortcut_typed_early_is_the_built_window_s(qtbot, qloop, host_client):
    win, box = _early_window(qtbot)
    qtbot.keyClicks(box, "hi")
    qtbot.keyClick(box, Qt.Key.Key_B, Qt.KeyboardModifier.ControlModifier)  # Toggle sidebar
    qtbot.keyClicks(box, "!")
    assert box.toPlainText() == "hi"
    win.build(host_client, TurnRunner(host_client, offline_delay=0.0))
    assert not win.sidebar.isVisibleTo(win)  # the shortcut did what it does in the built window
    assert win.composer.edit.toPlainText() == "hi!"


def test_the_sidebar_shows_the_newest_chats_before_the_build_and_the_built_window_keeps_it(
    qtbot, qloop, loop_hosts, location
):
    seeding = InProcessHost(location)
    for i in range(3):
        seeding.call("session.create", {"title": f"Early chat {i}"})
    seeding.stop()
    win = MainWindow(None, themes.LIGHT)
    qtbot.addWidget(win)
    win.resize(1100, 700)
    win.show()
    qtbot.waitExposed(win)
    early = newest_chats(location, FIRST_PAGE)
    win.show_chats_early(early)
    sidebar = win._early_sidebar[1]
    assert not win.built and sidebar.isVisible() and sidebar.window() is win  # in the frame's column
    assert sidebar.width() <= SIDEBAR_WIDTH and sidebar.x() == 0
    shown = {win._early_sidebar[0].session(s["id"])["title"] for s in early}
    assert shown == {"Early chat 0", "Early chat 1", "Early chat 2"}
    assert sidebar.testAttribute(Qt.WidgetAttribute.WA_TransparentForMouseEvents)  # clicks wait for the build
    assert sidebar.tree.actions() and not any(a.isEnabled() for a in sidebar.tree.actions())  # F2, Delete too
    client = loop_hosts.start()
    made = qloop.run_until_complete(client.call("session.create", {"title": "Made while the window was built"}))
    win.build(client, TurnRunner(client, offline_delay=0.0))
    assert win.sidebar is sidebar and sidebar.parent() is win.splitter  # the same widget, kept
    assert not sidebar.testAttribute(Qt.WidgetAttribute.WA_TransparentForMouseEvents)
    assert all(a.isEnabled() for a in sidebar.tree.actions())
    qloop.run_until_complete(win.start())
    assert win.model.session(made["session"]["id"]) is not None  # the host's list replaced the early rows
    assert all(win.model.session(s["id"]) is not None for s in early)


def test_a_hidden_sidebar_is_not_built_early(qtbot):
    prefs = Preferences(None)
    prefs.data["window"] = {"sidebarHidden": 1}
    win = MainWindow(None, themes.LIGHT, prefs=prefs)
    qtbot.addWidget(win)
    win.show_chats_early([{"id": "x", "title": "t", "updatedAt": 1}])
    assert win._early_sidebar is None


def test_a_first_start_opens_within_the_screen_with_room_for_the_title_bar(qtbot, tmp_path):
    """The design's 1280x800 does not fit a 1366x768 laptop (or this 800x800 offscreen screen) once the window
    manager adds its title bar: the composer would sit below the screen's edge."""
    from pidesktop.ui.window.main_window import DEFAULT_SIZE, FRAME_ALLOWANCE

    win = MainWindow(None, themes.LIGHT, prefs=Preferences(tmp_path / "ui"))
    qtbot.addWidget(win)
    free = win.screen().availableGeometry()
    assert free.height() < DEFAULT_SIZE[1] + FRAME_ALLOWANCE  # the case this test is about
    assert win.height() + FRAME_ALLOWANCE <= free.height()
    assert win.width() <= min(DEFAULT_SIZE[0], free.width())
