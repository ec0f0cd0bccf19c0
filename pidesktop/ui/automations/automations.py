"""The Automations window: scheduled prompts, their next run and last result, an editor, and run history.

Everything comes from the host (``tasks.*``); the window refreshes on the
``tasks.changed`` event, so runs the scheduler starts show up as they happen.
"Run now" goes to the app's scheduler (``run_now``), which runs the task as a
turn in a new chat; each run in the history opens its chat.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QDateTime, QModelIndex, Qt, Signal
from PySide6.QtGui import QColor
from PySide6.QtWidgets import (
    QDialog,
    QHBoxLayout,
    QLabel,
    QMessageBox,
    QPushButton,
    QSizePolicy,
    QSplitter,
    QStackedWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)
from shiboken6 import isValid

from pidesktop.bus import ErrorCode, HostClient, HostError, topics
from pidesktop.ui.automations.automations_editor import TaskEditor
from pidesktop.ui.chat.model_choices import model_choices
from pidesktop.ui.kit import discard_question
from pidesktop.ui.kit import theme as themes
from pidesktop.ui.kit.dialog_style import confirm, stylesheet, tree
from pidesktop.ui.kit.i18n import arg
from pidesktop.ui.kit.ops import host_op, task_op
from pidesktop.ui.kit.plain_errors import sentence, sentence_for_code
from pidesktop.ui.kit.tasks import spawn

WINDOW_SIZE = (1120, 640)
LIST_WIDTH = 460  # room for a name of a few words beside its next run and last result
HISTORY_ROWS = 50


def when(ms: int | None) -> str:
    """A local date and time in ISO order, as the rest of the app writes them (a short locale format
    reads "2 12 2026" in some locales)."""
    if ms is None:
        return "—"
    return QDateTime.fromMSecsSinceEpoch(ms).toString("yyyy-MM-dd HH:mm")


class AutomationsDialog(QDialog):
    openSession = Signal(str)  # a run's chat

    def __init__(
        self,
        client: HostClient,
        theme: themes.Theme,
        run_now: Callable[[str], Any] | None = None,
        parent: QWidget | None = None,
    ):
        super().__init__(parent)
        self.client = client
        self.run_now_with = run_now
        self.tasks: list[dict] = []
        self.runs: list[dict] = []
        self.setObjectName("automationsDialog")
        self.setWindowTitle(self.tr("Automations"))
        self.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose, True)
        # A normal window, not a dialog: window managers keep a dialog above the app's other windows, and
        # "Open chat" must bring the chat forward over this one. Esc still closes it (QDialog's key handling).
        self.setWindowFlags(Qt.WindowType.Window)
        self.resize(*WINDOW_SIZE)

        title = QLabel(self.tr("Automations"))
        title.setObjectName("pageTitle")
        hint = QLabel(
            self.tr(
                "Prompts that run on a schedule, each run in a new chat or the same one, with the result in the inbox. "
                "They run while pidesktop is open; runs missed while it was closed run once at "
                "the next start."
            )
        )
        hint.setObjectName("muted")
        hint.setWordWrap(True)
        self.list = tree([self.tr("Name"), self.tr("Next run"), self.tr("Last result")])
        self.list.setSelectionMode(self.list.SelectionMode.SingleSelection)
        self.list.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.list.setTextElideMode(Qt.TextElideMode.ElideRight)  # a name reads from its start ("Quick te…" hid it)
        self.question: QMessageBox | None = None  # the Save / Discard / Keep editing box while it is open
        self.list.currentItemChanged.connect(self._picked)
        self.empty = QLabel(self.tr("No automations yet. Fill in the form to create the first one."))
        self.empty.setObjectName("muted")
        self.empty.setWordWrap(True)
        self.new_button = QPushButton(self.tr("New automation"))
        self.new_button.clicked.connect(lambda: self._leave_form(self.new_task))
        self.delete_button = QPushButton(self.tr("Delete…"))
        self.delete_button.setObjectName("danger")
        self.delete_button.clicked.connect(self.confirm_delete)
        self.delete_button.setEnabled(False)  # until an automation is picked: with none, it would do nothing
        left = QWidget()
        left_layout = QVBoxLayout(left)
        left_layout.setContentsMargins(0, 0, 12, 0)
        left_layout.addWidget(title)
        left_layout.addWidget(hint)
        self.list_stack = _stack(self.list, self.empty)
        left_layout.addWidget(self.list_stack, 1)
        buttons = QHBoxLayout()
        buttons.addWidget(self.new_button)
        buttons.addStretch(1)
        buttons.addWidget(self.delete_button)
        left_layout.addLayout(buttons)

        self.editor_title = QLabel()
        self.editor_title.setObjectName("sectionTitle")
        self.editor = TaskEditor()
        self.editor.saveRequested.connect(self.save)
        # the form keeps its natural height (more when a message shows under a field); the history takes the rest
        self.editor.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Fixed)
        self.run_button = QPushButton(self.tr("&Run now"))
        self.run_button.clicked.connect(self.run_now)
        self.editor.buttons.insertWidget(0, self.run_button)
        runs_title = QLabel(self.tr("R&uns"))  # Alt+U: the history, where Enter opens a run's chat
        runs_title.setObjectName("sectionTitle")
        self.history = tree([self.tr("Started"), self.tr("Result"), self.tr("Chat")])
        self.history.setFocusPolicy(Qt.FocusPolicy.StrongFocus)  # reached by keyboard: Alt+U, arrows, Enter
        runs_title.setBuddy(self.history)
        self.history.setSelectionMode(self.history.SelectionMode.SingleSelection)
        self.history.itemClicked.connect(self._history_clicked)
        self.history.itemActivated.connect(lambda item, _column: self._open_run(item))
        self.no_runs = QLabel(self.tr("No runs yet."))
        self.no_runs.setObjectName("muted")
        self.notice = QLabel()
        self.notice.setObjectName("notice")
        self.notice.setWordWrap(True)
        self.notice.hide()
        right = QWidget()
        right_layout = QVBoxLayout(right)
        right_layout.setContentsMargins(12, 0, 0, 0)
        right_layout.addWidget(self.editor_title)
        right_layout.addWidget(self.editor)
        right_layout.addWidget(runs_title)
        self.history_stack = _stack(self.history, self.no_runs)
        right_layout.addWidget(self.history_stack, 1)
        right_layout.addWidget(self.notice)

        splitter = QSplitter(Qt.Orientation.Horizontal)
        splitter.addWidget(left)
        splitter.addWidget(right)
        splitter.setSizes([LIST_WIDTH, WINDOW_SIZE[0] - LIST_WIDTH])
        splitter.setChildrenCollapsible(False)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(20, 20, 20, 20)
        layout.addWidget(splitter)
        for button in self.findChildren(QPushButton):
            button.setAutoDefault(False)
        self.apply_theme(theme)
        self._unsubscribe = client.subscribe(self._on_event)
        self.destroyed.connect(lambda *_: self._unsubscribe())
        self.new_task()

    @classmethod
    def ask(
        cls,
        client: HostClient,
        theme: themes.Theme,
        run_now: Callable[[str], Any] | None = None,
        parent: QWidget | None = None,
    ) -> AutomationsDialog:
        dialog = cls(client, theme, run_now, parent)
        dialog.loading = spawn(dialog.load(), name="automations-load")
        return dialog

    def apply_theme(self, theme: themes.Theme) -> None:
        self.theme = theme
        self.setStyleSheet(stylesheet(theme))
        themes.outline_toggles(self, theme)

    # -- loading ----------------------------------------------------------------------------
    async def load(self) -> None:
        async def everything() -> tuple:
            listed = await self.client.call("providers.list", {})
            models = (await self.client.call("models.list", {}))["models"]
            projects = (await self.client.call("projects.list", {}))["projects"]
            return listed, models, projects

        loaded = await task_op(everything, parent=self, name="automations-choices", failure=self.report_error)
        if loaded is not None:
            listed, models, projects = loaded
            self.editor.set_choices(model_choices(listed, models), projects)
            if self.editor.task is not None:
                self.editor.load(self.editor.task)
        await self.refresh()

    async def refresh(self) -> None:
        result = await host_op(self.client, "tasks.list", parent=self, failure=self.report_error)
        if result is None or not isValid(self):
            return
        current = self.current_task_id()
        self.tasks = result["tasks"]
        self.list.blockSignals(True)
        self.list.clear()
        for task in self.tasks:
            item = QTreeWidgetItem([task["name"], self._next_text(task), self._result_text(task.get("lastRun"))])
            item.setData(0, Qt.ItemDataRole.UserRole, task["id"])
            item.setToolTip(0, task["name"])
            if not task["enabled"] and task.get("armedElsewhere") is not None:
                item.setToolTip(
                    1,
                    arg(
                        self.tr(
                            "Turned on on %1 (Settings > Sync keeps automations the same on your computers). "
                            "An automation runs on one computer at a time: turning it on here moves it to this one."
                        ),
                        self._computer(task["armedElsewhere"]),
                    ),
                )
            if not task["enabled"]:
                item.setForeground(0, QColor(self.theme.muted))
            self.list.addTopLevelItem(item)
            if task["id"] == current:
                self.list.setCurrentItem(item)
        self.list.blockSignals(False)
        self.list_stack.setCurrentWidget(self.list if self.tasks else self.empty)
        if current is not None:
            task = self.task(current)
            if task is None:
                self.new_task()
            else:
                self._update_run_button(task)
                await self.load_runs(current)

    def current_task_id(self) -> str | None:
        item = self.list.currentItem()
        return item.data(0, Qt.ItemDataRole.UserRole) if item is not None else None

    def task(self, task_id: str) -> dict | None:
        return next((t for t in self.tasks if t["id"] == task_id), None)

    def _computer(self, name: str) -> str:
        return name or self.tr("another computer")

    def _next_text(self, task: dict) -> str:
        if not task["enabled"] and task.get("armedElsewhere") is not None:
            return arg(self.tr("Runs on %1"), self._computer(task["armedElsewhere"]))
        if not task["enabled"]:
            return self.tr("Off")
        if task["nextRunAt"] is None:
            return self.tr("Not scheduled")
        return when(task["nextRunAt"])

    def _result_text(self, run: dict | None) -> str:
        if run is None:
            return self.tr("Never run")
        text = {"running": self.tr("Running…"), "completed": self.tr("Done"), "aborted": self.tr("Stopped")}.get(
            run["status"]
        ) or self.tr("Failed")
        return text + (self.tr(" (late)") if run.get("late") else "")

    def status_text(self, run: dict) -> str:
        """A run's outcome in the history: what went wrong as a sentence, or how it ended."""
        code = run.get("errorCode")
        if code == ErrorCode.INTERRUPTED:  # stored as aborted by the next start's boot pass
            return self.tr("Stopped: ") + sentence_for_code(code)
        if run["status"] == "error":
            return self.tr("Failed: ") + sentence_for_code(code)
        return self._result_text(run)

    async def load_runs(self, task_id: str) -> None:
        result = await host_op(
            self.client,
            "tasks.runs",
            {"taskId": task_id, "limit": HISTORY_ROWS},
            parent=self,
            failure=lambda error: None if error.code == ErrorCode.NOT_FOUND else self.report_error(error),
        )
        if result is None or not isValid(self) or task_id != self.current_task_id():
            return  # (closed meanwhile: a save closes it while the runs of what it saved are asked for)
        self.runs = result["runs"]
        self.history.clear()
        for run in self.runs:
            status = self.status_text(run)
            openable = bool(run["sessionId"]) and not run.get("chatInTrash")
            chat = self.tr("Open chat") if openable else self.tr("In the Trash") if run["sessionId"] else ""
            item = QTreeWidgetItem([when(run["startedAt"]), status, chat or self.tr("Chat deleted")])
            item.setData(0, Qt.ItemDataRole.UserRole, run["sessionId"] if openable else None)
            item.setToolTip(1, status)
            if openable:
                item.setForeground(2, QColor(self.theme.accent))
                font = item.font(2)
                font.setUnderline(True)
                item.setFont(2, font)
            self.history.addTopLevelItem(item)
        self.history_stack.setCurrentWidget(self.history if self.runs else self.no_runs)

    # -- text typed in the form is never lost ----------------------------------------------------
    def reject(self) -> None:
        """Esc or the window's x: with text typed in the form and not saved, ask first."""
        self._leave_form(lambda: QDialog.reject(self))

    def _leave_form(self, go: Callable[[], object], stay: Callable[[], object] | None = None) -> None:
        """Run ``go`` (close, show another automation or a new one) once the form's typed text is saved or
        let go; ``stay`` when the person keeps editing."""
        if not self.editor.unsaved():
            go()
            return
        name = self.editor.name.text().strip()
        editing = self.editor.task is not None and name
        what = arg(self.tr("your changes to “%1”"), name) if editing else self.tr("your new automation")

        def save() -> None:
            fields = self.editor.values()
            if fields is None:  # the form says what is wrong; the text stays
                if stay is not None:
                    stay()
                return
            self.save(fields, then=lambda _task: go())

        def discard() -> None:
            self.editor.mark_saved()  # the typed text is let go: what follows may replace it
            go()

        discard_question.ask(self, what, save, discard, stay)

    # -- the list -----------------------------------------------------------------------------
    def _picked(self, current: QTreeWidgetItem | None, previous: QTreeWidgetItem | None) -> None:
        """Another automation picked in the list: the form shows it, once what was typed is saved or let go."""
        if current is None or not self.editor.unsaved():
            self._selected()
            return
        picked = current.data(0, Qt.ItemDataRole.UserRole)

        def back() -> None:  # kept editing: the list shows the automation the form holds again
            self.list.blockSignals(True)
            if previous is not None:
                self.list.setCurrentItem(previous)
            else:  # a new automation was being typed: no row is current
                self.list.setCurrentIndex(QModelIndex())
                self.list.clearSelection()
            self.list.blockSignals(False)

        back()
        self._leave_form(lambda: self._select_id(picked), back)

    def _selected(self) -> None:
        task_id = self.current_task_id()
        task = self.task(task_id) if task_id else None
        if task is None:
            return
        self.editor_title.setText(self.tr("Edit automation"))
        self.editor.load(task)
        self.delete_button.setEnabled(True)
        self._update_run_button(task)
        spawn(self.load_runs(task_id), name="automation-runs")

    def _update_run_button(self, task: dict | None) -> None:
        """Run now (Save and run now for a new automation); when it cannot run, its tooltip says why."""
        self.run_button.setText(self.tr("Save and &run now") if task is None else self.tr("&Run now"))
        if self.run_now_with is None:
            reason = self.tr("Automations run only while the pidesktop window is open")
        elif task is not None and task["running"]:
            reason = self.tr("This automation is running now; it never runs twice at once")
        else:
            reason = ""
        self.run_button.setEnabled(not reason)
        self.run_button.setToolTip(
            reason
            or (
                self.tr("Save this automation, then run it at once in a new chat")
                if task is None
                else self.tr("Run this automation at once, in a new chat")
            )
        )

    def new_task(self) -> None:
        self.list.setCurrentItem(None)
        self.list.clearSelection()
        self.editor_title.setText(self.tr("New automation"))
        self.editor.load(None)
        self.editor.name.setFocus()
        self.delete_button.setEnabled(False)
        self._update_run_button(None)
        self.history.clear()
        self.runs = []
        self.history_stack.setCurrentWidget(self.no_runs)

    # -- actions -------------------------------------------------------------------------------
    def save(self, fields: dict, then: Callable[[dict], Any] | None = None) -> None:
        task = self.editor.task
        method, params = ("tasks.update", {"taskId": task["id"], **fields}) if task else ("tasks.create", fields)

        async def saved(result: dict) -> None:
            self.notice.hide()
            self.editor.task = result["task"]
            self.editor.mark_saved()
            await self.refresh()
            self._select_id(result["task"]["id"])
            if then is not None:
                then(result["task"])

        host_op(
            self.client,
            method,
            params,
            parent=self,
            success=saved,
            failure=self._save_failed,
            busy=[self.editor.save_button],
        ).run()

    def _save_failed(self, error: HostError) -> None:
        if error.code == ErrorCode.INVALID_PARAMS:
            self.editor.show_host_error(error)
        else:
            self.report_error(error)

    def _select_id(self, task_id: str) -> None:
        for row in range(self.list.topLevelItemCount()):
            item = self.list.topLevelItem(row)
            if item.data(0, Qt.ItemDataRole.UserRole) == task_id:
                self.list.setCurrentItem(item)
                return

    def confirm_delete(self) -> None:
        task = self.editor.task
        if task is None:
            return
        confirm(
            self,
            self.tr("Delete automation"),
            arg(self.tr("Delete “%1”? Its run history goes too; the chats it made stay."), task["name"]),
            self.tr("Delete"),
            lambda: host_op(
                self.client,
                "tasks.delete",
                {"taskId": task["id"]},
                parent=self,
                success=lambda _r: self._deleted(),
                failure=self.report_error,
            ).run(),
        )

    def _deleted(self) -> None:
        self.new_task()
        spawn(self.refresh(), name="automations-refresh")

    def run_now(self) -> None:
        """Run the automation shown; a new one is saved first (its fields checked as Save does)."""
        if self.run_now_with is None:
            return
        if self.editor.task is None:
            fields = self.editor.values()
            if fields is not None:
                self.save(fields, then=self._run)
            return
        self._run(self.editor.task)

    def _run(self, task: dict) -> None:
        if self.run_now_with is None:
            return
        self.run_button.setEnabled(False)

        async def run() -> Any:
            return await self.run_now_with(task["id"])

        def refused(error: HostError) -> None:
            if error.code == ErrorCode.CONFLICT:  # it is running already: it never runs twice at once
                self.notice.setText(self.tr("This automation is running now; it never runs twice at once."))
                self.notice.show()
            else:
                self.report_error(error)

        task_op(run, parent=self, name="automation-run-now", failure=refused).run()

    def _history_clicked(self, item: QTreeWidgetItem, column: int) -> None:
        if column == 2:
            self._open_run(item)

    def _open_run(self, item: QTreeWidgetItem) -> None:
        session_id = item.data(0, Qt.ItemDataRole.UserRole)
        if session_id:
            self.openSession.emit(session_id)

    def report_error(self, error: HostError) -> None:
        self.notice.setText(sentence(error))
        self.notice.show()

    def _on_event(self, topic: str, payload: dict) -> None:
        if topic == topics.TASKS_CHANGED:
            spawn(self.refresh(), name="automations-refresh")


