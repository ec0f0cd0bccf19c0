"""What every command handler is given: the connection, the data root, events."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import apsw

from pidesktop.clock import now_ms
from pidesktop.formats.index.migrations import MigrationReport
from pidesktop.host.transcripts import TranscriptStore

if TYPE_CHECKING:  # their modules import this one; the fields are filled by them on first use
    from pidesktop.host.data.commands import Jobs
    from pidesktop.host.native.catalog import Catalog
    from pidesktop.host.native.index import FileKey
    from pidesktop.host.native.text_search import TextCache


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
    # seconds that only move forward: a turn's length is measured on it, whatever the wall clock does meanwhile
    monotonic: Callable[[], float] = field(default=time.monotonic)
    # turns started by this host: id -> (wall-clock start in ms, monotonic start), until they end
    turn_clocks: dict[str, tuple[int, float]] = field(default_factory=dict)
    # replies a quit or crash cut off, found by this start's boot pass (told once, in app.handshake)
    interrupted_replies: list[dict[str, Any]] = field(default_factory=list)
    # chats this start's boot pass rebuilt from their transcripts, and what could not be (told once)
    rebuilt: dict[str, Any] | None = None
    # what this start's boot pass loaded from state-snapshot.json into an empty database (its table names, "kv")
    from_snapshot: list[str] = field(default_factory=list)
    # run by Host.close, newest first, before the database closes (job threads stop here)
    on_close: list[Callable[[], None]] = field(default_factory=list)
    # what opening the database migrated on this start (None when it was current or new)
    migration: MigrationReport | None = None
    # queues work on the host thread (set by the bus's HostThread; None for a bare Host in tests)
    post: Post | None = None
    # MCP servers' running state as the agent runtime reports it (``mcp.reportState``); kept in memory only
    mcp_states: dict[str, dict[str, Any]] = field(default_factory=dict)
    # The state below belongs to this host alone: two hosts in one process (the tests run several) share none.
    # pi's session files as this host knows them (``native.reading.catalog_of`` makes it on first use)
    native_catalog: Catalog | None = None
    # path -> key of the pi session file state this host wrote last: its own recent write is no live pi
    native_own_writes: dict[str, FileKey | None] = field(default_factory=dict)
    # the user and assistant text of the pi session files Ctrl+K searched (``native.text_search.cache_of``)
    native_text: TextCache | None = None
    # the data.* jobs (``data_commands.jobs_of`` makes them on first use; stopped when the host closes)
    data_jobs: Jobs | None = None
    # review-changes/<chat> folders made since their parent was last flushed (``sessions.review_files``)
    review_new_folders: set[Path] = field(default_factory=set)
    # a repair of the damaged database failed: the open mark stays, so the next start checks and repairs
    damaged: bool = False
    transcripts: TranscriptStore = field(init=False)

    def __post_init__(self) -> None:
        self.transcripts = TranscriptStore(self.data_root / "sessions")

    @property
    def sessions_dir(self) -> Path:
        return self.transcripts.sessions_dir  # the same folder, built once: an append asks for it several times
