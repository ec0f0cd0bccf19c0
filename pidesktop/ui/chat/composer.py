"""The composer: a growing text box, Send that turns into Stop while a reply streams.

Enter sends, Shift+Enter starts a new line; Esc stops a running reply. While a
reply runs, Enter queues the prompt after it and Steer (Ctrl+Enter) sends it
into the reply itself (``agent/steering.py``). Files
dropped or pasted, pictures pasted, and text longer than the large-paste
threshold become attachment chips above the prompt.
"""

from __future__ import annotations

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication, QEvent, QMimeData, QSize, Qt, Signal
from PySide6.QtGui import QImage, QKeyEvent, QKeySequence, QTextCursor, QTextDocument
from PySide6.QtWidgets import (
    QComboBox,
    QFrame,
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QSizePolicy,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from pidesktop.bus import HostClient
from pidesktop.ui.chat import permission_modes
from pidesktop.ui.chat.attachment_tray import AttachmentTray, FilePicker
from pidesktop.ui.chat.grants_chip import GrantsChip
from pidesktop.ui.chat.mcp_chip import McpChip
from pidesktop.ui.kit.flow_layout import FlowLayout

MAX_HEIGHT_FRACTION = 0.4
MIN_LINES = 1
PASTE_THRESHOLD_DEFAULT = 600  # the host's default for largePasteThreshold


def local_files(mime: QMimeData) -> list[str]:
    return [url.toLocalFile() for url in mime.urls() if url.isLocalFile()] if mime.hasUrls() else []


class PromptEdit(QPlainTextEdit):
    submitted = Signal()
    steerSubmitted = Signal()  # Ctrl+Enter: into the running reply, if one runs
    escapePressed = Signal()
    filesDropped = Signal(list)  # local paths, dropped or pasted
    imagePasted = Signal(QImage)
    longTextPasted = Signal(str)  # longer than paste_threshold characters

    def __init__(self, parent=None):
        super().__init__(parent)
        self.setObjectName("promptEdit")
        self.setPlaceholderText(self.tr("Message pidesktop…  (Enter to send, Shift+Enter for a new line)"))
        self.setTabChangesFocus(True)
        self.setFrameShape(QFrame.Shape.NoFrame)
        self.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAsNeeded)
        self.document().contentsChanged.connect(self.updateGeometry)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Maximum)
        self.max_height = 240
        self.paste_threshold = PASTE_THRESHOLD_DEFAULT

    def adopt(self, document: QTextDocument, cursor: QTextCursor) -> None:
        """Take over the document of the first frame's text box (what was typed while the window was built),
        with its cursor and undo history; the box goes with the frame, the document stays here."""
        self.document().contentsChanged.disconnect(self.updateGeometry)
        document.setParent(self)  # its own, as the one it replaces was (that one is deleted)
        self.setDocument(document)
        document.contentsChanged.connect(self.updateGeometry)
        self.setTextCursor(cursor)
        self.updateGeometry()

    def canInsertFromMimeData(self, source: QMimeData) -> bool:
        return bool(local_files(source)) or source.hasImage() or super().canInsertFromMimeData(source)

    def insertFromMimeData(self, source: QMimeData) -> None:
        """Paste and drop: files and pictures become attachments, a very long text too."""
        files = local_files(source)
        if files:
            self.filesDropped.emit(files)
        elif source.hasImage():
            self.imagePasted.emit(QImage(source.imageData()))
        elif source.hasText() and len(source.text()) > self.paste_threshold:
            self.longTextPasted.emit(source.text())
        else:
            super().insertFromMimeData(source)

    def event(self, event: QEvent) -> bool:
        if (
            event.type() == QEvent.Type.ShortcutOverride
            and isinstance(event, QKeyEvent)
            and event.matches(QKeySequence.StandardKey.Delete)
            and not self.toPlainText()
        ):
            event.ignore()  # nothing to delete here: Delete goes to the window (the chat picked in the sidebar)
            return True
        return super().event(event)

    def keyPressEvent(self, event: QKeyEvent) -> None:
        if event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter) and not (
            event.modifiers() & (Qt.KeyboardModifier.ShiftModifier | Qt.KeyboardModifier.AltModifier)
        ):
            steer = bool(event.modifiers() & Qt.KeyboardModifier.ControlModifier)
            (self.steerSubmitted if steer else self.submitted).emit()
            return
        if event.key() == Qt.Key.Key_Escape:
            self.escapePressed.emit()  # the window decides: close the inbox, end an edit, or stop the reply
            return
        super().keyPressEvent(event)

    def sizeHint(self) -> QSize:
        lines = max(MIN_LINES, int(self.document().size().height()))
        line_height = self.fontMetrics().lineSpacing()
        height = min(self.max_height, lines * line_height + 2 * int(self.document().documentMargin()) + 6)
        return QSize(super().sizeHint().width(), height)

    def minimumSizeHint(self) -> QSize:
        return QSize(100, self.fontMetrics().lineSpacing() + 14)


