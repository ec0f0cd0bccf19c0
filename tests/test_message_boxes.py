"""Question boxes (Delete…, Clear inbox…) read as sentences: a line of detail is not wrapped into a column."""

from PySide6.QtWidgets import QLabel, QMessageBox, QWidget

from pidesktop.ui.kit import theme as themes
from pidesktop.ui.kit.dialog_style import confirm, style_message_box

DETAIL = "It moves to the Trash (in the ··· menu), where you can restore it or delete it for good."


def detail_label(box: QMessageBox) -> QLabel:
    return box.findChild(QLabel, "qt_msgbox_informativelabel")


def test_a_sentence_of_detail_is_not_wrapped_into_a_column(qtbot):
    parent = QWidget()
    qtbot.addWidget(parent)
    parent.resize(900, 700)
    parent.show()
    box = QMessageBox(
        QMessageBox.Icon.Warning, "Delete chat", "Delete “Groceries”?", QMessageBox.StandardButton.Cancel, parent
    )
    box.setInformativeText(DETAIL)
    box.addButton("Delete", QMessageBox.ButtonRole.DestructiveRole)
    style_message_box(box, themes.LIGHT)
    box.show()
    qtbot.waitExposed(box)
    label = detail_label(box)
    assert label.height() < 4 * label.fontMetrics().lineSpacing(), label.height()  # 6 lines before
    box.close()


def test_confirm_boxes_have_the_app_s_look(qtbot):
    parent = QWidget()
    qtbot.addWidget(parent)
    parent.show()
    box = confirm(parent, "Empty the Trash", "Delete 3 chats for good?", "Delete", lambda: None)
    assert "qt_msgbox_informativelabel" in box.styleSheet()
    box.close()
