"""Settings > Data tools: verify the data, back up the database, clean caches, remove old copies, workflows.

Each tool is a small dialog shown with ``open()``. Every storage call runs on a
worker thread (``asyncio.to_thread``) while the dialog shows a busy bar, so
the window never blocks; the storage functions open their own read-only
connections where they read the database. A failure is shown as the
sentence the storage layer wrote for a person, never as a traceback.
"""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import Callable
from datetime import datetime
from pathlib import Path

from PySide6.QtCore import QCoreApplication, Qt
from PySide6.QtWidgets import (QAbstractItemView, QApplication, QDialog, QFileDialog, QHBoxLayout, QHeaderView,
                               QLabel, QLineEdit, QMessageBox, QProgressBar, QPushButton, QTreeWidget,
                               QTreeWidgetItem, QVBoxLayout, QWidget)

from .. import paths
from ..storage import backup as db_backup
from ..storage import cache, cache_request, cleanup, verify
from ..storage.errors import StorageJobError
from ..storage.locking import is_in_use
from ..workflows import backup as wf_backup
from ..workflows import status as wf_status
from ..workflows.errors import StateError
from . import i18n
from . import theme as themes
from .relaunch import relaunch_pidesktop
from ..sizes import human_size
from .tasks import spawn

log = logging.getLogger("pidesktop.ui.data_tools")

DIALOG_WIDTH = 620


# -- shared pieces -------------------------------------------------------------------------
def path_row(placeholder: str, browse: Callable[[], None]) -> tuple[QLineEdit, QHBoxLayout]:
    """A path field with a "Choose…" button beside it that calls ``browse``."""
    edit = QLineEdit()
    edit.setPlaceholderText(placeholder)
    button = QPushButton(QCoreApplication.translate("Maintenance", "Choose…"))
    button.setAutoDefault(False)
    button.clicked.connect(browse)
    row = QHBoxLayout()
    row.addWidget(edit, 1)
    row.addWidget(button)
    return edit, row


def error_text(exc: BaseException) -> str:
    """A sentence a person can act on. Storage errors already are; anything else is summarised and logged."""
    if isinstance(exc, (StorageJobError, StateError)):
        return str(exc)
    if isinstance(exc, OSError):
        where = f" ({exc.filename})" if exc.filename else ""
        return i18n.arg(QCoreApplication.translate("Maintenance", "The file system refused: %1%2. Check the "
                                                   "folder's permissions and free space, then try again."),
                        exc.strerror or exc, where)
    log.error("maintenance task failed", exc_info=exc)
    return i18n.arg(QCoreApplication.translate("Maintenance", "Something unexpected went wrong (%1). Nothing "
                                               "was changed; the details are in the log."), type(exc).__name__)


def current_theme(widget: QWidget | None = None) -> themes.Theme:
    owner = widget.window() if widget is not None else None
    theme = getattr(owner, "theme", None)
    if isinstance(theme, themes.Theme):
        return theme
    app = QApplication.instance()
    return themes.DARK if app is not None and app.property("pidesktopTheme") == "dark" else themes.LIGHT


def stylesheet(t: themes.Theme) -> str:
    """The settings look, plus progress bars, lists and wizard pages."""
    from .settings_dialog import stylesheet as settings_stylesheet

    return settings_stylesheet(t) + f"""
QDialog, QWizard, QWizardPage {{ background: {t.background}; color: {t.text}; }}
QLabel#report {{ padding: 10px 12px; border-radius: 8px; background: {t.code_panel}; }}
QLabel#report[severity="ok"] {{ border-left: 3px solid #16A34A; }}
QLabel#report[severity="error"] {{ border-left: 3px solid {t.danger}; }}
QLabel#report[severity="info"] {{ border-left: 3px solid {t.accent}; }}
QLineEdit {{ border: 1px solid {t.border}; border-radius: 8px; padding: 6px 8px; background: {t.background}; }}
QProgressBar {{
    border: 1px solid {t.border}; border-radius: 6px; background: {t.code_panel}; height: 10px;
    max-height: 10px; text-align: center; color: transparent;
}}
QProgressBar::chunk {{ background: {t.accent}; border-radius: 5px; }}
QTreeWidget {{
    background: {t.background}; color: {t.text}; border: 1px solid {t.border}; border-radius: 8px;
    padding: 4px; outline: 0; alternate-background-color: {t.sidebar};
}}
QTreeWidget::item {{ padding: 4px 2px; }}
QTreeWidget::item:selected {{ background: {t.selected}; color: {t.text}; }}
QHeaderView::section {{
    background: {t.background}; color: {t.muted}; border: none; border-bottom: 1px solid {t.border};
    padding: 4px 6px; font-weight: 600;
}}
"""


