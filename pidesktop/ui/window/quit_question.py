"""Closing the window while a reply is being written: ask first, then wait for it or stop it cleanly.

Quitting mid-reply used to cut the reply off wherever it was. Now the window
asks; "Wait, then quit" closes it once every reply has finished, "Stop and
quit" stops them (each is stored as far as it got, marked stopped) and closes
once they are stored. Either way nothing is left half-written. When the system
asks the app to quit (SIGTERM), nobody is there to answer: it stops and quits.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, QTimer
from PySide6.QtWidgets import QMessageBox

from pidesktop.ui.kit.dialog_style import style_message_box

if TYPE_CHECKING:
    from pidesktop.ui.window.main_window import MainWindow

WAIT, STOP = "wait", "stop"


class QuitQuestion(QObject):
    def __init__(self, window: MainWindow):
        super().__init__(window)
        self.window = window
        self.box: QMessageBox | None = None
        self.leaving: str | None = None  # WAIT or STOP once chosen: the window closes when no reply runs
        if window.runner is not None:
            window.runner.listeners.append(self._turn)

    def running(self) -> list[str]:
        """The chats whose reply is being written now."""
        runner = self.window.runner
        return list(runner.running_sessions()) if runner is not None and hasattr(runner, "running_sessions") else []

    def may_close(self) -> bool:
        """True when the window may close now; otherwise the question is asked (or the wait goes on)."""
        if not self.running():
            return True
        if self.leaving is None and self.box is None:
            self._ask()
        return False

    def _ask(self) -> None:
        box = QMessageBox(
            QMessageBox.Icon.Question,
            self.tr("Quit pidesktop"),
            self.tr("A reply is still being written."),
            QMessageBox.StandardButton.Cancel,
            self.window,
        )
        box.setObjectName("quitBox")
        box.setInformativeText(
            self.tr("Wait for it and pidesktop quits when it is finished, or stop it now: it is kept as far as it got.")
        )
        wait = box.addButton(self.tr("Wait, then quit"), QMessageBox.ButtonRole.AcceptRole)
        stop = box.addButton(self.tr("Stop and quit"), QMessageBox.ButtonRole.DestructiveRole)
        box.setDefaultButton(wait)
        style_message_box(box)

        def finished(_result: int) -> None:
            self.box = None
            clicked = box.clickedButton()
            if clicked is wait:
                self._leave(WAIT)
            elif clicked is stop:
                self._leave(STOP)

        box.finished.connect(finished)
        self.box = box
        box.open()

    def stop_and_quit(self) -> None:
        """Quit with nobody to answer (the system asked: a logout, a shutdown): replies being written are
        stopped, kept as far as they got, and the window closes once they are stored."""
        if self.box is not None:
            self.box.close()
        self._leave(STOP)

    def _leave(self, how: str) -> None:
        self.leaving = how
        if how == STOP:
            self.window.chats.stop_reply()  # the chat shown (a pi session's answer too)
            for session_id in self.running():
                self.window.runner.stop(session_id)
        else:
            self.window.show_note(self.tr("pidesktop quits when the reply is finished."), 600_000)
        self._close_if_idle()

    def _turn(self, _session_id: str, phase: str, _message: dict | None) -> None:
        if phase == "idle" and self.leaving is not None:
            QTimer.singleShot(0, self._close_if_idle)  # after the runner has let go of the turn

    def _close_if_idle(self) -> None:
        if self.leaving is not None and not self.running():
            self.window.close()
