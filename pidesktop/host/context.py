"""What every command handler is given: the connection, the data root, events."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import apsw

from pidesktop.host.migrations import MigrationReport
from pidesktop.host.transcripts import TranscriptStore


def now_ms() -> int:
    return time.time_ns() // 1_000_000


# How the host tells its clients something happened: (event name, payload).
Emit = Callable[[str, dict[str, Any]], None]
# Queues a function on the host thread; False when the host is closing.
Post = Callable[[Callable[[], None]], bool]


@dataclass
class HostContext:
    conn: apsw.Connection
    data_root: Path
    emit: Emit
    clock: Callable[[], int] = field(default=now_ms)
    # replies a quit or crash cut off, found by this start's boot pass (told once, in app.handshake)
    interrupted_replies: list[dict[str, Any]] = field(default_factory=list)
    # chats this start's boot pass rebuilt from their transcripts, and what could not be (told once)
    rebuilt: dict[str, Any] | None = None
    # run by Host.close, newest first, before the database closes (job threads stop here)
    on_close: list[Callable[[], None]] = field(default_factory=list)
    # what opening the database migrated on this start (None when it was current or new)
    migration: MigrationReport | None = None
    # queues work on the host thread (set by the bus's HostThread; None for a bare Host in tests)
    post: Post | None = None
    # MCP servers' running state as the agent runtime reports it (``mcp.reportState``); kept in memory only
    mcp_states: dict[str, dict[str, Any]] = field(default_factory=dict)
    # a repair of the damaged database failed: the open mark stays, so the next start checks and repairs
    damaged: bool = False
    transcripts: TranscriptStore = field(init=False)

    def __post_init__(self) -> None:
        self.transcripts = TranscriptStore(self.data_root / "sessions")

    @property
    def sessions_dir(self) -> Path:
        return self.data_root / "sessions"
