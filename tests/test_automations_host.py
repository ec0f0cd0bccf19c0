"""Automations through host commands: CRUD, bad input, runs, retention (in process and over stdio)."""

from __future__ import annotations

import datetime as dt
from zoneinfo import ZoneInfo

import apsw
import pytest

from pidesktop.host.automations import scheduled

BERLIN = ZoneInfo("Europe/Berlin")
DAILY = {"kind": "daily", "at": "09:00"}


@pytest.fixture(autouse=True)
def berlin(monkeypatch):
    monkeypatch.setenv("TZ", "Europe/Berlin")


def at(*parts) -> int:
    return int(dt.datetime(*parts, tzinfo=BERLIN).timestamp() * 1000)


def create(host, **fields):
    params = {"name": "Morning news", "prompt": "Summarise the news", "schedule": DAILY} | fields
    return host.call("tasks.create", params)["task"]


def a_project(host, path="/work/site") -> int:
    host.call("session.create", {"projectPath": path})
    return next(p["id"] for p in host.call("projects.list")["projects"] if p["path"] == path)


def test_create_list_update_delete_round_trip(host):
    project_id = a_project(host)
    task = create(host, mode="agent", providerId="offline", modelId="offline-demo", projectId=project_id)
    assert (
        task["name"],
        task["prompt"],
        task["schedule"],
        task["mode"],
        task["providerId"],
        task["modelId"],
        task["projectId"],
        task["enabled"],
    ) == ("Morning news", "Summarise the news", DAILY, "agent", "offline", "offline-demo", project_id, True)
    assert task["calendarConfigured"] is True and task["lastRun"] is None and task["running"] is False
    next_local = dt.datetime.fromtimestamp(task["nextRunAt"] / 1000, BERLIN)
    assert (next_local.hour, next_local.minute) == (9, 0)
    assert task["nextRunAtText"].endswith(("+01:00", "+02:00"))
    assert host.call("tasks.list")["tasks"] == [task]

    updated = host.call(
        "tasks.update",
        {
            "taskId": task["id"],
            "name": "Evening news",
            "enabled": False,
            "schedule": {"kind": "weekly", "days": [4, 0], "at": "18:30"},
            "projectId": None,
        },
    )["task"]
    assert (updated["name"], updated["enabled"], updated["schedule"], updated["projectId"], updated["prompt"]) == (
        "Evening news",
        False,
        {"kind": "weekly", "days": [0, 4], "at": "18:30"},
        None,
        "Summarise the news",
    )
    assert updated["nextRunAt"] is None  # off: nothing is armed

    assert host.call("tasks.delete", {"taskId": task["id"]}) == {"deleted": True}
    assert host.call("tasks.list")["tasks"] == []
    assert host.error("tasks.delete", {"taskId": task["id"]}).code == "NOT_FOUND"
    topics = [(t, e["reason"]) for t, e in host.events if t == "tasks.changed"]
    assert topics == [("tasks.changed", "created"), ("tasks.changed", "updated"), ("tasks.changed", "deleted")]


@pytest.mark.parametrize(
    ("fields", "field"),
    [
        ({"name": "  "}, "name"),
        ({"prompt": " \n"}, "prompt"),
        ({"schedule": {"kind": "daily", "at": "9am"}}, "schedule.at"),
        ({"schedule": {"kind": "daily", "at": "25:00"}}, "schedule.at"),
        ({"schedule": {"kind": "weekly", "days": [], "at": "09:00"}}, "schedule.days"),
        ({"schedule": {"kind": "once", "at": "2001-01-01T09:00:00Z"}}, "schedule.at"),
        ({"schedule": {"kind": "hourly", "everyHours": 0}}, "schedule.everyHours"),
        ({"schedule": {"kind": "cron"}}, "schedule.kind"),
        ({"providerId": "nobody"}, "providerId"),
        ({"providerId": "offline", "modelId": "gpt-9"}, "modelId"),
        ({"modelId": "gpt-9"}, "modelId"),
        ({"projectId": 999}, "projectId"),
        ({"mode": "autopilot"}, "mode"),
        ({"enabled": "yes"}, "enabled"),
    ],
)
def test_bad_input_is_refused_naming_the_field_and_nothing_is_stored(host, fields, field):
    error = host.error("tasks.create", {"name": "n", "prompt": "p", "schedule": DAILY} | fields)
    assert error.code == "INVALID_PARAMS" and error.data["field"] == field, error.message
    assert host.call("tasks.list")["tasks"] == []
    task = create(host)
    error = host.error("tasks.update", {"taskId": task["id"], **fields})
    assert error.code == "INVALID_PARAMS" and error.data["field"] == field
    assert host.call("tasks.list")["tasks"] == [task]


