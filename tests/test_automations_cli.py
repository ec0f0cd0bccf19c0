"""`pidesktop automations run-due` end to end: a real subprocess, a provider over real HTTP (the replay
server in sse_server.py), then the chat, the run row and the inbox row read back through the host."""

from __future__ import annotations

import os
import subprocess
import sys
import time

from pidesktop import paths
from tests.support.hosts import InProcessHost
from tests.support.repo import REPO
from tests.support.sse_server import chunk, sse_body

DAY = 86_400_000


def run_due(root, *args, timeout=60):
    return subprocess.run(
        [sys.executable, "-m", "pidesktop", "automations", "run-due", "--data-dir", str(root), *args],
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=timeout,
        env={**os.environ, "TZ": "Europe/Berlin"},
    )


def with_host(root, body):
    host = InProcessHost(paths.resolve(data_dir=root))
    try:
        return body(host)
    finally:
        host.stop()


def test_run_due_runs_a_late_task_once_and_then_one_task_on_request(tmp_path, sse_server, monkeypatch):
    monkeypatch.setenv("TZ", "Europe/Berlin")
    root = tmp_path / "d"
    sse_server.stream([sse_body(chunk("Good morning"), chunk(finish="stop"))])

    def seed(host):
        provider = host.call(
            "providers.upsert",
            {"provider": {"name": "Replay", "baseUrl": sse_server.base_url, "defaultModelId": "m-replay"}},
        )["provider"]
        two_days_ago = time.time_ns() // 1_000_000 - 2 * DAY
        daily = host.call(
            "tasks.create",
            {
                "name": "Morning",
                "prompt": "Greet me",
                "now": two_days_ago,
                "schedule": {"kind": "daily", "at": "00:00"},
                "providerId": provider["id"],
            },
        )["task"]
        plan = host.call(
            "tasks.create",
            {
                "name": "Planner",
                "prompt": "Plan my week",
                "mode": "plan",
                "schedule": {"kind": "weekly", "days": [0], "at": "07:00"},
                "providerId": provider["id"],
            },
        )["task"]
        return daily["id"], plan["id"]

    daily_id, plan_id = with_host(root, seed)
    done = run_due(root)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("Morning: completed, late, chat "), done.stdout
    assert len(done.stdout.splitlines()) == 1  # two missed midnights, one run; the planner is not due
    assert [r.json["model"] for r in sse_server.requests] == ["m-replay"]

    def check(host):
        [run] = host.call("tasks.runs", {"taskId": daily_id})["runs"]
        assert (run["status"], run["late"], run["errorCode"]) == ("completed", True, None)
        session = host.call("session.get", {"sessionId": run["sessionId"]})
        assert session["session"]["title"] == "Morning"
        texts = [b["text"] for m in session["messages"] for b in m["blocks"] if b["type"] == "text"]
        assert texts == ["Greet me", "Good morning"]
        inbox = host.call("notifications.list")["notifications"]
        assert [(n["kind"], n["sessionId"]) for n in inbox] == [("task.completed", run["sessionId"])]
        assert host.call("tasks.runs", {"taskId": plan_id})["runs"] == []

    with_host(root, check)

    again = run_due(root)  # nothing is due any more: no run, no request
    assert again.returncode == 0 and again.stdout == "" and "nothing is due" in again.stderr
    planned = run_due(root, "--task", plan_id)
    assert planned.returncode == 0, planned.stderr
    assert planned.stdout.startswith("Planner: error (PLAN_REQUIRES_INTERACTIVE_SESSION), chat ")
    assert len(sse_server.requests) == 1  # refused before any model request

    def check_plan(host):
        [run] = host.call("tasks.runs", {"taskId": plan_id})["runs"]
        assert (run["status"], run["manual"]) == ("error", True)
        kinds = [n["kind"] for n in host.call("notifications.list")["notifications"]]
        assert kinds == ["task.failed", "task.completed"]

    with_host(root, check_plan)

    unknown = run_due(root, "--task", "no-such-task")
    assert unknown.returncode == 2 and "no-such-task" in unknown.stderr


def test_while_the_app_has_the_folder_open_it_says_so_and_runs_nothing(tmp_path):
    root = tmp_path / "d"
    app = InProcessHost(paths.resolve(data_dir=root))  # holds the data folder like the open app
    try:
        done = run_due(root)
    finally:
        app.stop()
    assert done.returncode == 2
    assert "in use" in done.stderr and "runs automations itself" in done.stderr
