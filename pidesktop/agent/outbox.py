"""The message outbox: the runtime's own messages reach the host in order, without stalling a turn.

Assistant and tool messages the runtime produces are appended through one FIFO
queue shared by every session (spec 004, "Active-turn steering transcript
reservations"). ``append`` tries to deliver at once; when the host cannot take
the head right now, the entry stays queued and a background task retries the
head, so a turn never waits on a retry. One head is in flight at a time.

How a failed ``session.appendMessage`` is read, by its code alone:

- ``PERMISSION_DENIED`` (not a plugin's own code, such as
  ``PLUGIN_PERMISSION_DENIED``) and ``INVALID_PARAMS`` are permanent: the entry
  leaves the queue at once (D597), quarantined in the dead-letter file so it
  is not lost without a trace.
- Anything else is transient: the head is retried after 5 s doubling to 60 s,
  and after five consecutive failures it is quarantined so one bad head cannot
  starve every other session's writes (D656).

A message the host already stored is not a failure: the host answers its
replay as a success with the stored ``seq`` (D444), which settles the entry.

- ``NOT_FOUND`` with ``deleted: true`` in its data means the chat was deleted:
  every entry of that chat is dropped, quarantined ones included, and later
  appends for it are not queued (D318: a deleted chat never comes back).

The outbox also follows ``session.changed {reason: "deleted"}`` events from
its client, so a chat deleted in any window, by any client of that host, is
forgotten at once; ``forget_session`` is the same step for a caller that knows.

A new host generation (a restarted host thread) retries the head at once:
call ``set_client`` with the new client, or ``reset_backoff`` when the client
object stays the same. Quarantined entries are never replayed automatically.

The queue itself lives in memory. The final assistant reply is safe across a
crash anyway: its in-flight checkpoint stays on disk until the append lands,
and the host's boot sweep promotes it (D327).
"""

from __future__ import annotations

import asyncio
import copy
import logging
import os
import time
from collections import deque
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import orjson

from pidesktop.bus import ErrorCode, HostClient, HostError, topics
from pidesktop.durable import atomic_write
from pidesktop.paths import ensure_private_dir

log = logging.getLogger("pidesktop.agent.outbox")

DEAD_LETTER_NAME = "session-message-outbox.dead-letter.json"
ACK, DROP, RETRY, GONE = "ack", "drop", "retry", "gone"

__all__ = ["DEAD_LETTER_NAME", "DeadLetters", "Outbox", "OutboxFull", "classify", "dead_letter_file"]


class OutboxFull(Exception):
    """The queue was still at capacity after a flush attempt; the message was not queued."""

    def __init__(self, session_id: str, message_id: str, capacity: int):
        super().__init__(
            f"The message outbox is full ({capacity} waiting); message {message_id} "
            f"of session {session_id} was not queued."
        )
        self.session_id = session_id
        self.message_id = message_id


def dead_letter_file(folder: Path) -> Path:
    """Where the quarantine file lives inside ``folder`` (the front-end state folder)."""
    return folder / DEAD_LETTER_NAME


def classify(error: HostError) -> str:
    """``drop``, ``retry`` or ``gone`` (the chat was deleted) for a failed ``session.appendMessage``."""
    if error.code == ErrorCode.NOT_FOUND and error.data.get("deleted") is True:
        return GONE
    if error.code in (ErrorCode.PERMISSION_DENIED, ErrorCode.INVALID_PARAMS):
        return DROP  # the host refuses this payload for good; no retry can succeed
    return RETRY


