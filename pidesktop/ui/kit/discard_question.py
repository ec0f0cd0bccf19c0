"""Closing a window that holds typed text not yet saved asks first: Save, Discard, or Keep editing.

A dialog routes its ``reject`` (Esc, Cancel, the window's ×) through :func:`ask` while it has
unsaved changes, so text a person typed is never thrown away without a word.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QCoreApplication, Qt
from PySide6.QtWidgets import QMessageBox, QWidget

from pidesktop.ui.kit import i18n
from pidesktop.ui.kit.dialog_style import style_message_box


def ask(
    owner: QWidget,
    what: str,
    save: Callable[[], object],
    discard: Callable[[], object],
    keep: Callable[[], object] | None = None,
) -> QMessageBox:
    """Ask ``owner``'s person whether to save ``what`` ("your changes to the project memory"); the box is
    window-modal and opened with ``open()``. Keep editing (the default, and Esc) leaves the text as it is (and
    runs ``keep``). One box at a time: the open one is kept in ``owner.question`` (None once it is answered),
    and asking again while it is open gives it back."""
    open_box = getattr(owner, "question", None)
    if open_box is not None:
        return open_box
    translate = QCoreApplication.translate
    box = QMessageBox(
        QMessageBox.Icon.Question,
        translate("DiscardQuestion", "Unsaved changes"),
        i18n.arg(translate("DiscardQuestion", "Save %1?"), what),
        QMessageBox.StandardButton.NoButton,
        owner,
    )
    box.setObjectName("discardQuestion")
    box.setInformativeText(translate("DiscardQuestion", "Discard throws away what you typed."))
    save_button = box.addButton(translate("DiscardQuestion", "Save"), QMessageBox.ButtonRole.AcceptRole)
    discard_button = box.addButton(translate("DiscardQuestion", "Discard"), QMessageBox.ButtonRole.DestructiveRole)
    keep_button = box.addButton(translate("DiscardQuestion", "Keep editing"), QMessageBox.ButtonRole.RejectRole)
    box.setDefaultButton(keep_button)
    box.setEscapeButton(keep_button)
    box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose, True)
    style_message_box(box)

    def answered(button) -> None:
        if button is save_button:
            save()
        elif button is discard_button:
            discard()
        elif keep is not None:
            keep()

    box.buttonClicked.connect(answered)
    owner.question = box  # type: ignore[attr-defined]
    box.destroyed.connect(lambda: setattr(owner, "question", None))
    box.open()
    return box
