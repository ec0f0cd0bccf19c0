"""Settings > Data tools: verify the data, back up the database, clean caches, remove old copies, remove old
database copies, workflows.

Each tool is a small dialog shown with ``open()``. The first five work on
the data folder, which the host owns: they run ``data.*`` host commands
(``data.verify``, ``data.backup``, ``data.caches``, ``data.cleanCaches``,
``data.keptRoots``, ``data.removeKeptRoot``, ``data.schemaBackups``,
``data.removeSchemaBackup``) as operations (``ui.ops``), so
the host does the work on a job thread of its own while the dialog shows a
busy bar fed by the job's progress events. Nothing here opens the database
or a file of the data folder. A failure is shown on the dialog's report line
as the sentence the host wrote for a person, never as a traceback. Closing a
dialog cancels its running job.

The Workflows tool reads the separate Pi Workflows state database (not in the
data folder, not the host's) on a worker thread.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Awaitable, Callable
from datetime import datetime
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QAbstractItemView,
    QDialog,
    QFileDialog,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QMessageBox,
    QProgressBar,
    QPushButton,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)
from shiboken6 import isValid

from pidesktop import workflows
from pidesktop.bus import HostClient, HostError
from pidesktop.sizes import human_size
from pidesktop.ui.data.host_jobs import job_error_text, run_job
from pidesktop.ui.data.relaunch import relaunch_pidesktop
from pidesktop.ui.kit import i18n
from pidesktop.ui.kit import theme as themes
from pidesktop.ui.kit.counts import chats_and_messages
from pidesktop.ui.kit.dialog_style import (
    confirm,
    current_theme,
    error_text,
    path_row,
    set_severity,
    style_message_box,
    stylesheet,
)
from pidesktop.ui.kit.dialog_style import right as _right
from pidesktop.ui.kit.dialog_style import tree as _tree
from pidesktop.ui.kit.ops import host_op, task_op
from pidesktop.ui.kit.tasks import spawn

DIALOG_WIDTH = 620


class ToolDialog(QDialog):
    """A titled dialog with an intro, a body, a busy bar, a report line and a row of buttons."""

    def __init__(
        self,
        title: str,
        intro: str,
        theme: themes.Theme | None = None,
        parent: QWidget | None = None,
        client: HostClient | None = None,
    ):
        super().__init__(parent)
        self.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose, True)
        self.setWindowTitle(title)
        self.setMinimumWidth(DIALOG_WIDTH)
        self.theme = theme or current_theme(parent)
        self.client = client
        self.task: asyncio.Task | None = None
        heading = QLabel(title)
        heading.setObjectName("pageTitle")
        self.intro = QLabel(intro)
        self.intro.setObjectName("muted")
        self.intro.setWordWrap(True)
        self.body = QVBoxLayout()
        self.body.setSpacing(8)
        self.busy = QProgressBar()
        self.busy.setRange(0, 0)
        self.busy.setTextVisible(False)
        self.busy.hide()
        self.report = QLabel()
        self.report.setObjectName("report")
        self.report.setWordWrap(True)
        self.report.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.report.hide()
        self.buttons = QHBoxLayout()
        self.buttons.addStretch(1)
        self.close_button = QPushButton(self.tr("Close"))
        self.close_button.clicked.connect(self.reject)
        self.buttons.addWidget(self.close_button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(24, 20, 24, 16)
        layout.setSpacing(10)
        layout.addWidget(heading)
        layout.addWidget(self.intro)
        layout.addLayout(self.body, 1)
        layout.addWidget(self.busy)
        layout.addWidget(self.report)
        layout.addSpacing(4)
        layout.addLayout(self.buttons)
        self.setStyleSheet(stylesheet(self.theme))

    def add_button(self, text: str, slot: Callable, role: str = "") -> QPushButton:
        button = QPushButton(text)
        if role:
            button.setObjectName(role)
        button.setAutoDefault(False)
        button.clicked.connect(slot)
        self.buttons.insertWidget(self.buttons.count() - 1, button)
        return button

    def show_report(self, text: str, severity: str) -> None:
        self.report.setText(text)
        set_severity(self.report, severity)
        self.report.show()
        self.fit_height()

    def fit_height(self) -> None:
        """Grow to the height the wrapped lines need at the current width.

        A dialog's minimum size ignores height-for-width, so a word-wrapped
        label shown after the dialog opened would otherwise be squeezed to a
        sliver of its lines.
        """
        self.layout().activate()
        needed = self.heightForWidth(self.width())
        if needed > self.height():
            self.resize(self.width(), needed)

    def start(self, coro, name: str) -> asyncio.Task:
        self.task = spawn(coro, name=name)
        return self.task

    # -- host jobs -------------------------------------------------------------------------
    def job(
        self,
        method: str,
        params: dict | None = None,
        *,
        success: Callable[[dict], Awaitable | None],
        busy: tuple[QWidget, ...] = (),
    ) -> asyncio.Task:
        """Run the host job ``method`` as an operation: ``busy`` disabled and the bar showing meanwhile,
        the result to ``success``, a failure to this dialog's report line."""

        async def call() -> dict:
            self.busy.setRange(0, 0)
            self.busy.show()
            try:
                return await run_job(self.client, method, params, self.progress)
            finally:
                if isValid(self.busy):  # closing the dialog deletes it and cancels this
                    self.busy.hide()

        op = task_op(call, parent=self, name=method, success=success, failure=self.failed, busy=busy)
        return self.start(op.run_async(), method)

    def progress(self, event: dict) -> None:
        if not isValid(self.busy):
            return
        total, done = int(event.get("total") or 0), int(event.get("done") or 0)
        if total > 1:
            self.busy.setRange(0, total)
            self.busy.setValue(min(done, total))
        else:
            self.busy.setRange(0, 0)

    def failed(self, error: HostError) -> None:
        self.show_report(job_error_text(error), "error")

    def done(self, result: int) -> None:
        """Closing stops the job this dialog is waiting for (the host is asked to cancel it)."""
        if self.task is not None and not self.task.done():
            self.task.cancel()
        super().done(result)

    async def work(self, fn: Callable, *args):
        """Run ``fn(*args)`` on a worker thread with the busy bar showing; returns (ok, result or message).

        Only for work that is not the host's (the Workflows database)."""
        self.busy.show()
        try:
            return True, await asyncio.to_thread(fn, *args)
        except Exception as exc:
            return False, error_text(exc, (workflows.StateError,))
        finally:
            self.busy.hide()


