"""What a person finds by looking, not by knowing the shortcuts: the sidebar's search field, Settings in
the sidebar's footer and the header's model chip, each opening its window in a started main window."""

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

from tests.support.waits import spin_until


def test_a_click_on_the_sidebar_s_search_field_opens_the_search_window(chat, qtbot, qloop):
    qtbot.mouseClick(chat.sidebar.search_entry, Qt.MouseButton.LeftButton)
    dialog = spin_until(qloop, lambda: chat.search_dialog)
    assert dialog.isVisible() and QApplication.focusWidget() is dialog.field
    dialog.reject()


def test_the_sidebar_s_search_field_never_takes_the_keyboard(chat, qtbot, qloop):
    """Ctrl+K is its key; focusable, it would catch the focus whenever a focused widget hides."""
    entry = chat.sidebar.search_entry
    assert entry.focusPolicy() == Qt.FocusPolicy.NoFocus
    chat.composer.focus_prompt()
    for _ in range(40):  # Tab all the way round the window: it is never a stop
        QApplication.focusWidget().focusNextChild()
        assert QApplication.focusWidget() is not entry
    qtbot.keyClick(chat, Qt.Key.Key_K, Qt.KeyboardModifier.ControlModifier)
    dialog = spin_until(qloop, lambda: chat.search_dialog)
    assert dialog.isVisible() and QApplication.focusWidget() is dialog.field
    dialog.reject()


def test_settings_in_the_sidebar_s_footer_opens_settings(chat, qtbot, qloop):
    qtbot.mouseClick(chat.sidebar.settings_button, Qt.MouseButton.LeftButton)
    dialog = spin_until(qloop, lambda: chat.settings_dialog)
    assert dialog.isVisible() and dialog.pages.currentIndex() == 0  # General
    dialog.reject()


def test_the_model_chip_opens_settings_on_providers(chat, qtbot, qloop):
    chip = spin_until(qloop, lambda: chat.model_chip if chat.model_chip.isVisible() else None)
    qtbot.mouseClick(chip, Qt.MouseButton.LeftButton)
    dialog = spin_until(qloop, lambda: chat.settings_dialog)
    assert dialog.isVisible() and dialog.pages.currentWidget().widget() is dialog.providers
    qtbot.mouseClick(chat.sidebar.settings_button, Qt.MouseButton.LeftButton)  # already open: raised, not a second
    assert chat.settings_dialog is dialog
    dialog.reject()
