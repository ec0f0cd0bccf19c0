"""Automations: scheduled prompts and their run history (spec 004, section 4.11; RPC-WAVE2 "Automations").

A task row keeps its name in ``title`` and its cadence in ``cadence``;
everything else lives in ``config_json`` (section 9: a task knob is a JSON
key, not a column): ``schedule`` (the wire Schedule), ``mode``,
``providerId``/``modelId``, ``permissionMode``, ``thinkingLevel``, ``workspacePath`` (the folder a run
works in when the task has no project), ``sessionMode`` (``perRun``, the default, or ``reuse``: every run
continues the chat of the previous one while it exists), ``nextRunAt`` (epoch ms, None when unarmed),
``calendarConfigured`` and ``calendar`` (the last daily/weekly time, kept
across a switch to hourly: the "Scheduled calendar provenance" note). Keys
this version does not know are kept on update. A schedule stored in spec 004's
own shape (``{hour, minute, weekday}`` with the ``cadence`` column and
``intervalMinutes``) is read too (``schedule_rules.from_spec_shape``).

The runtime (the app's scheduler, ``pidesktop automations run-due``) asks
``tasks.due``, reserves a run with ``tasks.startRun`` (which also creates the
run's chat) and closes it with ``tasks.finishRun``. A task never has two
running runs. Whether a run was late or started by hand is kept in
``kv(taskRun, <run id>)``; it goes with the run when the run is pruned.
"""

from __future__ import annotations

import datetime as dt
import os
import uuid
from pathlib import Path
from typing import Any

import apsw
import orjson

from pidesktop.bus import topics
from pidesktop.bus.errors import ErrorCode, HostError
from pidesktop.formats.index.sql_rows import one_row
from pidesktop.host import kv
from pidesktop.host.automations import armed, schedule_rules
from pidesktop.host.commands import command
from pidesktop.host.context import HostContext
from pidesktop.host.params import Params, invalid
from pidesktop.host.sessions import commands as sessions
from pidesktop.host.settings.providers import OFFLINE_MODEL, OFFLINE_PROVIDER

RUNS_KEEP = 100  # spec 004, section 8: the newest 100 runs per task
RUNS_READ_MAX = 200  # the most one history read returns (spec 004, section 4.11)
NAME_MAX = sessions.TITLE_MAX  # the name is also the title of each run's chat
PROMPT_MAX = 100_000
LATE_AFTER_MS = 120_000  # a run starting this long after its slot was missed (the app was closed)
RUN_NS = "taskRun"
RUN_STATUSES = ("completed", "error", "aborted")
MODES = sessions.MODES
PERMISSION_MODES = ("ask", "accept-edits", "auto")  # a task's own permissionMode (config_json)
SESSION_MODES = ("perRun", "reuse")
THINKING_LEVELS = sessions.THINKING_LEVELS


# -- the person's time zone -------------------------------------------------------------


def local_zone() -> dt.tzinfo:
    """The zone daily and weekly times are read in: ``TZ``, else ``/etc/localtime``, else the fixed offset now."""
    name = os.environ.get("TZ", "").lstrip(":")
    zone = schedule_rules.zone_named(name)
    if zone is not None:
        return zone
    try:
        target = str(Path("/etc/localtime").resolve())
    except OSError:
        target = ""
    if "zoneinfo/" in target:
        zone = schedule_rules.zone_named(target.split("zoneinfo/", 1)[1])
        if zone is not None:
            return zone
    return dt.datetime.now().astimezone().tzinfo or dt.UTC


# -- reading rows -------------------------------------------------------------------------

_TASK_COLUMNS = "id, title, prompt, cadence, enabled, project_id, config_json, last_run_at, created_at, updated_at"
_RUN_COLUMNS = "id, task_id, status, session_id, error_code, started_at, ended_at"


def _config(text: str | None) -> dict[str, Any]:
    """A row's settings; an unreadable value reads as none (the row still lists and can be saved over)."""
    try:
        value = orjson.loads(text or "{}")
    except orjson.JSONDecodeError:
        return {}
    return value if isinstance(value, dict) else {}


def calendar_configured(config: dict[str, Any]) -> bool:
    """Known calendar intent: the key when stored, else inferred from a saved daily/weekly schedule."""
    known = config.get("calendarConfigured")
    if isinstance(known, bool):
        return known
    return schedule_rules.is_calendar(config.get("schedule"))