def test_unknown_model_of_a_real_provider_is_refused(host):
    provider = host.call(
        "providers.upsert", {"provider": {"name": "Local", "baseUrl": "http://127.0.0.1:9", "defaultModelId": "m1"}}
    )["provider"]
    host.call("models.upsert", {"providerId": provider["id"], "model": {"modelId": "m2"}})
    assert create(host, providerId=provider["id"], modelId="m1")["modelId"] == "m1"
    assert create(host, providerId=provider["id"], modelId="m2")["modelId"] == "m2"
    error = host.error(
        "tasks.create", {"name": "n", "prompt": "p", "schedule": DAILY, "providerId": provider["id"], "modelId": "m3"}
    )
    assert error.data["field"] == "modelId"


def test_calendar_intent_survives_a_switch_to_hourly_and_back(host):
    task = create(host, schedule={"kind": "weekly", "days": [2], "at": "07:15"})
    hourly = host.call("tasks.update", {"taskId": task["id"], "schedule": {"kind": "hourly", "everyHours": 3}})["task"]
    assert hourly["calendarConfigured"] is True and hourly["calendar"] == {"at": "07:15", "days": [2]}
    back = host.call("tasks.update", {"taskId": task["id"], "schedule": {"kind": "weekly"}})["task"]
    assert back["schedule"] == {"kind": "weekly", "days": [2], "at": "07:15"}


def test_an_hourly_task_needs_its_time_said_when_it_becomes_daily(host):
    task = create(host, schedule={"kind": "hourly", "everyHours": 2})
    assert task["calendarConfigured"] is False
    error = host.error("tasks.update", {"taskId": task["id"], "schedule": {"kind": "daily"}})
    assert error.code == "INVALID_PARAMS" and error.data["field"] == "schedule.at"
    daily = host.call("tasks.update", {"taskId": task["id"], "schedule": {"kind": "daily", "at": "06:00"}})["task"]
    assert daily["calendarConfigured"] is True


def test_legacy_rows_infer_calendar_intent_and_list_unarmed(host, location):
    conn = apsw.Connection(str(location.data_root / "pi.sqlite"))
    conn.execute(
        "INSERT INTO scheduled_tasks(id, title, prompt, cadence, config_json, created_at, updated_at) "
        "VALUES ('legacy-daily', 'Old', 'p', 'daily', ?, 1, 1), "
        "('legacy-hourly', 'Old2', 'p', 'hourly', '{\"schedule\": {\"hour\": 3}}', 2, 2), "
        "('broken', 'Old3', 'p', 'manual', 'not json', 3, 3)",
        ('{"schedule": {"kind": "daily", "at": "08:00"}}',),
    )
    conn.close()
    tasks = {t["id"]: t for t in host.call("tasks.list")["tasks"]}
    assert tasks["legacy-daily"]["calendarConfigured"] is True
    # spec 004's own {hour, minute, weekday} shape is read with the cadence column (an hourly task)
    assert tasks["legacy-hourly"]["calendarConfigured"] is False
    assert tasks["legacy-hourly"]["schedule"] == {"kind": "hourly", "everyHours": 1}
    assert tasks["legacy-hourly"]["nextRunAt"] is None  # no nextRunAt stored: armed by its next save
    assert tasks["broken"]["schedule"] is None and tasks["broken"]["nextRunAt"] is None


