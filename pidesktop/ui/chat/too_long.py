"""The question before a prompt too long for the model's context window: nothing is sent until it fits.

The prompt is already back in the composer when this asks; the person may
have the earlier messages summarised and the prompt sent, take the largest
attachments out, or keep editing.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import cast

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication
from PySide6.QtWidgets import QAbstractButton, QMessageBox, QPushButton, QWidget

from pidesktop.ui.chat.usage_format import short_tokens
from pidesktop.ui.kit.dialog_style import style_message_box

COMPACT, TRIM = "compact", "trim"
# Marked for translation here (lupdate reads QT_TRANSLATE_NOOP), translated when shown.
TITLE = QT_TRANSLATE_NOOP("TooLong", "Message too long")
TEXT = QT_TRANSLATE_NOOP("TooLong", "This message is too long for the model’s context window, so it was not sent.")
DETAIL = QT_TRANSLATE_NOOP(
    "TooLong",
    "With the conversation so far it needs about %1 tokens; the model takes about %2 per message "
    "(a %3 context window, with room kept for the reply). Your message is still in the box.",
)
SUMMARISE = QT_TRANSLATE_NOOP("TooLong", "Summarise earlier messages and send")
REMOVE = QT_TRANSLATE_NOOP("TooLong", "Remove the largest attachments")
KEEP = QT_TRANSLATE_NOOP("TooLong", "Keep editing")


def _tr(text: object) -> str:
    """``text`` is a QT_TRANSLATE_NOOP marker (typed ``object`` by the stubs; the string itself)."""
    return QCoreApplication.translate("TooLong", str(text))


def can_compact(fit: dict) -> bool:
    """Summarising the earlier messages helps only when there are some and the prompt alone fits."""
    return fit["history"] > 0 and fit["prompt"] <= fit["budget"]


def ask(parent: QWidget, fit: dict, attachments: int, chosen: Callable[[str], None]) -> QMessageBox:
    """A window-modal question, opened with ``open()``; ``chosen`` gets ``COMPACT`` or ``TRIM``."""
    box = QMessageBox(
        QMessageBox.Icon.Warning,
        _tr(TITLE),
        _tr(TEXT),
        QMessageBox.StandardButton.Cancel,
        parent,
    )
    box.setObjectName("tooLongBox")
    box.setInformativeText(
        _tr(DETAIL)
        .replace("%1", short_tokens(fit["tokens"]))
        .replace("%2", short_tokens(fit["budget"]))
        .replace("%3", short_tokens(fit["window"]))
    )
    choices: dict[QAbstractButton, str] = {}
    if can_compact(fit):
        choices[box.addButton(_tr(SUMMARISE), QMessageBox.ButtonRole.AcceptRole)] = COMPACT
    if attachments:
        choices[box.addButton(_tr(REMOVE), QMessageBox.ButtonRole.ActionRole)] = TRIM
    cancel = box.button(QMessageBox.StandardButton.Cancel)
    cancel.setText(_tr(KEEP))
    box.setDefaultButton(cast(QPushButton, cancel))  # a standard button of a QMessageBox is a QPushButton
    style_message_box(box)

    def finished(_result: int) -> None:
        choice = choices.get(box.clickedButton())
        if choice is not None:
            chosen(choice)

    box.finished.connect(finished)
    box.open()
    return box