# -- Verify data ---------------------------------------------------------------------------
class VerifyDialog(ToolDialog):
    """Runs ``data.verify`` and shows what it found."""

    def __init__(self, client: HostClient, theme: themes.Theme | None = None, parent: QWidget | None = None):
        super().__init__(
            self.tr("Verify data"),
            self.tr(
                "Checks the database and that every indexed message can be read from its "
                "transcript. Nothing is changed."
            ),
            theme,
            parent,
            client,
        )
        self.result: dict | None = None
        self.details = QLabel()
        self.details.setWordWrap(True)
        self.details.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.details.setObjectName("muted")
        self.details.hide()
        self.body.addWidget(self.details)
        self.again_button = self.add_button(self.tr("Verify again"), self.run)

    def open(self) -> None:
        super().open()
        self.run()

    def run(self) -> None:
        self.report.hide()
        self.details.hide()
        self.result = None
        self.job("data.verify", success=self._show, busy=(self.again_button,))

    def _show(self, found: dict) -> None:
        self.result = found
        counts = i18n.arg(self.tr("%1 checked."), chats_and_messages(found["sessions"], found["messages"]))
        if found["ok"]:
            self.show_report(self.tr("No problems found.") + " " + counts, "ok")
        else:
            self.show_report(i18n.arg(self.tr("Problems found: %1."), len(found["problems"])) + " " + counts, "error")
        lines = [f"• {problem}" for problem in found["problems"]]
        if found["recoverable"]:
            lines.append(self.tr("Recoverable (pidesktop restores these at the next start):"))
            lines += [f"• {item}" for item in found["recoverable"]]
        if lines:
            self.details.setText("\n".join(lines))
            self.details.show()
            self.fit_height()