def test_runs_start_finish_never_overlap_and_list_newest_first(host):
    task = create(host, mode="goal")
    slot = task["nextRunAt"]
    assert host.call("tasks.due", {"now": slot - 1})["tasks"] == []
    assert host.error("tasks.startRun", {"taskId": task["id"], "now": slot - 1}).code == "CONFLICT"  # not due
    due = host.call("tasks.due", {"now": slot})["tasks"]
    assert [t["id"] for t in due] == [task["id"]] and due[0]["late"] is False
    started = host.call("tasks.startRun", {"taskId": task["id"], "now": slot})
    run, session = started["run"], started["session"]
    assert (run["status"], run["sessionId"], run["late"], run["manual"]) == ("running", session["id"], False, False)
    assert (session["title"], session["mode"]) == ("Morning news", "goal")
    assert started["task"]["nextRunAt"] == slot + 86_400_000 and started["task"]["running"] is True
    assert host.error("tasks.startRun", {"taskId": task["id"], "manual": True}).code == "CONFLICT"
    assert host.call("tasks.due", {"now": slot + 86_400_000})["tasks"] == []  # running: never twice at once
    finished = host.call(
        "tasks.finishRun", {"runId": run["id"], "status": "error", "errorCode": "PLAN_REQUIRES_INTERACTIVE_SESSION"}
    )["run"]
    assert finished["status"] == "error" and finished["errorCode"] == "PLAN_REQUIRES_INTERACTIVE_SESSION"
    assert host.error("tasks.finishRun", {"runId": run["id"], "status": "completed"}).code == "CONFLICT"
    second = host.call("tasks.startRun", {"taskId": task["id"], "manual": True, "now": slot + 5})["run"]
    host.call("tasks.finishRun", {"runId": second["id"], "status": "completed", "now": slot + 6})
    runs = host.call("tasks.runs", {"taskId": task["id"]})["runs"]
    assert [r["id"] for r in runs] == [second["id"], run["id"]] and runs[0]["manual"] is True
    assert host.call("tasks.runs", {"taskId": task["id"], "limit": 1})["runs"][0]["id"] == second["id"]
    assert host.call("tasks.list")["tasks"][0]["lastRun"]["id"] == second["id"]
    assert host.error("tasks.runs", {"taskId": task["id"], "limit": 0}).data["field"] == "limit"
    assert host.error("tasks.runs", {"taskId": "nope"}).code == "NOT_FOUND"
    assert host.error("tasks.finishRun", {"runId": "nope", "status": "completed"}).code == "NOT_FOUND"
    assert host.error("tasks.finishRun", {"runId": run["id"], "status": "done"}).data["field"] == "status"


def test_missed_slots_run_once_marked_late_and_the_next_slot_is_in_the_future(host):
    task = create(host)
    slot = task["nextRunAt"]
    three_days_later = slot + 3 * 86_400_000 + 3_600_000
    due = host.call("tasks.due", {"now": three_days_later})["tasks"]
    assert len(due) == 1 and due[0]["late"] is True
    started = host.call("tasks.startRun", {"taskId": task["id"], "now": three_days_later})
    assert started["run"]["late"] is True
    assert started["task"]["nextRunAt"] == slot + 4 * 86_400_000  # the next 09:00, not the missed ones
    host.call("tasks.finishRun", {"runId": started["run"]["id"], "status": "completed"})
    assert host.call("tasks.due", {"now": three_days_later + 1})["tasks"] == []


def test_runs_are_kept_to_100_per_task_after_each_run_and_at_boot(host, location):
    busy, quiet = create(host), create(host, name="Quiet")
    conn = apsw.Connection(str(location.data_root / "pi.sqlite"))
    with conn:
        conn.executemany(
            "INSERT INTO task_runs(id, task_id, status, started_at, ended_at) VALUES (?, ?, 'completed', ?, ?)",
            [(f"old-{n}", busy["id"], 1000 + n, 1000 + n) for n in range(105)],
        )
        conn.execute(
            "INSERT INTO task_runs(id, task_id, status, started_at) VALUES ('q1', ?, 'running', 100000)", (quiet["id"],)
        )
    conn.close()
    run = host.call("tasks.startRun", {"taskId": busy["id"], "manual": True, "now": 10_000})["run"]
    host.call("tasks.finishRun", {"runId": run["id"], "status": "completed"})
    runs = host.call("tasks.runs", {"taskId": busy["id"], "limit": 200})["runs"]
    assert len(runs) == 100 and runs[0]["id"] == run["id"] and runs[-1]["id"] == "old-6"
    # at boot: another task's extra runs go too, and a run a crash left running ends aborted
    conn = apsw.Connection(str(location.data_root / "pi.sqlite"))
    with conn:
        conn.executemany(
            "INSERT INTO task_runs(id, task_id, status, started_at) VALUES (?, ?, 'completed', ?)",
            [(f"q-{n}", quiet["id"], 10 + n) for n in range(120)],
        )
    conn.close()
    host.stop()
    from tests.support.hosts import InProcessHost

    again = InProcessHost(location)
    try:
        runs = again.call("tasks.runs", {"taskId": quiet["id"], "limit": 200})["runs"]
        assert len(runs) == 100 and [r["id"] for r in runs[:2]] == ["q1", "q-119"]
        assert (runs[0]["status"], runs[0]["errorCode"]) == ("aborted", "interrupted")
        assert len(again.call("tasks.runs", {"taskId": busy["id"], "limit": 200})["runs"]) == 100
    finally:
        again.stop()