def _stored_schedule(config: dict[str, Any], cadence: object = None) -> dict[str, Any] | None:
    """The schedule when it is one this version can arm (ours, or spec 004's ``{hour, minute, weekday}`` read
    with ``cadence``); a damaged one reads as None (unarmed)."""
    raw = config.get("schedule")
    if not raw:
        return None
    spec_shaped = schedule_rules.from_spec_shape(raw, cadence, config.get("intervalMinutes"))
    try:
        return schedule_rules.normalise(spec_shaped or raw, -1)
    except schedule_rules.ScheduleError:
        return None


def run_to_wire(conn: apsw.Connection, row: tuple[Any, ...]) -> dict[str, Any]:
    run_id, task_id, status, session_id, error_code, started, ended = row
    extra = kv.get(conn, RUN_NS, run_id) or {}
    trashed = (
        session_id is not None
        and conn.execute("SELECT 1 FROM sessions WHERE id = ? AND deleted_at IS NOT NULL", (session_id,)).fetchone()
    )
    return {
        "id": run_id,
        "taskId": task_id,
        "status": status,
        "sessionId": session_id,
        "chatInTrash": bool(trashed),  # deleted: it waits in the Trash (restorable), not opened from the history
        "errorCode": error_code,
        "startedAt": started,
        "endedAt": ended,
        "late": bool(extra.get("late")),
        "manual": bool(extra.get("manual")),
    }


def task_to_wire(conn: apsw.Connection, row: tuple[Any, ...], zone: dt.tzinfo) -> dict[str, Any]:
    task_id, title, prompt, cadence, enabled, project_id, config_json, last_run_at, created, updated = row
    config = _config(config_json)
    next_at = config.get("nextRunAt") if isinstance(config.get("nextRunAt"), int) else None
    last = conn.execute(
        f"SELECT {_RUN_COLUMNS} FROM task_runs WHERE task_id = ? ORDER BY started_at DESC, rowid DESC LIMIT 1",
        (task_id,),
    ).fetchone()
    last_run = run_to_wire(conn, last) if last else None
    calendar = config.get("calendar") if isinstance(config.get("calendar"), dict) else None
    mode = config.get("mode") if config.get("mode") in MODES else "agent"
    return {
        "id": task_id,
        "name": title,
        "prompt": prompt,
        "schedule": _stored_schedule(config, cadence),
        "cadence": cadence,
        "mode": mode,
        "providerId": _text_or_none(config.get("providerId")),
        "modelId": _text_or_none(config.get("modelId")),
        "permissionMode": config.get("permissionMode") if config.get("permissionMode") in PERMISSION_MODES else None,
        "thinkingLevel": config.get("thinkingLevel") if config.get("thinkingLevel") in THINKING_LEVELS else None,
        "workspacePath": _text_or_none(config.get("workspacePath")),
        "sessionMode": "reuse" if config.get("sessionMode") == "reuse" else "perRun",
        "projectId": project_id,
        "enabled": bool(enabled),
        "calendarConfigured": calendar_configured(config),
        "calendar": calendar,
        "nextRunAt": next_at if enabled else None,
        "nextRunAtText": schedule_rules.rfc3339(next_at, zone) if enabled else None,
        "lastRunAt": last_run["startedAt"] if last_run else last_run_at,
        "createdAt": created,
        "updatedAt": updated,
        "running": bool(last_run and last_run["status"] == "running"),
        "lastRun": last_run,
        # Switched off here because settings sync says it runs on that computer (None: not so, or unknown).
        "armedElsewhere": None if enabled else armed.name_of(conn, task_id),
    }


def _text_or_none(value: object) -> str | None:
    return value if isinstance(value, str) and value else None


def read_task(conn: apsw.Connection, task_id: str) -> tuple[Any, ...]:
    row: tuple[Any, ...] | None = conn.execute(
        f"SELECT {_TASK_COLUMNS} FROM scheduled_tasks WHERE id = ?", (task_id,)
    ).fetchone()
    if row is None:
        raise HostError(ErrorCode.NOT_FOUND, f"There is no automation with id {task_id!r}.")
    return row


def task(conn: apsw.Connection, task_id: str) -> dict[str, Any]:
    return task_to_wire(conn, read_task(conn, task_id), local_zone())


# -- validation -----------------------------------------------------------------------------


