"""Prompts waiting behind a running reply, shown just above the composer.

Each row shows the prompt (one line, elided) with "Send now" (deliver it
next), up/down (reorder among the waiting ones) and remove. After a restart
waiting prompts are held, never replayed on their own: a "Resume" button sends
the next one when the person chooses to. A prompt whose sending failed
(``lastError``) stays in the queue, marked, with "Retry": it is moved to the
front ("send now") and the queue is resumed.
"""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QPushButton, QToolButton, QVBoxLayout, QWidget

from pidesktop.bus import HostClient, topics
from pidesktop.ui.kit import i18n
from pidesktop.ui.kit.ops import host_op


class QueueStrip(QFrame):
    resumeRequested = Signal()
    failed = Signal(object)  # a HostError

    def __init__(self, client: HostClient, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("queueStrip")
        self.client = client
        self.session_id: str | None = None
        self.entries: list[dict] = []
        self.running = False
        self._layout = QVBoxLayout(self)
        self._layout.setContentsMargins(12, 8, 12, 8)
        self._layout.setSpacing(4)
        header = QHBoxLayout()
        self.title = QLabel()
        self.title.setObjectName("muted")
        self.resume_button = QPushButton(self.tr("Resume"))
        self.resume_button.setToolTip(self.tr("Send the next waiting prompt"))
        self.resume_button.clicked.connect(self.resumeRequested)
        header.addWidget(self.title, 1)
        header.addWidget(self.resume_button)
        self._layout.addLayout(header)
        self._rows: list[QWidget] = []
        self.hide()

    # -- data ---------------------------------------------------------------------------
    async def show_session(self, session_id: str | None) -> None:
        self.session_id = session_id
        entries: list[dict] = []
        if session_id is not None:
            listed = await host_op(
                self.client, "session.queueList", {"sessionId": session_id}, parent=self, failure=self.failed.emit
            )
            entries = listed["entries"] if listed else []
        if session_id == self.session_id:
            self.set_entries(entries)

    def handle_event(self, topic: str, payload: dict) -> None:
        if topic == topics.QUEUE_CHANGED and payload.get("sessionId") == self.session_id:
            self.set_entries(payload.get("entries", []))

    def set_running(self, running: bool) -> None:
        self.running = running
        self._refresh_header()

    def set_entries(self, entries: list[dict]) -> None:
        self.entries = entries
        for row in self._rows:
            row.deleteLater()
        self._rows = []
        for position, entry in enumerate(entries):
            row = self._row(entry, position)
            self._rows.append(row)
            self._layout.addWidget(row)
        self._refresh_header()
        self.setVisible(bool(entries))

    def _refresh_header(self) -> None:
        count = len(self.entries)
        self.title.setText(i18n.counted(count, self.tr("1 prompt waiting"), self.tr("%1 prompts waiting")))
        self.resume_button.setVisible(bool(count) and not self.running)

    def _row(self, entry: dict, position: int) -> QWidget:
        row = QWidget()
        layout = QHBoxLayout(row)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(4)
        text = " ".join(entry["content"].split())
        label = QLabel()
        label.setTextFormat(Qt.TextFormat.PlainText)
        label.setText(label.fontMetrics().elidedText(text, Qt.TextElideMode.ElideRight, 520))
        label.setToolTip(entry["content"][:2000])
        layout.addWidget(label, 1)
        failure = entry.get("lastError")
        if failure:
            mark = QLabel(self.tr("not sent"))
            mark.setObjectName("chip")
            mark.setToolTip(failure.get("message") or failure.get("code", ""))
            layout.addWidget(mark)
            retry = QToolButton()
            retry.setText(self.tr("Retry"))
            retry.setToolTip(
                self.tr("Sending failed: %1").replace("%1", failure.get("message") or failure.get("code", ""))
            )
            retry.setAutoRaise(True)
            retry.clicked.connect(lambda: self._retry(entry["id"]))
            layout.addWidget(retry)
        promoted = entry.get("priority") is not None
        if promoted:
            badge = QLabel(self.tr("next"))
            badge.setObjectName("chip")
            layout.addWidget(badge)
        else:
            layout.addWidget(
                self._button(self.tr("Send now"), self.tr("Deliver this prompt next"), "session.queuePrioritize", entry)
            )
            up = self._button("↑", self.tr("Move up"), "session.queueReorder", entry, direction="up")
            down = self._button("↓", self.tr("Move down"), "session.queueReorder", entry, direction="down")
            layout.addWidget(up)
            layout.addWidget(down)
        layout.addWidget(self._button("✕", self.tr("Remove from the queue"), "session.queueRemove", entry))
        return row

    def _button(self, text: str, tip: str, method: str, entry: dict, **extra) -> QToolButton:
        button = QToolButton()
        button.setText(text)
        button.setToolTip(tip)
        button.setAutoRaise(True)
        button.clicked.connect(lambda: self._act(method, entry["id"], extra))
        return button

    def _retry(self, entry_id: str) -> None:
        """Put the failed prompt first, then ask for the queue to be resumed (the runner sends it)."""
        if self.session_id is None:
            return

        def resume(result: dict) -> None:
            self.set_entries(result.get("entries", self.entries))
            self.resumeRequested.emit()

        host_op(
            self.client,
            "session.queuePrioritize",
            {"sessionId": self.session_id, "entryId": entry_id},
            parent=self,
            success=resume,
            failure=self.failed.emit,
        ).run()

    def _act(self, method: str, entry_id: str, extra: dict) -> None:
        if self.session_id is None:
            return
        host_op(
            self.client,
            method,
            {"sessionId": self.session_id, "entryId": entry_id, **extra},
            parent=self,
            success=lambda result: self.set_entries(result.get("entries", self.entries)),
            failure=self.failed.emit,
        ).run()
