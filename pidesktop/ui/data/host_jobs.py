"""Awaiting a host job: a ``data.*`` command that answers ``{job}`` at once and finishes with an event.

The host runs long maintenance (verify, back up, measure caches...) on a job
thread of its own and reports ``data.progress`` and one ``data.finished``
event per job (docs/rpc.md). ``run_job`` hides that: it returns the job's
result or raises the job's ``HostError``, like ``client.call``, so it fits in
a ``task_op``. Cancelling the awaiting task asks the host to cancel the job.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from pidesktop.bus import ErrorCode, HostClient, HostError, topics
from pidesktop.ui.kit.plain_errors import sentence
from pidesktop.ui.kit.tasks import spawn

PROGRESS = topics.DATA_PROGRESS
FINISHED = topics.DATA_FINISHED


async def run_job(
    client: HostClient, method: str, params: dict | None = None, progress: Callable[[dict], None] | None = None
) -> dict:
    """Start ``method`` and wait for its job; ``progress(payload)`` gets each ``data.progress`` of it."""
    loop = asyncio.get_running_loop()
    done: asyncio.Future = loop.create_future()
    early: list[dict] = []  # events that arrived before the reply named the job
    job: dict = {"id": None}

    def on_event(topic: str, payload: dict) -> None:
        if topic not in (PROGRESS, FINISHED):
            return
        if job["id"] is None:
            early.append({"topic": topic, **payload})
        elif payload.get("job") == job["id"]:
            handle(topic, payload)

    def handle(topic: str, payload: dict) -> None:
        if topic == FINISHED:
            if not done.done():
                done.set_result(payload)
        elif progress is not None:
            progress(payload)

    unsubscribe = client.subscribe(on_event)
    try:
        started = await client.call(method, params or {})
        job["id"] = started["job"]
        for event in early:
            if event.get("job") == job["id"]:
                handle(event.pop("topic"), event)
        try:
            finished = await done
        except asyncio.CancelledError:
            spawn(_cancel(client, job["id"]), name="data-cancel")
            raise
    finally:
        unsubscribe()
    if finished.get("status") == "done":
        return finished.get("result") or {}
    error = finished.get("error") or {"code": ErrorCode.CONFLICT, "message": "The job was cancelled."}
    raise HostError(error.get("code", ErrorCode.INTERNAL), error.get("message", ""), error.get("data"))


async def _cancel(client: HostClient, job_id: str) -> None:
    try:
        await client.call("data.cancel", {"job": job_id})
    except HostError:
        pass  # the host is gone or the job already ended


def job_error_text(error: HostError) -> str:
    """What a maintenance dialog says: the host's sentence about the data (written for people), or a plain one."""
    if error.data.get("sentence"):
        return str(error.data["sentence"])
    if error.code in (ErrorCode.INTERNAL, ErrorCode.METHOD_NOT_FOUND, ErrorCode.INVALID_REQUEST):
        return sentence(error)
    return error.message