def set_severity(label: QLabel, severity: str) -> None:
    label.setProperty("severity", severity)
    label.style().unpolish(label)
    label.style().polish(label)


class ToolDialog(QDialog):
    """A titled dialog with an intro, a body, a busy bar, a report line and a row of buttons."""

    def __init__(self, title: str, intro: str, theme: themes.Theme | None = None, parent: QWidget | None = None):
        super().__init__(parent)
        self.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose, True)
        self.setWindowTitle(title)
        self.setMinimumWidth(DIALOG_WIDTH)
        self.theme = theme or current_theme(parent)
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
        self.close_button = QPushButton(QCoreApplication.translate("ToolDialog", "Close"))
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

    async def work(self, fn: Callable, *args):
        """Run ``fn(*args)`` on a worker thread with the busy bar showing; returns (ok, result or message)."""
        self.busy.show()
        try:
            return True, await asyncio.to_thread(fn, *args)
        except Exception as exc:  # noqa: BLE001 - every failure becomes a sentence
            return False, error_text(exc)
        finally:
            self.busy.hide()


def confirm(parent: QWidget, title: str, text: str, action: str, on_yes: Callable[[], None]) -> QMessageBox:
    """A non-blocking question; ``on_yes`` runs only when the person presses ``action``."""
    box = QMessageBox(QMessageBox.Icon.Warning, title, text, QMessageBox.StandardButton.Cancel, parent)
    yes = box.addButton(action, QMessageBox.ButtonRole.AcceptRole)
    box.setDefaultButton(QMessageBox.StandardButton.Cancel)
    box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose, True)
    box.buttonClicked.connect(lambda button: on_yes() if button is yes else None)
    box.open()
    return box


def style_message_box(box: QMessageBox, theme: themes.Theme | None = None) -> QMessageBox:
    """Give a question box (Delete…, Clear inbox…) the look of the app's dialogs instead of Qt's default."""
    theme = theme or current_theme(box.parentWidget())
    for button in box.buttons():
        if box.buttonRole(button) == QMessageBox.ButtonRole.DestructiveRole:
            button.setObjectName("danger")
    box.setStyleSheet(stylesheet(theme) + f"QMessageBox QLabel {{ color: {theme.text}; }}")
    return box


def _tree(headers: list[str]) -> QTreeWidget:
    tree = QTreeWidget()
    tree.setHeaderLabels(headers)
    tree.setRootIsDecorated(False)
    tree.setTextElideMode(Qt.TextElideMode.ElideMiddle)  # paths: keep both ends
    tree.setAlternatingRowColors(True)
    tree.setSelectionMode(QAbstractItemView.SelectionMode.NoSelection)
    tree.setFocusPolicy(Qt.FocusPolicy.NoFocus)
    header = tree.header()
    header.setStretchLastSection(False)
    header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
    for column in range(1, len(headers)):
        header.setSectionResizeMode(column, QHeaderView.ResizeMode.ResizeToContents)
    return tree


def _right(item: QTreeWidgetItem, *columns: int) -> None:
    for column in columns:
        item.setTextAlignment(column, Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)


