"""Regenerate branches: ``sessions/<id>.revisions.jsonl`` and the ``message_revisions`` index.

A branch is the transcript suffix rooted at a user message; the root's family
key is its ``meta.revisionRootId`` or else its own id (spec 004, section 4.9).
The file is append-only and never rewritten: the last line for a
``(rootUserId, revisionIndex)`` wins. A branch still in the transcript is
named by a constant-size ``revision_live`` line; a branch about to leave the
transcript is first stored in full as a ``revision`` line (section 2.1), which
is also the only kind a file from an older build holds. The index row carries
what the pager shows (count, active flag) without parsing the file.
"""

from __future__ import annotations

import logging
import os
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeGuard

import apsw
import orjson

from pidesktop.bus import topics
from pidesktop.bus.errors import ErrorCode, HostError
from pidesktop.durable import FILE_MODE
from pidesktop.formats.index.sql_rows import all_rows
from pidesktop.formats.transcript import binary_storage
from pidesktop.formats.transcript.records import is_valid_message
from pidesktop.host.commands import command
from pidesktop.host.context import HostContext
from pidesktop.host.json_values import object_at
from pidesktop.host.params import Params
from pidesktop.host.sessions import commands as sessions
from pidesktop.host.sessions import message_index
from pidesktop.host.transcripts.files import write_all
from pidesktop.paths import fsync_dir

log = logging.getLogger("pidesktop.host.sessions.revisions")

REVISION = "revision"
REVISION_LIVE = "revision_live"
PAGER_FIELDS = ("revisionCount", "activeRevision")


# -- the live transcript, as every revision and history command reads it ---------------------
MESSAGE = "message"


def strip_type(record: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in record.items() if k != "type"}


def read(ctx: HostContext, session_id: str) -> tuple[dict[str, Any] | None, list[dict[str, Any]], list[dict[str, Any]]]:
    """Header, records in file order and the (deduplicated) messages; empty when there is no file."""
    try:
        header, records = ctx.transcripts.read_records(session_id)
    except FileNotFoundError:
        return None, [], []
    return header, records, [strip_type(r) for r in records if r.get("type") == MESSAGE]


# -- the revisions file ---------------------------------------------------------------
def path(ctx: HostContext, session_id: str) -> Path:
    return ctx.sessions_dir / f"{session_id}.revisions.jsonl"


def append_line(ctx: HostContext, session_id: str, record: dict[str, Any]) -> None:
    """Append one line and fsync it; bytes already in the file are never touched."""
    target = path(ctx, session_id)
    line = orjson.dumps(record) + b"\n"
    created = not target.exists()
    target.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(target, os.O_RDWR | os.O_APPEND | os.O_CREAT, FILE_MODE)
    try:
        size = os.fstat(fd).st_size
        if size and os.pread(fd, 1, size - 1) != b"\n":
            line = b"\n" + line  # a torn last line stays a line of its own, skipped by readers
        write_all(fd, line)
        os.fsync(fd)
    finally:
        os.close(fd)
    if created:
        fsync_dir(target.parent)


def read_family(ctx: HostContext, session_id: str, key: str) -> dict[int, dict[str, Any]]:
    """The family's records by revision index, last line winning; unusable lines are skipped."""
    try:
        data = path(ctx, session_id).read_bytes()
    except FileNotFoundError:
        return {}
    # Cheap filter before parsing: a line of this family spells its key verbatim
    # unless the key needs JSON escaping.
    needle = key.encode() if key.isascii() and key.isprintable() and '"' not in key and "\\" not in key else None
    found: dict[int, dict[str, Any]] = {}
    for line in data.split(b"\n"):
        if not line.strip() or (needle is not None and needle not in line):
            continue
        try:
            record = orjson.loads(line)
        except orjson.JSONDecodeError:
            continue  # a torn line left by a crash mid-append
        if _usable(record) and record["rootUserId"] == key:
            if binary_storage.is_encoded(record):  # Pi Desktop v26+ tool images; refuses what it cannot decode
                record = binary_storage.decode(record, f"the revisions of {session_id}")
            found[record["revisionIndex"]] = record
    return found


