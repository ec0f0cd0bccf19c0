"""The streaming-reply checkpoint ``sessions/<id>.inflight.json`` (spec 004, section 2.1, D299/D327).

One ``{schema, sessionId, turnId, savedAt, message}`` object, replaced
atomically on every save. It is transient: the final append of the same
message id removes it; boot promotes a leftover whose final row never landed.
"""

from __future__ import annotations

import logging
import os
from pathlib import Path
from typing import Any, cast

import orjson

from pidesktop.durable import atomic_write
from pidesktop.host.context import HostContext

log = logging.getLogger("pidesktop.host.sessions.inflight")

SCHEMA = 1
SUFFIX = ".inflight.json"  # sessions/<id> + SUFFIX


def path(ctx: HostContext, session_id: str) -> Path:
    return ctx.sessions_dir / f"{session_id}{SUFFIX}"


def read(ctx: HostContext, session_id: str) -> dict[str, Any] | None:
    try:
        value = orjson.loads(path(ctx, session_id).read_bytes())
    except FileNotFoundError:
        return None
    except (OSError, orjson.JSONDecodeError) as exc:
        log.warning("unreadable in-flight checkpoint for %s: %s", session_id, exc)
        return None
    message = value.get("message") if isinstance(value, dict) else None
    if not isinstance(message, dict) or not isinstance(message.get("id"), str):
        log.warning("in-flight checkpoint for %s holds no message", session_id)
        return None
    return cast(dict[str, Any], value)  # it holds a message, so it is an object


def write(ctx: HostContext, session_id: str, turn_id: str | None, message: dict[str, Any], saved_at: str) -> None:
    """Replace the checkpoint atomically: temp file, fsync, rename."""
    atomic_write(
        path(ctx, session_id),
        orjson.dumps(
            {"schema": SCHEMA, "sessionId": session_id, "turnId": turn_id, "savedAt": saved_at, "message": message}
        ),
    )


def remove(ctx: HostContext, session_id: str) -> None:
    path(ctx, session_id).unlink(missing_ok=True)


def remove_if_message(ctx: HostContext, session_id: str, message_id: str) -> bool:
    """Drop the checkpoint when it holds ``message_id`` (its final row has landed)."""
    if not os.path.exists(os.path.join(ctx.sessions_dir, f"{session_id}{SUFFIX}")):
        return False  # nearly every append: one stat, not a Path and a failed open
    current = read(ctx, session_id)
    if current is not None and current["message"]["id"] == message_id:
        remove(ctx, session_id)
        return True
    return False