class DeadLetters:
    """The quarantine file: a JSON array of the newest ``keep`` records, replaced atomically on change.

    Without a path the records are kept in memory only.
    """

    def __init__(self, path: Path | None, keep: int):
        self.path = path
        self.keep = keep
        self._records: list[dict[str, Any]] = self._load()

    def records(self) -> list[dict[str, Any]]:
        return copy.deepcopy(self._records)

    def add(self, record: dict[str, Any]) -> None:
        self._records.append(copy.deepcopy(record))
        del self._records[: max(0, len(self._records) - self.keep)]  # oldest go first
        self._save()

    def forget(self, session_id: str) -> int:
        kept = [record for record in self._records if record.get("sessionId") != session_id]
        dropped = len(self._records) - len(kept)
        if dropped:
            self._records = kept
            self._save()
        return dropped

    def _load(self) -> list[dict[str, Any]]:
        if self.path is None or not self.path.exists():
            return []
        try:
            records = orjson.loads(self.path.read_bytes())
            if not isinstance(records, list) or not all(isinstance(r, dict) for r in records):
                raise ValueError("not an array of objects")
        except (OSError, ValueError) as exc:  # orjson.JSONDecodeError is a ValueError
            # Set the unreadable file aside rather than overwrite it on the next quarantine.
            log.warning("unreadable outbox dead-letter file %s (%s); starting a new one", self.path, exc)
            try:
                os.replace(self.path, self.path.with_name(self.path.name + ".unreadable"))
            except OSError:
                pass
            return []
        return records[-self.keep :] if self.keep > 0 else []

    def _save(self) -> None:
        if self.path is None:
            return
        try:
            ensure_private_dir(self.path.parent)
            atomic_write(self.path, orjson.dumps(self._records))
        except (OSError, TypeError):  # the records stay in memory; a later change tries again
            log.exception("could not write the outbox dead-letter file %s", self.path)


@dataclass(eq=False)  # identity, not value: two equal payloads are still two entries
class _Entry:
    session_id: str
    message: dict[str, Any]
    turn_id: str | None
    revision: int = 0  # bumped when a newer snapshot of the same message replaces this one
    failures: int = 0  # consecutive transient failures while at the head
    settled: bool = False
    result: dict[str, Any] | None = None

    @property
    def message_id(self) -> str:
        return str(self.message.get("id", ""))

    def params(self) -> dict[str, Any]:
        # A fresh top-level copy per attempt: an in-process host fills createdAt
        # and may remap the id on the dict it is handed.
        params: dict[str, Any] = {"sessionId": self.session_id, "message": dict(self.message)}
        if self.turn_id is not None:
            params["turnId"] = self.turn_id
        return params

    def describe(self) -> dict[str, Any]:
        return {
            "sessionId": self.session_id,
            "turnId": self.turn_id,
            "message": copy.deepcopy(self.message),
            "failures": self.failures,
        }


