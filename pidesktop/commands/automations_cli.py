"""``pidesktop automations run-due [--task ID]``: run automations without the window (cron, systemd timers).

Runs every task that is due (slots missed since the last check run once,
marked late), or with ``--task`` that one task now, each as a turn in a chat
of its own with a run row and an inbox notification, exactly as the app's
scheduler does. Prints one line per run and exits when every run it started
has ended: 0 then (a failed run is reported, and recorded, not an exit
status); 1 when a run's end could not be recorded; 2 when the command line or
the data folder cannot be used (the app has it open: the app runs its
automations itself while its window is open).
"""

from __future__ import annotations

import argparse
import signal
import sys
from typing import TYPE_CHECKING

from pidesktop.bus import ErrorCode, HostError

if TYPE_CHECKING:
    from pidesktop.bus import HostThread

# asyncio and the host are imported when this command runs, not when `pidesktop` parses its command line
# (the window's start does, and its first paint does not wait for them).

PROG = "pidesktop automations"


def add_parser(sub: argparse._SubParsersAction) -> None:
    automations = sub.add_parser("automations", help="run scheduled prompts without the window")
    commands = automations.add_subparsers(dest="automations_command", required=True)
    run_due = commands.add_parser("run-due", help="run what is due now (for cron or a systemd timer), then exit")
    run_due.add_argument("--task", dest="automations_task", metavar="ID", help="run this task now, due or not")
    run_due.add_argument("--data-dir", dest="automations_data_dir", help="use this data folder")


def run(args: argparse.Namespace) -> int:
    return run_due(args.automations_task, args.automations_data_dir or args.data_dir)


def run_due(task_id: str | None, data_dir: str | None) -> int:
    import asyncio

    from pidesktop.commands.command_host import start_host

    host = start_host(data_dir, PROG, "agent")  # the runtime too loads only when this command runs
    if host is None:
        return 2
    try:
        return asyncio.run(_run_due(host, task_id))
    finally:
        host.stop()


async def _run_due(host: HostThread, task_id: str | None) -> int:
    import asyncio

    from pidesktop.agent.mcp.pool import McpPool
    from pidesktop.agent.runner import TurnRunner
    from pidesktop.agent.scheduler import Scheduler
    from pidesktop.bus import HostClient

    loop = asyncio.get_running_loop()
    client = HostClient(host, loop)
    mcp = McpPool(client)  # the enabled MCP servers' tools, as in the app; stopped when the runs end
    scheduler = Scheduler(client, TurnRunner(client, interactive=False, mcp=mcp))
    ended: list[tuple[dict, dict]] = []
    scheduler.listeners.append(lambda phase, task, run: ended.append((task, run)) if phase == "finished" else None)
    stopping = loop.create_task(_never())
    loop.add_signal_handler(signal.SIGINT, stopping.cancel)  # Ctrl+C stops the runs; their replies are kept
    loop.add_signal_handler(signal.SIGTERM, stopping.cancel)
    try:
        try:
            await client.call("app.handshake", {"protocolVersion": 1})
            if task_id is not None:
                runs = [scheduler.run_now(task_id)]
            else:
                runs = await scheduler.tick()
        except HostError as exc:
            print(f"{PROG}: {_reason(exc)}", file=sys.stderr)
            return 2
        if runs:
            await asyncio.wait([*runs, stopping], return_when=asyncio.FIRST_COMPLETED)
            if stopping.done():
                await scheduler.stop()
            await asyncio.gather(*runs, return_exceptions=True)
        for job in runs:
            error = job.exception() if not job.cancelled() else None
            if isinstance(error, HostError):  # --task: the host refused to start it
                print(f"{PROG}: {_reason(error)}", file=sys.stderr)
                return 2
        # a run still "running" here is one whose end the host did not take; the next start ends it aborted
        failed_to_record = sum(1 for _task, run in ended if run["status"] == "running")
        for task, run in ended:
            print(_line(task, run))
        if not runs:
            print("nothing is due", file=sys.stderr)
        return 1 if failed_to_record else 0
    finally:
        stopping.cancel()
        loop.remove_signal_handler(signal.SIGINT)
        loop.remove_signal_handler(signal.SIGTERM)
        await scheduler.stop()
        await mcp.aclose()
        client.close()


async def _never() -> None:
    import asyncio

    await asyncio.Event().wait()


def _line(task: dict, run: dict) -> str:
    status = run["status"] + (f" ({run['errorCode']})" if run.get("errorCode") else "")
    late = ", late" if run.get("late") else ""
    return f"{task['name']}: {status}{late}, chat {run['sessionId']}"


def _reason(error: HostError) -> str:
    holder = error.data.get("inUseBy") if error.code == ErrorCode.STORAGE_UNAVAILABLE else None
    if holder:
        return (
            f"the data folder is in use by {holder}. While the app is open it runs automations itself; "
            f"run this when it is closed, or pass --data-dir with another folder."
        )
    if error.code == ErrorCode.NOT_FOUND:
        return f"{error.message} `pidesktop automations` lists no such task; check the id in the Automations page."
    return error.message
