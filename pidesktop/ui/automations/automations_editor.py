"""The editor of one automation: name, prompt, schedule, model, thinking, project or folder, chat, mode,
permissions, on/off.

Permissions is the task's own ``permissionMode`` (spec 004, 4.11): without
one, a scheduled run asks first (and, with nobody there to answer, what
needs asking is skipped and the model told why) and Run now follows the
default in Settings.

Input is checked as it is typed (a time that is not HH:MM, no weekday, an
empty name or prompt) and again by the host; either way the message stands
under the field it is about, and nothing typed is thrown away. ``values()``
returns the ``tasks.create`` / ``tasks.update`` fields, or None while
something is wrong.
"""

from __future__ import annotations

import os
import re
from datetime import datetime

from PySide6.QtCore import QT_TRANSLATE_NOOP, QDateTime, Qt, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDateTimeEdit,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QPushButton,
    QSpinBox,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)

from pidesktop.ui.chat import permission_modes
from pidesktop.ui.kit.plain_errors import sentence

KINDS = (
    ("interval", QT_TRANSLATE_NOOP("TaskEditor", "Every few minutes")),
    ("hourly", QT_TRANSLATE_NOOP("TaskEditor", "Every few hours")),
    ("daily", QT_TRANSLATE_NOOP("TaskEditor", "Every day")),
    ("weekly", QT_TRANSLATE_NOOP("TaskEditor", "On some weekdays")),
    ("once", QT_TRANSLATE_NOOP("TaskEditor", "Once")),
)
MODES = (
    ("agent", QT_TRANSLATE_NOOP("TaskEditor", "Agent")),
    ("plan", QT_TRANSLATE_NOOP("TaskEditor", "Plan")),
    ("goal", QT_TRANSLATE_NOOP("TaskEditor", "Goal")),
)
THINKING: tuple[tuple[str | None, object], ...] = (
    (None, QT_TRANSLATE_NOOP("TaskEditor", "Off (default)")),
    ("minimal", QT_TRANSLATE_NOOP("TaskEditor", "Minimal")),
    ("low", QT_TRANSLATE_NOOP("TaskEditor", "Low")),
    ("medium", QT_TRANSLATE_NOOP("TaskEditor", "Medium")),
    ("high", QT_TRANSLATE_NOOP("TaskEditor", "High")),
    ("xhigh", QT_TRANSLATE_NOOP("TaskEditor", "Extra high")),
    ("max", QT_TRANSLATE_NOOP("TaskEditor", "Maximum")),
)
SESSION_MODES = (
    ("perRun", QT_TRANSLATE_NOOP("TaskEditor", "A new chat for each run")),
    ("reuse", QT_TRANSLATE_NOOP("TaskEditor", "Continue the same chat each run")),
)
DAYS = (
    QT_TRANSLATE_NOOP("TaskEditor", "Mon"),
    QT_TRANSLATE_NOOP("TaskEditor", "Tue"),
    QT_TRANSLATE_NOOP("TaskEditor", "Wed"),
    QT_TRANSLATE_NOOP("TaskEditor", "Thu"),
    QT_TRANSLATE_NOOP("TaskEditor", "Fri"),
    QT_TRANSLATE_NOOP("TaskEditor", "Sat"),
    QT_TRANSLATE_NOOP("TaskEditor", "Sun"),
)
_TIME = re.compile(r"^([01][0-9]|2[0-3]):[0-5][0-9]$")
# which inline message a host error's field goes to
_FIELD_LABELS = {
    "name": "name",
    "prompt": "prompt",
    "providerId": "model",
    "modelId": "model",
    "projectId": "project",
    "mode": "mode",
    "thinkingLevel": "model",
    "workspacePath": "project",
    "sessionMode": "chat",
    "permissionMode": "permissions",
}