class Outbox:
    """The durable-append queue for the runtime's assistant and tool messages.

    ``client`` can be swapped with ``set_client`` when the host restarts (a new
    generation). ``clock`` gives the wall time (seconds) stamped on quarantined
    entries; ``sleep`` waits out a backoff delay. Both exist so tests can
    observe the schedule without waiting for it.
    """

    def __init__(
        self,
        client: HostClient,
        dead_letter_path: Path | None,
        *,
        base_delay: float = 5.0,
        max_delay: float = 60.0,
        max_failures: int = 5,
        capacity: int = 1024,
        dead_letter_keep: int = 256,
        clock: Callable[[], float] = time.time,
        sleep: Callable[[float], Awaitable[Any]] = asyncio.sleep,
    ):
        self.client = client
        self.base_delay = base_delay
        self.max_delay = max_delay
        self.max_failures = max_failures
        self.capacity = capacity
        self._clock = clock
        self._sleep = sleep
        self._dead = DeadLetters(dead_letter_path, dead_letter_keep)
        self._queue: deque[_Entry] = deque()
        self._lock = asyncio.Lock()  # one head in flight at a time
        self._wake = asyncio.Event()  # cuts a backoff short (new host generation, head removed)
        self._emptied = asyncio.Event()
        self._backoff: float | None = None  # the head's pending delay; None means "try now"
        self._generation = 0  # bumped per host generation; a failure from an older one does not count
        self._drainer: asyncio.Task[None] | None = None
        self._closed = False
        self._forgotten: set[str] = set()  # deleted chats: nothing more is queued for them
        self._unsubscribe: Callable[[], Any] | None = None
        self._follow(client)

    # -- public ---------------------------------------------------------------------------
    async def append(
        self, session_id: str, message: dict[str, Any], turn_id: str | None = None
    ) -> dict[str, Any] | None:
        """Queue ``message`` and try to deliver it now, behind anything queued before it.

        Returns the host's result when the message was stored during this call
        (for a UNIQUE-constraint acknowledgement, ``{"message": {"id", "seq":
        None}, "duplicate": True}``), or None when it is still queued or was
        quarantined. Raises ``OutboxFull`` when the queue stays full.
        """
        if session_id in self._forgotten:
            log.info("not queuing message %s: session %s was deleted", message.get("id"), session_id)
            return None
        entry = self._find(session_id, message.get("id"))
        if entry is not None:
            # A newer snapshot of a message still waiting (or in flight) replaces it in place.
            entry.message = copy.deepcopy(message)
            entry.turn_id = turn_id if turn_id is not None else entry.turn_id
            entry.revision += 1
        else:
            if len(self._queue) >= self.capacity:
                await self._drain()  # the flush attempt before refusing
                if len(self._queue) >= self.capacity:
                    log.error(
                        "outbox full (%d waiting): rejected message %s of session %s",
                        len(self._queue),
                        message.get("id"),
                        session_id,
                    )
                    raise OutboxFull(session_id, str(message.get("id")), self.capacity)
            entry = _Entry(session_id, copy.deepcopy(message), turn_id)
            self._queue.append(entry)
            self._emptied.clear()
        await self._drain(until=entry)
        self._schedule()
        return entry.result if entry.settled else None

    def set_client(self, client: HostClient) -> None:
        """Deliver through ``client`` from now on: a new host generation, so the head is retried at once."""
        self.client = client
        self._follow(client)
        self.reset_backoff()

    def reset_backoff(self) -> None:
        """A new host generation: retry the head now, with a fresh failure budget."""
        self._generation += 1
        self._backoff = None
        if self._queue:
            self._queue[0].failures = 0
        self._wake.set()
        self._schedule()

    def forget_session(self, session_id: str) -> None:
        """Drop a deleted chat's queued and quarantined entries; later appends for it are not queued."""
        self._forgotten.add(session_id)
        head = self._queue[0] if self._queue else None
        dropped = [entry for entry in self._queue if entry.session_id == session_id]
        for entry in dropped:
            self._settle(entry, None)
        if head is not None and head.session_id == session_id:
            self._backoff = None  # the old head's backoff does not apply to the new one
            self._wake.set()
        quarantined = self._dead.forget(session_id)
        if dropped or quarantined:
            log.info("forgot session %s: %d queued, %d quarantined", session_id, len(dropped), quarantined)

    def pending(self) -> list[dict[str, Any]]:
        """The queued entries, head first: ``{sessionId, turnId, message, failures}``."""
        return [entry.describe() for entry in self._queue]

    def dead_letters(self) -> list[dict[str, Any]]:
        """The quarantined entries, oldest first."""
        return self._dead.records()

    async def flush(self, timeout: float) -> bool:
        """Wait until nothing is queued, at most ``timeout`` seconds; True when the queue is empty."""
        self._schedule()
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while self._queue:
            remaining = deadline - loop.time()
            if remaining <= 0:
                return False
            try:
                await asyncio.wait_for(self._emptied.wait(), remaining)
            except TimeoutError:
                return False
        return True

    async def aclose(self) -> None:
        """Stop the background retries; whatever is still queued stays in ``pending()``."""
        self._closed = True
        if self._unsubscribe is not None:
            self._unsubscribe()
            self._unsubscribe = None
        task, self._drainer = self._drainer, None
        if task is not None:
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)

    def _follow(self, client: HostClient) -> None:
        """Listen to ``client``'s events for deleted chats (a client without events is simply not followed)."""
        if self._unsubscribe is not None:
            self._unsubscribe()
            self._unsubscribe = None
        subscribe = getattr(client, "subscribe", None)
        if callable(subscribe):
            self._unsubscribe = subscribe(self._on_event)

    def _on_event(self, topic: str, payload: dict[str, Any]) -> None:
        if topic == topics.SESSION_CHANGED and payload.get("reason") == "deleted" and payload.get("sessionId"):
            self.forget_session(str(payload["sessionId"]))
        elif topic == topics.SESSION_CHANGED and payload.get("reason") == "restored" and payload.get("sessionId"):
            self._forgotten.discard(str(payload["sessionId"]))  # back from the trash: its appends are queued again

    # -- delivery -------------------------------------------------------------------------
    async def _drain(self, until: _Entry | None = None) -> None:
        """Deliver heads in order until the queue is empty, the head is backing off, or ``until`` settled."""
        async with self._lock:
            while self._queue and self._backoff is None and not (until is not None and until.settled):
                await self._deliver(self._queue[0])

    async def _deliver(self, entry: _Entry) -> None:
        revision, generation = entry.revision, self._generation
        result: dict[str, Any] | None = None
        error: HostError | None = None
        try:
            result = await self.client.call("session.appendMessage", entry.params())
            outcome = ACK
        except HostError as exc:
            error, outcome = exc, classify(exc)
        except Exception as exc:
            error, outcome = HostError(ErrorCode.INTERNAL, f"{type(exc).__name__}: {exc}"), RETRY
        if entry.settled:
            return  # its chat was deleted while the call was out
        if outcome == GONE:
            log.info("session %s was deleted: dropping its waiting messages", entry.session_id)
            self.forget_session(entry.session_id)
            return
        if entry.revision != revision and outcome != RETRY:
            return  # a newer snapshot arrived meanwhile: it goes next, in the same place
        if outcome == RETRY and generation != self._generation:
            return  # the host was replaced while the call was out: the new one gets a try at once
        if outcome == ACK:
            self._settle(entry, result)
            return
        assert error is not None  # every outcome but ACK comes from a failed call
        if outcome == DROP:
            log.error(
                "append of message %s (session %s) refused for good: %s", entry.message_id, entry.session_id, error.code
            )
            self._quarantine(entry, error)
        else:
            self._failed(entry, error)

    def _failed(self, entry: _Entry, error: HostError) -> None:
        entry.failures += 1
        if entry.failures >= self.max_failures:
            log.error(
                "append of message %s (session %s) failed %d times (%s); quarantined",
                entry.message_id,
                entry.session_id,
                entry.failures,
                error.code,
            )
            self._quarantine(entry, error)
            return
        self._backoff = min(self.base_delay * 2 ** (entry.failures - 1), self.max_delay)
        log.warning(
            "append of message %s (session %s) failed (%s); retry in %.2f s",
            entry.message_id,
            entry.session_id,
            error.code,
            self._backoff,
        )

    def _quarantine(self, entry: _Entry, error: HostError) -> None:
        self._dead.add(
            {
                "sessionId": entry.session_id,
                "turnId": entry.turn_id,
                "message": entry.message,
                "failedAt": _rfc3339(self._clock()),
                "error": {"code": error.code, "message": error.message},
            }
        )
        self._settle(entry, None)

    def _settle(self, entry: _Entry, result: dict[str, Any] | None) -> None:
        was_head = bool(self._queue) and self._queue[0] is entry
        self._queue.remove(entry)
        entry.settled, entry.result = True, result
        if was_head:
            self._backoff = None  # the next head starts with a clean slate
        if not self._queue:
            self._emptied.set()

    def _find(self, session_id: str, message_id: Any) -> _Entry | None:
        for entry in self._queue:
            if entry.session_id == session_id and entry.message.get("id") == message_id:
                return entry
        return None

    # -- background retries ---------------------------------------------------------------
    def _schedule(self) -> None:
        """Make sure a drain task runs while anything is queued (created on the running loop)."""
        if self._closed or not self._queue or (self._drainer is not None and not self._drainer.done()):
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return  # no loop yet: the next append or flush starts it
        self._drainer = loop.create_task(self._drain_in_background(), name="pidesktop-outbox-drain")
        self._drainer.add_done_callback(_report_crash)

    async def _drain_in_background(self) -> None:
        while self._queue and not self._closed:
            if self._backoff is not None:
                self._wake.clear()
                await self._pause(self._backoff)
                self._backoff = None  # waited out (or cut short): try the head again
            await self._drain()

    async def _pause(self, delay: float) -> None:
        sleeper = asyncio.ensure_future(self._sleep(delay))
        waker = asyncio.ensure_future(self._wake.wait())
        try:
            await asyncio.wait({sleeper, waker}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            sleeper.cancel()
            waker.cancel()


def _report_crash(task: asyncio.Task[None]) -> None:
    if not task.cancelled() and task.exception() is not None:
        log.error("the outbox drain task stopped", exc_info=task.exception())


def _rfc3339(seconds: float) -> str:
    moment = datetime.fromtimestamp(seconds, UTC)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"
