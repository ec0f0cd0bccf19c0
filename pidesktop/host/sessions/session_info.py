"""``session_info`` lines: what a chat's row holds beyond its messages, kept in its transcript too.

Spec 004 makes the transcript the source of truth, so a rebuilt index must be
able to get a chat's title, project, mode, thinking level, permission mode,
pin and model back from the file (pi keeps the same in ``session_info``
entries). Each change appends one line with only the fields that changed,
written before the row changes (file first, like a message)::

    {"type":"session_info","title":"Trip","titleSource":"manual","at":"2026-..."}

The window and the model never see these lines (readers skip line types they
do not show); the rebuild folds them in file order, the last value winning.
"""

from __future__ import annotations

import logging
from typing import Any

import apsw

from pidesktop.formats.transcript.records import now_rfc3339
from pidesktop.host.context import HostContext
from pidesktop.host.projects import commands as projects
from pidesktop.host.sessions import session_rows
from pidesktop.host.transcripts import info as info_lines

log = logging.getLogger("pidesktop.host.sessions.session_info")

INFO = info_lines.INFO
# camelCase field in the line -> sessions column; projectPath is resolved through projects
COLUMNS = {
    "title": "title",
    "titleSource": "title_source",
    "mode": "mode",
    "thinkingLevel": "thinking_level",
    "permissionMode": "permission_mode",
    "fastMode": "fast_mode",
    "pinned": "pinned",
    "providerId": "provider_id",
    "modelId": "model_id",
}
# the values session.update takes (sessions/commands.py, which imports this module)
_CHOICES = {
    "titleSource": ("legacy", "default", "manual", "generated"),
    "mode": ("agent", "plan", "goal"),
    "thinkingLevel": ("off", "minimal", "low", "medium", "high", "xhigh", "max", "omit"),
    "permissionMode": ("inherit", "ask", "accept-edits", "auto"),
}


def record(ctx: HostContext, session_id: str, changes: dict[str, Any]) -> None:
    """Append one ``session_info`` line with ``changes`` (camelCase fields), before the row changes."""
    if not changes:
        return
    session_rows.append_in_step(ctx, session_id, {"type": INFO, **changes, "at": now_rfc3339()})


def project_path(conn: apsw.Connection, project_id: int | None) -> str | None:
    if project_id is None:
        return None
    row = conn.execute("SELECT path FROM projects WHERE id = ?", (project_id,)).fetchone()
    return None if row is None else str(row[0])


def read(data: bytes) -> dict[str, Any]:
    """The folded state of a transcript's ``session_info`` lines (the last value of each field)."""
    return without_time(info_lines.fold(data))


def without_time(state: dict[str, Any]) -> dict[str, Any]:
    """A folded state's fields, without the time of its last line (``at``)."""
    return {k: v for k, v in state.items() if k != "at"}


def apply(conn: apsw.Connection, session_id: str, state: dict[str, Any], now: int) -> list[str]:
    """Set the row's fields from a folded state, in the caller's transaction; the fields it could not use."""
    assignments: dict[str, Any] = {}
    skipped: list[str] = []
    for field, value in state.items():
        if field == "projectPath":
            if value is None:
                assignments["project_id"] = None
            elif isinstance(value, str):
                try:
                    assignments["project_id"] = projects.upsert(conn, value, now, opened=False)
                except Exception:
                    skipped.append(field)
            continue
        column = COLUMNS.get(field)
        if column is None or not _valid(field, value):
            skipped.append(field)
            continue
        assignments[column] = int(value) if field in ("fastMode", "pinned") else value
    if assignments:
        sets = ", ".join(f"{column} = ?" for column in assignments)
        conn.execute(f"UPDATE sessions SET {sets} WHERE id = ?", (*assignments.values(), session_id))
    return skipped


def _valid(field: str, value: Any) -> bool:
    if field in _CHOICES:
        return value in _CHOICES[field]
    if field in ("fastMode", "pinned"):
        return isinstance(value, bool)
    if field == "title":
        return isinstance(value, str)
    return value is None or isinstance(value, str)