# -- Back up database ----------------------------------------------------------------------
class BackupDialog(ToolDialog):
    """A verified copy of ``pi.sqlite`` at an absolute path the person picks (``data.backup``)."""

    def __init__(self, client: HostClient, theme: themes.Theme | None = None, parent: QWidget | None = None):
        super().__init__(
            self.tr("Back up database"),
            self.tr(
                "Writes a consistent copy of the chat database (pi.sqlite), readable only by "
                "you. It is checked before it is kept. pidesktop keeps running meanwhile."
            ),
            theme,
            parent,
            client,
        )
        self.result: dict | None = None
        stamp = datetime.now().strftime("%Y-%m-%d")
        self.path_edit, row = path_row(self.tr("Full path of the new backup file"), self.browse)
        self.path_edit.setText(str(Path.home() / f"pidesktop-backup-{stamp}.sqlite"))
        self.body.addLayout(row)
        self.backup_button = self.add_button(self.tr("Back up"), self.run, "primary")

    def browse(self) -> None:
        chooser = QFileDialog(self, self.tr("Back up database"), os.path.dirname(self.path_edit.text()))
        chooser.setAcceptMode(QFileDialog.AcceptMode.AcceptSave)
        chooser.setNameFilter(self.tr("SQLite database (*.sqlite *.db)"))
        chooser.selectFile(os.path.basename(self.path_edit.text()))
        chooser.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose, True)
        chooser.fileSelected.connect(self.path_edit.setText)
        chooser.open()

    def run(self) -> None:
        self.report.hide()
        target = os.path.expanduser(self.path_edit.text().strip())
        self.job("data.backup", {"path": target}, success=self._show, busy=(self.backup_button, self.path_edit))

    def _show(self, found: dict) -> None:
        self.result = found
        self.show_report(
            i18n.arg(self.tr("Backed up and verified: %1 (%2)."), found["path"], human_size(found["bytes"])), "ok"
        )


# -- Clean caches --------------------------------------------------------------------------
class CacheDialog(ToolDialog):
    """Sizes of the allowlisted caches (``data.caches``); emptying them is done at the next start.

    Cache cleanup is a confirmed cold operation (spec 004, section 2): the
    host records the request (``data.cleanCaches``) and the app restarts;
    start-up empties the caches before the host opens, and this dialog shows
    that cleanup's report the next time.
    """

    def __init__(self, client: HostClient, theme: themes.Theme | None = None, parent: QWidget | None = None):
        super().__init__(
            self.tr("Clean caches"),
            self.tr(
                "Only these folders are emptied. Chats, attachments, secrets and settings are "
                "never touched; pidesktop rebuilds what it needs."
            ),
            theme,
            parent,
            client,
        )
        self.folders: list[dict] = []
        self.caches: dict | None = None
        self.scheduled: dict | None = None
        self.table = _tree([self.tr("Folder"), self.tr("Files"), self.tr("Size")])
        self.table.setMinimumHeight(150)
        self.total = QLabel()
        self.total.setObjectName("rowTitle")
        self.body.addWidget(self.table)
        self.body.addWidget(self.total)
        self.clean_button = self.add_button(self.tr("Restart and clean…"), self.ask, "danger")
        self.clean_button.setEnabled(False)

    def open(self) -> None:
        super().open()
        self.refresh()

    def refresh(self) -> None:
        self.job("data.caches", success=self._show)

    def _show(self, found: dict) -> None:
        self.caches = found
        self.folders = found["folders"]
        self.table.clear()
        for folder in self.folders:
            present = folder["state"] == "present"
            item = QTreeWidgetItem(
                [
                    self._describe(folder),
                    str(folder["files"]) if present else "–",
                    human_size(folder["bytes"]) if present else "–",
                ]
            )
            item.setToolTip(0, folder["path"])
            _right(item, 1, 2)
            self.table.addTopLevelItem(item)
        self.total.setText(i18n.arg(self.tr("Total: %1"), human_size(found["totalBytes"])))
        self.clean_button.setEnabled(found["totalBytes"] > 0 and not found["cleanPending"])
        last = found.get("lastClean")
        if found["cleanPending"]:
            self.show_report(self.tr("A cleanup is waiting: it runs the next time pidesktop starts."), "info")
        elif last is not None:
            text = i18n.arg(
                self.tr("The last cleanup freed %1 (%2)."),
                human_size(last.get("freedBytes", 0)),
                i18n.counted(last.get("removedFiles", 0), self.tr("1 file"), self.tr("%1 files")),
            )
            if last.get("failures"):
                text += "\n" + self.tr("Some entries could not be removed:") + "\n" + "\n".join(last["failures"][:8])
            self.show_report(text, "error" if last.get("failures") else "ok")
        else:
            self.show_report(
                self.tr(
                    "pidesktop is using these folders, so they are emptied while it restarts, "
                    "before your chats open again."
                ),
                "info",
            )

    def _describe(self, folder: dict) -> str:
        root = self.caches["uiRoot"] if folder["area"] == "ui" else self.caches["dataRoot"]
        try:
            label = str(Path(folder["path"]).relative_to(root)) + "/"
        except ValueError:
            label = folder["path"]
        if folder["area"] == "ui":
            label = i18n.arg(self.tr("%1 (window state)"), label)
        if folder["state"] == "link":
            return i18n.arg(self.tr("%1 — a link, skipped"), label)
        if folder["state"] == "not-a-folder":
            return i18n.arg(self.tr("%1 — not a folder, skipped"), label)
        return label

    def ask(self) -> None:
        total = self.caches["totalBytes"] if self.caches else 0
        confirm(
            self,
            self.tr("Clean caches"),
            i18n.arg(self.tr("Restart pidesktop, empty the cache folders and free %1?"), human_size(total)),
            self.tr("Clean"),
            self.run,
        )

    # Replaceable (tests): how the app restarts after recording a cleanup request.
    relaunch = staticmethod(relaunch_pidesktop)

    def run(self) -> None:
        self.start(
            host_op(
                self.client,
                "data.cleanCaches",
                parent=self,
                success=self._scheduled,
                failure=self.failed,
                busy=(self.clean_button,),
            ).run_async(),
            "data.cleanCaches",
        )

    def _scheduled(self, result: dict) -> None:
        self.scheduled = result
        type(self).relaunch()


