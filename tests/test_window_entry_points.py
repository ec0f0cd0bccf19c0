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


def test_keys_typed_in_the_sidebar_s_search_field_go_on_in_the_search_window(chat, qtbot, qloop):
    chat.chats.new_chat()
    qloop.run_until_complete(chat.chats.send_prompt("Plan the orchard for spring"))
    spin_until(qloop, lambda: not chat.runner.is_running(chat.current_session_id))
    entry = chat.sidebar.search_entry
    entry.setFocus()
    qtbot.keyClick(entry, Qt.Key.Key_O)
    dialog = spin_until(
        qloop, lambda: chat.search_dialog if chat.search_dialog and chat.search_dialog.isVisible() else None
    )
    assert dialog.field.text() == "o" and dialog.field.cursorPosition() == 1  # not selected: the next key adds
    qtbot.keyClicks(dialog.field, "rchard")
    assert dialog.field.text() == "orchard" and entry.text() == ""
    spin_until(qloop, lambda: dialog.model.rowCount() == 1)
    assert dialog.model.row_at(dialog.model.index(0))["title"] == "Plan the orchard for spring"
    dialog.reject()
    chat.dialogs.open_search()  # Ctrl+K later: the last search is kept, selected, as before
    assert dialog.field.text() == "orchard" and dialog.field.selectedText() == "orchard"
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