# -- Verify data ---------------------------------------------------------------------------
class VerifyDialog(ToolDialog):
    """Runs ``storage.verify`` and shows what it found."""

    def __init__(self, location: paths.StorageLocation, theme: themes.Theme | None = None,
                 parent: QWidget | None = None):
        super().__init__(self.tr("Verify data"),
                         self.tr("Checks the database and that every indexed message can be read from its "
                                 "transcript. Nothing is changed."), theme, parent)
        self.location = location
        self.result: verify.VerifyReport | None = None
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
        self.start(self._verify(), "verify-data")

    async def _verify(self) -> None:
        self.again_button.setEnabled(False)
        self.report.hide()
        self.details.hide()
        ok, found = await self.work(verify.verify, self.location.data_root)
        self.again_button.setEnabled(True)
        if not ok:
            self.show_report(found, "error")
            return
        self.result = found
        counts = i18n.arg(self.tr("%1 chats, %2 messages checked."), found.sessions, found.messages)
        if found.ok:
            self.show_report(self.tr("No problems found.") + " " + counts, "ok")
        else:
            self.show_report(i18n.arg(self.tr("Problems found: %1."), len(found.problems)) + " " + counts, "error")
        lines = [f"• {problem}" for problem in found.problems]
        if found.recoverable:
            lines.append(self.tr("Recoverable (pidesktop restores these at the next start):"))
            lines += [f"• {item}" for item in found.recoverable]
        if lines:
            self.details.setText("\n".join(lines))
            self.details.show()
            self.fit_height()


# -- Back up database ----------------------------------------------------------------------
class BackupDialog(ToolDialog):
    """A verified copy of ``pi.sqlite`` at an absolute path the person picks."""

    def __init__(self, location: paths.StorageLocation, theme: themes.Theme | None = None,
                 parent: QWidget | None = None):
        super().__init__(self.tr("Back up database"),
                         self.tr("Writes a consistent copy of the chat database (pi.sqlite), readable only by "
                                 "you. It is checked before it is kept. pidesktop keeps running meanwhile."),
                         theme, parent)
        self.location = location
        self.result: db_backup.BackupResult | None = None
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
        self.start(self._backup(self.path_edit.text().strip()), "backup-database")

    async def _backup(self, target: str) -> None:
        self.backup_button.setEnabled(False)
        self.report.hide()
        ok, found = await self.work(db_backup.backup, self.location.data_root, os.path.expanduser(target))
        self.backup_button.setEnabled(True)
        if not ok:
            self.show_report(found, "error")
            return
        self.result = found
        self.show_report(i18n.arg(self.tr("Backed up and verified: %1 (%2)."), found.path, human_size(found.bytes)),
                         "ok")