# -- Remove old copies ---------------------------------------------------------------------
class OldCopiesDialog(ToolDialog):
    """The data folders kept after a move (``data.keptRoots``), and deleting one after a second confirmation."""

    def __init__(self, client: HostClient, theme: themes.Theme | None = None, parent: QWidget | None = None):
        super().__init__(
            self.tr("Remove old copies"),
            self.tr(
                "After a move, pidesktop keeps the old data folder as a backup. Delete it once "
                "you are sure the new one has everything."
            ),
            theme,
            parent,
            client,
        )
        self.kept: list[dict] = []
        self.result: dict | None = None
        self.table = _tree([self.tr("Old folder"), self.tr("Moved"), self.tr("Size")])
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.table.setMinimumHeight(150)
        self.table.itemSelectionChanged.connect(self._selected)
        self.empty = QLabel(self.tr("There are no old copies."))
        self.empty.setObjectName("muted")
        self.empty.hide()
        self.blocked = QLabel()
        self.blocked.setObjectName("formError")
        self.blocked.setWordWrap(True)
        self.blocked.hide()
        self.body.addWidget(self.table)
        self.body.addWidget(self.empty)
        self.body.addWidget(self.blocked)
        self.delete_button = self.add_button(self.tr("Delete…"), self.ask, "danger")
        self.delete_button.setEnabled(False)

    def open(self) -> None:
        super().open()
        self.refresh()

    def refresh(self) -> asyncio.Task:
        return self.job("data.keptRoots", success=self._show)

    def _show(self, found: dict) -> None:
        self.kept = found["keptRoots"]
        self.table.clear()
        for info in self.kept:
            moved = datetime.fromtimestamp(info["movedAt"] / 1000).strftime("%Y-%m-%d %H:%M")
            folder = "\n".join(info["paths"])
            if not info["present"]:
                folder += "\n" + self.tr("(already gone)")
            item = QTreeWidgetItem([folder, moved, human_size(info["bytes"])])
            item.setToolTip(0, i18n.arg(self.tr("Moved to %1"), info["movedTo"]))
            item.setData(0, Qt.ItemDataRole.UserRole, info["id"])
            _right(item, 2)
            self.table.addTopLevelItem(item)
        self.table.setVisible(bool(self.kept))
        self.empty.setVisible(not self.kept)
        if self.kept:
            self.table.setCurrentItem(self.table.topLevelItem(0))
        self._selected()

    def selected(self) -> dict | None:
        item = self.table.currentItem()
        if item is None:
            return None
        wanted = item.data(0, Qt.ItemDataRole.UserRole)
        return next((info for info in self.kept if info["id"] == wanted), None)

    def _selected(self) -> None:
        info = self.selected()
        self.blocked.setVisible(bool(info and info["problems"]))
        if info and info["problems"]:
            self.blocked.setText(" ".join(info["problems"]))
        self.delete_button.setEnabled(bool(info) and not info["problems"])

    def ask(self) -> None:
        info = self.selected()
        if info is None:
            return
        folders = "\n".join(info["paths"])
        confirm(
            self,
            self.tr("Remove old copies"),
            i18n.arg(
                self.tr("Delete these folders (%1) for good?\n\n%2\n\nThis cannot be undone."),
                human_size(info["bytes"]),
                folders,
            ),
            self.tr("Delete"),
            lambda: self.confirm_again(info),
        )

    def confirm_again(self, info: dict) -> None:
        confirm(
            self,
            self.tr("Remove old copies"),
            self.tr("Are you sure? Your current data folder is not affected, but the old copy cannot be recovered."),
            self.tr("Delete for good"),
            lambda: self.delete(info["id"]),
        )

    def delete(self, entry_id: str) -> None:
        self.report.hide()
        self.job("data.removeKeptRoot", {"id": entry_id}, success=self._deleted, busy=(self.delete_button,))

    async def _deleted(self, found: dict) -> None:
        self.result = found
        await self.refresh()
        if found["ok"]:
            self.show_report(
                i18n.counted(
                    len(found["deleted"]) + len(found["alreadyGone"]),
                    self.tr("Deleted 1 folder."),
                    self.tr("Deleted %1 folders."),
                ),
                "ok",
            )
        else:
            self.delete_button.setText(self.tr("Retry…"))
            self.show_report(
                self.tr("Some folders could not be deleted; the copy stays listed so you can retry:")
                + "\n"
                + "\n".join(found["failures"][:8]),
                "error",
            )

    def failed(self, error: HostError) -> None:
        super().failed(error)
        if self.task is None or self.task.get_name() == "data.removeKeptRoot":
            spawn(self._refresh_keeping_report(), name="kept-roots-after-failure")

    async def _refresh_keeping_report(self) -> None:
        text, severity = self.report.text(), self.report.property("severity")
        await self.refresh()
        self.show_report(text, severity or "error")


