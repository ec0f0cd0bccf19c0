"""Edit on an assistant reply: the reply's text in an editor, saved as a new chat (``session.editReply``).

The chat the reply belongs to is never rewritten (spec 004, "Assistant
Edit"): the host forks it through the reply and stores the edited reply in
the fork, next to the original as its other variant. A refusal keeps the
dialog and what was typed; only a saved edit closes it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QDialog, QDialogButtonBox, QLabel, QPlainTextEdit, QVBoxLayout, QWidget

from pidesktop.bus import HostClient, HostError
from pidesktop.ui.kit.dialog_style import current_theme, stylesheet
from pidesktop.ui.kit.tasks import spawn


def reply_text(message: dict[str, Any]) -> str:
    return "\n\n".join(b.get("text", "") for b in message.get("blocks", []) if b.get("type") == "text")


class ReplyEditDialog(QDialog):
    def __init__(
        self,
        client: HostClient,
        session_id: str,
        message: dict[str, Any],
        on_saved: Callable[[dict[str, Any]], None],
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.client = client
        self.session_id = session_id
        self.message_id = str(message["id"])
        self.on_saved = on_saved
        self.setObjectName("replyEditDialog")
        self.setWindowTitle(self.tr("Edit reply"))
        self.setStyleSheet(stylesheet(current_theme(parent)))
        self.resize(620, 420)
        intro = QLabel(
            self.tr(
                "Your edited reply goes into a copy of this chat, which opens when you save. This chat stays as it is."
            )
        )
        intro.setWordWrap(True)
        self.editor = QPlainTextEdit(reply_text(message))
        self.editor.setObjectName("replyEditor")
        self.error = QLabel()
        self.error.setObjectName("notice")
        self.error.setWordWrap(True)
        self.error.hide()
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Save | QDialogButtonBox.StandardButton.Cancel)
        self.save_button = buttons.button(QDialogButtonBox.StandardButton.Save)
        self.save_button.setText(self.tr("Save as new chat"))
        buttons.accepted.connect(lambda: spawn(self.save(), name="reply-edit-save"))
        buttons.rejected.connect(self.reject)
        self.editor.textChanged.connect(self._text_changed)
        layout = QVBoxLayout(self)
        layout.addWidget(intro)
        layout.addWidget(self.editor, 1)
        layout.addWidget(self.error)
        layout.addWidget(buttons)
        self.editor.setFocus(Qt.FocusReason.OtherFocusReason)
        self._text_changed()

    def _text_changed(self) -> None:
        self.save_button.setEnabled(bool(self.editor.toPlainText().strip()))

    async def save(self) -> None:
        self.save_button.setEnabled(False)
        self.error.hide()
        params = {"sessionId": self.session_id, "messageId": self.message_id, "text": self.editor.toPlainText()}
        try:
            result = await self.client.call("session.editReply", params)
        except HostError as exc:
            self.error.setText(exc.message.removeprefix("session.editReply: "))
            self.error.show()
            return
        finally:
            self._text_changed()
        self.accept()
        self.on_saved(result)
