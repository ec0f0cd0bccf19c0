"""A chat's "Files changed": the files its tools wrote, each with Open and Revert.

The header's "Files changed" button (Ctrl+Shift+E) opens a small window
listing ``artifacts.list`` for the chat shown, newest first. Open hands the
file to the system's handler; Revert undoes the newest change of that file
(its latest snapshot in ``review.list``). The list follows the chat shown and
is asked for again on the host's ``review.changed``.
Every button is reachable with Tab; Esc closes the window.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication, QDateTime, Qt, QUrl
from PySide6.QtGui import QAction, QDesktopServices, QKeySequence
from PySide6.QtWidgets import (
    QDialog,
    QFrame,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QScrollArea,
    QToolButton,
    QVBoxLayout,
    QWidget,
)
from shiboken6 import isValid

from pidesktop.clock import now_ms
from pidesktop.ui.chat.reviews import Reviews
from pidesktop.ui.kit import dialog_style
from pidesktop.ui.kit.tasks import spawn
from pidesktop.ui.kit.timefmt import relative

if TYPE_CHECKING:
    from pidesktop.ui.window.main_window import MainWindow

OPS = {
    "create": QT_TRANSLATE_NOOP("FilesPanel", "created"),
    "write": QT_TRANSLATE_NOOP("FilesPanel", "written"),
    "edit": QT_TRANSLATE_NOOP("FilesPanel", "edited"),
    "delete": QT_TRANSLATE_NOOP("FilesPanel", "deleted"),
    "reverted": QT_TRANSLATE_NOOP("FilesPanel", "reverted"),  # its newest change was undone
}


def resolve(path: str, project_path: str | None) -> Path | None:
    """Where the file is on this computer: absolute as given, else inside the chat's project folder."""
    candidate = Path(path)
    if candidate.is_absolute():
        return candidate
    return Path(project_path) / candidate if project_path else None


class FilesPanel(QDialog):
    """The list itself; ``show_files`` fills it from ``Reviews``."""

    def __init__(self, reviews: Reviews, project_path: Callable[[], str | None], parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("filesChanged")
        self.setWindowTitle(self.tr("Files changed"))
        self.reviews = reviews
        self.project_path = project_path
        # Replaceable (tests): how a file is handed to the system's handler.
        self.opener: Callable[[QUrl], bool] = QDesktopServices.openUrl
        self.resize(560, 280)
        self.setStyleSheet(dialog_style.stylesheet(dialog_style.current_theme(parent)))
        self.heading = QLabel(self.tr("Files this chat’s tools changed"))
        self.heading.setObjectName("pageTitle")
        self.empty = QLabel(self.tr("No files changed in this chat yet."))
        self.empty.setObjectName("muted")
        self.note = QLabel("")
        self.note.setObjectName("muted")
        self.note.setWordWrap(True)
        self.note.hide()
        self.rows = QWidget()
        self.rows_layout = QVBoxLayout(self.rows)
        self.rows_layout.setContentsMargins(0, 0, 0, 0)
        self.rows_layout.setSpacing(2)
        self.rows_layout.addStretch(1)
        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QFrame.Shape.NoFrame)
        scroll.setWidget(self.rows)
        close = QPushButton(self.tr("Close"))
        close.clicked.connect(self.close)
        bottom = QHBoxLayout()
        bottom.addStretch(1)
        bottom.addWidget(close)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(16, 16, 16, 12)
        layout.addWidget(self.heading)
        layout.addWidget(self.empty)
        layout.addWidget(scroll, 1)
        layout.addWidget(self.note)
        layout.addLayout(bottom)
        self.buttons: dict[str, tuple[QPushButton, QPushButton]] = {}  # path -> (Open, Revert)
        # A method, not a lambda: Qt drops the connection when the panel is deleted (the Reviews outlive it)
        reviews.changed.connect(self._reviews_changed)
        self.show_files()

    def _reviews_changed(self, _session_id: str) -> None:
        self.show_files()

    def show_files(self) -> None:
        while self.rows_layout.count() > 1:
            item = self.rows_layout.takeAt(0)
            widget = item.widget() if item is not None else None
            if widget is not None:
                widget.deleteLater()
        self.buttons.clear()
        files = sorted(self.reviews.artifacts, key=lambda a: str(a.get("updatedAt") or ""), reverse=True)
        self.empty.setVisible(not files)
        for position, artifact in enumerate(files):
            self.rows_layout.insertWidget(position, self._row(artifact))
        if self.isActiveWindow():
            self._focus_first()

    def showEvent(self, event) -> None:
        super().showEvent(event)
        self._focus_first()

    def _focus_first(self) -> None:
        """The keyboard starts on the newest file's first button: Tab goes on to its Revert."""
        for open_button, revert_button in self.buttons.values():
            for button in (open_button, revert_button):
                if button.isEnabled():
                    button.setFocus()
                    return

    def _row(self, artifact: dict) -> QWidget:
        path = str(artifact.get("path") or "")
        row = QFrame()
        row.setObjectName("fileRow")
        layout = QHBoxLayout(row)
        layout.setContentsMargins(4, 4, 4, 4)
        name = QLabel(_shown(path, self.project_path()))
        name.setToolTip(path)
        name.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        snapshot = self.reviews.latest_for(path)
        op_name = "reverted" if snapshot is not None and snapshot.get("reverted") else str(artifact.get("op") or "")
        op = QCoreApplication.translate("FilesPanel", str(OPS[op_name])) if op_name in OPS else op_name
        when = _when(artifact.get("updatedAt"))
        said = QLabel(" · ".join(piece for piece in (op, when) if piece))
        said.setObjectName("muted")
        open_button = QPushButton(self.tr("Open"))
        open_button.setAccessibleName(self.tr("Open %1").replace("%1", path))
        where = resolve(path, self.project_path())
        if where is None:
            open_button.setEnabled(False)
            open_button.setToolTip(self.tr("This chat has no project folder to open the file from."))
        open_button.clicked.connect(lambda: self.open_file(path))
        revert_button = QPushButton(self.tr("Revert"))
        revert_button.setAccessibleName(self.tr("Revert %1").replace("%1", path))
        if snapshot is None or snapshot.get("reverted") or snapshot.get("reversible") is False:
            revert_button.setEnabled(False)
            revert_button.setToolTip(_why_not(snapshot))
        else:
            revert_button.setToolTip(self.tr("Put the file back as it was before its latest change"))
        revert_button.clicked.connect(lambda: spawn(self.revert(path), name="files-revert"))
        layout.addWidget(name, 1)
        layout.addWidget(said)
        layout.addWidget(open_button)
        layout.addWidget(revert_button)
        self.buttons[path] = (open_button, revert_button)
        return row

    def open_file(self, path: str) -> bool:
        where = resolve(path, self.project_path())
        if where is None or not where.exists():
            self._say(self.tr("%1 is not there any more.").replace("%1", _shown(path, self.project_path())))
            return False
        return bool(self.opener(QUrl.fromLocalFile(str(where))))

    async def revert(self, path: str) -> bool:
        snapshot = self.reviews.latest_for(path)
        session_id = self.reviews.session_id
        if snapshot is None or session_id is None:
            return False
        done = await self.reviews.revert(session_id, snapshot["snapshotId"])
        if not isValid(self):  # the panel was closed and deleted while the host reverted
            return done
        shown = _shown(path, self.project_path())
        self._say(self.tr("%1 is back as it was before its latest change.").replace("%1", shown) if done else "")
        return done

    def _say(self, text: str) -> None:
        self.note.setText(text)
        self.note.setVisible(bool(text))


