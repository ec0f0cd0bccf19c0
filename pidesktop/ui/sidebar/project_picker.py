"""The chat header's project picker: which project the open chat (or the next new one) belongs to.

A chip showing the project's name (or "No project") with a menu of every
project, "No project" and "New project…". Picking one emits ``picked`` with the
project (None for no project); the project actions move the chat with
``session.update {projectId}`` or remember it for a chat not made yet.
"""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QActionGroup
from PySide6.QtWidgets import QMenu, QToolButton, QWidget

from pidesktop.ui.kit import i18n

MENU_MARK = " ▾"  # a menu opens on click, as on the branch switcher beside it


class ProjectPicker(QToolButton):
    picked = Signal(object)  # a Project dict, or None for "No project"
    newProjectRequested = Signal()

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("projectPicker")
        self.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        self.setCursor(Qt.CursorShape.PointingHandCursor)
        self.projects: list[dict] = []
        self.current: dict | None = None
        self.menu_ = QMenu(self)
        self.menu_.aboutToShow.connect(self._fill)
        self.setMenu(self.menu_)
        self.show_project(None)

    def set_projects(self, projects: list[dict]) -> None:
        self.projects = sorted(projects, key=lambda p: (not p.get("pinned"), p["name"].casefold(), p["id"]))
        if self.current is not None:  # a rename or a removal shows at once
            self.show_project(next((p for p in self.projects if p["id"] == self.current["id"]), None))

    def show_project(self, project: dict | None) -> None:
        self.current = project
        if project is None:
            self.setText(self.tr("No project") + MENU_MARK)
            self.setToolTip(self.tr("This chat belongs to no project. Click to put it in one."))
            return
        warning = "⚠ " if project.get("missing") else ""
        self.setText(f"{warning}{project['name']}{MENU_MARK}")
        tip = i18n.arg(self.tr("Project folder: %1. Click to move this chat to another project."), project["path"])
        if project.get("missing"):
            tip = self.tr("The project’s folder can’t be found; its chats are kept.") + "\n" + tip
        self.setToolTip(tip)

    def _fill(self) -> None:
        menu = self.menu_
        menu.clear()  # deletes the actions; their group is replaced too, or one would pile up per showing
        old = getattr(self, "_group", None)
        if old is not None:
            old.deleteLater()
        group = self._group = QActionGroup(menu)
        none = menu.addAction(self.tr("No project"))
        none.setCheckable(True)
        none.setChecked(self.current is None)
        none.triggered.connect(lambda: self.picked.emit(None))
        group.addAction(none)
        if self.projects:
            menu.addSeparator()
        for project in self.projects:
            label = ("⚠ " if project.get("missing") else "") + project["name"]
            action = menu.addAction(label)
            action.setToolTip(project["path"])
            action.setCheckable(True)
            action.setChecked(self.current is not None and self.current["id"] == project["id"])
            action.triggered.connect(lambda _=False, p=project: self.picked.emit(p))
            group.addAction(action)
        menu.addSeparator()
        menu.addAction(self.tr("New project…")).triggered.connect(self.newProjectRequested)
