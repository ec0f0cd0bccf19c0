"""Runs automations that are due, in this process, through the command bus only.

The host decides what is due (``tasks.due``), reserves a run and creates its
chat (``tasks.startRun``: one transaction, and ``CONFLICT`` while the task is
still running, so a task never overlaps itself) and closes it
(``tasks.finishRun``). Here a run is one turn in that chat with the task's
prompt, sent unattended (``TurnRunner.send(..., interactive=False)``; in the
app it is the window's own runner, so the run's chat shows it streaming and its
Stop works): a task in Plan or Goal mode ends at once with
``PLAN_REQUIRES_INTERACTIVE_SESSION``,
before any model request. The turn's ``session.endTurn`` posts the inbox
notification.

Each tick of the running loop also asks the host whether the optional daily
backup to S3 is due (``data.dailyBackup``); the host starts it as a data job of
its own.

Slots missed while nothing was running are one late run at the next start:
the host arms the next slot after "now" when a run starts. The clock is
injectable (epoch milliseconds), so tests drive time by hand.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable
from typing import Any

from pidesktop.bus import ErrorCode, HostError, topics
from pidesktop.clock import now_ms

log = logging.getLogger("pidesktop.agent.scheduler")

POLL_SECONDS = 60.0  # the longest sleep: a changed clock or a woken laptop is noticed within it
RunListener = Callable[[str, dict[str, Any], dict[str, Any]], None]  # (phase "started" | "finished", task, run)


class Scheduler:
    def __init__(
        self, client: Any, runner: Any, *, clock: Callable[[], int] = now_ms, poll_seconds: float = POLL_SECONDS
    ):
        self.client = client
        self.runner = runner
        self.clock = clock
        self.poll_seconds = poll_seconds
        self.listeners: list[RunListener] = []
        self.next_due_at: int | None = None  # the earliest armed slot the last check saw
        self._runs: dict[str, asyncio.Task[dict[str, Any] | None]] = {}  # task id -> its running run
        self._sessions: dict[str, str] = {}  # task id -> the chat its run is replying in (what ``stop`` stops)
        self._loop_task: asyncio.Task[None] | None = None
        self._wake = asyncio.Event()
        subscribe = getattr(client, "subscribe", None)
        self._unsubscribe = subscribe(self._on_event) if callable(subscribe) else None

    # -- public -------------------------------------------------------------------------------
    def is_running(self, task_id: str) -> bool:
        return task_id in self._runs

    async def tick(self) -> list[asyncio.Task[dict[str, Any] | None]]:
        """Start every due task that is not already running here; returns the runs started."""
        due = await self.client.call("tasks.due", {"now": self.clock()})
        self.next_due_at = due.get("nextDueAt")
        return [self._spawn(task["id"], manual=False) for task in due["tasks"] if task["id"] not in self._runs]

    async def check_daily_backup(self) -> dict[str, Any] | None:
        """The optional daily backup to S3 rides on the running loop's ticks (not on a one-off ``tick``, such
        as ``pidesktop automations run-due``, which would end before it): the host starts it when due."""
        try:
            result: dict[str, Any] = await self.client.call("data.dailyBackup", {"now": self.clock()})
            return result
        except HostError as exc:
            log.warning("could not check the daily backup: %s", exc.message)
            return None

    def run_now(self, task_id: str) -> asyncio.Task[dict[str, Any] | None]:
        """Run a task at once, whatever its schedule (Run now); refused by the host while it is running."""
        return self._spawn(task_id, manual=True)

    async def wait_idle(self) -> None:
        while self._runs:
            await asyncio.gather(*list(self._runs.values()), return_exceptions=True)

    def start(self) -> None:
        """Check now and then whenever the next slot comes (or a task changes), until ``stop``."""
        if self._loop_task is None:
            self._loop_task = asyncio.ensure_future(self._loop())

    async def stop(self, grace: float = 5.0) -> None:
        """Stop checking; a run in progress is stopped (its reply is kept) and its run row closed."""
        if self._loop_task is not None:
            self._loop_task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):  # quitting goes on whatever it was
                await self._loop_task
            self._loop_task = None
        for task_id in list(self._runs):
            session_id = self._sessions.get(task_id)
            if session_id:
                self.runner.stop(session_id)
        if self._runs:
            await asyncio.wait(list(self._runs.values()), timeout=grace)
        if self._unsubscribe is not None:
            self._unsubscribe()
            self._unsubscribe = None

    # -- runs ---------------------------------------------------------------------------------
    def _spawn(self, task_id: str, *, manual: bool) -> asyncio.Task[dict[str, Any] | None]:
        running = self._runs.get(task_id)
        if running is not None:
            return running
        job = asyncio.ensure_future(self.run_task(task_id, manual=manual))
        self._runs[task_id] = job
        job.add_done_callback(lambda _job: self._runs.pop(task_id, None))
        return job

    async def run_task(self, task_id: str, *, manual: bool = False) -> dict[str, Any] | None:
        """One run: reserve it, send the prompt in its new chat, record how it ended. The finished run,
        or None when the host refused to start it (not due any more, already running, deleted)."""
        try:
            started = await self.client.call(
                "tasks.startRun", {"taskId": task_id, "now": self.clock(), "manual": manual}
            )
        except HostError as exc:
            if manual:
                raise
            log.info("automation %s did not start: %s", task_id, exc.message)
            return None
        task, run, session = started["task"], started["run"], started["session"]
        self._sessions[task_id] = session["id"]
        self._tell("started", task, run)
        status, error_code = "error", None
        try:
            result = await self.runner.send(session["id"], task["prompt"], interactive=False)
            status = result.get("status", "error")
            error_code = (result.get("error") or {}).get("code")
        except HostError as exc:
            error_code = exc.code
        except asyncio.CancelledError:
            status = "aborted"
            raise
        except Exception as exc:  # the run row must still close, whatever went wrong
            log.exception("automation %s failed", task_id)
            error_code = f"{ErrorCode.INTERNAL}: {type(exc).__name__}"
        finally:
            self._sessions.pop(task_id, None)  # the reply is over: nothing left for ``stop`` to stop
            if status not in ("completed", "error", "aborted"):
                status = "error"
            finished = await self._finish(run, status, error_code)
            self._tell("finished", task, finished or run)
        return finished

    async def _finish(self, run: dict[str, Any], status: str, error_code: str | None) -> dict[str, Any] | None:
        params = {"runId": run["id"], "status": status, "now": self.clock()}
        if error_code and status != "completed":
            params["errorCode"] = str(error_code)[:200]
        try:
            finished: dict[str, Any] | None = (await self.client.call("tasks.finishRun", params))["run"]
            return finished
        except HostError as exc:  # the host is going away: the next boot ends the run as aborted
            log.warning("could not record the end of automation run %s: %s", run["id"], exc.message)
            return None

    def _tell(self, phase: str, task: dict[str, Any], run: dict[str, Any]) -> None:
        for listener in list(self.listeners):
            try:
                listener(phase, task, run)
            except Exception:
                log.exception("automation listener failed")

    # -- the loop -------------------------------------------------------------------------------
    def _on_event(self, topic: str, payload: dict[str, Any]) -> None:
        if topic == topics.TASKS_CHANGED and payload.get("reason") in ("created", "updated"):
            self._wake.set()  # a new or moved slot may come sooner than the current sleep

    async def _loop(self) -> None:
        while True:
            try:
                await self.tick()
                await self.check_daily_backup()
                delay = self._delay()
            except HostError as exc:
                log.warning("could not check for due automations: %s", exc.message)
                delay = self.poll_seconds
            except Exception:  # a bug must not end automations for the rest of the run, silently
                log.exception("checking for due automations failed")
                delay = self.poll_seconds
            self._wake.clear()
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(self._wake.wait(), timeout=delay)

    def _delay(self) -> float:
        if self.next_due_at is None:
            return self.poll_seconds
        return min(self.poll_seconds, max(0.05, (self.next_due_at - self.clock()) / 1000))
