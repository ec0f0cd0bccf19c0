"""What a person does to projects: add a folder, put a chat in or out, rename, pin, open, remove, notes.

The window's one list of projects and project groups lives here, refreshed
from the host (``projects.list``, ``projectGroups.list``, ``workspace.get``)
whenever a ``projects.changed`` or ``workspace.changed`` event says it moved.
The sidebar's project rows, the header's picker and Ctrl+N read it. The
current project (the host's ``workspace``) follows the chat being read and
the last "New chat in this project"; Ctrl+N starts a chat in it.
"""

from __future__ import annotations

import asyncio
import os
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, QUrl
from PySide6.QtGui import QDesktopServices
from PySide6.QtWidgets import QFileDialog, QInputDialog, QMenu, QMessageBox

from pidesktop.bus import topics
from pidesktop.ui.kit import i18n
from pidesktop.ui.kit.dialog_style import style_message_box
from pidesktop.ui.kit.ops import host_op, task_op
from pidesktop.ui.kit.session_rows import is_blank
from pidesktop.ui.kit.tasks import spawn
from pidesktop.ui.sidebar.project_groups import GroupDialog, group_notes_editor
from pidesktop.ui.sidebar.project_memory import Note, NotesEditor

if TYPE_CHECKING:
    from pidesktop.ui.window.main_window import MainWindow

REFRESH_TOPICS = (topics.PROJECTS_CHANGED, topics.WORKSPACE_CHANGED)


def folder_name(path: str) -> str:
    return path.rstrip("/").rsplit("/", 1)[-1] or path


