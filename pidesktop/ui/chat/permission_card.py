"""The card above the composer that asks before a tool call runs: the window's ``Asker``.

It shows what will happen (the diff of an edit, the command line, the path
outside the project) and three answers: Allow once, Allow for this chat,
and Deny with an optional reason the model reads. Requests wait per chat:
the card shows the oldest request of the chat on screen; the others wait
until their chat is opened. Stop withdraws a request (the runner cancels
``ask``), and its card goes away.
"""

from __future__ import annotations

import asyncio
import html
from dataclasses import dataclass

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QFont, QFontDatabase
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QTextEdit,
    QVBoxLayout,
    QWidget,
)

from pidesktop.agent.permissions import Answer, Decision, PermissionRequest
from pidesktop.ui.kit import i18n
from pidesktop.ui.kit.theme import Theme

DETAIL_MAX_HEIGHT = 220


@dataclass
class _Waiting:
    request: PermissionRequest
    answer: asyncio.Future[Answer]


class PermissionCard(QFrame):
    # A request was added or settled (any chat): ``pending_count(session_id)`` says how many wait where.
    pendingChanged = Signal()

    def __init__(self, theme: Theme, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("permissionCard")
        self.theme = theme
        self.session_id: str | None = None
        self._waiting: list[_Waiting] = []
        self.title = QLabel()
        self.title.setObjectName("permissionTitle")
        self.title.setWordWrap(True)
        self.title.setTextFormat(Qt.TextFormat.PlainText)
        self.explanation = QLabel()
        self.explanation.setObjectName("permissionExplanation")
        self.explanation.setWordWrap(True)
        self.detail = QTextEdit()
        self.detail.setObjectName("permissionDetail")
        self.detail.setReadOnly(True)
        self.detail.setLineWrapMode(QTextEdit.LineWrapMode.NoWrap)
        self.detail.setMaximumHeight(DETAIL_MAX_HEIGHT)
        mono = QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont)
        mono.setStyleHint(QFont.StyleHint.Monospace)
        self.detail.setFont(mono)
        self.reason = QLineEdit()
        self.reason.setObjectName("permissionReason")
        self.reason.setPlaceholderText(self.tr("Why not? (optional, sent to the model with Deny)"))
        self.reason.returnPressed.connect(lambda: self._answer(Decision.DENY))
        self.deny_button = QPushButton(self.tr("Deny"))
        self.deny_button.setToolTip(self.tr("Don't do it; the model reads your reason, if you wrote one (Esc)"))
        self.deny_button.clicked.connect(lambda: self._answer(Decision.DENY))
        self.allow_chat_button = QPushButton(self.tr("Allow for this chat"))
        self.allow_chat_button.clicked.connect(lambda: self._answer(Decision.ALLOW_FOR_CHAT))
        self.allow_once_button = QPushButton(self.tr("Allow once"))
        self.allow_once_button.setObjectName("primary")
        self.allow_once_button.setToolTip(self.tr("Do it this time and ask again next time (Enter, here in the card)"))
        self.allow_once_button.clicked.connect(lambda: self._answer(Decision.ALLOW_ONCE))
        buttons = QHBoxLayout()
        buttons.setSpacing(8)
        buttons.addWidget(self.reason, 1)
        buttons.addWidget(self.deny_button)
        buttons.addWidget(self.allow_chat_button)
        buttons.addWidget(self.allow_once_button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(16, 12, 16, 12)
        layout.setSpacing(8)
        layout.addWidget(self.title)
        layout.addWidget(self.explanation)
        layout.addWidget(self.detail)
        layout.addLayout(buttons)
        self.set_theme(theme)
        self.hide()

    # -- the Asker ----------------------------------------------------------------------
    async def ask(self, request: PermissionRequest) -> Answer:
        """Wait for the person's answer to ``request`` (cancelled by the runner on Stop)."""
        waiting = _Waiting(request, asyncio.get_running_loop().create_future())
        self._waiting.append(waiting)
        self._refresh()
        self.pendingChanged.emit()
        try:
            return await waiting.answer
        finally:
            if waiting in self._waiting:
                self._waiting.remove(waiting)
            self._refresh()
            self.pendingChanged.emit()

    def show_session(self, session_id: str | None) -> None:
        """The chat on screen changed: show its oldest waiting request, if any."""
        self.session_id = session_id
        self._refresh()

    def pending_count(self, session_id: str | None = None) -> int:
        return sum(1 for w in self._waiting if session_id is None or w.request.session_id == session_id)

    # -- showing ------------------------------------------------------------------------
    def current(self) -> PermissionRequest | None:
        shown = self._shown()
        return shown.request if shown else None

    def _shown(self) -> _Waiting | None:
        return next((w for w in self._waiting if w.request.session_id == self.session_id), None)

    def _refresh(self) -> None:
        shown = self._shown()
        if shown is None:
            self.hide()
            return
        request = shown.request
        self.title.setText(self._heading(request))
        self.explanation.setText(self._explain(request))
        self.explanation.setProperty("warning", request.outside_workspace or request.unconfined)
        self.explanation.style().unpolish(self.explanation)
        self.explanation.style().polish(self.explanation)
        self.detail.setHtml(self._detail_html(request))
        self.detail.setVisible(bool(request.detail))
        self._fit_detail(request.detail.count("\n") + 1)
        # Something outside the project is allowed one call at a time.
        self.allow_chat_button.setVisible(not request.outside_workspace)
        self.allow_chat_button.setToolTip(self._allow_chat_tip(request))
        self.show()

    def _fit_detail(self, lines: int) -> None:
        """As tall as its text (a one-line command stays one line), at most ``DETAIL_MAX_HEIGHT``."""
        line_height = self.detail.fontMetrics().lineSpacing()
        margins = 2 * int(self.detail.document().documentMargin()) + 2 * self.detail.frameWidth()
        scrollbar = self.detail.horizontalScrollBar().sizeHint().height()  # room for a long line's scroll bar
        self.detail.setFixedHeight(min(DETAIL_MAX_HEIGHT, lines * line_height + margins + scrollbar))

    def _heading(self, request: PermissionRequest) -> str:
        if request.tool == "bash":
            return self.tr("Run this command?")
        if request.tool in ("write", "edit"):
            return i18n.arg(self.tr("Allow this change? %1"), request.title)
        return i18n.arg(self.tr("Allow this? %1"), request.title)

    def _explain(self, request: PermissionRequest) -> str:
        lines = []
        if request.outside_workspace:
            outside = self.tr("This is outside the project folder (%1). Allow it only if you expect it.")
            lines.append(i18n.arg(outside, request.workspace))
        if request.unconfined:
            lines.append(
                self.tr(
                    "Commands run with your full rights: no sandbox is installed (install bubblewrap to confine them)."
                )
            )
        if not lines:
            if request.extra.get("mcpServer"):
                mcp_note = self.tr(
                    "The MCP server %1 runs it with the arguments below; the app cannot undo what it does."
                )
                lines.append(i18n.arg(mcp_note, str(request.extra["mcpServer"])))
            elif request.tool == "bash":
                lines.append(i18n.arg(self.tr("It runs in %1."), request.workspace))
            else:
                lines.append(self.tr("Nothing changes until you allow it. You can revert the change later."))
        return "\n".join(lines)

    def _allow_chat_tip(self, request: PermissionRequest) -> str:
        if request.tool == "bash":
            return self.tr(
                "Run commands in this chat without asking again (the chip below the message box takes it back)"
            )
        return i18n.arg(
            self.tr("Allow %1 in this chat without asking again (the chip below the message box takes it back)"),
            request.tool,
        )

    def _detail_html(self, request: PermissionRequest) -> str:
        """A diff with its added and removed lines coloured; anything else as it is."""
        t = self.theme
        rows = []
        is_diff = request.tool in ("write", "edit")
        for line in request.detail.splitlines():
            text = html.escape(line) or "&nbsp;"
            colour = None
            if is_diff and line.startswith("+") and not line.startswith("+++"):
                colour = "#1A7F37" if t.name == "light" else "#3FB950"
            elif is_diff and line.startswith("-") and not line.startswith("---"):
                colour = t.danger
            elif is_diff and line.startswith("@@"):
                colour = t.muted
            rows.append(f'<span style="color:{colour}">{text}</span>' if colour else text)
        return f'<pre style="margin:0">{"<br>".join(rows)}</pre>'

    # -- answering ----------------------------------------------------------------------
    def deny_shown(self) -> bool:
        """Esc in the window: deny the request on screen (with the reason typed, if any); False if none waits."""
        if self.isHidden() or self._shown() is None:
            return False
        self._answer(Decision.DENY)
        return True

    def keyPressEvent(self, event) -> None:
        # Enter on a focused button presses that button; anywhere else in the card it allows once.
        # (The reason field takes its own Enter: Deny with the reason.)
        if event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter):
            focused = self.focusWidget()
            if isinstance(focused, QPushButton) and self.isAncestorOf(focused):
                focused.click()
            else:
                self._answer(Decision.ALLOW_ONCE)
            event.accept()
            return
        super().keyPressEvent(event)

    def _answer(self, decision: Decision) -> None:
        shown = self._shown()
        if shown is None or shown.answer.done():
            return
        reason = self.reason.text().strip() or None if decision == Decision.DENY else None
        self.reason.clear()
        shown.answer.set_result(Answer(decision, reason))

    def set_theme(self, theme: Theme) -> None:
        self.theme = theme
        t = theme
        self.setStyleSheet(
            f"#permissionCard {{ background: {t.background}; border: 1px solid {t.border}; "
            f"border-left: 3px solid {t.warning}; border-radius: 8px; }}"
            f"#permissionTitle {{ font-weight: 600; color: {t.text}; }}"
            f"#permissionExplanation {{ color: {t.muted}; }}"
            f'#permissionExplanation[warning="true"] {{ color: {t.danger}; }}'
            f"#permissionDetail {{ background: {t.code_panel}; border: none; border-radius: 6px; color: {t.text}; }}"
            f"#permissionReason {{ background: {t.background}; border: 1px solid {t.border}; border-radius: 6px; "
            f"padding: 3px 6px; color: {t.text}; }}"
            f"QPushButton {{ padding: 4px 14px; border-radius: 6px; border: 1px solid {t.border}; "
            f"background: {t.background}; color: {t.text}; }}"
            f"QPushButton:hover {{ background: {t.hover}; }}"
            f"QPushButton#primary {{ background: {t.accent}; border-color: {t.accent}; color: white; }}"
        )
        if self.isVisible():
            self._refresh()
