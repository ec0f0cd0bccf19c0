"""The scheduler with an injected clock, on a real host thread and the offline demo provider."""

from __future__ import annotations

import asyncio
import datetime as dt
from zoneinfo import ZoneInfo

import apsw
import pytest

from pidesktop.agent.runner import TurnRunner
from pidesktop.agent.scheduler import Scheduler
from pidesktop.bus import HostClient, HostThread
from pidesktop.host.core import opener

BERLIN = ZoneInfo("Europe/Berlin")
HOUR = 3_600_000
DAY = 24 * HOUR


@pytest.fixture(autouse=True)
def berlin(monkeypatch):
    monkeypatch.setenv("TZ", "Europe/Berlin")


def at(*parts) -> int:
    return int(dt.datetime(*parts, tzinfo=BERLIN).timestamp() * 1000)


class Clock:
    def __init__(self, now: int):
        self.now = now

    def __call__(self) -> int:
        return self.now


def run(location, body, offline_delay: float = 0.0):
    """``body(client, scheduler, clock)`` on a fresh event loop against a real host thread."""

    async def main():
        host = HostThread(opener(location, role="test scheduler")).start()
        client = HostClient(host, asyncio.get_running_loop())
        clock = Clock(0)
        scheduler = Scheduler(client, TurnRunner(client, offline_delay=offline_delay, interactive=False), clock=clock)
        try:
            return await body(client, scheduler, clock)
        finally:
            await scheduler.stop()
            client.close()
            host.stop()

    return asyncio.run(main())


async def create(client, clock, when: int, **fields) -> dict:
    clock.now = when
    params = {"name": "Morning news", "prompt": "Say good morning", "schedule": {"kind": "daily", "at": "09:00"}}
    return (await client.call("tasks.create", params | fields | {"now": when}))["task"]


async def runs(client, task_id: str) -> list[dict]:
    return (await client.call("tasks.runs", {"taskId": task_id, "limit": 200}))["runs"]


async def run_until_idle(scheduler: Scheduler) -> list:
    started = await scheduler.tick()
    await scheduler.wait_idle()
    return started


def test_a_due_task_runs_in_a_new_chat_records_the_run_and_posts_to_the_inbox(location):
    async def body(client, scheduler, clock):
        project = "/work/site"
        await client.call("session.create", {"projectPath": project})
        project_id = (await client.call("projects.list"))["projects"][0]["id"]
        task = await create(client, clock, at(2026, 6, 1, 8), projectId=project_id)
        seen = []
        scheduler.listeners.append(lambda phase, t, r: seen.append((phase, r["status"])))
        clock.now = at(2026, 6, 1, 8, 59)
        assert await run_until_idle(scheduler) == []
        clock.now = at(2026, 6, 1, 9, 0, 20)
        assert len(await run_until_idle(scheduler)) == 1
        [record] = await runs(client, task["id"])
        assert (record["status"], record["late"], record["errorCode"]) == ("completed", False, None)
        session = (await client.call("session.get", {"sessionId": record["sessionId"]}))["session"]
        assert session["title"] == "Morning news" and session["projectId"] == project_id
        messages = (await client.call("session.get", {"sessionId": record["sessionId"]}))["messages"]
        assert [m["role"] for m in messages] == ["user", "assistant"]
        assert messages[0]["blocks"][0]["text"] == "Say good morning"
        inbox = (await client.call("notifications.list"))["notifications"]
        assert [(n["kind"], n["sessionId"]) for n in inbox] == [("task.completed", record["sessionId"])]
        assert seen == [("started", "running"), ("finished", "completed")]
        listed = (await client.call("tasks.list"))["tasks"][0]
        assert listed["nextRunAt"] == at(2026, 6, 2, 9) and listed["lastRun"]["id"] == record["id"]
        assert await run_until_idle(scheduler) == []  # done for today

    run(location, body)


def test_slots_missed_while_closed_run_once_marked_late(location):
    async def body(client, scheduler, clock):
        task = await create(client, clock, at(2026, 6, 1, 8))
        clock.now = at(2026, 6, 4, 14)  # three 09:00 slots passed while nothing ran
        await run_until_idle(scheduler)
        await run_until_idle(scheduler)
        records = await runs(client, task["id"])
        assert [(r["status"], r["late"]) for r in records] == [("completed", True)]
        assert (await client.call("tasks.list"))["tasks"][0]["nextRunAt"] == at(2026, 6, 5, 9)

    run(location, body)