def _check_provider(conn: apsw.Connection, method: str, provider_id: str | None, model_id: str | None) -> None:
    if provider_id is None:
        if model_id is not None:
            raise invalid(f"{method}: 'modelId' needs the 'providerId' it belongs to.", "modelId")
        return
    if provider_id == OFFLINE_PROVIDER:
        if model_id not in (None, OFFLINE_MODEL):
            raise invalid(
                f"{method}: the offline provider has only the model {OFFLINE_MODEL!r}, not {model_id!r}.", "modelId"
            )
        return
    row = conn.execute("SELECT default_model_id FROM providers WHERE id = ?", (provider_id,)).fetchone()
    if row is None:
        raise invalid(
            f"{method}: there is no provider with id {provider_id!r}. Pick one from Settings > Providers.", "providerId"
        )
    if model_id is None or model_id == row[0]:
        return
    if (
        conn.execute("SELECT 1 FROM models WHERE provider_id = ? AND model_id = ?", (provider_id, model_id)).fetchone()
        is None
    ):
        raise invalid(f"{method}: the provider {provider_id!r} has no model {model_id!r}.", "modelId")


def _check_project(conn: apsw.Connection, method: str, project_id: int | None) -> None:
    if project_id is not None and conn.execute("SELECT 1 FROM projects WHERE id = ?", (project_id,)).fetchone() is None:
        raise invalid(f"{method}: there is no project with id {project_id}.", "projectId")


def _schedule(method: str, raw: object, now: int, config: dict[str, Any]) -> dict[str, Any]:
    """The normalised schedule; a daily/weekly one without its time takes the remembered calendar time,
    but only when calendar intent is known (an hourly task converted needs the time said explicitly)."""
    if isinstance(raw, dict) and raw.get("kind") in schedule_rules.CALENDAR_KINDS:
        remembered = config.get("calendar") if calendar_configured(config) else None
        if isinstance(remembered, dict):
            raw = {**{k: v for k, v in remembered.items() if k in ("at", "days")}, **raw}
        elif "at" not in raw:
            raise invalid(f"{method}: 'schedule.at' is missing: say at what time (HH:MM) the task runs.", "schedule.at")
    try:
        return schedule_rules.normalise(raw, now)
    except schedule_rules.ScheduleError as exc:
        raise invalid(f"{method}: {exc}", exc.field) from exc


def _read_fields(ctx: HostContext, p: Params, *, creating: bool, config: dict[str, Any]) -> dict[str, Any]:
    """The fields given (all required ones when ``creating``), validated before anything is written."""
    method = p.method
    fields: dict[str, Any] = {}
    if creating or p.has("name"):
        fields["name"] = p.text("name", strip=True, nonempty=True, max_chars=NAME_MAX)
    if creating or p.has("prompt"):
        prompt = p.text("prompt", max_chars=PROMPT_MAX)
        if not prompt.strip():
            raise invalid(f"{method}: field 'prompt' must not be empty: say what the task should ask.", "prompt")
        fields["prompt"] = prompt
    if creating or p.has("schedule"):
        fields["schedule"] = _schedule(method, p.obj("schedule"), _now(ctx, p), config)
    if p.has("mode"):
        fields["mode"] = p.choice("mode", MODES)
    for name in ("providerId", "modelId"):
        if name in p.raw:  # null clears: the app's default model at run time
            fields[name] = p.text(name, required=False, strip=True) or None
    if "permissionMode" in p.raw:  # null clears: Ask for automatic runs, the settings default for Run now
        fields["permissionMode"] = p.choice("permissionMode", PERMISSION_MODES)
    if "thinkingLevel" in p.raw:  # null clears: the legacy "off"
        fields["thinkingLevel"] = p.choice("thinkingLevel", THINKING_LEVELS)
    if "workspacePath" in p.raw:
        path = p.text("workspacePath", required=False, strip=True) or None
        if path is not None and not os.path.isabs(path):
            raise invalid(f"{method}: 'workspacePath' must be an absolute folder path, not {path!r}.", "workspacePath")
        fields["workspacePath"] = path
    if p.has("sessionMode"):
        fields["sessionMode"] = p.choice("sessionMode", SESSION_MODES)
    if "projectId" in p.raw:
        fields["projectId"] = p.integer("projectId", required=False, minimum=1)
    if p.has("enabled"):
        fields["enabled"] = p.boolean("enabled")
    if p.has("calendarConfigured"):
        fields["calendarConfigured"] = p.boolean("calendarConfigured")
    if creating:
        provider_id, model_id = fields.get("providerId"), fields.get("modelId")
    else:
        provider_id = fields["providerId"] if "providerId" in fields else _text_or_none(config.get("providerId"))
        if "modelId" in fields:
            model_id = fields["modelId"]
        elif "providerId" in fields and provider_id != config.get("providerId"):
            model_id = fields["modelId"] = None  # a new provider does not inherit the old provider's model
        else:
            model_id = _text_or_none(config.get("modelId"))
    if creating or "providerId" in fields or "modelId" in fields:  # a provider removed later blocks no other edit
        _check_provider(ctx.conn, method, provider_id, model_id)
    if "projectId" in fields:
        _check_project(ctx.conn, method, fields["projectId"])
    return fields