class ChipCombo(QComboBox):
    """A picker drawn as a chip: as wide as the choice it shows, not its longest choice."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.setObjectName("thinkingPicker")  # the chip look in the style sheet
        self.currentIndexChanged.connect(self.updateGeometry)

    def sizeHint(self) -> QSize:
        # From the text shown, not from QComboBox's hint: that one is measured once, from the choices the
        # box had when it was first shown, and clips a longer choice added later (a model list loaded late).
        return QSize(self.fontMetrics().horizontalAdvance(self.currentText()) + 26, super().sizeHint().height())

    def minimumSizeHint(self) -> QSize:
        return QSize(56, super().minimumSizeHint().height())


# Thinking levels a person picks from (spec 004, 4.5), English source texts shown translated.
THINKING_LEVELS = (
    ("off", QT_TRANSLATE_NOOP("Composer", "Thinking: off")),
    ("minimal", QT_TRANSLATE_NOOP("Composer", "Thinking: minimal")),
    ("low", QT_TRANSLATE_NOOP("Composer", "Thinking: low")),
    ("medium", QT_TRANSLATE_NOOP("Composer", "Thinking: medium")),
    ("high", QT_TRANSLATE_NOOP("Composer", "Thinking: high")),
    ("xhigh", QT_TRANSLATE_NOOP("Composer", "Thinking: extra high")),
    ("max", QT_TRANSLATE_NOOP("Composer", "Thinking: max")),
    ("omit", QT_TRANSLATE_NOOP("Composer", "Thinking: model default")),
)


# Operating modes (spec 004, sessions.mode): Plan and Goal negotiate a contract before any work.
MODES = (
    ("agent", QT_TRANSLATE_NOOP("Composer", "Agent")),
    ("plan", QT_TRANSLATE_NOOP("Composer", "Plan")),
    ("goal", QT_TRANSLATE_NOOP("Composer", "Goal")),
)
MODE_TIPS = {
    "agent": QT_TRANSLATE_NOOP("Composer", "Agent: answers and works on the request directly"),
    "plan": QT_TRANSLATE_NOOP("Composer", "Plan: proposes a step-by-step plan for you to approve first"),
    "goal": QT_TRANSLATE_NOOP("Composer", "Goal: agrees on the outcome and how to check it first"),
}


KEY_SEPARATOR = "\x1f"  # item data is a plain string: Qt keeps it exactly, unlike a tuple


def model_key(provider_id: str, model_id: str) -> str:
    return f"{provider_id}{KEY_SEPARATOR}{model_id}"


class Composer(QWidget):
    sendRequested = Signal(str, list)  # the prompt, its attachment blocks
    steerRequested = Signal(str, list)  # the same, sent into the running reply (Steer, Ctrl+Enter)
    stopRequested = Signal()  # the Stop button
    escapePressed = Signal()  # Esc in the prompt
    editCancelled = Signal()  # Cancel on the "editing an earlier message" bar
    thinkingChanged = Signal(str)  # the level the person picked for this chat
    modeChanged = Signal(str)  # agent | plan | goal
    modelChanged = Signal(str, str)  # provider id ("" = the default), model id
    permissionChanged = Signal(str)  # inherit | ask | accept-edits | auto: this chat's permission mode

    def __init__(self, client: HostClient | None = None, parent=None):
        super().__init__(parent)
        self.setObjectName("composer")
        self.setAcceptDrops(True)
        self.running = False
        self.edit = PromptEdit()
        self.tray = AttachmentTray(client)
        self.tray.changed.connect(self._tray_changed)
        self.edit.filesDropped.connect(self.tray.add_files)
        self.edit.imagePasted.connect(self.tray.add_image)
        self.edit.longTextPasted.connect(self.tray.add_text)
        self.attach_button = QToolButton()
        self.attach_button.setObjectName("attachButton")
        self.attach_button.setText(self.tr("Attach"))
        self.attach_button.setToolTip(self.tr("Attach files (or drop them here)"))
        self.attach_button.setCursor(Qt.CursorShape.PointingHandCursor)
        self.attach_button.clicked.connect(self.pick_files)
        self.send_button = QPushButton(self.tr("Send"))
        self.send_button.setObjectName("sendButton")
        self.send_button.setCursor(Qt.CursorShape.PointingHandCursor)
        self.send_button.setToolTip(self.tr("Send (Enter)"))
        self.send_button.clicked.connect(self._button_clicked)
        # While a reply runs, Enter queues the prompt after it; Steer sends it into the reply itself.
        self.steer_button = QPushButton(self.tr("Steer"))
        self.steer_button.setObjectName("steerButton")
        self.steer_button.setCursor(Qt.CursorShape.PointingHandCursor)
        self.steer_button.setToolTip(
            self.tr("Send this into the running reply: the model reads it at its next step (Ctrl+Enter)")
        )
        self.steer_button.clicked.connect(lambda: self._submit(steer=True))
        self.steer_button.hide()
        self.thinking = ChipCombo()
        self.thinking.setToolTip(self.tr("How much the model thinks before it answers (this chat)"))
        for value, label in THINKING_LEVELS:
            self.thinking.addItem(QCoreApplication.translate("Composer", label), value)
        self.thinking.activated.connect(lambda row: self.thinkingChanged.emit(self.thinking.itemData(row)))
        self.mode_picker = ChipCombo()
        for value, label in MODES:
            self.mode_picker.addItem(QCoreApplication.translate("Composer", label), value)
            self.mode_picker.setItemData(
                self.mode_picker.count() - 1,
                QCoreApplication.translate("Composer", MODE_TIPS[value]),
                Qt.ItemDataRole.ToolTipRole,
            )
        self.mode_picker.activated.connect(self._mode_picked)
        self._mode_picked(0, emit=False)
        self.permission_picker = ChipCombo()
        self.permission_picker.setObjectName("thinkingPicker")
        self.permission_picker.setAccessibleName(self.tr("Permissions for this chat"))
        self.permission_picker.addItem(permission_modes.inherit_label(None), permission_modes.INHERIT)
        for value, _label, _tip in permission_modes.MODES:
            self.permission_picker.addItem(permission_modes.chip_label(value), value)
            self.permission_picker.setItemData(
                self.permission_picker.count() - 1,
                f"{permission_modes.label(value)}: {permission_modes.tip(value)}",
                Qt.ItemDataRole.ToolTipRole,
            )
        self.permission_picker.activated.connect(self._permission_picked)
        self._permission_picked(0, emit=False)
        self.model_picker = ChipCombo()
        self.model_picker.setToolTip(self.tr("The model that answers in this chat"))
        self.model_picker.activated.connect(self._model_picked)
        self.set_models([], "")
        # which MCP servers' tools are on for the chat (shown once a server is configured)
        self.mcp_chip = McpChip(client) if client is not None else None
        # what the person allowed for the rest of the chat ("Allow for this chat"), with a way back
        self.grants_chip = GrantsChip(client) if client is not None else None
        self.status_label = QLabel("")
        self.status_label.setObjectName("muted")
        self.edit.submitted.connect(self._submit)
        self.edit.steerSubmitted.connect(lambda: self._submit(steer=self.running))
        self.edit.escapePressed.connect(self.escapePressed)
        self.edit_bar = QFrame()
        self.edit_bar.setObjectName("editBar")
        edit_bar_layout = QHBoxLayout(self.edit_bar)
        edit_bar_layout.setContentsMargins(8, 4, 4, 4)
        self.edit_bar_label = QLabel(
            self.tr(
                "Editing an earlier message. Send replaces it and what followed; the old version stays as a revision."
            )
        )
        self.edit_bar_label.setObjectName("muted")
        self.edit_bar_label.setWordWrap(True)
        self.edit_cancel = QPushButton(self.tr("Cancel"))
        self.edit_cancel.setObjectName("editCancel")
        self.edit_cancel.setFlat(True)
        self.edit_cancel.setCursor(Qt.CursorShape.PointingHandCursor)
        self.edit_cancel.setToolTip(self.tr("Stop editing and keep the conversation as it is (Esc)"))
        self.edit_cancel.clicked.connect(self.editCancelled)
        edit_bar_layout.addWidget(self.edit_bar_label, 1)
        edit_bar_layout.addWidget(self.edit_cancel, 0, Qt.AlignmentFlag.AlignVCenter)
        self.edit_bar.hide()
        self.status_label.setWordWrap(True)
        self.status_label.hide()

        frame = QFrame()
        frame.setObjectName("composerFrame")
        inner = QVBoxLayout(frame)
        inner.setContentsMargins(12, 10, 10, 8)
        inner.setSpacing(6)
        inner.addWidget(self.edit_bar)
        inner.addWidget(self.tray)
        inner.addWidget(self.edit)
        inner.addWidget(self.status_label)
        # The chips wrap onto a second line rather than squeeze: a long model name is shown whole.
        chips = QWidget()
        chip_row = FlowLayout(chips)
        chip_row.addWidget(self.attach_button)
        chip_row.addWidget(self.mode_picker)
        chip_row.addWidget(self.permission_picker)
        if self.grants_chip is not None:
            chip_row.addWidget(self.grants_chip)
        chip_row.addWidget(self.model_picker)
        chip_row.addWidget(self.thinking)
        if self.mcp_chip is not None:
            chip_row.addWidget(self.mcp_chip)
        bottom = QHBoxLayout()
        bottom.addWidget(chips, 1)
        bottom.addWidget(self.steer_button, 0, Qt.AlignmentFlag.AlignBottom)
        bottom.addWidget(self.send_button, 0, Qt.AlignmentFlag.AlignBottom)
        inner.addLayout(bottom)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 8, 0, 16)
        layout.addWidget(frame)
        self._refresh_button()

    def set_models(self, choices: list[tuple[str, str, str]], default_label: str) -> None:
        """``choices``: (provider id, model id, label); the first entry is always "Default (...)"."""
        current = self.model_picker.currentData()
        self.model_picker.clear()
        self.model_picker.addItem(
            self.tr("Default model") + (f" ({default_label})" if default_label else ""), model_key("", "")
        )
        for provider_id, model_id, label in choices:
            self.model_picker.addItem(label, model_key(provider_id, model_id))
        if current is not None:
            self.show_model(*current.split(KEY_SEPARATOR, 1))

    def show_model(self, provider_id: str | None, model_id: str | None) -> None:
        """Show the chat's stored choice (without emitting modelChanged)."""
        row = self.model_picker.findData(model_key(provider_id or "", model_id or ""))
        self.model_picker.setCurrentIndex(max(0, row))

    def _model_picked(self, row: int) -> None:
        provider_id, model_id = self.model_picker.itemData(row).split(KEY_SEPARATOR, 1)
        self.modelChanged.emit(provider_id, model_id)

    def set_thinking(self, level: str) -> None:
        """Show the chat's stored level (without emitting thinkingChanged)."""
        row = self.thinking.findData(level)
        if row >= 0:
            self.thinking.setCurrentIndex(row)

    def set_mode(self, mode: str) -> None:
        """Show the chat's stored mode (without emitting modeChanged)."""
        row = self.mode_picker.findData(mode)
        self._mode_picked(max(0, row), emit=False)

    def _mode_picked(self, row: int, emit: bool = True) -> None:
        self.mode_picker.setCurrentIndex(row)
        value = self.mode_picker.itemData(row)
        self.mode_picker.setToolTip(QCoreApplication.translate("Composer", MODE_TIPS[value]))
        if emit:
            self.modeChanged.emit(value)

    def set_permission(self, mode: str | None) -> None:
        """Show the chat's stored permission mode (without emitting permissionChanged)."""
        row = self.permission_picker.findData(mode or permission_modes.INHERIT)
        self._permission_picked(max(0, row), emit=False)

    def set_default_permission(self, default: str | None) -> None:
        """The Settings default changed: the "Default: …" choice names the new one."""
        self.default_permission = default or permission_modes.DEFAULT_MODE
        self.permission_picker.setItemText(0, permission_modes.inherit_label(default))
        self._permission_picked(self.permission_picker.currentIndex(), emit=False)

    def _permission_picked(self, row: int, emit: bool = True) -> None:
        self.permission_picker.setCurrentIndex(row)
        value = self.permission_picker.itemData(row)
        effective = getattr(self, "default_permission", permission_modes.DEFAULT_MODE)
        if value != permission_modes.INHERIT:
            effective = value
        follows = self.tr("Follows Settings > General. ") if value == permission_modes.INHERIT else ""
        said = f"{permission_modes.label(effective)}: {permission_modes.tip(effective)}"
        self.permission_picker.setToolTip(follows + said)
        self.permission_picker.updateGeometry()
        if emit:
            self.permissionChanged.emit(value)

    def set_running(self, running: bool) -> None:
        self.running = running
        self._refresh_button()

    def set_editing(self, text: str | None, attachments: list[dict] | None = None, focus: bool = True) -> None:
        """Editing an earlier prompt: its text and attachments in the box, a bar saying so; None ends it."""
        self.edit_bar.setVisible(text is not None)
        if text is None:
            return
        self.put_draft(text, attachments or [])
        if focus:
            self.focus_prompt()

    @property
    def editing(self) -> bool:
        return not self.edit_bar.isHidden()

    def take_draft(self) -> tuple[str, list[dict]]:
        """What the person has typed and attached so far; the box is left empty."""
        draft = (self.edit.toPlainText(), self.tray.blocks())
        self.edit.clear()
        self.tray.clear()
        return draft

    def put_draft(self, text: str, attachments: list[dict]) -> None:
        self.edit.setPlainText(text)
        self.edit.moveCursor(QTextCursor.MoveOperation.End)
        self.tray.set_blocks(attachments)

    def give_back(self, text: str, attachments: list[dict], reason: str) -> None:
        """A prompt that could not be sent goes back into the box (before anything typed since), with why."""
        typed, typed_attachments = self.take_draft()
        joined = text if not typed.strip() else f"{text}\n\n{typed}"
        self.put_draft(joined, [*attachments, *typed_attachments])
        self.show_status(reason)

    def show_status(self, text: str) -> None:
        self.status_label.setText(text)
        self.status_label.setVisible(bool(text))

    def focus_prompt(self) -> None:
        self.edit.setFocus(Qt.FocusReason.OtherFocusReason)

    def pick_files(self) -> None:
        paths, _filter = FilePicker.choose(self, self.tr("Attach files"))
        if paths:
            self.tray.add_files(paths)

    def dragEnterEvent(self, event) -> None:
        if local_files(event.mimeData()) or event.mimeData().hasImage():
            event.acceptProposedAction()

    def dropEvent(self, event) -> None:
        self.edit.insertFromMimeData(event.mimeData())
        event.acceptProposedAction()

    def _tray_changed(self) -> None:
        if not self.tray.pending() and self.status_label.text() == self._waiting_text():
            self.show_status("")

    def _waiting_text(self) -> str:
        return self.tr("Adding attachments… Send when they are ready.")

    def _refresh_button(self) -> None:
        self.steer_button.setVisible(self.running)
        self.send_button.setText(self.tr("Stop") if self.running else self.tr("Send"))
        self.send_button.setToolTip(self.tr("Stop the reply (Esc)") if self.running else self.tr("Send (Enter)"))
        # The style sheet styles #sendButton and #stopButton differently.
        self.send_button.setObjectName("stopButton" if self.running else "sendButton")
        self.send_button.style().unpolish(self.send_button)
        self.send_button.style().polish(self.send_button)

    def _button_clicked(self) -> None:
        if self.running:
            self.stopRequested.emit()
        else:
            self._submit()

    def _submit(self, steer: bool = False) -> None:
        text = self.edit.toPlainText()
        if self.tray.pending():
            self.show_status(self._waiting_text())
            return
        attachments = self.tray.blocks()
        if not text.strip() and not attachments:
            return
        self.show_status("")
        self.edit.clear()
        self.tray.clear()
        (self.steerRequested if steer else self.sendRequested).emit(text, attachments)
