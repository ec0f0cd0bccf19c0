"""Automations' spec 004 4.11 fields: interval cadence, thinkingLevel, workspacePath, sessionMode, the
``{hour, minute, weekday}`` schedule shape, and the newest run per task."""

from __future__ import annotations

import datetime as dt
import uuid
from zoneinfo import ZoneInfo

import apsw
import orjson
import pytest

BERLIN = ZoneInfo("Europe/Berlin")
T0 = 1_780_000_000_000
MINUTE = 60_000


@pytest.fixture(autouse=True)
def berlin(monkeypatch):
    monkeypatch.setenv("TZ", "Europe/Berlin")


def create(host, **fields):
    params = {"name": "Check the build", "prompt": "Is the build green?", "now": T0} | fields
    return host.call("tasks.create", params)["task"]


def start(host, task, now, manual=False):
    return host.call("tasks.startRun", {"taskId": task["id"], "now": now, "manual": manual})


def finish(host, run, now):
    host.call("tasks.finishRun", {"runId": run["id"], "status": "completed", "now": now})


def test_an_interval_task_runs_every_n_minutes_from_when_it_was_armed(host):
    task = create(host, schedule={"kind": "interval", "intervalMinutes": 30})
    assert task["schedule"] == {"kind": "interval", "intervalMinutes": 30}
    assert task["cadence"] == "interval" and task["nextRunAt"] == T0 + 30 * MINUTE
    started = start(host, task, T0 + 31 * MINUTE)
    assert started["task"]["nextRunAt"] == T0 + 61 * MINUTE
    for bad in (4, 1441, "30", None):
        error = host.error(
            "tasks.create",
            {"name": "x", "prompt": "y", "schedule": {"kind": "interval", "intervalMinutes": bad}},
        )
        assert error.data["field"] == "schedule.intervalMinutes"


def test_thinking_level_and_workspace_path_go_to_the_run_chat(host, tmp_path):
    task = create(host, schedule={"kind": "hourly", "everyHours": 1}, thinkingLevel="high", workspacePath=str(tmp_path))
    assert (task["thinkingLevel"], task["workspacePath"]) == ("high", str(tmp_path))
    session = start(host, task, T0, manual=True)["session"]
    assert session["thinkingLevel"] == "high"
    assert session["projectPath"] == str(tmp_path)
    cleared = host.call("tasks.update", {"taskId": task["id"], "thinkingLevel": None, "workspacePath": None})["task"]
    assert (cleared["thinkingLevel"], cleared["workspacePath"]) == (None, None)
    assert host.error("tasks.update", {"taskId": task["id"], "thinkingLevel": "huge"}).data["field"] == "thinkingLevel"
    relative = host.error("tasks.update", {"taskId": task["id"], "workspacePath": "src"})
    assert relative.data["field"] == "workspacePath"


def test_session_mode_reuse_keeps_one_chat_across_runs(host):
    reuse = create(host, schedule={"kind": "hourly", "everyHours": 1}, sessionMode="reuse")
    assert reuse["sessionMode"] == "reuse"
    first = start(host, reuse, T0, manual=True)
    finish(host, first["run"], T0 + 1)
    second = start(host, reuse, T0 + 2, manual=True)
    assert second["session"]["id"] == first["session"]["id"]
    per_run = create(host, schedule={"kind": "hourly", "everyHours": 1})
    assert per_run["sessionMode"] == "perRun"
    a = start(host, per_run, T0, manual=True)
    finish(host, a["run"], T0 + 1)
    assert start(host, per_run, T0 + 2, manual=True)["session"]["id"] != a["session"]["id"]
    host.call("session.delete", {"sessionId": first["session"]["id"]})
    finish(host, second["run"], T0 + 3)
    third = start(host, reuse, T0 + 4, manual=True)  # the reused chat was deleted: a new one
    assert third["session"]["id"] != first["session"]["id"]
    bad = host.error("tasks.update", {"taskId": reuse["id"], "sessionMode": "sometimes"})
    assert bad.data["field"] == "sessionMode"