def _apply(config: dict[str, Any], fields: dict[str, Any], now: int, zone: dt.tzinfo) -> dict[str, Any]:
    config = dict(config)
    for name in ("mode", "providerId", "modelId", "permissionMode", "thinkingLevel", "workspacePath", "sessionMode"):
        if name in fields:
            config[name] = fields[name]
    schedule = fields.get("schedule")
    if schedule is not None:
        known = calendar_configured(config)  # inferred from the schedule being replaced, when not stored
        if known and "calendar" not in config and schedule_rules.is_calendar(config.get("schedule")):
            config["calendar"] = {k: config["schedule"][k] for k in ("at", "days") if k in config["schedule"]}
        config["schedule"] = schedule
        config.pop("intervalMinutes", None)  # the spec shape's field: the wire schedule now carries it
        if schedule["kind"] == "interval":
            config["intervalMinutes"] = schedule["intervalMinutes"]  # read by spec 004 readers too
        if schedule_rules.is_calendar(schedule):
            config["calendarConfigured"] = True
            config["calendar"] = {k: schedule[k] for k in ("at", "days") if k in schedule}
        elif known:
            config["calendarConfigured"] = True  # intent survives the switch to hourly
        config["nextRunAt"] = schedule_rules.next_run(schedule, now, zone)
    if "calendarConfigured" in fields:
        config["calendarConfigured"] = fields["calendarConfigured"]
    config.setdefault("mode", "agent")
    return config


# -- commands ----------------------------------------------------------------------------------


def _now(ctx: HostContext, p: Params) -> int:
    """``now`` (epoch ms) when the runtime's clock is given, else the host's: schedules are armed and runs
    started by the clock of whoever runs them, so a scheduler with its own clock stays consistent."""
    now = p.integer("now", required=False, minimum=0)
    return ctx.clock() if now is None else now


def _changed(ctx: HostContext, task_id: str, reason: str) -> None:
    ctx.emit(topics.TASKS_CHANGED, {"taskId": task_id, "reason": reason})


@command("tasks.create", emits=[topics.TASKS_CHANGED])
def tasks_create(ctx: HostContext, p: Params) -> dict[str, Any]:
    fields = _read_fields(ctx, p, creating=True, config={})
    now, zone = _now(ctx, p), local_zone()
    config = _apply({}, fields, now, zone)
    task_id = str(uuid.uuid4())
    with ctx.conn:
        ctx.conn.execute(
            "INSERT INTO scheduled_tasks(id, title, prompt, cadence, enabled, project_id, config_json, "
            "created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                task_id,
                fields["name"],
                fields["prompt"],
                fields["schedule"]["kind"],
                int(fields.get("enabled", True)),
                fields.get("projectId"),
                orjson.dumps(config).decode(),
                now,
                now,
            ),
        )
    _changed(ctx, task_id, "created")
    return {"task": task(ctx.conn, task_id)}