@pytest.mark.parametrize(
    ("start", "expected"),
    [
        ((2026, 3, 28, 12), ["2026-03-29T03:30:00+02:00", "2026-03-30T02:30:00+02:00"]),  # spring forward
        ((2026, 10, 24, 12), ["2026-10-25T02:30:00+02:00", "2026-10-26T02:30:00+01:00"]),  # fall back
    ],
)
def test_dst_changes_neither_skip_nor_double_a_run(location, start, expected):
    async def body(client, scheduler, clock):
        task = await create(client, clock, at(*start), schedule={"kind": "daily", "at": "02:30"})
        end = at(*start) + 2 * DAY
        while clock.now < end:  # look every ten minutes, as a sleeping scheduler would wake
            clock.now += 10 * 60_000
            await run_until_idle(scheduler)
        started = sorted(r["startedAt"] for r in await runs(client, task["id"]))
        local = [dt.datetime.fromtimestamp(ms / 1000, BERLIN) for ms in started]
        slots = [dt.datetime.fromisoformat(text) for text in expected]
        assert len(local) == 2
        assert all(dt.timedelta(0) <= ran - slot < dt.timedelta(minutes=10) for ran, slot in zip(local, slots))

    run(location, body)


def test_a_task_never_overlaps_itself(location):
    async def body(client, scheduler, clock):
        task = await create(client, clock, at(2026, 6, 1, 8), schedule={"kind": "hourly", "everyHours": 1})
        clock.now += HOUR
        reserved = asyncio.Event()
        scheduler.listeners.append(lambda phase, t, r: reserved.set())
        [first] = await scheduler.tick()
        await reserved.wait()  # the run has reserved its row and is streaming
        assert scheduler.is_running(task["id"])
        clock.now += 2 * HOUR  # its next slot comes while it still runs
        assert await scheduler.tick() == []
        assert scheduler.run_now(task["id"]) is first
        # another runtime on the same data (a second scheduler) is refused by the host
        other = Scheduler(client, TurnRunner(client, interactive=False), clock=clock)
        assert await other.run_task(task["id"]) is None
        await other.stop()
        await scheduler.wait_idle()
        assert [r["status"] for r in await runs(client, task["id"])] == ["completed"]
        await run_until_idle(scheduler)  # after it ended, the slot it was busy for runs once
        assert [r["status"] for r in await runs(client, task["id"])] == ["completed", "completed"]

    run(location, body, offline_delay=0.01)


def test_a_plan_task_fails_without_asking_the_model(location):
    async def body(client, scheduler, clock):
        task = await create(client, clock, at(2026, 6, 1, 8), mode="plan")
        record = await scheduler.run_task(task["id"], manual=True)
        assert (record["status"], record["errorCode"]) == ("error", "PLAN_REQUIRES_INTERACTIVE_SESSION")
        messages = (await client.call("session.get", {"sessionId": record["sessionId"]}))["messages"]
        assert [
            m["role"]
            for m in messages
            if m["role"] == "assistant" and any(b.get("text") for b in m["blocks"] if b["type"] == "text")
        ] == []
        inbox = (await client.call("notifications.list"))["notifications"]
        assert [(n["kind"], n["errorCode"]) for n in inbox] == [("task.failed", "PLAN_REQUIRES_INTERACTIVE_SESSION")]

    run(location, body)


def test_runs_are_pruned_to_the_newest_100_after_a_run(location):
    async def body(client, scheduler, clock):
        task = await create(client, clock, at(2026, 6, 1, 8))
        conn = apsw.Connection(str(location.data_root / "pi.sqlite"))
        with conn:
            conn.executemany(
                "INSERT INTO task_runs(id, task_id, status, started_at, ended_at) VALUES (?, ?, 'completed', ?, ?)",
                [(f"old-{n}", task["id"], n + 1, n + 1) for n in range(100)],
            )
        conn.close()
        record = await scheduler.run_task(task["id"], manual=True)
        kept = await runs(client, task["id"])
        assert len(kept) == 100 and kept[0]["id"] == record["id"] and "old-0" not in {r["id"] for r in kept}

    run(location, body)


def test_the_windows_interactive_runner_still_runs_a_task_unattended(location):
    """In the app the scheduler shares the window's runner: each run is unattended all the same."""

    async def body(client, _scheduler, clock):
        runner = TurnRunner(client)
        shared = Scheduler(client, runner, clock=clock)
        seen = []
        runner.listeners.append(lambda session_id, phase, _message: seen.append((session_id, phase)))
        try:
            task = await create(client, clock, at(2026, 6, 1, 8), mode="plan")
            record = await shared.run_task(task["id"], manual=True)
            assert (record["status"], record["errorCode"]) == ("error", "PLAN_REQUIRES_INTERACTIVE_SESSION")
            assert (record["sessionId"], "started") in seen  # the window hears the run like its own turns
            assert runner.interactive is True  # only that turn was unattended
        finally:
            await shared.stop()

    run(location, body)
