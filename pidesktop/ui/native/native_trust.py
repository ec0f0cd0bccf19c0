"""The question before a pi session is continued in a folder not trusted yet (spec 004, section 12, NP.9).

The host keeps the answer (``native.trust``), by the folder's real path, for
every pi session working there. Declining, or closing the question, trusts
nothing; the caller gives the prompt back.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QCoreApplication
from PySide6.QtWidgets import QMessageBox, QWidget

from pidesktop.ui.kit.dialog_style import style_message_box


def ask_trust(parent: QWidget, cwd: str, on_trust: Callable[[], None], on_decline: Callable[[], None]) -> QMessageBox:
    """Ask whether to trust ``cwd``; exactly one of the two callbacks runs when the question closes."""
    box = QMessageBox(
        QMessageBox.Icon.Question,
        QCoreApplication.translate("NativeTrust", "Trust this folder?"),
        QCoreApplication.translate("NativeTrust", "This pi session works in %1. Continue it there?").replace("%1", cwd),
        QMessageBox.StandardButton.Cancel,
        parent,
    )
    box.setObjectName("nativeTrustBox")
    box.setInformativeText(
        QCoreApplication.translate(
            "NativeTrust",
            "pidesktop continues a pi session only in a folder you trust. "
            "Your answer is kept for every pi session in this folder.",
        )
    )
    trust_button = box.addButton(
        QCoreApplication.translate("NativeTrust", "Trust and continue"), QMessageBox.ButtonRole.AcceptRole
    )
    box.setDefaultButton(QMessageBox.StandardButton.Cancel)
    style_message_box(box)

    def finished(_result: int) -> None:
        if box.clickedButton() is trust_button:
            on_trust()
        else:
            on_decline()

    box.finished.connect(finished)
    box.open()
    return box
