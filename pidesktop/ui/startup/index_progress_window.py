"""A start's rebuild of the chat index from the chat files, shown while the host does it.

Not before the host opens but while it does: a start that restores chats from their files (a lost or
repaired database) shows how far it got, from the host's ``index.progress`` events.
"""

from __future__ import annotations

import time
from typing import Any

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication
from PySide6.QtWidgets import QLabel, QProgressBar, QVBoxLayout, QWidget

from pidesktop.bus import topics
from pidesktop.ui.kit import i18n
from pidesktop.ui.kit import theme as themes
from pidesktop.ui.startup.window_base import ETA_AFTER, StartupWindow, time_left


class IndexProgressWindow(StartupWindow):
    """A start's rebuild of the chat index from the chat files (the host's ``index.progress`` events), with a
    progress bar and the time left; it closes itself with the last event. Nothing to decide: no buttons.
    """

    PHASES = {
        "restore": QT_TRANSLATE_NOOP("IndexProgressWindow", "Restoring your chats from their files…"),
        "reindex": QT_TRANSLATE_NOOP("IndexProgressWindow", "Indexing a long chat again from its file…"),
    }

    def __init__(self, theme: themes.Theme | None = None, parent: QWidget | None = None):
        super().__init__(theme, parent)
        self.setWindowTitle(self.tr("pidesktop"))
        self._phase = ""
        self._phase_started = 0.0
        self.title = QLabel(self.tr("Rebuilding the chat index"))
        self.title.setObjectName("pageTitle")
        self.headline = QLabel(self.tr("Starting…"))
        self.headline.setObjectName("rowTitle")
        self.headline.setWordWrap(True)
        self.bar = QProgressBar()
        self.bar.setRange(0, 1000)
        self.bar.setTextVisible(False)
        self.detail = QLabel(" ")
        self.detail.setObjectName("muted")
        self.note = QLabel(
            self.tr("Your chats are safe in their files; the index that lists and searches them is being rebuilt.")
        )
        self.note.setObjectName("muted")
        self.note.setWordWrap(True)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(24, 20, 24, 20)
        layout.setSpacing(8)
        layout.addWidget(self.title)
        layout.addWidget(self.headline)
        layout.addSpacing(4)
        layout.addWidget(self.bar)
        layout.addWidget(self.detail)
        layout.addSpacing(4)
        layout.addWidget(self.note)

    def handle_event(self, topic: str, payload: dict[str, Any]) -> None:
        """Follow ``index.progress``: shown at a phase's first event, hidden after its last."""
        if topic != topics.INDEX_PROGRESS:
            return
        phase = str(payload.get("phase", ""))
        if phase != self._phase:
            self._phase, self._phase_started = phase, time.monotonic()
            self.headline.setText(
                QCoreApplication.translate("IndexProgressWindow", str(self.PHASES.get(phase, self.PHASES["restore"])))
            )
        done, total = int(payload.get("bytesDone") or 0), int(payload.get("bytesTotal") or 0)
        self.bar.setValue(1000 * done // total if total else 1000)
        chats = i18n.arg(
            self.tr("%1 of %2 chats"), int(payload.get("chatsDone") or 0), int(payload.get("chatsTotal") or 0)
        )
        elapsed = time.monotonic() - self._phase_started
        if done and total and elapsed >= ETA_AFTER:
            chats = f"{chats} · {time_left(elapsed * (total - done) / done)}"
        self.detail.setText(chats)
        if payload.get("done"):
            self.hide()
        elif not self.isVisible():
            self.show()