# -- Clean caches --------------------------------------------------------------------------
class CacheDialog(ToolDialog):
    """Sizes of the allowlisted caches, and emptying them after a confirmation."""

    def __init__(self, location: paths.StorageLocation, theme: themes.Theme | None = None,
                 parent: QWidget | None = None):
        super().__init__(self.tr("Clean caches"),
                         self.tr("Only these folders are emptied. Chats, attachments, secrets and settings are "
                                 "never touched; pidesktop rebuilds what it needs."), theme, parent)
        self.location = location
        self.folders: list[cache.CacheFolder] = []
        self.cleaned: cache.CleanReport | None = None
        self.table = _tree([self.tr("Folder"), self.tr("Files"), self.tr("Size")])
        self.table.setMinimumHeight(150)
        self.total = QLabel()
        self.total.setObjectName("rowTitle")
        self.body.addWidget(self.table)
        self.body.addWidget(self.total)
        self.clean_button = self.add_button(self.tr("Clean…"), self.ask, "danger")
        self.clean_button.setEnabled(False)

    def open(self) -> None:
        super().open()
        self.start(self.refresh(), "cache-sizes")

    async def refresh(self) -> None:
        ok, found = await self.work(lambda: (cache.sizes(self.location), is_in_use(self.location.data_root)))
        if not ok:
            self.show_report(found, "error")
            return
        self.folders, holder = found
        self.table.clear()
        for folder in self.folders:
            shown = self._describe(folder)
            item = QTreeWidgetItem([shown, str(folder.files) if folder.state == cache.PRESENT else "–",
                                    human_size(folder.bytes) if folder.state == cache.PRESENT else "–"])
            item.setToolTip(0, str(folder.path))
            _right(item, 1, 2)
            self.table.addTopLevelItem(item)
        total = sum(folder.bytes for folder in self.folders)
        self.total.setText(i18n.arg(self.tr("Total: %1"), human_size(total)))
        self.in_use = holder is not None
        last = cache_request.last_report()
        if self.in_use:
            self.clean_button.setText(self.tr("Restart and clean…"))
            self.clean_button.setEnabled(total > 0)
            self.show_report(self.tr("pidesktop is using this data folder, so its caches are emptied while it "
                                     "restarts, before your chats open again."), "info")
        else:
            self.clean_button.setEnabled(total > 0)
        if last is not None and last.get("dataRoot") == str(self.location.data_root) and self.cleaned is None:
            text = i18n.arg(self.tr("The last cleanup freed %1 (%2 files)."), human_size(last.get("freedBytes", 0)),
                            last.get("removedFiles", 0))
            if last.get("failures"):
                text += "\n" + self.tr("Some entries could not be removed:") + "\n" + "\n".join(last["failures"][:8])
            self.show_report(text, "error" if last.get("failures") else "ok")

    def _describe(self, folder: cache.CacheFolder) -> str:
        for root in (self.location.data_root, self.location.ui_root):
            try:
                rel = folder.path.relative_to(root)
            except ValueError:
                continue
            label = str(rel) + "/"
            if root == self.location.ui_root:
                label = i18n.arg(self.tr("%1 (window state)"), label)
            break
        else:
            label = str(folder.path)
        if folder.state == cache.LINK:
            return i18n.arg(self.tr("%1 — a link, skipped"), label)
        if folder.state == cache.NOT_A_FOLDER:
            return i18n.arg(self.tr("%1 — not a folder, skipped"), label)
        return label

    def ask(self) -> None:
        total = sum(folder.bytes for folder in self.folders)
        confirm(self, self.tr("Clean caches"),
                i18n.arg(self.tr("Empty the cache folders and free %1?"), human_size(total)),
                self.tr("Clean"), self.run)

    # Replaceable (tests): how the app restarts after recording a cleanup request.
    relaunch = staticmethod(relaunch_pidesktop)

    def run(self) -> None:
        if getattr(self, "in_use", False):
            cache_request.request(self.location)  # done at the next start, before the host opens
            type(self).relaunch()
            return
        self.start(self._clean(), "clean-caches")

    async def _clean(self) -> None:
        self.clean_button.setEnabled(False)
        self.report.hide()
        ok, found = await self.work(cache.clean, self.location)
        if not ok:
            self.show_report(found, "error")
            self.clean_button.setEnabled(True)
            return
        self.cleaned = found
        await self.refresh()
        if found.ok:
            self.show_report(i18n.arg(self.tr("Freed %1 (%2 files)."), human_size(found.freed_bytes),
                                      found.removed_files), "ok")
        else:
            self.clean_button.setText(self.tr("Retry"))
            self.clean_button.setEnabled(True)
            self.show_report(i18n.arg(self.tr("Freed %1, but some entries could not be removed:"),
                                      human_size(found.freed_bytes)) + "\n" + "\n".join(found.failures[:8]), "error")


