"""``index.progress`` events: how far a rebuild of the index from the transcripts has got.

A start that finds chats without rows (a lost or repaired database) restores
them from their files, and a transcript whose index is out of step is indexed
again; for a long history that takes a while, so the host tells its clients
(the window's progress bar, a terminal's progress line) as it goes: bytes of
transcript indexed and chats done out of the totals of the phase, at most every
``INTERVAL`` seconds, a first event before any work and a last one with
``done: true``. ``bytesDone`` never goes down within a phase, and no two
events of a phase say the same.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable

from pidesktop.bus import topics
from pidesktop.host.context import Emit
from pidesktop.host.sessions.index_build import Progress

INTERVAL = 0.1  # seconds between two events of one phase (the first and last always go out)


class IndexProgress:
    """The events of one phase (``"restore"``: chats without rows; ``"reindex"``: an index out of step)."""

    def __init__(
        self, emit: Emit, phase: str, sizes: dict[str, int], clock: Callable[[], float] = time.monotonic
    ) -> None:
        self._emit, self._phase, self._sizes, self._clock = emit, phase, sizes, clock
        self._bytes_total = sum(sizes.values())
        self._finished_bytes = 0  # bytes of the chats already done
        self._chats_done = 0
        self._sent = (-1, -1)  # (bytesDone, chatsDone) of the last event
        self._last = -math.inf

    def start(self) -> None:
        self._tell("", 0, force=True)

    def for_chat(self, session_id: str) -> Progress:
        """The callback ``index_build.build`` reports one chat's progress to."""
        size = self._sizes.get(session_id, 0)

        def told(done: int, _total: int) -> None:
            self._tell(session_id, self._finished_bytes + min(done, size))

        return told

    def chat_done(self, session_id: str) -> None:
        """One chat is done (or given up): its bytes count whole."""
        self._finished_bytes += self._sizes.get(session_id, 0)
        self._chats_done += 1
        self._tell(session_id, self._finished_bytes, force=self._chats_done >= len(self._sizes))

    def _tell(self, session_id: str, done: int, force: bool = False) -> None:
        now = self._clock()
        step = (max(done, self._sent[0]), self._chats_done)
        if step == self._sent or (not force and now - self._last < INTERVAL):
            return
        self._sent, self._last = step, now
        done = step[0]
        self._emit(
            topics.INDEX_PROGRESS,
            {
                "phase": self._phase,
                "bytesDone": done,
                "bytesTotal": self._bytes_total,
                "chatsDone": self._chats_done,
                "chatsTotal": len(self._sizes),
                "sessionId": session_id,
                "done": self._chats_done >= len(self._sizes),
            },
        )