def test_switching_a_task_back_on_arms_it_from_now(host):
    task = create(host)
    host.call("tasks.update", {"taskId": task["id"], "enabled": False})
    on = host.call("tasks.update", {"taskId": task["id"], "enabled": True})["task"]
    assert on["nextRunAt"] is not None and on["nextRunAt"] > scheduled.schedule_rules.HOUR_MS


def test_over_stdio_create_run_and_list(stdio_host):
    host = stdio_host(env={"TZ": "Europe/Berlin"})
    bad = host.request("tasks.create", {"name": "x", "prompt": "p", "schedule": {"kind": "daily", "at": "7:5"}})
    assert bad["error"]["data"]["field"] == "schedule.at"
    task = host.call(
        "tasks.create", {"name": "Digest", "prompt": "p", "schedule": {"kind": "hourly", "everyHours": 6}}
    )["task"]
    run = host.call("tasks.startRun", {"taskId": task["id"], "manual": True})["run"]
    host.call("tasks.finishRun", {"runId": run["id"], "status": "aborted"})
    assert [r["status"] for r in host.call("tasks.runs", {"taskId": task["id"]})["runs"]] == ["aborted"]
    assert host.call("tasks.list")["tasks"][0]["lastRun"]["status"] == "aborted"
    assert any(e["topic"] == "tasks.changed" for e in host.events)
    assert host.close() == 0


def test_a_legacy_daily_row_keeps_its_calendar_intent_when_made_hourly(host, location):
    conn = apsw.Connection(str(location.data_root / "pi.sqlite"))
    conn.execute(
        "INSERT INTO scheduled_tasks(id, title, prompt, cadence, config_json, created_at, updated_at) "
        "VALUES ('legacy', 'Old', 'p', 'daily', ?, 1, 1)",
        ('{"schedule": {"kind": "daily", "at": "08:00"}, "notify": "always"}',),
    )
    conn.close()
    hourly = host.call("tasks.update", {"taskId": "legacy", "schedule": {"kind": "hourly", "everyHours": 1}})["task"]
    assert hourly["calendarConfigured"] is True and hourly["calendar"] == {"at": "08:00"}
    daily = host.call("tasks.update", {"taskId": "legacy", "schedule": {"kind": "daily"}})["task"]
    assert daily["schedule"] == {"kind": "daily", "at": "08:00"}
    conn = apsw.Connection(str(location.data_root / "pi.sqlite"))
    (config,) = conn.execute("SELECT config_json FROM scheduled_tasks WHERE id = 'legacy'").fetchone()
    conn.close()
    assert '"notify":"always"' in config  # keys this version does not know are kept


def test_a_run_s_chat_is_announced_only_once_it_is_stored(host, location):
    """Clients hear of the run's new chat after the transaction that made it, never of a chat not there."""
    task = create(host)
    seen = []

    def look(topic, payload):  # runs on the host thread, as the event is emitted
        if topic == "session.changed" and payload.get("reason") == "created":
            reader = apsw.Connection(str(location.data_root / "pi.sqlite"), flags=apsw.SQLITE_OPEN_READONLY)
            try:
                seen.append(
                    reader.execute("SELECT count(*) FROM sessions WHERE id = ?", (payload["sessionId"],)).fetchone()[0]
                )
            finally:
                reader.close()

    host.thread.subscribe(look)
    started = host.call("tasks.startRun", {"taskId": task["id"], "manual": True})
    assert seen == [1]
    assert started["session"]["id"] == started["run"]["sessionId"]


