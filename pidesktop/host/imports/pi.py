"""pi coding-agent sessions (``~/.pi/agent/sessions/--<cwd>--/<time>_<uuid>.jsonl``), format v1 to v3.

The format itself (entries, the tree through ``id``/``parentId``, the current
branch from the last entry back to the root, v1 files without ids, compaction
checkpoints, tool results folded into their calls) is read by
``host/native/pi_format.py``, the same pure code that shows native pi
sessions read-only. This module only turns its result into an
``ImportedSession``: ids and text made storable, the chat's name
(``session_info``), working folder and times, and unknown entry types counted.
"""

from __future__ import annotations

from typing import Any

from pidesktop.host.imports.common import ImportedSession, ReadFailure, clean_text, millis, rfc3339, storable
from pidesktop.host.native import pi_format

SOURCE = "pi"
KNOWN = frozenset(
    {
        "message",
        "model_change",
        "thinking_level_change",
        "compaction",
        "branch_summary",
        "custom",
        "custom_message",
        "label",
        "session_info",
    }
)
_UI_ONLY = ("seq", "index")


def read(data: bytes, name: str = "") -> ImportedSession:
    parsed = pi_format.parse(data)
    header = parsed.header
    if header is None:
        raise ReadFailure('no pi session header (a first line of type "session")')
    result = ImportedSession(external_id=_external_id(header, name))
    result.torn_tail = parsed.torn
    result.bad_lines = parsed.garbage
    if isinstance(header.get("cwd"), str) and header["cwd"].strip():
        result.cwd = clean_text(header["cwd"])
    started = millis(header.get("timestamp"))
    if started is not None:
        result.created_at = result.updated_at = started
    for entry in parsed.entries:
        kind = entry.get("type")
        if kind not in KNOWN:
            result.skipped[str(kind)[:40]] += 1
    for meta in parsed.metas:
        if meta.kind == "session_info" and meta.name:
            result.title = clean_text(meta.name)
        if meta.model:
            result.model_id = clean_text(meta.model)
            result.provider_id = clean_text(meta.provider) if meta.provider else result.provider_id
    messages, checkpoints = pi_format.read_branch(parsed)
    for ui in messages:
        message = storable({k: v for k, v in ui.items() if k not in _UI_ONLY and v is not None})
        if not isinstance(message.get("id"), str) or not isinstance(message.get("blocks"), list):
            continue
        when = millis(message.get("createdAt"))
        if when is not None:
            message["createdAt"] = rfc3339(when)
            result.created_at = when if result.created_at is None else min(result.created_at, when)
            result.updated_at = when if result.updated_at is None else max(result.updated_at, when)
        result.messages.append(message)
    ids = {m["id"] for m in result.messages}
    for raw in checkpoints:
        checkpoint: dict[str, Any] = storable({k: v for k, v in raw.items() if v is not None})
        if checkpoint.get("throughMessageId") not in ids or not isinstance(checkpoint.get("id"), str):
            continue  # nothing before it to summarise
        if checkpoint.get("firstKeptMessageId") not in ids:
            checkpoint.pop("firstKeptMessageId", None)
        when = millis(checkpoint.get("createdAt"))
        if when is not None:
            checkpoint["createdAt"] = rfc3339(when)
        checkpoint["details"] = {"source": "pi"}
        result.compactions.append(checkpoint)
    return result


def _external_id(header: dict[str, Any], name: str) -> str:
    if isinstance(header.get("id"), str) and header["id"].strip():
        return clean_text(header["id"].strip())
    base = name.replace("\\", "/").rsplit("/", 1)[-1]
    return clean_text(base[:-6] if base.endswith(".jsonl") else base) or "session"