def insert_spec_task(host, cadence, config):
    task_id = str(uuid.uuid4())
    conn = apsw.Connection(str(host.location.data_root / "pi.sqlite"))
    try:
        conn.execute("PRAGMA busy_timeout = 5000")
        conn.execute(
            "INSERT INTO scheduled_tasks(id, title, prompt, cadence, enabled, config_json, created_at, updated_at) "
            "VALUES (?, 'Carried over', 'Report', ?, 1, ?, ?, ?)",
            (task_id, cadence, orjson.dumps(config).decode(), T0, T0),
        )
    finally:
        conn.close()
    return task_id


def local(ms):
    return dt.datetime.fromtimestamp(ms / 1000, BERLIN)


@pytest.mark.parametrize(
    ("cadence", "config", "expected"),
    [
        ("daily", {"schedule": {"hour": 7, "minute": 5, "weekday": 3}}, {"kind": "daily", "at": "07:05"}),
        # weekday as JavaScript counts it: 0 = Sunday, so 1 = Monday (our 0)
        (
            "weekly",
            {"schedule": {"hour": 9, "minute": 0, "weekday": 1}},
            {"kind": "weekly", "days": [0], "at": "09:00"},
        ),
        (
            "weekly",
            {"schedule": {"hour": 9, "minute": 0, "weekday": 1, "weekdays": [0, 6]}},
            {"kind": "weekly", "days": [5, 6], "at": "09:00"},
        ),
        ("hourly", {"schedule": {"hour": 0, "minute": 0, "weekday": 0}}, {"kind": "hourly", "everyHours": 1}),
        (
            "interval",
            {"schedule": {"hour": 0, "minute": 0, "weekday": 0}, "intervalMinutes": 15},
            {"kind": "interval", "intervalMinutes": 15},
        ),
    ],
)
def test_a_task_in_the_spec_schedule_shape_is_read_and_runs(host, cadence, config, expected):
    due_at = T0 + MINUTE
    task_id = insert_spec_task(host, cadence, {**config, "nextRunAt": due_at})
    task = next(t for t in host.call("tasks.list")["tasks"] if t["id"] == task_id)
    assert task["schedule"] == expected
    assert [t["id"] for t in host.call("tasks.due", {"now": due_at})["tasks"]] == [task_id]
    armed = start(host, task, due_at)["task"]
    assert armed["nextRunAt"] is not None and armed["nextRunAt"] > due_at  # armed again, not dropped


def test_an_interval_task_in_the_spec_shape_without_minutes_stays_unarmed(host):
    task_id = insert_spec_task(host, "interval", {"schedule": {"hour": 0, "minute": 0, "weekday": 0}})
    task = next(t for t in host.call("tasks.list")["tasks"] if t["id"] == task_id)
    assert task["schedule"] is None and task["nextRunAt"] is None


def test_latest_per_task_gives_one_newest_run_for_each_task(host):
    a = create(host, schedule={"kind": "hourly", "everyHours": 1})
    b = create(host, schedule={"kind": "hourly", "everyHours": 1})
    idle = create(host, schedule={"kind": "hourly", "everyHours": 1})
    for n in range(3):
        finish(host, start(host, a, T0 + 10 * n, manual=True)["run"], T0 + 10 * n + 1)
    newest_b = start(host, b, T0 + 5, manual=True)["run"]
    runs = host.call("tasks.runs", {"latestPerTask": True})["runs"]
    by_task = {r["taskId"]: r for r in runs}
    assert set(by_task) == {a["id"], b["id"]} and idle["id"] not in by_task
    assert by_task[a["id"]]["startedAt"] == T0 + 20 and by_task[b["id"]]["id"] == newest_b["id"]
    both = host.error("tasks.runs", {"latestPerTask": True, "taskId": a["id"]})
    assert both.code == "INVALID_PARAMS"
