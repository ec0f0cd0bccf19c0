"""Keyboard focus is visible on every button and chip of the window: the styled controls draw no focus
rectangle of their own, so a ring follows the focus when Tab brings it (and only then)."""

from PySide6.QtCore import QPoint, QRect, Qt
from PySide6.QtWidgets import QAbstractButton, QApplication, QComboBox

from pidesktop.ui.kit import focus_ring
from pidesktop.ui.kit import theme as themes
from tests.support.waits import spin_until


def around(widget) -> QRect:
    """The control and a few pixels around it, in its window's coordinates."""
    return QRect(widget.mapTo(widget.window(), QPoint(0, 0)), widget.size()).adjusted(-4, -4, 4, 4)


def test_every_button_and_chip_reached_with_tab_shows_a_ring(chat, qtbot, qloop):
    themes.apply(QApplication.instance(), themes.LIGHT)  # the styled controls, as the app draws them
    qloop.run_until_complete(chat.chats.send_prompt("hello there"))
    spin_until(qloop, lambda: not chat.runner.is_running(chat.current_session_id))
    prompt = chat.composer.edit
    prompt.setFocus()
    ringed = []
    for _ in range(40):
        qtbot.keyClick(QApplication.focusWidget(), Qt.Key.Key_Tab)
        control = QApplication.focusWidget()
        if control is prompt:
            break
        if not isinstance(control, (QAbstractButton, QComboBox)):
            assert focus_ring.shown_on() is None  # text, lists and the transcript show focus themselves
            continue
        spin_until(qloop, lambda control=control: focus_ring.shown_on() is control)
        with_ring = chat.grab(around(control)).toImage()
        prompt.setFocus()  # away, not by the keyboard: the ring goes
        spin_until(qloop, lambda: focus_ring.shown_on() is None)
        assert chat.grab(around(control)).toImage() != with_ring, control.objectName()
        ringed.append(control.objectName())
        control.setFocus(Qt.FocusReason.TabFocusReason)  # back, to go on from it
    assert {"attachButton", "sendButton", "newChat", "viewButton", "projectPicker", "inboxBell"} <= set(ringed)


def test_a_click_leaves_no_ring(chat, qtbot, qloop):
    themes.apply(QApplication.instance(), themes.LIGHT)
    button = chat.sidebar.automations_button
    qtbot.keyClick(chat.composer.edit, Qt.Key.Key_Tab)
    spin_until(qloop, lambda: focus_ring.shown_on() is not None)
    qtbot.mouseClick(chat.composer.edit, Qt.MouseButton.LeftButton)
    spin_until(qloop, lambda: focus_ring.shown_on() is None)
    button.setFocus(Qt.FocusReason.MouseFocusReason)
    spin_until(qloop, lambda: QApplication.focusWidget() is button)
    assert focus_ring.shown_on() is None
