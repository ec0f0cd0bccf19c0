"""The approval card: a plan or goal the model proposed, at the end of the conversation, above the composer.

It shows the chat's newest proposal from ``plan.list``:

- pending: the rendered Markdown, Approve, and Reject with a feedback field;
- approved: one line with the execution's state (queued, running, done,
  failed, interrupted) and "Show plan";
- interrupted (the app restarted before an answer): what happened, and
  "Ask again", which asks the model for the proposal once more.

A rejected proposal needs no card: the model's answer to the feedback follows
in the transcript. Answers go through ``plan_flow`` (the runner carries out an
approved plan, or takes the feedback back in Plan mode). What the person
typed as feedback stays in the field until the rejection is stored.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QEvent, Qt, QUrl, Signal
from PySide6.QtGui import QDesktopServices
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QTextBrowser,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from pidesktop.agent import plan_flow
from pidesktop.bus import HostClient, topics
from pidesktop.ui.chat.markdown import to_html
from pidesktop.ui.kit.ops import host_op, task_op
from pidesktop.ui.kit.theme import Theme

MARKDOWN_HEIGHT = 240  # the plan scrolls inside the card beyond this


class ApprovalCard(QFrame):
    failed = Signal(object)  # a HostError
    answered = Signal(str, str)  # session id, decision

    def __init__(self, client: HostClient, runner: Any, theme: Theme, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("approvalCard")
        self.client = client
        self.runner = runner
        self.theme = theme
        self.session_id: str | None = None
        self.approval: dict | None = None
        self.plan_shown = False
        self.dismissed: set[str] = set()  # approval ids closed with ✕ (for the window's lifetime)

        self.title = QLabel()
        self.title.setObjectName("approvalTitle")
        self.title.setTextFormat(Qt.TextFormat.PlainText)
        self.title.setWordWrap(True)
        self.state = QLabel()
        self.state.setObjectName("approvalState")
        self.state.setWordWrap(True)
        self.question = QLabel()  # the model's own question with the proposal, when it asked one
        self.question.setObjectName("approvalQuestion")
        self.question.setTextFormat(Qt.TextFormat.PlainText)
        self.question.setWordWrap(True)
        self.question.setStyleSheet("font-weight: 600;")
        self.toggle = QToolButton()
        self.toggle.setAutoRaise(True)
        self.toggle.clicked.connect(self._toggle_plan)
        self.open_button = QToolButton()
        self.open_button.setAutoRaise(True)
        self.open_button.setText(self.tr("Open file"))
        self.open_button.clicked.connect(self._open_file)
        self.close_button = QToolButton()
        self.close_button.setObjectName("approvalClose")
        self.close_button.setText("✕")
        self.close_button.setAutoRaise(True)
        self.close_button.setToolTip(self.tr("Close this card (the plan and its file stay)"))
        self.close_button.clicked.connect(self._dismiss)
        header = QHBoxLayout()
        header.setSpacing(8)
        header.addWidget(self.title, 1)
        header.addWidget(self.open_button)
        header.addWidget(self.toggle)
        header.addWidget(self.close_button)

        self.body = QTextBrowser()
        self.body.setObjectName("approvalBody")
        self.body.setOpenExternalLinks(True)
        self.body.setFrameShape(QFrame.Shape.NoFrame)
        # Headings a step smaller than in a reply: the card's own title says what this is.
        self.body.document().setDefaultStyleSheet(
            "h1 { font-size: large; } h2 { font-size: medium; } h3 { font-size: medium; }"
        )

        self.feedback = QPlainTextEdit()
        self.feedback.setObjectName("approvalFeedback")
        self.feedback.setPlaceholderText(self.tr("What should change? (sent with Reject)"))
        self.feedback.setFixedHeight(56)
        self.feedback.installEventFilter(self)  # Ctrl+Enter while typing feedback rejects
        self.approve_button = QPushButton(self.tr("Approve and allow edits"))
        self.approve_button.setObjectName("primary")
        self.approve_button.setToolTip(
            self.tr("Switch to Agent mode and carry it out; file edits in the project run without asking")
        )
        self.approve_button.clicked.connect(lambda: self._respond("approve", "accept-edits"))
        self.approve_ask_button = QPushButton(self.tr("Approve, ask first"))
        self.approve_ask_button.setToolTip(
            self.tr("Switch to Agent mode and carry it out; every edit and command waits for your OK")
        )
        self.approve_ask_button.clicked.connect(lambda: self._respond("approve", "ask"))
        self.reject_button = QPushButton(self.tr("Reject"))
        self.reject_button.setToolTip(
            self.tr("Send the feedback back; the model proposes again (Ctrl+Enter in the feedback field)")
        )
        self.reject_button.clicked.connect(lambda: self._respond("reject"))
        self.ask_again_button = QPushButton(self.tr("Ask again"))
        self.ask_again_button.setToolTip(self.tr("Ask the model to propose it once more"))
        self.ask_again_button.clicked.connect(self._ask_again)
        buttons = QHBoxLayout()
        buttons.setSpacing(8)
        buttons.addStretch(1)
        buttons.addWidget(self.ask_again_button)
        buttons.addWidget(self.reject_button)
        buttons.addWidget(self.approve_ask_button)
        buttons.addWidget(self.approve_button)

        layout = QVBoxLayout(self)
        layout.setContentsMargins(16, 12, 16, 12)
        layout.setSpacing(8)
        layout.addLayout(header)
        layout.addWidget(self.state)
        layout.addWidget(self.question)
        layout.addWidget(self.body)
        layout.addWidget(self.feedback)
        layout.addLayout(buttons)
        self.set_theme(theme)
        self.hide()

    # -- data ---------------------------------------------------------------------------
    async def show_session(self, session_id: str | None) -> None:
        """Show the newest proposal of ``session_id`` (None: no chat, no card)."""
        if session_id != self.session_id:
            self.set_approval(None)  # the last chat's proposal never shows under this one while the list loads
        self.session_id = session_id
        newest = None
        if session_id is not None:
            listed = await host_op(
                self.client, "plan.list", {"sessionId": session_id}, parent=self, failure=self.failed.emit
            )
            approvals = (listed or {}).get("approvals") or []
            newest = approvals[0] if approvals and _worth_showing(approvals[0]) else None
        if session_id == self.session_id:
            self.approval = None
            self.set_approval(newest)

    def handle_event(self, topic: str, payload: dict) -> None:
        if topic == topics.PLAN_CHANGED and payload.get("sessionId") == self.session_id:
            self.set_approval(payload.get("approval"))

    def set_approval(self, approval: dict | None) -> None:
        previous = self.approval
        self.approval = approval
        if (
            approval is None
            or approval["status"] in ("rejected", "changes_requested", "expired")
            or approval["id"] in self.dismissed
        ):
            self.hide()
            return
        if previous is None or previous.get("id") != approval["id"]:
            self.feedback.clear()  # a new proposal: the last one's feedback was sent (or it was never typed)
            self.plan_shown = approval["status"] == "pending"
        elif previous.get("status") == "pending" and approval["status"] != "pending":
            self.plan_shown = False  # answered: the card shrinks to one line and its state
        self.body.setHtml(to_html(approval.get("markdown") or "", self.theme, self.tr("Copy")))
        self._refresh()
        self.show()
        self._fit_body()

    def _fit_body(self) -> None:
        """As tall as the rendered plan, up to ``MARKDOWN_HEIGHT`` (then it scrolls)."""
        width = self.body.viewport().width()
        if width < 100:
            width = max(self.width() - 48, 400)
        document = self.body.document()
        document.setTextWidth(width)
        self.body.setFixedHeight(min(MARKDOWN_HEIGHT, int(document.size().height()) + 8))

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        if self.body.isVisible():
            self._fit_body()

    # -- look -----------------------------------------------------------------------------
    def _refresh(self) -> None:
        approval = self.approval or {}
        kind = approval.get("kind", "plan")
        status = approval.get("status")
        pending = status == "pending"
        self.title.setText(self._title(kind, status, approval.get("title") or ""))
        self.state.setText(self._state_text(approval))
        self.state.setVisible(bool(self.state.text()))
        question = (approval.get("question") or "").strip() if pending else ""
        self.question.setText(question)
        self.question.setVisible(bool(question))
        self.body.setVisible(self.plan_shown)
        self.toggle.setVisible(not pending)
        self.close_button.setVisible(not pending and approval.get("executionStatus") not in ("queued", "running"))
        self.open_button.setVisible(bool(approval.get("artifactPath")))
        self.open_button.setToolTip(approval.get("artifactPath") or "")
        self.toggle.setText(
            self.tr("Hide") if self.plan_shown else (self.tr("Show plan") if kind == "plan" else self.tr("Show goal"))
        )
        self.feedback.setVisible(pending)
        self.approve_button.setVisible(pending)
        self.approve_ask_button.setVisible(pending)
        self.reject_button.setVisible(pending)
        self.ask_again_button.setVisible(status == "interrupted")
        running = self.runner is not None and self.session_id is not None and self.runner.is_running(self.session_id)
        for button in (self.approve_button, self.approve_ask_button, self.reject_button, self.ask_again_button):
            button.setEnabled(not running)

    def _title(self, kind: str, status: str | None, title: str) -> str:
        heading = {
            ("plan", "pending"): self.tr("Plan waiting for your approval"),
            ("goal", "pending"): self.tr("Goal waiting for your approval"),
            ("plan", "approved"): self.tr("Plan approved"),
            ("goal", "approved"): self.tr("Goal approved"),
            ("plan", "interrupted"): self.tr("Plan not answered"),
            ("goal", "interrupted"): self.tr("Goal not answered"),
        }.get((kind, status), self.tr("Plan"))
        named, colon, rest = title.partition(":")
        if colon and named.strip().lower() in ("plan", "goal") and rest.strip():
            title = rest.strip()  # "# Plan: Move the blog" after "Plan waiting for your approval" says it twice
        return f"{heading}: {title}" if title else heading

    def _state_text(self, approval: dict) -> str:
        status, execution = approval.get("status"), approval.get("executionStatus")
        if status == "pending":
            return self.tr(
                "Nothing has been done yet. Approve to switch to Agent mode and carry it out, or reject "
                "with what to change."
            )
        if status == "interrupted":
            return self.tr(
                "The app restarted before you answered, so this proposal can no longer be approved. "
                "Ask again to get it proposed once more."
            )
        return {
            "queued": self.tr("Waiting to start."),
            "running": self.tr("Being carried out in Agent mode…"),
            "completed": self.tr("Carried out in Agent mode."),
            "failed": self.tr("Carrying it out failed; see the reply below."),
            "interrupted": self.tr(
                "Carrying it out was interrupted (stopped, or the app restarted). Send a message to continue."
            ),
        }.get(execution or "", "")

    def set_theme(self, theme: Theme) -> None:
        self.theme = theme
        t = theme
        self.setStyleSheet(
            f"#approvalCard {{ background: {t.background}; border: 1px solid {t.border}; "
            f"border-left: 3px solid {t.accent}; border-radius: 8px; }}"
            f"#approvalTitle {{ font-weight: 600; color: {t.text}; }}"
            f"#approvalState {{ color: {t.muted}; }}"
            f"#approvalBody {{ background: {t.code_panel}; border-radius: 6px; padding: 4px 8px; color: {t.text}; }}"
            f"#approvalFeedback {{ background: {t.background}; border: 1px solid {t.border}; border-radius: 6px; "
            f"color: {t.text}; }}"
            f"QPushButton {{ padding: 4px 14px; border-radius: 6px; border: 1px solid {t.border}; "
            f"background: {t.background}; color: {t.text}; }}"
            f"QPushButton:hover {{ background: {t.hover}; }}"
            f"QPushButton#primary {{ background: {t.accent}; border-color: {t.accent}; color: white; }}"
            f"QPushButton:disabled {{ color: {t.muted}; }}"
            f"QToolButton {{ color: {t.accent}; border: none; }}"
        )
        if self.approval is not None:
            self.set_approval(self.approval)

    # -- actions ----------------------------------------------------------------------------
    def _toggle_plan(self) -> None:
        self.plan_shown = not self.plan_shown
        self._refresh()

    def eventFilter(self, watched, event) -> bool:
        if (
            watched is self.feedback
            and event.type() == QEvent.Type.KeyPress
            and event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter)
            and event.modifiers() & Qt.KeyboardModifier.ControlModifier
        ):
            if self.reject_button.isEnabled():
                self._respond("reject")
            return True
        return super().eventFilter(watched, event)

    def _open_file(self) -> None:
        """The saved file in the system's viewer (it is read-only: the approved text cannot change)."""
        path = (self.approval or {}).get("artifactPath")
        if path:
            QDesktopServices.openUrl(QUrl.fromLocalFile(path))

    def _dismiss(self) -> None:
        if self.approval is not None:
            self.dismissed.add(self.approval["id"])
        self.hide()

    def _respond(self, decision: str, permission_mode: str | None = None) -> None:
        approval = self.approval
        if approval is None or self.runner is None:
            return
        feedback = self.feedback.toPlainText().strip() or None if decision == "reject" else None

        def done(_result: Any) -> None:
            if decision == "reject":
                self.feedback.clear()  # it was sent to the model; the transcript shows it
            self.answered.emit(approval["sessionId"], decision)

        # The answer is stored first (plan.respond); the turn that follows streams like any reply.
        task_op(
            lambda: plan_flow.respond(self.runner, approval["id"], decision, feedback, permission_mode),
            parent=self,
            name=f"plan-{decision}",
            success=done,
            failure=self._failed,
            busy=[self.approve_button, self.approve_ask_button, self.reject_button],
        ).run()

    def _ask_again(self) -> None:
        approval = self.approval
        if approval is None or self.runner is None:
            return
        self.hide()
        task_op(
            lambda: plan_flow.ask_again(self.runner, approval),
            parent=self,
            name="plan-ask-again",
            failure=self._failed,
            busy=[self.ask_again_button],
        ).run()

    def _failed(self, error) -> None:
        self.failed.emit(error)
        if self.session_id is not None:  # the row may have moved on (answered elsewhere, or a restart)
            task_op(lambda: self.show_session(self.session_id), parent=self, name="plan-reload").run()


def _worth_showing(approval: dict) -> bool:
    """On opening a chat: a proposal still to answer or to ask again, or an execution still going.

    A finished execution's card is shown only while the window saw it happen
    (spec 004: terminal approvals are history, not gates).
    """
    if approval["status"] in ("pending", "interrupted"):
        return True
    return approval["status"] == "approved" and approval.get("executionStatus") in ("queued", "running", "interrupted")