def test_a_run_s_chat_stays_out_of_the_list_and_search_until_its_task_goes(host):
    """Spec 004, 4.11: ownership by a run is derived on read (scheduledRun); the list and session search
    leave such chats out, and deleting the task gives them back."""
    task = create(host, prompt="persimmon report")
    mine = host.call("session.create", {"title": "persimmon notes"})["session"]
    run = host.call("tasks.startRun", {"taskId": task["id"], "manual": True})
    chat = run["session"]
    assert chat["scheduledRun"] is True and mine["scheduledRun"] is False
    host.call(
        "session.appendMessage",
        {
            "sessionId": chat["id"],
            "message": {"id": "m1", "role": "user", "blocks": [{"type": "text", "text": "persimmon report"}]},
        },
    )

    def listed(**params):
        return [s["id"] for s in host.call("session.list", {"native": False, **params})["sessions"]]

    assert listed() == [mine["id"]]
    assert set(listed(includeScheduled=True)) == {mine["id"], chat["id"]}
    found = host.call("search.sessions", {"query": "persimmon"})["results"]
    assert [r["sessionId"] for r in found] == [mine["id"]]
    # ...but a person can still find it: search with the automation-runs filter reaches it, marked as such
    found = host.call("search.sessions", {"query": "persimmon", "automationRuns": True})["results"]
    assert {r["sessionId"]: r["automationRun"] for r in found} == {mine["id"]: False, chat["id"]: True}
    found = host.call("search.sessions", {"query": "report", "automationRuns": True})["results"]
    assert [r["sessionId"] for r in found] == [chat["id"]] and found[0]["snippets"]
    assert host.call("session.get", {"sessionId": chat["id"], "messageLimit": 1})["session"]["scheduledRun"]

    host.call("tasks.finishRun", {"runId": run["run"]["id"], "status": "completed"})
    host.events.clear()
    host.call("tasks.delete", {"taskId": task["id"]})
    assert ("session.listChanged", {}) in host.events
    assert set(listed()) == {mine["id"], chat["id"]}
    assert {r["sessionId"] for r in host.call("search.sessions", {"query": "persimmon"})["results"]} == {
        mine["id"],
        chat["id"],
    }


def test_a_task_s_permission_mode_goes_to_its_run_s_chat(host):
    task = create(host)
    assert task["permissionMode"] is None
    automatic = host.call("tasks.startRun", {"taskId": task["id"], "now": task["nextRunAt"]})

    def by_hand():
        return host.call("tasks.startRun", {"taskId": task["id"], "manual": True})

    assert automatic["session"]["permissionMode"] == "ask"  # no mode of its own: an automatic run asks
    host.call("tasks.finishRun", {"runId": automatic["run"]["id"], "status": "completed"})
    manual = by_hand()
    assert manual["session"]["permissionMode"] == "inherit"  # Run now follows the settings default
    host.call("tasks.finishRun", {"runId": manual["run"]["id"], "status": "completed"})
    updated = host.call("tasks.update", {"taskId": task["id"], "permissionMode": "accept-edits"})["task"]
    assert updated["permissionMode"] == "accept-edits"
    assert by_hand()["session"]["permissionMode"] == "accept-edits"
    error = host.error("tasks.update", {"taskId": task["id"], "permissionMode": "everything"})
    assert error.code == "INVALID_PARAMS" and "permissionMode" in error.message


def test_a_run_whose_chat_is_in_the_trash_says_so(host):
    task = create(host, prompt="trash me")
    run = host.call("tasks.startRun", {"taskId": task["id"], "manual": True})
    host.call("tasks.finishRun", {"runId": run["run"]["id"], "status": "completed"})
    chat = run["session"]["id"]

    def listed():
        return host.call("tasks.runs", {"taskId": task["id"]})["runs"][0]

    assert listed()["chatInTrash"] is False
    host.call("session.delete", {"sessionId": chat})
    assert listed()["sessionId"] == chat and listed()["chatInTrash"] is True
    host.call("session.restore", {"sessionId": chat})
    assert listed()["chatInTrash"] is False