@command("tasks.update", emits=[topics.TASKS_CHANGED])
def tasks_update(ctx: HostContext, p: Params) -> dict[str, Any]:
    task_id = p.text("taskId")
    row = read_task(ctx.conn, task_id)
    config = _config(row[6])
    fields = _read_fields(ctx, p, creating=False, config=config)
    now, zone = _now(ctx, p), local_zone()
    config = _apply(config, fields, now, zone)
    enabled = fields.get("enabled", bool(row[4]))
    if enabled and not row[4] and "schedule" not in fields:
        # switched back on: arm from now, so slots missed while it was off do not run "late"
        schedule = _stored_schedule(config, row[3])
        config["nextRunAt"] = schedule_rules.next_run(schedule, now, zone) if schedule else None
    with ctx.conn:
        ctx.conn.execute(
            "UPDATE scheduled_tasks SET title = ?, prompt = ?, cadence = ?, enabled = ?, project_id = ?, "
            "config_json = ?, updated_at = ? WHERE id = ?",
            (
                fields.get("name", row[1]),
                fields.get("prompt", row[2]),
                (fields["schedule"]["kind"] if "schedule" in fields else row[3]),
                int(enabled),
                fields.get("projectId", row[5]),
                orjson.dumps(config).decode(),
                now,
                task_id,
            ),
        )
        if enabled != bool(row[4]):  # switched on here (taken over) or off: no longer armed on another computer
            armed.remember(ctx.conn, task_id, None, "", now)
    _changed(ctx, task_id, "updated")
    return {"task": task(ctx.conn, task_id)}


@command("tasks.delete", emits=[topics.SESSION_LIST_CHANGED, topics.TASKS_CHANGED])
def tasks_delete(ctx: HostContext, p: Params) -> dict[str, Any]:
    task_id = p.text("taskId")
    read_task(ctx.conn, task_id)
    with ctx.conn:
        had_chats = (
            ctx.conn.execute(
                "SELECT 1 FROM task_runs WHERE task_id = ? AND session_id IS NOT NULL", (task_id,)
            ).fetchone()
            is not None
        )
        ctx.conn.execute(
            "DELETE FROM kv WHERE ns = ? AND key IN (SELECT id FROM task_runs WHERE task_id = ?)", (RUN_NS, task_id)
        )
        ctx.conn.execute("DELETE FROM scheduled_tasks WHERE id = ?", (task_id,))  # its runs cascade; chats stay
        armed.remember(ctx.conn, task_id, None, "", ctx.clock())
    _changed(ctx, task_id, "deleted")
    if had_chats:  # its runs' chats are ordinary chats now: back in the list
        ctx.emit(topics.SESSION_LIST_CHANGED, {})
    return {"deleted": True}


@command("tasks.list", emits=[])
def tasks_list(ctx: HostContext, p: Params) -> dict[str, Any]:
    zone = local_zone()
    rows = ctx.conn.execute(f"SELECT {_TASK_COLUMNS} FROM scheduled_tasks ORDER BY created_at, rowid").fetchall()
    return {"tasks": [task_to_wire(ctx.conn, row, zone) for row in rows]}


@command("tasks.runs", emits=[])
def tasks_runs(ctx: HostContext, p: Params) -> dict[str, Any]:
    """One task's history (``taskId``), or the newest run of every task (``latestPerTask``, for the task list)."""
    if p.boolean("latestPerTask"):
        if "taskId" in p.raw:
            raise invalid("tasks.runs: 'latestPerTask' reads every task; do not send 'taskId' with it.", "taskId")
        rows = ctx.conn.execute(
            f"SELECT {_RUN_COLUMNS} FROM (SELECT *, row_number() OVER (PARTITION BY task_id "
            "ORDER BY started_at DESC, rowid DESC) AS n FROM task_runs) WHERE n = 1 ORDER BY started_at DESC"
        ).fetchall()
        return {"runs": [run_to_wire(ctx.conn, row) for row in rows]}
    task_id = p.text("taskId")
    limit = p.integer("limit", required=False, default=50, minimum=1, maximum=RUNS_READ_MAX)
    read_task(ctx.conn, task_id)
    rows = ctx.conn.execute(
        f"SELECT {_RUN_COLUMNS} FROM task_runs WHERE task_id = ? ORDER BY started_at DESC, rowid DESC LIMIT ?",
        (task_id, limit),
    ).fetchall()
    return {"runs": [run_to_wire(ctx.conn, row) for row in rows]}


