"""Project groups in the window: the dialog that names a group and picks its projects, and its notes.

A group shares memory and instructions with every chat in its projects
(``projectGroups.*``). A project is in one group at most: ticking it here takes
it out of any other group.
"""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication, Qt
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QVBoxLayout,
    QWidget,
)

from pidesktop.bus import HostClient, HostError
from pidesktop.ui.kit import i18n, plain_errors
from pidesktop.ui.kit.dialog_style import current_theme, set_severity, stylesheet
from pidesktop.ui.kit.ops import host_op
from pidesktop.ui.sidebar.project_memory import Note, NotesEditor


def group_notes_editor(client: HostClient, group: dict, parent: QWidget | None) -> NotesEditor:
    """The group's instructions and memory in one editor."""

    def tr(text: str) -> str:
        return QCoreApplication.translate("GroupDialog", text)

    params = {"groupId": group["id"]}
    notes = [
        Note(
            tr("Instructions"),
            tr(
                "How the model should work in these projects, e.g. “answer in British "
                "English”. Sent as your own notes, never above the app’s rules."
            ),
            "projectGroups.instructionsGet",
            "projectGroups.instructionsSet",
            params,
        ),
        Note(
            tr("Memory"),
            tr("What the model should know about every project in the group."),
            "projectGroups.memoryGet",
            "projectGroups.memorySet",
            params,
        ),
    ]
    return NotesEditor(
        client,
        i18n.arg(tr("Project group: %1"), group["name"]),
        tr("Every chat in a project of this group gets these notes, then its own project’s memory."),
        notes,
        parent,
    )


class GroupDialog(QDialog):
    """Create a group (``group`` None) or change its name and projects."""

    def __init__(
        self,
        client: HostClient,
        projects: list[dict],
        group: dict | None,
        project: dict | None,
        parent: QWidget | None = None,
    ):
        super().__init__(parent)
        self.client = client
        self.group = group
        self.setObjectName("groupDialog")
        self.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose, True)
        self.setWindowModality(Qt.WindowModality.WindowModal)
        self.setWindowTitle(self.tr("Project group") if group is None else self.tr("Edit project group"))
        self.setStyleSheet(stylesheet(current_theme(parent)))
        self.resize(460, 440)
        self.name = QLineEdit(group["name"] if group else "")
        self.name.setPlaceholderText(self.tr("Group name, e.g. Websites"))
        self.name.setMaxLength(120)
        self.list = QListWidget()
        members = set(group["projectIds"]) if group else ({project["id"]} if project else set())
        for item_project in sorted(projects, key=lambda p: p["name"].casefold()):
            item = QListWidgetItem(item_project["name"])
            item.setToolTip(item_project["path"])
            item.setData(Qt.ItemDataRole.UserRole, item_project["id"])
            item.setFlags(item.flags() | Qt.ItemFlag.ItemIsUserCheckable)
            item.setCheckState(Qt.CheckState.Checked if item_project["id"] in members else Qt.CheckState.Unchecked)
            self.list.addItem(item)
        self.problem = QLabel()
        self.problem.setObjectName("report")
        self.problem.setWordWrap(True)
        self.problem.hide()
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Save | QDialogButtonBox.StandardButton.Cancel)
        self.buttons.accepted.connect(self.save)
        self.buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(20, 20, 20, 16)
        layout.addWidget(QLabel(self.tr("Name")))
        layout.addWidget(self.name)
        layout.addWidget(QLabel(self.tr("Projects in the group (a project is in one group at most)")))
        layout.addWidget(self.list, 1)
        layout.addWidget(self.problem)
        layout.addWidget(self.buttons)

    def chosen_ids(self) -> list[int]:
        return [
            self.list.item(row).data(Qt.ItemDataRole.UserRole)
            for row in range(self.list.count())
            if self.list.item(row).checkState() == Qt.CheckState.Checked
        ]

    def save(self) -> None:
        name = self.name.text().strip()
        ids = self.chosen_ids()
        if not name:
            self._say(self.tr("Give the group a name."))
            self.name.setFocus()
            return
        if not ids:
            self._say(self.tr("Tick at least one project for the group."))
            return
        params = {"name": name, "projectIds": ids}
        if self.group is not None:
            params["groupId"] = self.group["id"]
        host_op(
            self.client,
            "projectGroups.set",
            params,
            parent=self,
            success=lambda _r: self.accept(),
            failure=self._failed,
            busy=(self.buttons,),
        ).run()

    def _say(self, text: str) -> None:
        self.problem.setText(text)
        set_severity(self.problem, "error")
        self.problem.show()

    def _failed(self, error: HostError) -> None:
        self._say(plain_errors.sentence(error))
