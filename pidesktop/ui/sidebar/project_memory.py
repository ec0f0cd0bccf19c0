"""The notes editor: a project's memory, or a project group's memory and instructions.

Plain text or Markdown, given to the model with every message of a chat in
the project as the person's own notes. Each note holds at most 32 KiB of UTF-8;
a counter under it counts bytes (a Chinese character is three), and over the
cap Save is disabled and a sentence under the box says why. What was typed is
never thrown away: a failed save keeps the dialog open with the text in it, and closing it with changes
not saved asks first (Save, Discard, Keep editing).
"""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QDialog, QDialogButtonBox, QLabel, QMessageBox, QPlainTextEdit, QVBoxLayout, QWidget

from pidesktop.bus import HostClient, HostError
from pidesktop.ui.kit import discard_question, i18n, plain_errors
from pidesktop.ui.kit.dialog_style import current_theme, set_severity, stylesheet
from pidesktop.ui.kit.ops import Op, host_op

LIMIT = 32 * 1024  # bytes of UTF-8, as the host counts them


@dataclass
class Note:
    """One editable note: what it is called, and the host commands that read and write it."""

    label: str
    hint: str
    get: str  # e.g. "projects.memoryGet"
    set: str  # e.g. "projects.memorySet"
    params: dict  # e.g. {"projectId": 3}


class NoteField(QWidget):
    changed = Signal()

    def __init__(self, note: Note, parent: QWidget | None = None):
        super().__init__(parent)
        self.note = note
        self.title = QLabel(f"<b>{note.label}</b>")
        self.hint = QLabel(note.hint)
        self.hint.setWordWrap(True)
        self.hint.setObjectName("hint")
        self.edit = QPlainTextEdit()
        self.edit.setObjectName("noteEdit")
        self.edit.setPlaceholderText(self.tr("Nothing written yet."))
        self.edit.setTabChangesFocus(True)
        self.counter = QLabel()
        self.counter.setObjectName("byteCounter")
        self.counter.setAlignment(Qt.AlignmentFlag.AlignRight)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(6)
        layout.addWidget(self.title)
        layout.addWidget(self.hint)
        layout.addWidget(self.edit, 1)
        layout.addWidget(self.counter)
        self.edit.textChanged.connect(self._count)
        self._count()

    def size(self) -> int:
        return len(self.edit.toPlainText().encode("utf-8"))

    def over(self) -> bool:
        return self.size() > LIMIT

    def _count(self) -> None:
        self.counter.setText(i18n.arg(self.tr("%1 of %2 bytes"), f"{self.size():,}", f"{LIMIT:,}"))
        self.counter.setProperty("over", self.over())
        self.counter.style().unpolish(self.counter)
        self.counter.style().polish(self.counter)
        self.changed.emit()


class NotesEditor(QDialog):
    """Edits one or more notes and saves them together; ``saved`` after every note was stored."""

    saved = Signal()

    def __init__(self, client: HostClient, title: str, intro: str, notes: list[Note], parent: QWidget | None = None):
        super().__init__(parent)
        self.client = client
        self.setObjectName("notesEditor")
        self.setWindowTitle(title)
        self.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose, True)
        self.setWindowModality(Qt.WindowModality.WindowModal)
        self.resize(620, 520 if len(notes) == 1 else 680)
        theme = current_theme(parent)
        self.setStyleSheet(
            stylesheet(theme)
            + f"""
QLabel#hint {{ color: {theme.muted}; }}
QLabel#byteCounter {{ color: {theme.muted}; }}
QLabel#byteCounter[over="true"] {{ color: {theme.danger}; font-weight: 600; }}
QPlainTextEdit {{ border: 1px solid {theme.border}; border-radius: 8px; padding: 6px;
                  background: {theme.background}; color: {theme.text}; }}
"""
        )
        self.intro = QLabel(intro)
        self.intro.setWordWrap(True)
        self.fields = [NoteField(note) for note in notes]
        self.problem = QLabel()
        self.problem.setObjectName("report")
        self.problem.setWordWrap(True)
        self.problem.hide()
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Save | QDialogButtonBox.StandardButton.Cancel)
        self.save_button = self.buttons.button(QDialogButtonBox.StandardButton.Save)
        self.buttons.accepted.connect(self.save)
        self.buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(20, 20, 20, 16)
        layout.setSpacing(12)
        layout.addWidget(self.intro)
        for field in self.fields:
            layout.addWidget(field, 1)
            field.changed.connect(self._check)
        layout.addWidget(self.problem)
        layout.addWidget(self.buttons)
        self._loaded = False
        self._stored: list[str] = []  # each note as the host gave it: what a close compares with
        self.question: QMessageBox | None = None  # the Save / Discard / Keep editing box while it is open
        self._check()

    async def load(self) -> bool:
        """Fill every field from the host; False (the failure reported) when one could not be read."""
        self.save_button.setEnabled(False)
        for field in self.fields:
            result = await host_op(self.client, field.note.get, field.note.params, parent=self, failure=self._failed)
            if result is None:
                return False
            field.edit.setPlainText(result["text"])
            self._stored.append(result["text"])
        self._loaded = True
        self._check()
        return True

    def unsaved(self) -> bool:
        """Text typed that is not stored yet."""
        return self._loaded and [field.edit.toPlainText() for field in self.fields] != self._stored

    def reject(self) -> None:
        """Esc, Cancel or the window's ×: with changes not saved, ask before they are lost."""
        if not self.unsaved():
            super().reject()
            return
        what = self.tr("your changes to “%1”").replace("%1", self.windowTitle())
        discard_question.ask(self, what, self.save, super().reject)

    def _check(self) -> None:
        over = [field for field in self.fields if field.over()]
        if over:
            field = over[0]
            self._show(
                i18n.arg(
                    self.tr(
                        "“%1” is %2 bytes, more than the %3 bytes (32 KiB) it can hold, so it "
                        "can’t be saved. Shorten it; the counter turns grey when it fits."
                    ),
                    field.note.label,
                    f"{field.size():,}",
                    f"{LIMIT:,}",
                )
            )
        elif self.problem.property("severity") != "error":
            self.problem.hide()
        self.save_button.setEnabled(self._loaded and not over)
        self.save_button.setToolTip(self.problem.text() if over else "")

    def _show(self, text: str, severity: str = "info") -> None:
        self.problem.setText(text)
        set_severity(self.problem, severity)
        self.problem.show()

    def _failed(self, error: HostError) -> None:
        self._show(plain_errors.sentence(error), "error")

    def save(self) -> Op:
        """Store every note in turn; the dialog closes only when all were stored."""

        async def store() -> bool:
            for field in self.fields:
                await self.client.call(field.note.set, {**field.note.params, "text": field.edit.toPlainText()})
            return True

        def done(_result) -> None:
            self.saved.emit()
            self.accept()

        op = Op(store, self, done, self._failed, (self.save_button,), "notes-save")
        op.run()
        return op
