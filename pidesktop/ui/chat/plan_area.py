"""The window's Plan/Goal and checklist parts, wired as one: the approval card and the checklist above the
composer, and the waiting proposals in the inbox. ``MainWindow`` hands it the chat on screen and every
host event."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QObject

from pidesktop.bus import HostClient
from pidesktop.ui.chat.approval_card import ApprovalCard
from pidesktop.ui.chat.todo_panel import TodoPanel
from pidesktop.ui.inbox.approvals_inbox import PendingApprovals
from pidesktop.ui.kit.theme import Theme


class PlanArea(QObject):
    def __init__(self, client: HostClient, runner: Any, theme: Theme, report_error, parent: QObject | None = None):
        super().__init__(parent)
        self.card = ApprovalCard(client, runner, theme)
        self.todo = TodoPanel(client, theme)
        self.pending = PendingApprovals(client, theme)
        for part in (self.card, self.todo, self.pending):
            part.failed.connect(report_error)
        if runner is not None:
            runner.listeners.append(self._on_turn)

    async def show_session(self, session_id: str | None) -> None:
        """The chat on screen changed (None: no chat)."""
        self.pending.set_current(session_id)
        await self.card.show_session(session_id)
        await self.todo.show_session(session_id)

    async def refresh(self) -> None:
        await self.pending.refresh()

    def handle_event(self, topic: str, payload: dict) -> None:
        self.card.handle_event(topic, payload)
        self.todo.handle_event(topic, payload)
        self.pending.handle_event(topic, payload)

    def set_theme(self, theme: Theme) -> None:
        for part in (self.card, self.todo, self.pending):
            part.set_theme(theme)

    def _on_turn(self, session_id: str, phase: str, _message: dict | None) -> None:
        if session_id == self.card.session_id and phase in ("started", "idle") and self.card.approval is not None:
            self.card.set_approval(self.card.approval)  # answer buttons wait while a reply runs