def _usable(record: Any) -> TypeGuard[dict[str, Any]]:
    if not isinstance(record, dict) or not isinstance(record.get("rootUserId"), str):
        return False
    index = record.get("revisionIndex")
    if isinstance(index, bool) or not isinstance(index, int) or index < 1:
        return False
    if record.get("type") == REVISION:
        return isinstance(record.get("messages"), list)
    return record.get("type") == REVISION_LIVE


def stored_messages(record: dict[str, Any]) -> list[dict[str, Any]]:
    """The messages of a ``revision`` line, as message dicts without ``type``."""
    return [{k: v for k, v in m.items() if k != "type"} for m in record.get("messages", []) if is_valid_message(m)]


# -- families -----------------------------------------------------------------------
def family_key(message: dict[str, Any]) -> str:
    meta = message.get("meta")
    root = meta.get("revisionRootId") if isinstance(meta, dict) else None
    return root if isinstance(root, str) and root else message["id"]


def find_root(messages: list[dict[str, Any]], key: str) -> int | None:
    """Position of the family's live root user message: the one with that id or that ``revisionRootId``."""
    for number, message in enumerate(messages):
        if message.get("role") == "user" and (message["id"] == key or family_key(message) == key):
            return number
    return None


@dataclass
class Row:
    index: int
    active: bool
    count: int
    created: int


@dataclass
class Family:
    key: str
    records: dict[int, dict[str, Any]]
    rows: dict[int, Row] = field(default_factory=dict)

    def indexes(self) -> set[int]:
        return set(self.records) | set(self.rows)

    def active_index(self) -> int | None:
        active = [row.index for row in self.rows.values() if row.active]
        return max(active) if active else None

    def next_index(self) -> int:
        return max(self.indexes(), default=0) + 1


def load_family(ctx: HostContext, session_id: str, key: str) -> Family:
    rows = all_rows(
        ctx.conn.execute(
            "SELECT revision_index, is_active, message_count, created_at FROM message_revisions "
            "WHERE session_id = ? AND root_user_id = ? ORDER BY revision_index",
            (session_id, key),
        )
    )
    return Family(
        key,
        read_family(ctx, session_id, key),
        {index: Row(index, bool(active), count, created) for index, active, count, created in rows},
    )


@dataclass
class RowChange:
    """An index row to write in the caller's transaction, after the file line is durable."""

    key: str
    index: int
    count: int
    active: bool


def apply(conn: apsw.Connection, session_id: str, changes: list[RowChange], now: int) -> None:
    """Upsert rows; a refresh keeps the row's ``created_at``; one active variant per family."""
    for change in changes:
        if change.active:
            conn.execute(
                "UPDATE message_revisions SET is_active = 0 WHERE session_id = ? AND root_user_id = ?",
                (session_id, change.key),
            )
        conn.execute(
            "INSERT INTO message_revisions(id, session_id, root_user_id, revision_index, is_active, message_count, "
            "created_at) VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT(session_id, root_user_id, revision_index) "
            "DO UPDATE SET is_active = excluded.is_active, message_count = excluded.message_count",
            (str(uuid.uuid4()), session_id, change.key, change.index, int(change.active), change.count, now),
        )


def reconcile(ctx: HostContext, session_id: str, messages: list[dict[str, Any]]) -> None:
    """Make the index rows agree with the files after an interrupted rewrite.

    The live roots' pager stamps say which variant is active; every stored
    ``revision`` line has a row with its message count. Runs inside the
    caller's transaction.
    """
    stamps = {}
    for message in messages:
        meta = object_at(message, "meta")
        if message.get("role") == "user" and isinstance(meta.get("activeRevision"), int):
            stamps[family_key(message)] = meta["activeRevision"]
    families: dict[str, dict[int, dict[str, Any]]] = {}
    try:
        data = path(ctx, session_id).read_bytes()
    except FileNotFoundError:
        data = b""
    for line in data.split(b"\n"):
        try:
            record = orjson.loads(line) if line.strip() else None
        except orjson.JSONDecodeError:
            continue
        if _usable(record):
            families.setdefault(record["rootUserId"], {})[record["revisionIndex"]] = record
    now = ctx.clock()
    for key in set(families) | set(stamps):
        active = stamps.get(key)
        ctx.conn.execute(
            "UPDATE message_revisions SET is_active = (revision_index = ?) WHERE session_id = ? AND root_user_id = ?",
            (active if active is not None else -1, session_id, key),
        )
        for index, record in families.get(key, {}).items():
            if record.get("type") != REVISION:
                continue
            apply(ctx.conn, session_id, [RowChange(key, index, len(stored_messages(record)), index == active)], now)


