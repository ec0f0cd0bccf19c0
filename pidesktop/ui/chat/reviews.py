"""The open chat's file changes: its review snapshots and changed files, and Revert.

One place asks the host (``review.list``, ``artifacts.list``, ``review.revert``)
for both the transcript's tool rows and the "Files changed" panel, so a revert
from either shows in both. Asked for again when a chat opens and on the host's
``review.changed`` (a write or edit kept a snapshot, or one was reverted). A
``CONFLICT`` is said in a sentence; the host changed nothing then.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication, QObject, Signal

from pidesktop.bus import ErrorCode, HostClient, HostError, topics
from pidesktop.ui.kit import native_guard
from pidesktop.ui.kit.ops import host_op
from pidesktop.ui.kit.tasks import spawn

CONFLICT_SENTENCE = QT_TRANSLATE_NOOP("Reviews", "The file changed since; nothing was reverted.")
REVERTED_SENTENCE = QT_TRANSLATE_NOOP("Reviews", "This change was reverted already.")
NOT_KEPT_SENTENCE = QT_TRANSLATE_NOOP(
    "Reviews", "This change can’t be reverted: the file was larger than 1 MiB, so its earlier version was not kept."
)


class Reviews(QObject):
    changed = Signal(str)  # session id: its snapshots or files changed
    reverted = Signal(str, str)  # session id, snapshot id

    def __init__(self, client: HostClient, report: Callable[[HostError, str], None], parent: QObject | None = None):
        super().__init__(parent)
        self.client = client
        self.report = report  # (error, sentence): the window's notice line
        self.session_id: str | None = None
        self.snapshots: list[dict] = []
        self.artifacts: list[dict] = []
        self.available = True  # False when this host has no review commands (an older build)

    def show_session(self, session_id: str | None) -> None:
        if session_id != self.session_id:
            self.session_id = session_id
            self.snapshots, self.artifacts = [], []
            self.changed.emit(session_id or "")

    async def refresh(self, session_id: str | None = None) -> None:
        """Ask the host again for the chat's snapshots and changed files."""
        session_id = session_id or self.session_id
        if session_id is None or session_id != self.session_id or not self.available:
            return
        if not native_guard.allows("review.list", {"sessionId": session_id}):
            return  # a pi session: pi's tools keep no snapshots here, so no Files changed
        try:
            snapshots = await self.client.call("review.list", {"sessionId": session_id})
            artifacts = await self.client.call("artifacts.list", {"sessionId": session_id})
        except HostError as error:
            if error.code == ErrorCode.METHOD_NOT_FOUND:
                self.available = False
            else:
                self.report(error, "")
            return
        if session_id != self.session_id:
            return
        self.snapshots = list(snapshots.get("snapshots") or [])
        self.artifacts = list(artifacts.get("artifacts") or [])
        self.changed.emit(session_id)

    def latest_for(self, path: str) -> dict | None:
        """The newest snapshot of ``path``: what a Revert of the file undoes (``review.list`` is oldest first)."""
        return next((s for s in reversed(self.snapshots) if s.get("path") == path), None)

    def handle_event(self, topic: str, payload: dict) -> None:
        """``review.changed`` (a change kept or reverted, here or from another window): ask again."""
        if topic == topics.REVIEW_CHANGED and payload.get("sessionId") == self.session_id:
            spawn(self.refresh(self.session_id), name="reviews-refresh")

    async def revert(self, session_id: str, snapshot_id: str) -> bool:
        """Put the file back as it was before ``snapshot_id``; False (and a sentence) when it could not."""

        def refused(error: HostError) -> None:
            data = error.data if isinstance(error.data, dict) else {}
            if error.code == ErrorCode.CONFLICT and data.get("reverted"):
                self.report(error, QCoreApplication.translate("Reviews", str(REVERTED_SENTENCE)))
            elif error.code == ErrorCode.CONFLICT and data.get("reversible") is False:
                self.report(error, QCoreApplication.translate("Reviews", str(NOT_KEPT_SENTENCE)))
            elif error.code == ErrorCode.CONFLICT:
                self.report(error, QCoreApplication.translate("Reviews", str(CONFLICT_SENTENCE)))
            else:
                self.report(error, "")

        result = await host_op(
            self.client,
            "review.revert",
            {"sessionId": session_id, "snapshotId": snapshot_id},
            parent=self,
            failure=refused,
        )
        if session_id == self.session_id:
            await self.refresh(session_id)  # a conflict may say the snapshot is no longer reversible
        if result is None or not result.get("reverted"):
            return False
        self.reverted.emit(session_id, snapshot_id)
        return True
