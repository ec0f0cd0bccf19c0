"""A system tray message when a reply or an automation's run finishes or fails while the window is not in front
(UX: tell what finished).

Clicking the message brings the window back with that chat open.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QObject
from PySide6.QtWidgets import QSystemTrayIcon, QWidget

from pidesktop.ui.kit.resources import app_icon


class TrayNotifier(QObject):
    def __init__(self, window: QWidget, open_session: Callable[[str], None]):
        super().__init__(window)
        self.window = window
        self.open_session = open_session
        self.icon: QSystemTrayIcon | None = None
        self.session_id: str | None = None
        self.automation_chats: set[str] = set()  # told by announce_run, so not twice by announce

    def _ready(self) -> bool:
        if self.window.isActiveWindow() or not QSystemTrayIcon.isSystemTrayAvailable():
            return False
        if self.icon is None:  # made on first use: no tray icon for people who never need one
            self.icon = QSystemTrayIcon(app_icon(), self)
            self.icon.messageClicked.connect(self._raise_window)
            self.icon.show()
        return True

    def announce(self, notification: dict) -> None:
        if notification.get("sessionId") in self.automation_chats or not self._ready():
            return
        title = notification.get("sessionTitle") or self.tr("Untitled task")
        failed = notification["kind"] == "task.failed"
        self.session_id = notification["sessionId"]
        self.icon.showMessage(
            self.tr("Task failed") if failed else self.tr("Task finished"),
            title,
            QSystemTrayIcon.MessageIcon.Warning if failed else QSystemTrayIcon.MessageIcon.Information,
        )

    def announce_run(self, phase: str, task: dict, run: dict) -> None:
        """A scheduler listener: when an automation's run ends, say which one and how, while the window is not
        in front. Its chat is noted when the run starts, before the turn's own inbox event can arrive."""
        if run.get("sessionId"):
            self.automation_chats.add(run["sessionId"])
        if phase != "finished" or run.get("status") == "running" or not self._ready():
            return
        failed = run.get("status") != "completed"
        self.session_id = run.get("sessionId")
        self.icon.showMessage(
            self.tr("Automation failed") if failed else self.tr("Automation finished"),
            task.get("name") or self.tr("Untitled task"),
            QSystemTrayIcon.MessageIcon.Warning if failed else QSystemTrayIcon.MessageIcon.Information,
        )

    def _raise_window(self) -> None:
        self.window.showNormal()
        self.window.raise_()
        self.window.activateWindow()
        if self.session_id:
            self.open_session(self.session_id)