# -- Remove old copies ---------------------------------------------------------------------
class OldCopiesDialog(ToolDialog):
    """The data folders kept after a move, and deleting one after a second confirmation."""

    def __init__(self, location: paths.StorageLocation, theme: themes.Theme | None = None,
                 parent: QWidget | None = None):
        super().__init__(self.tr("Remove old copies"),
                         self.tr("After a move, pidesktop keeps the old data folder as a backup. Delete it once "
                                 "you are sure the new one has everything."), theme, parent)
        self.location = location
        self.kept: list[cleanup.KeptRootInfo] = []
        self.result: cleanup.CleanupResult | None = None
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
        self.start(self.refresh(), "kept-roots")

    async def refresh(self) -> None:
        ok, found = await self.work(cleanup.list_kept, self.location)
        if not ok:
            self.show_report(found, "error")
            return
        self.kept = found
        self.table.clear()
        for info in self.kept:
            moved = datetime.fromtimestamp(info.entry.moved_at / 1000).strftime("%Y-%m-%d %H:%M")
            folder = "\n".join(str(p) for p in info.entry.paths)
            if not info.present:
                folder += "\n" + self.tr("(already gone)")
            item = QTreeWidgetItem([folder, moved, human_size(info.bytes)])
            item.setToolTip(0, i18n.arg(self.tr("Moved to %1"), info.entry.moved_to))
            item.setData(0, Qt.ItemDataRole.UserRole, info.entry.id)
            _right(item, 2)
            self.table.addTopLevelItem(item)
        self.table.setVisible(bool(self.kept))
        self.empty.setVisible(not self.kept)
        if self.kept:
            self.table.setCurrentItem(self.table.topLevelItem(0))
        self._selected()

    def selected(self) -> cleanup.KeptRootInfo | None:
        item = self.table.currentItem()
        if item is None:
            return None
        wanted = item.data(0, Qt.ItemDataRole.UserRole)
        return next((info for info in self.kept if info.entry.id == wanted), None)

    def _selected(self) -> None:
        info = self.selected()
        self.blocked.setVisible(bool(info and info.problems))
        if info and info.problems:
            self.blocked.setText(" ".join(info.problems))
        self.delete_button.setEnabled(bool(info) and not info.problems)

    def ask(self) -> None:
        info = self.selected()
        if info is None:
            return
        folders = "\n".join(str(p) for p in info.entry.paths)
        confirm(self, self.tr("Remove old copies"),
                i18n.arg(self.tr("Delete these folders (%1) for good?\n\n%2\n\nThis cannot be undone."),
                         human_size(info.bytes), folders),
                self.tr("Delete"), lambda: self.confirm_again(info))

    def confirm_again(self, info: cleanup.KeptRootInfo) -> None:
        confirm(self, self.tr("Remove old copies"),
                self.tr("Are you sure? Your current data folder is not affected, but the old copy cannot be "
                        "recovered."), self.tr("Delete for good"), lambda: self.delete(info.entry.id))

    def delete(self, entry_id: str) -> None:
        self.start(self._delete(entry_id), "delete-kept-root")

    async def _delete(self, entry_id: str) -> None:
        self.delete_button.setEnabled(False)
        self.report.hide()
        ok, found = await self.work(cleanup.delete, entry_id, self.location)
        if not ok:
            self.show_report(found, "error")
            await self.refresh()
            return
        self.result = found
        await self.refresh()
        if found.ok:
            self.show_report(i18n.arg(self.tr("Deleted %1 folders."), len(found.deleted) + len(found.already_gone)),
                             "ok")
        else:
            self.delete_button.setText(self.tr("Retry…"))
            self.show_report(self.tr("Some folders could not be deleted; the copy stays listed so you can retry:")
                             + "\n" + "\n".join(found.failures[:8]), "error")


# -- Workflows -----------------------------------------------------------------------------
class WorkflowsDialog(ToolDialog):
    """The Pi Workflows state database: its status, a verification and a verified backup."""

    def __init__(self, theme: themes.Theme | None = None, parent: QWidget | None = None,
                 db_path: str | None = None):
        super().__init__(self.tr("Workflows"),
                         self.tr("The Pi Workflows state database keeps runs, decisions and leases. This only "
                                 "reads it."), theme, parent)
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
        ok, found = await self.work(wf_status.summary, self.db_path)
        if not ok:
            self.show_report(found, "error")
            return
        self.summary = found
        self.path_label.setText(found["path"])
        state = found.get("state")
        self.table.clear()
        if state == "missing":
            self.table.hide()
            self.show_report(self.tr("There is no workflows database yet. It is created the first time Pi "
                                     "Workflows runs."), "info")
            return
        if state == "incompatible":
            self.show_report(i18n.arg(self.tr("The workflows database is not one this version can read (%1 "
                                              "problems). Verify shows them."), found.get("problemCount", 0)),
                             "error")
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
        ok, found = await self.work(wf_status.verify, self.db_path)
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
        ok, found = await self.work(wf_backup.backup, self.db_path, target)
        if not ok:
            self.show_report(found, "error")
            return
        self.show_report(i18n.arg(self.tr("Backed up and verified: %1 (%2)."), found["destination"],
                                  human_size(found["bytes"])), "ok")