# -- Old database copies -------------------------------------------------------------------
class SchemaBackupsDialog(ToolDialog):
    """The copies of the database kept when pidesktop updated it (``data.schemaBackups``); removing one takes
    two confirmations (``data.removeSchemaBackup``). The live database is never listed."""

    def __init__(self, client: HostClient, theme: themes.Theme | None = None, parent: QWidget | None = None):
        super().__init__(
            self.tr("Old database copies"),
            self.tr(
                "When pidesktop updates your data to a new version, it first keeps a copy of the "
                "database as it was. Once you are sure everything is there, you can remove "
                "them."
            ),
            theme,
            parent,
            client,
        )
        self.backups: list[dict] | None = None
        self.result: dict | None = None
        self.question: QMessageBox | None = None
        self.table = _tree([self.tr("Copy"), self.tr("Version"), self.tr("Saved"), self.tr("Size")])
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.table.setMinimumHeight(150)
        self.table.itemSelectionChanged.connect(self._selected)
        self.empty = QLabel(self.tr("There are no old database copies."))
        self.empty.setObjectName("muted")
        self.empty.hide()
        self.body.addWidget(self.table)
        self.body.addWidget(self.empty)
        self.remove_button = self.add_button(self.tr("Remove…"), self.ask, "danger")
        self.remove_button.setEnabled(False)

    def open(self) -> None:
        super().open()
        self.refresh()

    def refresh(self) -> asyncio.Task:
        return self.start(
            host_op(
                self.client, "data.schemaBackups", parent=self, success=self._show, failure=self.failed
            ).run_async(),
            "data.schemaBackups",
        )

    def _show(self, found: dict) -> None:
        self.backups = found["backups"]
        self.table.clear()
        for info in self.backups:
            kept = datetime.fromtimestamp(info["modifiedAt"] / 1000).strftime("%Y-%m-%d %H:%M")
            item = QTreeWidgetItem([info["name"], str(info["version"]), kept, human_size(info["bytes"])])
            item.setToolTip(0, info["path"])
            item.setData(0, Qt.ItemDataRole.UserRole, info["name"])
            _right(item, 1, 3)
            self.table.addTopLevelItem(item)
        self.table.setVisible(bool(self.backups))
        self.empty.setVisible(not self.backups)
        if self.backups:
            self.table.setCurrentItem(self.table.topLevelItem(0))
        self._selected()

    def selected(self) -> dict | None:
        item = self.table.currentItem()
        if item is None or not self.backups:
            return None
        wanted = item.data(0, Qt.ItemDataRole.UserRole)
        return next((info for info in self.backups if info["name"] == wanted), None)

    def _selected(self) -> None:
        self.remove_button.setEnabled(self.selected() is not None)

    def _question(self, text: str, action: str, on_yes: Callable[[], None]) -> QMessageBox:
        """A question box in the app's look; ``on_yes`` runs only when ``action`` is pressed. The box is kept
        until the next one (not deleted while its own click is still being handled)."""
        box = QMessageBox(
            QMessageBox.Icon.Warning, self.tr("Old database copies"), text, QMessageBox.StandardButton.Cancel, self
        )
        yes = box.addButton(action, QMessageBox.ButtonRole.DestructiveRole)
        box.setDefaultButton(QMessageBox.StandardButton.Cancel)
        style_message_box(box, self.theme)
        box.finished.connect(lambda _result: on_yes() if box.clickedButton() is yes else None)
        if self.question is not None and isValid(self.question):
            self.question.deleteLater()
        self.question = box
        box.open()
        return box

    def ask(self) -> QMessageBox | None:
        info = self.selected()
        if info is None:
            return None
        return self._question(
            i18n.arg(
                self.tr("Remove %1 (version %2, %3)?\n\n%4"),
                info["name"],
                info["version"],
                human_size(info["bytes"]),
                info["path"],
            ),
            self.tr("Remove"),
            lambda: self.confirm_again(info),
        )

    def confirm_again(self, info: dict) -> QMessageBox:
        return self._question(
            i18n.arg(
                self.tr(
                    "Are you sure? Without this copy, going back to a pidesktop "
                    "that reads version %1 is no longer possible. Your current "
                    "database is not affected."
                ),
                info["version"],
            ),
            self.tr("Remove for good"),
            lambda: self.remove(info["name"]),
        )

    def remove(self, name: str) -> asyncio.Task:
        self.report.hide()
        return self.start(
            host_op(
                self.client,
                "data.removeSchemaBackup",
                {"name": name},
                parent=self,
                success=self._removed,
                failure=self._remove_failed,
                busy=(self.remove_button,),
            ).run_async(),
            "data.removeSchemaBackup",
        )

    async def _removed(self, found: dict) -> None:
        self.result = found
        await self.refresh()
        self.show_report(i18n.arg(self.tr("Removed %1 (%2)."), found["name"], human_size(found["bytes"])), "ok")

    async def _remove_failed(self, error: HostError) -> None:
        await self.refresh()
        self.failed(error)