def restore_rows(ctx: HostContext, session_id: str) -> int:
    """A chat rebuilt from its transcript: a ``message_revisions`` row for every variant its revisions file
    names, active as the live root's pager stamp says, with the line's time; rows written."""
    try:
        data = path(ctx, session_id).read_bytes()
    except FileNotFoundError:
        return 0
    _header, _records, messages = read(ctx, session_id)
    families: dict[str, dict[int, dict[str, Any]]] = {}
    for line in data.split(b"\n"):
        try:
            record = orjson.loads(line) if line.strip() else None
        except orjson.JSONDecodeError:
            continue
        if _usable(record):
            families.setdefault(record["rootUserId"], {})[record["revisionIndex"]] = record
    written = 0
    with ctx.conn:
        for key, records in families.items():
            root = find_root(messages, key)
            meta = object_at(messages[root], "meta") if root is not None else {}
            active = meta.get("activeRevision")
            for index, record in records.items():
                if record["type"] == REVISION:
                    count = len(stored_messages(record))
                elif root is not None:
                    count = len(messages) - root
                else:
                    continue  # a live variant whose root is gone from the transcript
                ctx.conn.execute(
                    "INSERT OR IGNORE INTO message_revisions(id, session_id, root_user_id, revision_index, "
                    "is_active, message_count, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
                    (
                        str(uuid.uuid4()),
                        session_id,
                        key,
                        index,
                        int(index == active),
                        count,
                        message_index.created_ms(record, ctx.clock()),
                    ),
                )
                written += ctx.conn.changes()
    return written


def unstamped(message: dict[str, Any]) -> dict[str, Any]:
    """``message`` without the pager stamp, which is presentation, not branch content."""
    meta = message.get("meta")
    if not isinstance(meta, dict) or not any(name in meta for name in PAGER_FIELDS):
        return message
    rest = {k: v for k, v in meta.items() if k not in PAGER_FIELDS}
    if rest:
        return {**message, "meta": rest}
    return {k: v for k, v in message.items() if k != "meta"}  # the stamp was all it carried


def stamp(message: dict[str, Any], count: int, active: int) -> dict[str, Any]:
    meta = dict(message.get("meta") or {})
    meta["revisionCount"] = count
    meta["activeRevision"] = active
    return {**message, "meta": meta}


def stamp_edited_prompt(ctx: HostContext, session_id: str, message: dict[str, Any]) -> dict[str, Any]:
    """An edited prompt (a user line naming its ``revisionRootId``) is its family's next variant from the start.

    The stamp goes on with the line itself, so the pager shows from the moment
    the prompt is stored, and a reply that is stopped or fails never hides the
    variants already stored. A family with no stored variant, or one whose
    active variant is still live, is left as it is.
    """
    meta = message.get("meta")
    if message.get("role") != "user" or not isinstance(meta, dict) or any(name in meta for name in PAGER_FIELDS):
        return message
    root = meta.get("revisionRootId")
    if not isinstance(root, str) or not root:
        return message
    family = load_family(ctx, session_id, root)
    if not family.indexes() or family.active_index() is not None:
        return message
    following = family.next_index()
    return stamp(message, following, following)


def archive_branch(
    ctx: HostContext,
    session_id: str,
    key: str,
    branch: list[dict[str, Any]],
    now: int,
    family: Family,
    index: int | None = None,
) -> RowChange:
    """Store the live ``branch`` in full before it leaves the transcript; its row becomes inactive.

    It is written over the variant it is (the active one), or as a new variant
    when it was never archived, so no earlier variant is overwritten (D307).
    ``index`` names the variant instead, for a branch that is not the active one.
    """
    index = index or family.active_index() or family.next_index()
    content = [unstamped(m) for m in branch]
    stored = family.records.get(index)
    if stored is None or stored.get("type") != REVISION or [unstamped(m) for m in stored_messages(stored)] != content:
        append_line(
            ctx,
            session_id,
            {
                "type": REVISION,
                "rootUserId": key,
                "revisionIndex": index,
                "createdAt": message_index.rfc3339(now),
                "messages": [{"type": "message", **m} for m in content],
                "turns": _turn_links(ctx.conn, session_id, [m["id"] for m in branch]),
            },
        )
    return RowChange(key, index, len(branch), active=False)