@command("tasks.due", emits=[])
def tasks_due(ctx: HostContext, p: Params) -> dict[str, Any]:
    """Enabled tasks whose next run is at or before ``now`` and that are not running, oldest slot first."""
    now = _now(ctx, p)
    zone = local_zone()
    rows = ctx.conn.execute(f"SELECT {_TASK_COLUMNS} FROM scheduled_tasks WHERE enabled = 1").fetchall()
    due = []
    for row in rows:
        wire = task_to_wire(ctx.conn, row, zone)
        next_at = wire["nextRunAt"]
        if next_at is None or next_at > now or wire["running"]:
            continue
        due.append(wire | {"dueAt": next_at, "late": now - next_at > LATE_AFTER_MS})
    due.sort(key=lambda t: (t["dueAt"], t["createdAt"]))
    return {"tasks": due, "nextDueAt": _next_due(ctx.conn, now)}


def _next_due(conn: apsw.Connection, now: int) -> int | None:
    """The earliest armed slot after ``now`` (the scheduler sleeps until then)."""
    soonest = None
    for (config_json,) in conn.execute("SELECT config_json FROM scheduled_tasks WHERE enabled = 1"):
        at = _config(config_json).get("nextRunAt")
        if isinstance(at, int) and at > now and (soonest is None or at < soonest):
            soonest = at
    return soonest


@command("tasks.startRun", emits=[topics.SESSION_CHANGED, topics.TASKS_CHANGED])
def tasks_start_run(ctx: HostContext, p: Params) -> dict[str, Any]:
    """Reserve a run and create its chat in one transaction; ``CONFLICT`` while the task is running.

    ``manual`` (Run now, ``run-due --task``) runs the task whatever its schedule
    and leaves a slot that is not yet due armed. A run of a due slot arms the
    next slot after ``now``, so slots missed while nothing ran are run once.
    """
    task_id = p.text("taskId")
    now = _now(ctx, p)
    manual = p.boolean("manual")
    zone = local_zone()
    row = read_task(ctx.conn, task_id)
    config = _config(row[6])
    if ctx.conn.execute("SELECT 1 FROM task_runs WHERE task_id = ? AND status = 'running'", (task_id,)).fetchone():
        raise HostError(
            ErrorCode.CONFLICT,
            f"The automation {row[1]!r} is already running; it never runs twice at once.",
            {"taskId": task_id},
        )
    next_at = config.get("nextRunAt") if isinstance(config.get("nextRunAt"), int) else None
    due = next_at is not None and next_at <= now
    if not manual and not (due and row[4]):
        raise HostError(ErrorCode.CONFLICT, f"The automation {row[1]!r} is not due yet.", {"taskId": task_id})
    late = (not manual) and due and next_at is not None and now - next_at > LATE_AFTER_MS
    schedule = _stored_schedule(config, row[3])
    if due and schedule is not None:
        config["nextRunAt"] = schedule_rules.next_run(schedule, now, zone, ran_once=True)
    run_id = str(uuid.uuid4())
    mode = config.get("mode") if config.get("mode") in MODES else "agent"
    params = {"title": row[1][:NAME_MAX].strip() or "Automation", "mode": mode}
    for name in ("providerId", "modelId"):
        if _text_or_none(config.get(name)):
            params[name] = config[name]
    if config.get("thinkingLevel") in THINKING_LEVELS:
        params["thinkingLevel"] = config["thinkingLevel"]
    if row[5] is not None:
        project = ctx.conn.execute("SELECT path FROM projects WHERE id = ?", (row[5],)).fetchone()
        if project is not None:
            params["projectPath"] = project[0]
    if "projectPath" not in params and _text_or_none(config.get("workspacePath")):
        params["projectPath"] = config["workspacePath"]
    reused = _reusable_chat(ctx.conn, task_id) if config.get("sessionMode") == "reuse" else None
    fields = sessions.create_fields(Params("session.create", params))
    # The task's own permission mode; without one (spec 004, 4.11) an automatic run asks (and, with
    # nobody to ask, is denied) and Run now follows the settings default.
    stored = config.get("permissionMode")
    permission = stored if stored in PERMISSION_MODES else ("inherit" if manual else "ask")
    with ctx.conn:
        session_id = reused or sessions.insert_session(ctx.conn, fields, now)
        ctx.conn.execute("UPDATE sessions SET permission_mode = ? WHERE id = ?", (permission, session_id))
        ctx.conn.execute(
            "INSERT INTO task_runs(id, task_id, session_id, status, started_at) VALUES (?, ?, ?, 'running', ?)",
            (run_id, task_id, session_id, now),
        )
        kv.put(ctx.conn, RUN_NS, run_id, {"late": late, "manual": manual, "dueAt": next_at if due else None}, now)
        ctx.conn.execute(
            "UPDATE scheduled_tasks SET last_run_at = ?, config_json = ? WHERE id = ?",
            (now, orjson.dumps(config).decode(), task_id),
        )
    if reused:
        session = sessions.summary(ctx.conn, session_id)
    else:
        session = sessions.announce_created(ctx, session_id)  # after the commit: never a chat that is not there
    _changed(ctx, task_id, "runStarted")
    run = run_to_wire(
        ctx.conn, one_row(ctx.conn.execute(f"SELECT {_RUN_COLUMNS} FROM task_runs WHERE id = ?", (run_id,)))
    )
    return {"run": run, "task": task(ctx.conn, task_id), "session": session}