# -- Workflows -----------------------------------------------------------------------------
class WorkflowsDialog(ToolDialog):
    """The Pi Workflows state database: its status, a verification and a verified backup."""

    def __init__(self, theme: themes.Theme | None = None, parent: QWidget | None = None, db_path: str | None = None):
        super().__init__(
            self.tr("Workflows"),
            self.tr("The Pi Workflows state database keeps runs, decisions and leases. This only reads it."),
            theme,
            parent,
        )
        self.db_path = db_path
        self.summary: dict | None = None
        self.path_label = QLabel("…")
        self.path_label.setObjectName("path")
        self.path_label.setWordWrap(True)
        self.path_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.table = _tree([self.tr("Item"), self.tr("Count")])
        self.table.setMinimumHeight(170)
        self.table.hide()
        self.backup_edit = QLineEdit()
        self.backup_edit.setPlaceholderText(self.tr("Full path of the new backup file"))
        self.backup_edit.hide()
        self.body.addWidget(self.path_label)
        self.body.addWidget(self.table)
        self.body.addWidget(self.backup_edit)
        self.verify_button = self.add_button(self.tr("Verify"), self.run_verify)
        self.backup_button = self.add_button(self.tr("Back up…"), self.run_backup)
        for button in (self.verify_button, self.backup_button):
            button.setEnabled(False)

    def open(self) -> None:
        super().open()
        self.start(self.refresh(), "workflows-status")

    async def refresh(self) -> None:
        ok, found = await self.work(workflows.summary, self.db_path)
        if not ok:
            self.show_report(found, "error")
            return
        self.summary = found
        self.path_label.setText(found["path"])
        state = found.get("state")
        self.table.clear()
        if state == "missing":
            self.table.hide()
            self.show_report(
                self.tr("There is no workflows database yet. It is created the first time Pi Workflows runs."), "info"
            )
            return
        if state == "incompatible":
            self.show_report(
                i18n.arg(
                    self.tr(
                        "The workflows database is not one this version can read (%1 problems). Verify shows them."
                    ),
                    found.get("problemCount", 0),
                ),
                "error",
            )
            self.verify_button.setEnabled(True)
            return
        rows = [(self.tr("Database size"), human_size(found.get("fileBytes", 0) + found.get("walBytes", 0)))]
        for status, count in sorted(found.get("runs", {}).items()):
            rows.append((i18n.arg(self.tr("Runs: %1"), status), str(count)))
        for status, count in sorted(found.get("decisions", {}).items()):
            rows.append((i18n.arg(self.tr("Decisions: %1"), status), str(count)))
        leases = found.get("leases", {})
        rows.append((self.tr("Active leases"), str(leases.get("active", 0))))
        rows.append((self.tr("Stale leases"), str(leases.get("stale", 0))))
        rows.append((self.tr("Unsettled effects"), str(found.get("unsettledEffects", {}).get("total", 0))))
        for label, value in rows:
            item = QTreeWidgetItem([label, value])
            _right(item, 1)
            self.table.addTopLevelItem(item)
        self.table.show()
        self.show_report(self.tr("The workflows database is ready."), "ok")
        for button in (self.verify_button, self.backup_button):
            button.setEnabled(True)
        stamp = datetime.now().strftime("%Y-%m-%d")
        if not self.backup_edit.text():
            self.backup_edit.setText(str(Path.home() / f"workflows-backup-{stamp}.sqlite"))

    def run_verify(self) -> None:
        self.start(self._verify(), "workflows-verify")

    async def _verify(self) -> None:
        ok, found = await self.work(workflows.verify, self.db_path)
        if not ok:
            self.show_report(found, "error")
        elif found["ok"]:
            self.show_report(self.tr("Verified: no problems found."), "ok")
        else:
            problems = found["schemaProblems"] + [p for p in found["integrity"] if p != "ok"]
            problems += [f"{fk['table']} #{fk['rowid']} → {fk['parent']}" for fk in found["foreignKeys"]]
            self.show_report(self.tr("Problems found:") + "\n" + "\n".join(f"• {p}" for p in problems[:8]), "error")

    def run_backup(self) -> None:
        if not self.backup_edit.isVisible():  # first press: show where it will go
            self.backup_edit.show()
            self.backup_button.setText(self.tr("Back up"))
            self.backup_edit.setFocus()
            return
        self.start(self._backup(os.path.expanduser(self.backup_edit.text().strip())), "workflows-backup")

    async def _backup(self, target: str) -> None:
        ok, found = await self.work(workflows.back_up, self.db_path, target)
        if not ok:
            self.show_report(found, "error")
            return
        self.show_report(
            i18n.arg(self.tr("Backed up and verified: %1 (%2)."), found["destination"], human_size(found["bytes"])),
            "ok",
        )
