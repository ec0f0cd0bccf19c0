"""A chat's summary as the session list gives it: the statement that reads it and the dict it becomes.

Shared by the host (``session.list``, ``session.get`` and every ``session.changed``) and the read-only
first page start-up shows before the host has opened (``storage.newest_chats``), so both give the same rows.
"""

from __future__ import annotations

from typing import Any

# An automation's run chat (spec 004, 4.11): owned by its run while the run row exists, derived on every read
# and never stored; such chats stay out of the session list and session search (``LISTED``). A task deleted,
# or a run pruned, gives its chat back to them.
SCHEDULED = "s.id IN (SELECT session_id FROM task_runs WHERE session_id IS NOT NULL)"
LISTED = f"s.deleted_at IS NULL AND NOT {SCHEDULED}"

# The same test for one chat: the list form builds the set of run chats (and its Bloom filter) on every
# execution, a third of a one-chat summary's time; both read every task_runs row, which has no session index.
SCHEDULED_ONE = "EXISTS (SELECT 1 FROM task_runs r WHERE r.session_id = s.id)"

# The chat's own columns, in ``to_summary``'s order up to its last turn; ``{path}`` is its project's path.
_CHAT_COLUMNS = """s.id, s.title, s.title_source, s.project_id, {path}, s.provider_id, s.model_id, s.mode,
       s.thinking_level, s.permission_mode, s.fast_mode, s.pinned, s.last_seq, s.source,
       s.deleted_at, s.created_at, s.updated_at"""
# A chat's newest turn: ``{columns}`` of it for the chat ``{chat}``.
_NEWEST_TURN = "SELECT {columns} FROM turns WHERE session_id = {chat} ORDER BY started_at DESC LIMIT 1"

_SUMMARY = f"""
SELECT {_CHAT_COLUMNS.format(path="p.path")}, t.id, t.status, t.error_code, {{scheduled}}
FROM sessions s
LEFT JOIN projects p ON p.id = s.project_id
LEFT JOIN turns t ON t.id = ({_NEWEST_TURN.format(columns="id", chat="s.id")})
"""
SUMMARY_SQL = _SUMMARY.format(scheduled=SCHEDULED)  # for lists of chats

# One chat, by id, in two plain statements: the joined form took ~23 us a chat against ~7 for these two,
# and every appended message announces its chat's summary. ``one_summary_row`` puts them together.
ONE_SUMMARY_SQL = f"""
SELECT {_CHAT_COLUMNS.format(path="(SELECT path FROM projects WHERE id = s.project_id)")}, {SCHEDULED_ONE}
FROM sessions s WHERE s.id = ?
"""
LAST_TURN_SQL = _NEWEST_TURN.format(columns="id, status, error_code", chat="?")
_NO_TURN = (None, None, None)

# The list's order, newest first (its cursor is the last row's ``updatedAt:id``).
NEWEST_FIRST = " ORDER BY s.updated_at DESC, s.id DESC"


def one_summary_row(chat: tuple[Any, ...], last_turn: tuple[Any, ...] | None) -> tuple[Any, ...]:
    """``ONE_SUMMARY_SQL``'s row and ``LAST_TURN_SQL``'s as one row of ``SUMMARY_SQL``."""
    return (*chat[:-1], *(last_turn or _NO_TURN), chat[-1])


def to_summary(row: tuple[Any, ...]) -> dict[str, Any]:
    (
        sid,
        title,
        title_source,
        project_id,
        project_path,
        provider_id,
        model_id,
        mode,
        thinking,
        permission,
        fast,
        pinned,
        last_seq,
        source,
        deleted_at,
        created,
        updated,
        turn_id,
        turn_status,
        turn_error,
        scheduled,
    ) = row
    result = {
        "id": sid,
        "title": title,
        "titleSource": title_source,
        "projectId": project_id,
        "projectPath": project_path,
        "providerId": provider_id,
        "modelId": model_id,
        "mode": mode,
        "thinkingLevel": thinking,
        "permissionMode": permission,
        "fastMode": bool(fast),
        "pinned": bool(pinned),
        "messageCount": last_seq,
        "source": source,
        "deletedAt": deleted_at,
        "createdAt": created,
        "updatedAt": updated,
        "origin": "desktop",
        "readOnly": False,
        "scheduledRun": bool(scheduled),
    }
    if turn_id is not None:
        result["lastTurn"] = {"id": turn_id, "status": turn_status, "errorCode": turn_error}
    return result