def _shown(path: str, project_path: str | None) -> str:
    """A file inside the chat's project by its path there, any other by its whole path."""
    if project_path:
        try:
            return str(Path(path).relative_to(project_path))
        except ValueError:
            pass
    return path


def _when(value: object) -> str:
    """An artifact's time (epoch milliseconds or RFC 3339) as the sidebar says it: "now", "5m", "Yesterday"."""
    if isinstance(value, str):
        moment = QDateTime.fromString(value, Qt.DateFormat.ISODateWithMs)
        value = moment.toMSecsSinceEpoch() if moment.isValid() else None
    if not isinstance(value, int) or isinstance(value, bool):
        return ""
    return relative(value, now_ms())


def _why_not(snapshot: dict | None) -> str:
    if snapshot is None:
        return QCoreApplication.translate("FilesPanel", "No earlier version of this file was kept.")
    if snapshot.get("reverted"):
        return QCoreApplication.translate("FilesPanel", "Its latest change was reverted already.")
    return QCoreApplication.translate(
        "FilesPanel", "Its earlier version was not kept (files over 1 MiB are not), so it can’t be reverted."
    )


class FileChanges:
    """The window's side: the header button, the panel, and keeping ``Reviews`` on the chat shown."""

    def __init__(self, window: MainWindow):
        self.window = window
        assert window.client is not None  # made by MainWindow.build, which sets the client first
        self.reviews = Reviews(window.client, window.report_error, window)
        self.reviews.changed.connect(self._changed)
        self.panel: FilesPanel | None = None
        self.button = QToolButton()
        self.button.setObjectName("filesChangedButton")
        self.button.setText(QCoreApplication.translate("FileChanges", "Files changed"))
        self.button.setCursor(Qt.CursorShape.PointingHandCursor)
        self.button.hide()
        self.action = QAction(QCoreApplication.translate("FileChanges", "Files changed"), window)
        self.action.setShortcut(QKeySequence("Ctrl+Shift+E"))
        self.action.setShortcutContext(Qt.ShortcutContext.WindowShortcut)
        self.action.setToolTip(
            QCoreApplication.translate("FileChanges", "The files this chat’s tools changed (Ctrl+Shift+E)")
        )
        self.action.triggered.connect(self.open_panel)
        window.addAction(self.action)
        self.button.setToolTip(self.action.toolTip())
        self.button.clicked.connect(self.open_panel)

    def show_session(self, session_id: str | None) -> None:
        self.reviews.show_session(session_id)
        if session_id is not None:
            spawn(self.reviews.refresh(session_id), name="reviews-refresh")

    def open_panel(self) -> FilesPanel | None:
        if self.reviews.session_id is None:
            return None
        if self.panel is None:
            self.panel = FilesPanel(self.reviews, self._project_path, self.window)
            self.panel.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
            self.panel.destroyed.connect(lambda: setattr(self, "panel", None))
        self.panel.show()
        self.panel.raise_()
        self.panel.activateWindow()
        return self.panel

    def _project_path(self) -> str | None:
        session = self.window.model.session(self.reviews.session_id or "")
        return session.get("projectPath") if session else None

    def _changed(self, session_id: str) -> None:
        if (session_id or None) != self.window.current_session_id:  # "": no chat shown (a new chat's page)
            return
        self.window.transcript.set_reviews(self.reviews.snapshots)
        count = len(self.reviews.artifacts)
        self.button.setVisible(count > 0)
        self.button.setText(QCoreApplication.translate("FileChanges", "Files changed · %1").replace("%1", str(count)))
