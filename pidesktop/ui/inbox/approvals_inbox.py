""" "Plan waiting for approval" in the inbox: proposals of chats the person is not looking at.

The notifications table only holds finished tasks, so waiting proposals are
not notifications: this section lists ``plans.pending`` (every pending row,
newest first) above them, and follows ``plan.changed`` events. A click opens
the chat, where the approval card is. The chat on screen is left out: its
card is already in view.
"""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QFrame, QPushButton, QVBoxLayout, QWidget

from pidesktop.bus import HostClient, topics
from pidesktop.ui.kit.ops import host_op
from pidesktop.ui.kit.tasks import spawn
from pidesktop.ui.kit.theme import Theme


class PendingApprovals(QFrame):
    openSession = Signal(str)
    countChanged = Signal(int)
    failed = Signal(object)  # a HostError

    def __init__(self, client: HostClient, theme: Theme, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("pendingApprovals")
        self.client = client
        self.approvals: list[dict] = []
        self.current_session_id: str | None = None
        self._layout = QVBoxLayout(self)
        self._layout.setContentsMargins(12, 0, 12, 8)
        self._layout.setSpacing(4)
        self._rows: list[QWidget] = []
        self.set_theme(theme)
        self.hide()

    @property
    def count(self) -> int:
        return len(self.shown())

    def shown(self) -> list[dict]:
        return [a for a in self.approvals if a["sessionId"] != self.current_session_id]

    async def refresh(self) -> None:
        listed = await host_op(self.client, "plans.pending", {}, parent=self, failure=self.failed.emit)
        if listed is not None:
            self.approvals = listed["approvals"]
            self._rebuild()

    def handle_event(self, topic: str, payload: dict) -> None:
        if topic == topics.PLAN_CHANGED or (topic == topics.SESSION_CHANGED and payload.get("reason") == "deleted"):
            spawn(self.refresh(), name="pending-approvals")

    def set_current(self, session_id: str | None) -> None:
        self.current_session_id = session_id
        self._rebuild()

    def _rebuild(self) -> None:
        for row in self._rows:
            row.deleteLater()
        self._rows = []
        for approval in self.shown():
            button = QPushButton()
            button.setObjectName("pendingApproval")
            button.setCursor(Qt.CursorShape.PointingHandCursor)
            heading = (
                self.tr("Plan waiting for approval")
                if approval["kind"] == "plan"
                else self.tr("Goal waiting for approval")
            )
            chat = approval.get("sessionTitle") or self.tr("Untitled chat")
            button.setText(f"{heading}\n{chat}")
            button.setToolTip(approval.get("title") or "")
            button.clicked.connect(lambda _=False, sid=approval["sessionId"]: self.openSession.emit(sid))
            self._rows.append(button)
            self._layout.addWidget(button)
        self.setVisible(bool(self._rows))
        self.countChanged.emit(len(self._rows))

    def set_theme(self, theme: Theme) -> None:
        t = theme
        self.setStyleSheet(
            f"#pendingApproval {{ text-align: left; padding: 8px 12px; border-radius: 8px; "
            f"border: 1px solid {t.border}; border-left: 3px solid {t.accent}; background: {t.background}; "
            f"color: {t.text}; }}"
            f"#pendingApproval:hover {{ background: {t.hover}; }}"
        )