class TaskEditor(QWidget):
    saveRequested = Signal(dict)  # valid fields, ready for tasks.create / tasks.update

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.task: dict | None = None
        self.errors: dict[str, QLabel] = {}
        self.name = QLineEdit()
        self.name.setPlaceholderText(self.tr("Morning news digest"))
        self.name.setMaxLength(80)
        self.prompt = QPlainTextEdit()
        self.prompt.setPlaceholderText(self.tr("What the task asks, as you would type it in a chat"))
        self.prompt.setFixedHeight(96)
        self.kind = QComboBox()
        for key, label in KINDS:
            self.kind.addItem(self.tr(label), key)
        self.every = QSpinBox()
        self.every.setRange(1, 24)
        self.every.setSuffix(self.tr(" h"))
        self.every.setValue(1)
        self.minutes = QSpinBox()
        self.minutes.setRange(5, 1440)
        self.minutes.setSuffix(self.tr(" min"))
        self.minutes.setValue(30)
        self.at = QLineEdit("09:00")
        self.at.setPlaceholderText("HH:MM")
        self.at.setMaximumWidth(80)
        self.days = [QCheckBox(self.tr(day)) for day in DAYS]
        for box in self.days[:5]:
            box.setChecked(True)
        self.once = QDateTimeEdit(QDateTime.currentDateTime().addSecs(3600))
        self.once.setCalendarPopup(True)
        self.once.setDisplayFormat("yyyy-MM-dd HH:mm")
        self.schedule_stack = QStackedWidget()
        self.schedule_stack.addWidget(_row(QLabel(self.tr("every")), self.every, stretch=True))
        self.schedule_stack.addWidget(_row(QLabel(self.tr("every")), self.minutes, stretch=True))
        self.schedule_stack.addWidget(_row(QLabel(self.tr("at")), self.at, stretch=True))
        self.schedule_stack.addWidget(_row(self.once, stretch=True))
        self.days_row = _row(*self.days, stretch=True)
        self.model = QComboBox()
        self.thinking = QComboBox()
        for level, label in THINKING:
            self.thinking.addItem(self.tr(str(label)), level)
        self.project = QComboBox()
        self.folder = QLineEdit()
        self.folder.setPlaceholderText(self.tr("Folder to work in (optional, absolute path)"))
        self.session_mode = QComboBox()
        for key, label in SESSION_MODES:
            self.session_mode.addItem(self.tr(str(label)), key)
        self.mode = QComboBox()
        for key, label in MODES:
            self.mode.addItem(self.tr(label), key)
        self.mode_hint = QLabel(
            self.tr(
                "Plan and Goal wait for you to approve, so a scheduled run in these modes "
                "stops with an error. Choose Agent to let it run on its own."
            )
        )
        self.mode_hint.setObjectName("muted")
        self.mode_hint.setWordWrap(True)
        self.mode_hint.hide()
        self.permission = QComboBox()
        self.permission.addItem(self.tr("Default: ask first (Run now follows Settings)"), None)
        for key, _label, _tip in permission_modes.MODES:
            self.permission.addItem(permission_modes.label(key), key)
            self.permission.setItemData(
                self.permission.count() - 1, permission_modes.tip(key), Qt.ItemDataRole.ToolTipRole
            )
        self.permission_hint = QLabel(
            self.tr(
                "A scheduled run has nobody to ask: a change or command that needs asking is skipped, "
                "and the model is told why."
            )
        )
        self.permission_hint.setObjectName("muted")
        self.permission_hint.setWordWrap(True)
        self.enabled = QCheckBox(self.tr("Run on this schedule"))
        self.enabled.setChecked(True)
        self.save_button = QPushButton(self.tr("Save"))
        self.save_button.setObjectName("primary")
        self.save_button.clicked.connect(self.save)

        form = QFormLayout()
        form.setLabelAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        form.setVerticalSpacing(6)
        form.addRow(self.tr("Name"), self._with_error("name", self.name))
        form.addRow(self.tr("Prompt"), self._with_error("prompt", self.prompt))
        form.addRow(
            self.tr("Schedule"),
            self._with_error("schedule", _row(self.kind, self.schedule_stack, stretch=False), self.days_row),
        )
        form.addRow(self.tr("Model"), self._with_error("model", self.model))
        form.addRow(self.tr("Thinking"), self.thinking)
        form.addRow(self.tr("Project"), self._with_error("project", self.project, self.folder))
        form.addRow(self.tr("Chat"), self._with_error("chat", self.session_mode))
        form.addRow(self.tr("Mode"), self._with_error("mode", self.mode))
        form.addRow("", self.mode_hint)  # wraps: a row of its own, so the form measures it
        form.addRow(self.tr("Permissions"), self._with_error("permissions", self.permission))
        form.addRow("", self.permission_hint)
        form.addRow("", self.enabled)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(form)
        self.buttons = QHBoxLayout()
        self.buttons.addStretch(1)
        self.buttons.addWidget(self.save_button)
        layout.addLayout(self.buttons)
        layout.addStretch(1)

        self.kind.currentIndexChanged.connect(self._kind_changed)
        self.mode.currentIndexChanged.connect(
            lambda: self.mode_hint.setVisible(self.mode.currentData() in ("plan", "goal"))
        )
        self.project.currentIndexChanged.connect(lambda: self.folder.setVisible(self.project.currentData() is None))
        self.permission.currentIndexChanged.connect(
            lambda: self.permission_hint.setVisible(self.permission.currentData() != "auto")
        )
        self.folder.textChanged.connect(lambda: self.errors["project"].isHidden() or self._check_folder())
        self.name.textChanged.connect(lambda: self._recheck("name", self.name.text()))
        self.prompt.textChanged.connect(lambda: self._recheck("prompt", self.prompt.toPlainText()))
        self.at.textEdited.connect(lambda: self._check_schedule(typing=True))
        self.at.editingFinished.connect(self._check_schedule)
        for box in self.days:
            box.toggled.connect(lambda _on: self._check_schedule())
        self.set_choices([], [])
        self.load(None)

    def _with_error(self, key: str, *widgets: QWidget) -> QWidget:
        holder = QWidget()
        column = QVBoxLayout(holder)
        column.setContentsMargins(0, 0, 0, 0)
        column.setSpacing(2)
        for widget in widgets:
            column.addWidget(widget)
        error = QLabel()
        error.setObjectName("fieldError")
        # one line, no word wrap: a wrapped label's height-for-width squeezes the form's other rows
        error.setStyleSheet("color: #DC2626;")
        error.hide()
        column.addWidget(error)
        self.errors[key] = error
        return holder

    # -- choices and loading ------------------------------------------------------------------
    def set_choices(self, models: list[tuple[str, str, str]], projects: list[dict]) -> None:
        """The model picker (``model_choices``) and the projects; the current choice stays when still offered."""
        keep_model, keep_project = self.model.currentData(), self.project.currentData()
        self.model.clear()
        self.model.addItem(self.tr("The app's default model"), None)
        for provider_id, model_id, label in models:
            self.model.addItem(label, (provider_id, model_id))
        self.project.clear()
        self.project.addItem(self.tr("No project"), None)
        for project in projects:
            self.project.addItem(project.get("name") or project["path"], project["id"])
            self.project.setItemData(self.project.count() - 1, project["path"], Qt.ItemDataRole.ToolTipRole)
        self._select(self.model, keep_model)
        self._select(self.project, keep_project)

    def load(self, task: dict | None) -> None:
        """Show ``task`` (None: a new one with the usual defaults)."""
        self.task = task
        self.clear_errors()
        task = task or {}
        self.name.setText(task.get("name", ""))
        self.prompt.setPlainText(task.get("prompt", ""))
        schedule = task.get("schedule") or {"kind": "daily", "at": "09:00"}
        calendar = task.get("calendar") or {}
        self._select(self.kind, schedule["kind"])
        self.every.setValue(schedule.get("everyHours", 1))
        self.minutes.setValue(schedule.get("intervalMinutes", 30))
        self.at.setText(schedule.get("at") if schedule["kind"] in ("daily", "weekly") else calendar.get("at", "09:00"))
        days = set(schedule.get("days", calendar.get("days", [0, 1, 2, 3, 4])))
        for number, box in enumerate(self.days):
            box.blockSignals(True)
            box.setChecked(number in days)
            box.blockSignals(False)
        if schedule["kind"] == "once":
            self.once.setDateTime(QDateTime.fromString(schedule["at"], Qt.DateFormat.ISODate))
        provider = task.get("providerId")
        if provider and self.model.findData((provider, task.get("modelId"))) < 0 and task.get("modelId"):
            self.model.addItem(f"{provider} · {task['modelId']}", (provider, task["modelId"]))
        self._select(self.model, (provider, task.get("modelId")) if provider else None)
        self._select(self.thinking, task.get("thinkingLevel"))
        self._select(self.project, task.get("projectId"))
        self.folder.setText(task.get("workspacePath") or "")
        self.folder.setVisible(self.project.currentData() is None)
        self._select(self.session_mode, task.get("sessionMode", "perRun"))
        self._select(self.mode, task.get("mode", "agent"))
        self._select(self.permission, task.get("permissionMode"))
        self.permission_hint.setVisible(self.permission.currentData() != "auto")
        self.enabled.setChecked(task.get("enabled", True))
        self.mark_saved()

    def _typed(self) -> tuple[str, ...]:
        return (self.name.text(), self.prompt.toPlainText(), self.at.text(), self.folder.text())

    def mark_saved(self) -> None:
        """What is in the fields now is stored (or was just loaded)."""
        self._stored_text = self._typed()

    def unsaved(self) -> bool:
        """Text typed in the form and not saved: the name, the prompt, the time or the folder."""
        return self._typed() != self._stored_text

    @staticmethod
    def _select(combo: QComboBox, data) -> None:
        index = combo.findData(data)
        combo.setCurrentIndex(index if index >= 0 else 0)

    # -- checking -------------------------------------------------------------------------------
    def clear_errors(self) -> None:
        for label in self.errors.values():
            label.clear()
            label.hide()

    def show_error(self, key: str, message: str) -> None:
        label = self.errors[key]
        label.setText(message)
        label.setVisible(bool(message))

    def show_host_error(self, error) -> None:
        """A refused save: a sentence under the field the host named (else the general one under the name)."""
        field = (error.data or {}).get("field") or ""
        by_field = {
            "name": self.tr("Give the task a name."),
            "prompt": self.tr("Write what the task should ask."),
            "schedule.at": (
                self.tr("That moment has passed. Pick a time in the future.")
                if self.kind.currentData() == "once"
                else self.tr("Write the time as HH:MM on a 24-hour clock, for example 07:30.")
            ),
            "schedule.days": self.tr("Pick at least one day."),
            "providerId": self.tr("That provider is no longer set up. Pick another model."),
            "modelId": self.tr("That model is no longer offered. Pick another one."),
            "projectId": self.tr("That project is no longer there. Pick another one."),
            "workspacePath": self.tr("Write the folder as a full path, for example /home/me/site."),
            "schedule.intervalMinutes": self.tr("Pick from 5 to 1440 minutes."),
        }
        key = "schedule" if field.startswith("schedule") else _FIELD_LABELS.get(field, "name")
        self.show_error(key, by_field.get(field) or sentence(error))

    def _recheck(self, key: str, text: str) -> None:
        """While a message stands under a field, each change checks again, so it goes once fixed;
        a field nobody touched yet is not complained about."""
        if not self.errors[key].isHidden() or (key == "name" and self.name.hasFocus()):
            self._check_text(key, text)

    def _check_text(self, key: str, text: str) -> bool:
        empty = not text.strip()
        message = {"name": self.tr("Give the task a name."), "prompt": self.tr("Write what the task should ask.")}[key]
        self.show_error(key, message if empty else "")
        return not empty

    def _check_schedule(self, typing: bool = False) -> bool:
        kind = self.kind.currentData()
        message = ""
        if kind in ("daily", "weekly") and not _TIME.match(self.at.text().strip()):
            # while typing, only a text that can no longer become a time is wrong
            if not typing or not re.match(r"^([0-2]?[0-9]?(:[0-5]?[0-9]?)?)$", self.at.text().strip()):
                message = self.tr("Write the time as HH:MM on a 24-hour clock, for example 07:30.")
        elif kind == "weekly" and not any(box.isChecked() for box in self.days):
            message = self.tr("Pick at least one day.")
        elif kind == "once" and self.once.dateTime() <= QDateTime.currentDateTime():
            message = self.tr("That moment has passed. Pick a time in the future.")
        self.show_error("schedule", message)
        return not message

    def _check_folder(self) -> bool:
        folder = self.folder.text().strip()
        bad = self.project.currentData() is None and bool(folder) and not os.path.isabs(folder)
        self.show_error(
            "project", self.tr("Write the folder as a full path, for example /home/me/site.") if bad else ""
        )
        return not bad

    def _kind_changed(self) -> None:
        kind = self.kind.currentData()
        self.schedule_stack.setCurrentIndex({"hourly": 0, "interval": 1, "daily": 2, "weekly": 2, "once": 3}[kind])
        self.days_row.setVisible(kind == "weekly")
        self.show_error("schedule", "")

    def schedule(self) -> dict:
        kind = self.kind.currentData()
        if kind == "hourly":
            return {"kind": kind, "everyHours": self.every.value()}
        if kind == "interval":
            return {"kind": kind, "intervalMinutes": self.minutes.value()}
        if kind == "once":
            moment = datetime.fromtimestamp(self.once.dateTime().toMSecsSinceEpoch() / 1000).astimezone()
            return {"kind": kind, "at": moment.isoformat(timespec="seconds")}
        schedule = {"kind": kind, "at": self.at.text().strip()}
        if kind == "weekly":
            schedule["days"] = [number for number, box in enumerate(self.days) if box.isChecked()]
        return schedule

    def values(self) -> dict | None:
        """The fields to store, or None (with the messages shown) while something is wrong."""
        ok = [
            self._check_text("name", self.name.text()),
            self._check_text("prompt", self.prompt.toPlainText()),
            self._check_schedule(),
            self._check_folder(),
        ]
        if not all(ok):
            return None
        model = self.model.currentData()
        return {
            "name": self.name.text().strip(),
            "prompt": self.prompt.toPlainText(),
            "schedule": self.schedule(),
            "providerId": model[0] if model else None,
            "modelId": model[1] if model else None,
            "thinkingLevel": self.thinking.currentData(),
            "projectId": self.project.currentData(),
            "workspacePath": (self.folder.text().strip() or None) if self.project.currentData() is None else None,
            "sessionMode": self.session_mode.currentData(),
            "mode": self.mode.currentData(),
            "permissionMode": self.permission.currentData(),
            "enabled": self.enabled.isChecked(),
        }

    def save(self) -> None:
        fields = self.values()
        if fields is not None:
            self.saveRequested.emit(fields)


def _row(*widgets: QWidget, stretch: bool) -> QWidget:
    holder = QWidget()
    row = QHBoxLayout(holder)
    row.setContentsMargins(0, 0, 0, 0)
    row.setSpacing(6)
    for widget in widgets:
        row.addWidget(widget)
    if stretch:
        row.addStretch(1)
    return holder