class ProjectActions(QObject):
    def __init__(self, window: MainWindow):
        super().__init__(window)
        self.window = window
        self.client = window.client
        self.projects: dict[int, dict] = {}
        self.groups: list[dict] = []
        self.current_id: int | None = None  # the host's workspace
        self.dialog = None  # the open file dialog, editor or question (one at a time)
        self._refreshed: asyncio.Event | None = None  # set when the running refresh (and its re-reads) ends
        self._again = False

    # -- the list ---------------------------------------------------------------------------
    def by_path(self, path: str | None) -> dict | None:
        return next((p for p in self.projects.values() if p["path"] == path), None) if path else None

    def current(self) -> dict | None:
        return self.projects.get(self.current_id) if self.current_id is not None else None

    async def refresh(self) -> None:
        """Read projects, groups and the workspace; one refresh at a time, the last event always read.

        A caller arriving while a refresh runs waits for it to read again: returning at once let
        ``add_project`` go on while the list was still being read, and that read landed later.
        """
        if self._refreshed is not None:
            self._again = True
            await self._refreshed.wait()
            return
        refreshed = self._refreshed = asyncio.Event()
        try:
            while True:
                self._again = False

                async def read() -> tuple:
                    return (
                        await self.client.call("projects.list", {}),
                        await self.client.call("projectGroups.list", {}),
                        await self.client.call("workspace.get", {}),
                    )

                result = await task_op(read, parent=self.window, name="projects-refresh")
                if result is not None:
                    self._apply(*result)
                if not self._again:
                    return
        finally:
            self._refreshed = None
            refreshed.set()

    @property
    def refreshing(self) -> bool:
        return self._refreshed is not None

    def _apply(self, listed: dict, groups: dict, workspace: dict) -> None:
        self.projects = {p["id"]: p for p in listed["projects"]}
        self.groups = groups["groups"]
        self.current_id = workspace.get("currentProjectId")
        prefs = self.window.model.prefs
        for project in self.projects.values():  # the host's pin wins (it may come from another window)
            if bool(prefs.project_meta(project["path"]).get("pinned")) != bool(project.get("pinned")):
                prefs.set_project_flag(project["path"], "pinned", bool(project.get("pinned")))
        self.window.model.set_projects(list(self.projects.values()), self.groups)
        picker = self.window.project_picker
        picker.set_projects(list(self.projects.values()))
        session = self.window.model.session(self.window.current_session_id or "")
        if session is not None:
            picker.show_project(self.projects.get(session.get("projectId")))

    def handle_event(self, topic: str, payload: dict) -> None:
        if topic == topics.WORKSPACE_CHANGED and payload.get("currentProjectId") in (None, *self.projects):
            # Opening a chat in another project made it the current one: only that is news. (Reading every
            # project again relaid out the whole sidebar, ~18 ms at 10,000 chats, on each such switch.)
            self.current_id = payload.get("currentProjectId")
            return
        project_id = (payload.get("session") or {}).get("projectId") if topic == topics.SESSION_CHANGED else None
        if topic in REFRESH_TOPICS or (project_id is not None and project_id not in self.projects):
            spawn(self.refresh(), name="projects-refresh")  # a chat made elsewhere in a new project

    # -- following the chat being read -----------------------------------------------------
    def session_shown(self, session: dict) -> None:
        """The header shows the chat's project, and it becomes the current project."""
        project = self.projects.get(session.get("projectId"))
        self.window.project_picker.show_project(project)
        self.window.project_picker.setEnabled(not session.get("readOnly"))  # a pi session is not moved here
        self.window.chats.pending_changes.pop("projectPath", None)
        self._remember(project)

    def no_session_shown(self) -> None:
        """The empty page: the picker shows where the next chat will go."""
        path = self.window.chats.pending_changes.get("projectPath")
        self.window.project_picker.show_project(self.by_path(path))
        self.window.project_picker.setEnabled(True)

    def _remember(self, project: dict | None) -> None:
        project_id = project["id"] if project else None
        if project_id == self.current_id:
            return
        self.current_id = project_id
        # workspace.set with neither field clears it; the event refreshes the list
        params = {"projectId": project_id} if project_id is not None else {}
        host_op(self.client, "workspace.set", params, parent=self.window).run()

    # -- chats ---------------------------------------------------------------------------
    def new_chat(self) -> None:
        """Ctrl+N: a chat in the current project, or one in no project.

        A project whose folder is missing (an imported chat's, from another machine) is never where new
        chats go: its tools could not run there. Ctrl+N then starts outside any project and forgets it.
        """
        project = self.current()
        if project is not None and not project.get("missing"):
            self.new_chat_in(project)
        else:
            self._remember(None)
            self.window.chats.pending_changes.pop("projectPath", None)
            self.window.chats.new_chat()
            self.no_session_shown()

    def new_chat_in(self, project: dict) -> None:
        """Reuse the project's blank chat, or show the empty page; the chat is made in the project on send."""
        w = self.window
        blank = next((s for s in w.model.shown_sessions() if s.get("projectId") == project["id"] and is_blank(s)), None)
        self._remember(project)
        if blank is not None:
            w.sidebar.select(blank["id"])
        else:
            w.sidebar.select_none()
            w.chats.switch_to(None)
            w.chat_view.show_no_session()
            w.chats.pending_changes["projectPath"] = project["path"]
            w.project_picker.show_project(project)
        w.composer.focus_prompt()

    def move_chat(self, project: dict | None) -> None:
        """The header's picker: the open chat goes into ``project`` (None: out of any)."""
        w = self.window
        if w.current_session_id is None:  # no chat yet: the next one is made there
            if project is None:
                w.chats.pending_changes.pop("projectPath", None)
            else:
                w.chats.pending_changes["projectPath"] = project["path"]
            w.project_picker.show_project(project)
            return
        session_id = w.current_session_id

        def moved(result: dict) -> None:
            if session_id == w.current_session_id:
                self.session_shown(result["session"])

        host_op(
            self.client,
            "session.update",
            {"sessionId": session_id, "projectId": project["id"] if project else None},
            parent=w,
            success=moved,
        ).run()

    # -- adding a project ---------------------------------------------------------------------
    def choose_folder(self) -> None:
        """New project…: a folder picker; the project is named after the folder."""
        # From the home folder: the app's own working folder means nothing to a person.
        dialog = QFileDialog(self.window, self.tr("Choose the project’s folder"), os.path.expanduser("~"))
        dialog.setFileMode(QFileDialog.FileMode.Directory)
        dialog.setOption(QFileDialog.Option.ShowDirsOnly, True)
        dialog.fileSelected.connect(lambda path: spawn(self.add_project(path), name="add-project"))
        self.dialog = dialog
        dialog.open()

    async def add_project(self, path: str) -> dict | None:
        """Add ``path`` as a project (the same folder twice is one project) and start a chat in it."""
        result = await host_op(self.client, "projects.upsert", {"path": path}, parent=self.window)
        if result is None:
            return None
        project = result["project"]
        self.projects[project["id"]] = project
        self.window.project_picker.set_projects(list(self.projects.values()))
        self.new_chat_in(project)
        await self.refresh()
        return project

    # -- one project's menu ------------------------------------------------------------------------
    def fill_menu(self, menu: QMenu, path: str) -> None:
        """The project's own actions, added to the sidebar's menu for its header."""
        project = self.by_path(path)
        if project is None:
            return
        first = menu.actions()[0] if menu.actions() else None
        new_chat = menu.addAction(self.tr("New chat in this project"))
        new_chat.triggered.connect(lambda: self.new_chat_in(project))
        menu.insertAction(first, new_chat)
        menu.insertSeparator(first)
        menu.addSeparator()
        menu.addAction(self.tr("Rename project…")).triggered.connect(lambda: self.rename(project))
        menu.addAction(self.tr("Project memory…")).triggered.connect(lambda: self.edit_memory(project))
        open_folder = menu.addAction(self.tr("Open folder"))
        open_folder.triggered.connect(lambda: self.open_folder(project))
        if project.get("missing"):
            open_folder.setEnabled(False)
            open_folder.setToolTip(self.tr("The folder can’t be found"))
        group = next((g for g in self.groups if project["id"] in g["projectIds"]), None)
        menu.addAction(
            self.tr("Add to a project group…") if group is None else self.tr("Edit project group…")
        ).triggered.connect(lambda: self.edit_group(group, project))
        if group is not None:
            menu.addAction(self.tr("Group memory and instructions…")).triggered.connect(
                lambda: self.edit_group_notes(group)
            )
        menu.addSeparator()
        menu.addAction(self.tr("Remove project…")).triggered.connect(lambda: self.confirm_remove(project))

    def fill_group_menu(self, menu: QMenu, group_id: str) -> None:
        group = next((g for g in self.groups if g["id"] == group_id), None)
        if group is None:
            return
        menu.addAction(self.tr("Edit project group…")).triggered.connect(lambda: self.edit_group(group, None))
        menu.addAction(self.tr("Group memory and instructions…")).triggered.connect(
            lambda: self.edit_group_notes(group)
        )
        menu.addSeparator()
        menu.addAction(self.tr("Remove project group…")).triggered.connect(lambda: self.confirm_remove_group(group))

    def set_pinned(self, path: str, pinned: bool) -> None:
        project = self.by_path(path)
        if project is not None and project.get("pinned") != pinned:
            host_op(
                self.client, "projects.update", {"projectId": project["id"], "pinned": pinned}, parent=self.window
            ).run()

    def rename(self, project: dict) -> None:
        dialog = QInputDialog(self.window)
        dialog.setWindowTitle(self.tr("Rename project"))
        dialog.setLabelText(i18n.arg(self.tr("A name for the project in %1:"), project["path"]))
        dialog.setTextValue(project["name"])
        dialog.textValueSelected.connect(lambda name: self._rename(project, name))
        self.dialog = dialog
        dialog.open()

    def _rename(self, project: dict, name: str) -> None:
        name = name.strip() or folder_name(project["path"])
        if name != project["name"]:
            host_op(
                self.client, "projects.update", {"projectId": project["id"], "name": name}, parent=self.window
            ).run()

    def open_folder(self, project: dict) -> bool:
        """Show the folder in the system's file manager; a missing folder is said, not opened."""
        from pathlib import Path

        if not Path(project["path"]).is_dir():
            self.window.show_note(
                i18n.arg(self.tr("The folder %1 can’t be found. Its chats are kept."), project["path"])
            )
            return False
        return QDesktopServices.openUrl(QUrl.fromLocalFile(project["path"]))

    def confirm_remove(self, project: dict) -> QMessageBox:
        box = QMessageBox(
            QMessageBox.Icon.Warning,
            self.tr("Remove project"),
            i18n.arg(self.tr("Remove the project “%1”?"), project["name"]),
            QMessageBox.StandardButton.Cancel,
            self.window,
        )
        box.setObjectName("removeProjectBox")
        box.setInformativeText(
            self.tr(
                "Its chats stay and move under Chats, and its folder on disk is not "
                "touched. Its project memory is deleted."
            )
        )
        remove = box.addButton(self.tr("Remove"), QMessageBox.ButtonRole.DestructiveRole)
        box.setDefaultButton(QMessageBox.StandardButton.Cancel)
        style_message_box(box)
        box.finished.connect(lambda _r: self._removed_if(box.clickedButton() is remove, project))
        self.dialog = box
        box.open()
        return box

    def _removed_if(self, yes: bool, project: dict) -> None:
        if yes:
            host_op(self.client, "projects.remove", {"projectId": project["id"]}, parent=self.window).run()

    # -- notes and groups -------------------------------------------------------------------------
    def edit_memory(self, project: dict) -> NotesEditor:
        note = Note(
            self.tr("Project memory"),
            self.tr(
                "Plain text or Markdown. Sent with every message of a chat in this project, marked as your own notes."
            ),
            "projects.memoryGet",
            "projects.memorySet",
            {"projectId": project["id"]},
        )
        editor = NotesEditor(
            self.client,
            i18n.arg(self.tr("Project memory: %1"), project["name"]),
            self.tr("What the model should know about this project: conventions, where things are, what to avoid."),
            [note],
            self.window,
        )
        return self._open_editor(editor)

    def edit_group_notes(self, group: dict) -> NotesEditor:
        return self._open_editor(group_notes_editor(self.client, group, self.window))

    def _open_editor(self, editor: NotesEditor) -> NotesEditor:
        self.dialog = editor
        editor.open()
        spawn(editor.load(), name="notes-load")  # a failure shows in the editor; what is typed stays
        return editor

    def edit_group(self, group: dict | None, project: dict | None) -> GroupDialog:
        dialog = GroupDialog(self.client, list(self.projects.values()), group, project, self.window)
        self.dialog = dialog
        dialog.open()
        return dialog

    def confirm_remove_group(self, group: dict) -> QMessageBox:
        box = QMessageBox(
            QMessageBox.Icon.Warning,
            self.tr("Remove project group"),
            i18n.arg(self.tr("Remove the project group “%1”?"), group["name"]),
            QMessageBox.StandardButton.Cancel,
            self.window,
        )
        box.setInformativeText(
            self.tr("Its projects and their chats stay. The group’s memory and instructions are deleted.")
        )
        remove = box.addButton(self.tr("Remove"), QMessageBox.ButtonRole.DestructiveRole)
        box.setDefaultButton(QMessageBox.StandardButton.Cancel)
        style_message_box(box)

        def finished(_result: int) -> None:
            if box.clickedButton() is remove:
                host_op(self.client, "projectGroups.remove", {"groupId": group["id"]}, parent=self.window).run()

        box.finished.connect(finished)
        self.dialog = box
        box.open()
        return box