def _turn_links(conn: apsw.Connection, session_id: str, ids: list[str]) -> dict[str, str]:
    if not ids:
        return {}
    rows = all_rows(
        conn.execute(
            "SELECT id, turn_id FROM messages WHERE session_id = ? AND turn_id IS NOT NULL "
            "AND id IN (SELECT value FROM json_each(?))",
            (session_id, orjson.dumps(ids).decode()),
        )
    )
    return dict(rows)


def live(
    ctx: HostContext, session_id: str, key: str
) -> tuple[dict[str, Any] | None, list[dict[str, Any]], list[dict[str, Any]], int | None]:
    """Header, records, messages and the family's root position in the live transcript."""
    header, records, messages = read(ctx, session_id)
    return header, records, messages, find_root(messages, key)


def no_root(session_id: str, key: str) -> HostError:
    return HostError(
        ErrorCode.NOT_FOUND,
        f"Session {session_id} has no user message {key!r} (or one whose revisionRootId is {key!r}).",
    )


# -- session.saveActiveRevision ----------------------------------------------------------
@command("session.saveActiveRevision", emits=[topics.SESSION_CHANGED])
def save_active_revision(ctx: HostContext, p: Params) -> dict[str, Any]:
    session_id = sessions.session_id_param(p)
    requested = p.text("rootUserId", nonempty=True)
    sessions.require(ctx.conn, session_id)
    # Re-read at write time, so lines appended since the turn ended survive the stamp.
    header, records, messages, root = live(ctx, session_id, requested)
    if root is None:
        raise no_root(session_id, requested)
    key = family_key(messages[root])
    family = load_family(ctx, session_id, key)
    index = family.active_index() or family.next_index()
    now = ctx.clock()
    append_line(
        ctx,
        session_id,
        {"type": REVISION_LIVE, "rootUserId": key, "revisionIndex": index, "createdAt": message_index.rfc3339(now)},
    )
    count = len(messages) - root
    _stamp_root_line(ctx, session_id, header, records, messages[root]["id"], max(family.indexes() | {index}), index)
    with ctx.conn:
        apply(ctx.conn, session_id, [RowChange(key, index, count, active=True)], now)
    ctx.emit(
        topics.SESSION_CHANGED,
        {
            "sessionId": session_id,
            "reason": "revision",
            "rootUserId": key,
            "revisionIndex": index,
            "session": sessions.summary(ctx.conn, session_id),
        },
    )
    return {"revision": {"rootUserId": key, "revisionIndex": index, "messageCount": count, "isActive": True}}


def _stamp_root_line(
    ctx: HostContext,
    session_id: str,
    header: dict[str, Any] | None,
    records: list[dict[str, Any]],
    root_id: str,
    count: int,
    active: int,
) -> None:
    """Rewrite only the root's own line; every other record is carried over as read."""
    updated = []
    for record in records:
        if record.get("type") == "message" and record["id"] == root_id:
            stamped = stamp(record, count, active)
            if stamped == record:
                return
            record = stamped
        updated.append(record)
    ctx.transcripts.rewrite(session_id, updated, header)


# -- session.listRevisions ----------------------------------------------------------------
@command("session.listRevisions", emits=[])
def list_revisions(ctx: HostContext, p: Params) -> dict[str, Any]:
    session_id = sessions.session_id_param(p)
    requested = p.text("rootUserId", nonempty=True)
    sessions.require(ctx.conn, session_id)
    _header, _records, messages, root = live(ctx, session_id, requested)
    key = family_key(messages[root]) if root is not None else requested
    family = load_family(ctx, session_id, key)
    live_count = len(messages) - root if root is not None else 0
    listed = []
    for index in sorted(family.indexes()):
        row = family.rows.get(index)
        if row is not None:
            listed.append(
                {"revisionIndex": index, "messageCount": row.count, "isActive": row.active, "createdAt": row.created}
            )
            continue
        # A line whose index commit never landed: described from the file alone.
        record = family.records[index]
        count = len(stored_messages(record)) if record["type"] == REVISION else live_count
        listed.append(
            {
                "revisionIndex": index,
                "messageCount": count,
                "isActive": False,
                "createdAt": message_index.created_ms(record, 0),
            }
        )
    return {"rootUserId": key, "revisions": listed}