def _reusable_chat(conn: apsw.Connection, task_id: str) -> str | None:
    """``sessionMode: reuse``: the chat of the task's newest run, while it is still there and not deleted."""
    row = conn.execute(
        "SELECT r.session_id FROM task_runs r JOIN sessions s ON s.id = r.session_id "
        "WHERE r.task_id = ? AND s.deleted_at IS NULL ORDER BY r.started_at DESC, r.rowid DESC LIMIT 1",
        (task_id,),
    ).fetchone()
    return str(row[0]) if row else None


@command("tasks.finishRun", emits=[topics.SESSION_LIST_CHANGED, topics.TASKS_CHANGED])
def tasks_finish_run(ctx: HostContext, p: Params) -> dict[str, Any]:
    """End a running run: ``completed``, ``error`` (with ``errorCode``) or ``aborted``; then keep 100 per task."""
    run_id = p.text("runId")
    status = p.choice("status", RUN_STATUSES, required=True)
    error_code = p.text("errorCode", required=False, max_chars=200)
    now = _now(ctx, p)
    row = ctx.conn.execute("SELECT task_id, status FROM task_runs WHERE id = ?", (run_id,)).fetchone()
    if row is None:
        raise HostError(ErrorCode.NOT_FOUND, f"There is no automation run with id {run_id!r}.")
    if row[1] != "running":
        raise HostError(ErrorCode.CONFLICT, f"The run {run_id!r} has already ended ({row[1]}).")
    with ctx.conn:
        ctx.conn.execute(
            "UPDATE task_runs SET status = ?, error_code = ?, ended_at = ? WHERE id = ?",
            (status, error_code if status != "completed" else None, now, run_id),
        )
        pruned = prune_runs(ctx.conn, row[0])
    _changed(ctx, row[0], "runFinished")
    if pruned:  # the oldest run's chat is an ordinary chat now: back in the list
        ctx.emit(topics.SESSION_LIST_CHANGED, {})
    return {
        "run": run_to_wire(
            ctx.conn, one_row(ctx.conn.execute(f"SELECT {_RUN_COLUMNS} FROM task_runs WHERE id = ?", (run_id,)))
        )
    }


# -- retention and boot --------------------------------------------------------------------


def prune_runs(conn: apsw.Connection, task_id: str | None = None, keep: int = RUNS_KEEP) -> int:
    """Keep the newest ``keep`` runs of one task (every task when ``task_id`` is None); returns how many went.

    Runs inside the caller's transaction. A pruned run's kv note goes with it.
    """
    where = "WHERE task_id = ?" if task_id is not None else ""
    conn.execute(
        "DELETE FROM task_runs WHERE rowid IN (SELECT rowid FROM (SELECT rowid, row_number() OVER "
        f"(PARTITION BY task_id ORDER BY started_at DESC, rowid DESC) AS n FROM task_runs {where}) WHERE n > ?)",
        ((task_id, keep) if task_id is not None else (keep,)),
    )
    pruned = conn.changes()
    if pruned:
        conn.execute("DELETE FROM kv WHERE ns = ? AND key NOT IN (SELECT id FROM task_runs)", (RUN_NS,))
    return pruned


def settle_interrupted(conn: apsw.Connection, now: int) -> int:
    """At boot: a run still ``running`` was cut off by a quit or crash; it ends ``aborted`` so the task
    can run again. Runs inside the caller's transaction."""
    conn.execute(
        "UPDATE task_runs SET status = 'aborted', error_code = ?, ended_at = ? WHERE status = 'running'",
        (ErrorCode.INTERRUPTED.value, now),
    )
    return conn.changes()