def _stack(view: QWidget, empty: QLabel) -> QStackedWidget:
    """``view``, or ``empty`` at its top while there is nothing to list."""
    empty.setAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop)
    stack = QStackedWidget()
    stack.addWidget(view)
    stack.addWidget(empty)
    stack.setCurrentWidget(empty)
    return stack


def open_automations(window: QWidget) -> AutomationsDialog:
    """Show the window's Automations dialog (one at a time); "Open chat" selects the run's chat in it.

    ``window`` is the main window: its ``client``, ``theme``, ``sidebar`` and
    the app's ``scheduler`` (None without one: Run now is then off).
    """
    existing = getattr(window, "automations_dialog", None)
    if existing is not None and isValid(existing):
        existing.raise_()
        existing.activateWindow()
        return existing
    scheduler = getattr(window, "scheduler", None)
    dialog = AutomationsDialog.ask(window.client, window.theme, scheduler.run_now if scheduler else None, window)

    def open_chat(session_id: str) -> None:
        window.chat_view.open_chat(session_id)  # a run's chat has no sidebar row
        window.raise_()
        window.activateWindow()

    dialog.openSession.connect(open_chat)
    window.automations_dialog = dialog
    dialog.show()
    # A window of its own, not one kept above the main window: "Open chat" brings the chat forward over it.
    # (It stays the main window's child, so it closes with it.)
    handle = dialog.windowHandle()
    if handle is not None:
        handle.setTransientParent(None)  # type: ignore[arg-type]  # None clears it; the stub omits Optional
    return dialog
