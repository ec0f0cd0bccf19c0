"""A turn's row as the wire carries it (``turn.changed``, ``session.startTurn``...).

Here, beside the chats, because rewriting a chat's history also settles its turns and says so; the turn
lifecycle itself is ``host/turns``.
"""

from __future__ import annotations

from typing import Any

import apsw
import orjson

from pidesktop.bus.errors import ErrorCode, HostError

COLUMNS = (
    "id, session_id, status, provider_id, model_id, error_code, input_tokens, output_tokens, "
    "usage_json, started_at, ended_at"
)


def to_wire(row: tuple[Any, ...]) -> dict[str, Any]:
    (tid, sid, status, provider, model, error_code, tokens_in, tokens_out, usage, started, ended) = row
    return {
        "id": tid,
        "sessionId": sid,
        "status": status,
        "providerId": provider,
        "modelId": model,
        "errorCode": error_code,
        "inputTokens": tokens_in,
        "outputTokens": tokens_out,
        "usage": orjson.loads(usage) if usage else None,
        "startedAt": started,
        "endedAt": ended,
    }


def load(conn: apsw.Connection, session_id: str, turn_id: str) -> dict[str, Any]:
    row = conn.execute(f"SELECT {COLUMNS} FROM turns WHERE id = ?", (turn_id,)).fetchone()
    if row is None or row[1] != session_id:
        raise HostError(ErrorCode.NOT_FOUND, f"Session {session_id} has no turn {turn_id!r}.")
    return to_wire(row)
