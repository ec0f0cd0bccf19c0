"""The optional daily backup to S3: a setting, and the check the app's scheduler makes at each of its ticks.

``data.dailyBackup {now}`` is asked about once a minute while the app runs (the
automations scheduler's tick, with its clock): when the setting is on and the last
attempt is a day old or more, it records this attempt and starts the same job as
Settings > Data > Back up to S3 (``data.snapshotS3`` with the saved sync key). The
outcome is kept in ``kv(configSyncS3, dailyBackup)`` and told as a
``data.dailyBackup`` event, a failure as a sentence saying what to do.
"""

from __future__ import annotations

import logging
from functools import partial
from typing import Any

from pidesktop.bus import topics
from pidesktop.bus.errors import ErrorCode, HostError
from pidesktop.host import kv
from pidesktop.host.commands import command
from pidesktop.host.context import HostContext
from pidesktop.host.data import s3_backup
from pidesktop.host.data.commands import JobProgress, jobs_of
from pidesktop.host.params import Params
from pidesktop.storage.sync_settings import NS

log = logging.getLogger("pidesktop.host.data.daily_backup")

KEY = "dailyBackup"
DAY_MS = 24 * 60 * 60 * 1000


def state(ctx: HostContext) -> dict[str, Any]:
    """``{enabled, attemptedAt, last}``; ``last`` is the newest outcome (``{at, ok, sentence, ...}``) or None."""
    stored = kv.get(ctx.conn, NS, KEY, {})
    stored = stored if isinstance(stored, dict) else {}
    return {
        "enabled": bool(stored.get("enabled")),
        "attemptedAt": stored.get("attemptedAt"),
        "last": stored.get("last"),
    }


def _save(ctx: HostContext, **changes: Any) -> dict[str, Any]:
    updated = {**state(ctx), **changes}
    with ctx.conn:
        kv.put(ctx.conn, NS, KEY, updated, ctx.clock())
    return updated


@command("data.setDailyBackup", emits=[])
def set_daily_backup(ctx: HostContext, p: Params) -> dict[str, Any]:
    """Turn the daily backup on or off; on needs the saved connection and the saved sync key."""
    enabled = p.boolean("enabled")
    if enabled:
        _, _, key = s3_backup.saved_target(ctx)
        if key is None:
            sentence = "Type the sync passphrase in Settings > Sync and save: the daily backup is sealed with it."
            raise HostError(ErrorCode.CONFLICT, sentence, {"reason": "passphrase_needed", "sentence": sentence})
    return _save(ctx, enabled=enabled)


@command("data.dailyBackup", emits=[topics.DATA_PROGRESS, topics.DATA_FINISHED, topics.DATA_DAILY_BACKUP])
def daily_backup(ctx: HostContext, p: Params) -> dict[str, Any]:
    """Start the daily backup if it is on and due at ``now`` (epoch ms): ``{started, job?, nextAt?}``."""
    now = p.integer("now", minimum=0)
    current = state(ctx)
    if not current["enabled"]:
        return {"started": False}
    attempted = current["attemptedAt"]
    if isinstance(attempted, int) and now - attempted < DAY_MS:
        return {"started": False, "nextAt": attempted + DAY_MS}
    _save(ctx, attemptedAt=now)  # first: a backup that cannot start is not retried at every tick
    try:
        target = s3_backup.saved_target(ctx)
        if target[2] is None:
            raise s3_backup.failure(
                ErrorCode.CONFLICT,
                "Type the sync passphrase in Settings > Sync and save: the daily backup is sealed with it.",
                "passphrase_needed",
            )
        root, post = ctx.data_root, ctx.post

        def work(progress: JobProgress) -> dict[str, Any]:
            try:
                result = s3_backup.back_up(
                    root, target, None, progress=lambda done, total: progress(s3_backup.KIND, done, total)
                )
            except Exception as exc:
                error = exc if isinstance(exc, HostError) else HostError(ErrorCode.STORAGE_UNAVAILABLE, str(exc))
                if post is not None:
                    post(partial(_finished, ctx, now, None, error))
                raise
            if post is not None:
                post(partial(_finished, ctx, now, result, None))
            return result

        started = jobs_of(ctx).start(s3_backup.KIND, work)
    except HostError as exc:
        _finished(ctx, now, None, exc)
        return {"started": False, "nextAt": now + DAY_MS}
    return {"started": True, **started, "nextAt": now + DAY_MS}


def _finished(ctx: HostContext, started_at: int, result: dict[str, Any] | None, error: HostError | None) -> None:
    """Keep the outcome and tell it (host thread)."""
    if error is None and result is not None:
        outcome: dict[str, Any] = {
            "at": started_at,
            "ok": True,
            "snapshot": result["snapshot"],
            "bytes": result["bytes"],
            "bytesUploaded": result["bytesUploaded"],
            "where": result["where"],
        }
    else:
        sentence = str((error.data if error else {}).get("sentence") or (error.message if error else "It failed."))
        outcome = {"at": started_at, "ok": False, "sentence": f"The daily backup to S3 failed: {sentence}"}
        outcome["code"] = error.code if error else ErrorCode.INTERNAL
        outcome["reason"] = (error.data if error else {}).get("reason")
        log.warning("daily backup failed: %s", sentence)
    _save(ctx, last=outcome)
    ctx.emit(topics.DATA_DAILY_BACKUP, outcome)
