"""History edits of a live transcript: ``session.truncateFrom``, ``session.replaceMessages``, ``session.deleteMessage``,
``session.activateRevision``.

All end in the same rewrite (spec 004, section 5): the transcript file is
replaced atomically (temp + rename) keeping every checkpoint whose
``throughMessageId`` still exists, then one index transaction brings the
session's message rows in step and reseats ``last_seq``. A branch that leaves
the transcript is archived in the revisions file before the rewrite, never after.
"""

from __future__ import annotations

import threading
import uuid
from collections.abc import Callable
from typing import Any

import apsw
import orjson

from pidesktop.bus import topics
from pidesktop.bus.errors import ErrorCode, HostError
from pidesktop.formats.index.sql_rows import all_rows
from pidesktop.host import kv
from pidesktop.host.commands import command
from pidesktop.host.context import HostContext
from pidesktop.host.json_values import object_at
from pidesktop.host.params import Params, invalid
from pidesktop.host.sessions import commands as sessions
from pidesktop.host.sessions import inflight, message_index, revisions, session_rows, turn_rows
from pidesktop.host.sessions.messages import message_param
from pidesktop.host.sessions.revisions import MESSAGE
from pidesktop.host.sessions.revisions import read as read  # the live transcript; also read from here
from pidesktop.host.sessions.revisions import strip_type as strip_type

COMPACTION = "compaction"


# -- the shared rewrite -------------------------------------------------------------------
def as_record(message: dict[str, Any]) -> dict[str, Any]:
    return {"type": MESSAGE, **strip_type(message)}


def position(messages: list[dict[str, Any]], message_id: str) -> int | None:
    for number, message in enumerate(messages):
        if message["id"] == message_id:
            return number
    return None


def place_checkpoints(messages: list[dict[str, Any]], old_records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """``messages`` as transcript records with the still-valid checkpoints of ``old_records`` in between.

    A checkpoint whose ``throughMessageId`` is gone is dropped. A kept one stays
    after the message it followed in the old file, never before its own anchor,
    and the chain keeps its order (the newest checkpoint is the active one).
    """
    at = {message["id"]: number for number, message in enumerate(messages)}
    slots: dict[int, list[dict[str, Any]]] = {}
    previous = None
    floor = -1
    for record in old_records:
        kind = record.get("type")
        if kind == MESSAGE:
            previous = record["id"]
        elif kind == COMPACTION:
            anchor = record.get("throughMessageId")
            if anchor is not None and anchor not in at:
                continue
            slot = max(at.get(previous, -1), at.get(anchor, -1) if anchor is not None else -1, floor)
            floor = slot
            slots.setdefault(slot, []).append(record)
    placed = list(slots.get(-1, []))
    for number, message in enumerate(messages):
        placed.append(as_record(message))
        placed += slots.get(number, [])
    return placed


PENDING_NS = "rewrite"  # kv namespace of rewrites whose index transaction has not committed yet


def rewrite(
    ctx: HostContext,
    session_id: str,
    header: dict[str, Any] | None,
    messages: list[dict[str, Any]],
    old_records: list[dict[str, Any]],
    now: int,
    in_transaction: Callable[[apsw.Connection], None] | None = None,
) -> int:
    """The transcript becomes ``messages`` (checkpoints placed from ``old_records``); returns the new count."""
    return commit_rewrite(
        ctx,
        session_id,
        header,
        now,
        lambda new_header: ctx.transcripts.rewrite(session_id, place_checkpoints(messages, old_records), new_header),
        lambda conn: message_index.rebuild(conn, session_id, [strip_type(m) for m in messages], now),
        in_transaction,
    )


def commit_rewrite(
    ctx: HostContext,
    session_id: str,
    header: dict[str, Any] | None,
    now: int,
    write_file: Callable[[dict[str, Any]], None],
    reindex: Callable[[apsw.Connection], int],
    in_transaction: Callable[[apsw.Connection], None] | None = None,
    *,
    reindex_reads_file: bool = True,
) -> int:
    """File first (atomic), then one index transaction; returns the new message count.

    ``write_file(header)`` replaces the transcript with ``header`` as its first
    line; ``reindex(conn)`` brings the message rows in step with the new file
    and returns the count. A crash between the rename and the index commit
    would leave the index (and the revision rows) describing the old file. So
    a marker naming this rewrite is committed first and the new header carries
    the same id; the boot pass finds the marker, sees which file is in place,
    and finishes the job.

    When ``reindex`` does not read the new file (``reindex_reads_file=False``),
    the file is written on a short-lived thread while the index transaction
    does its work, and the transaction commits only once the file is in place:
    the order on disk is the same, the two costs overlap instead of adding up.
    """
    rewrite_id = uuid.uuid4().hex
    header = (
        dict(header)
        if header
        else {"type": "session", "schema": 2, "sessionId": session_id, "createdAt": message_index.rfc3339(now)}
    )
    header["rewriteId"] = rewrite_id
    with ctx.conn:
        kv.put(ctx.conn, PENDING_NS, session_id, {"rewriteId": rewrite_id}, now)
    if reindex_reads_file:
        write_file(header)
        file_written = None
    else:
        file_written = _alongside(write_file, header)
    with ctx.conn:
        try:
            count = reindex(ctx.conn)
            ctx.conn.execute("UPDATE sessions SET updated_at = ? WHERE id = ?", (now, session_id))
            if in_transaction is not None:
                in_transaction(ctx.conn)
            kv.delete(ctx.conn, PENDING_NS, session_id)
        finally:
            if file_written is not None:
                file_written()  # joins; a failed write raises here and the transaction rolls back
    return count


def _alongside(fn: Callable[..., None], *args: Any) -> Callable[[], None]:
    """Start ``fn(*args)`` on a thread; the returned function waits for it and re-raises its failure."""
    failure: list[BaseException] = []

    def run() -> None:
        try:
            fn(*args)
        except BaseException as error:
            failure.append(error)

    worker = threading.Thread(target=run, name="pidesktop-rewrite", daemon=True)
    worker.start()

    def wait() -> None:
        worker.join()
        if failure:
            raise failure[0]

    return wait


def finish_interrupted(ctx: HostContext, now: int) -> int:
    """Boot: complete rewrites that crashed between their file rename and their index commit."""
    finished = 0
    for session_id, value in all_rows(ctx.conn.execute("SELECT key, value_json FROM kv WHERE ns = ?", (PENDING_NS,))):
        marker = orjson.loads(value)
        try:
            header, _records, messages = read(ctx, session_id)
        except Exception:  # an unreadable transcript: leave the old index, drop the marker
            header, messages = None, []
        with ctx.conn:
            if (
                header is not None
                and header.get("rewriteId") == marker.get("rewriteId")
                and ctx.conn.execute("SELECT 1 FROM sessions WHERE id = ?", (session_id,)).fetchone()
            ):
                message_index.rebuild(ctx.conn, session_id, messages, now)
                revisions.reconcile(ctx, session_id, messages)
                finished += 1
            kv.delete(ctx.conn, PENDING_NS, session_id)
    return finished


def changed(ctx: HostContext, session_id: str) -> None:
    ctx.emit(
        topics.SESSION_CHANGED,
        {"sessionId": session_id, "reason": "history", "session": sessions.summary(ctx.conn, session_id)},
    )


# -- session.truncateFrom ----------------------------------------------------------------
@command("session.truncateFrom", emits=[topics.SESSION_CHANGED, topics.TURN_CHANGED])
def truncate_from(ctx: HostContext, p: Params) -> dict[str, Any]:
    session_id = sessions.session_id_param(p)
    message_id = p.text("messageId", nonempty=True)
    sessions.require(ctx.conn, session_id)
    header, records, messages = read(ctx, session_id)
    cut = position(messages, message_id)
    if cut is None:
        # Spec 004 section 5: a cut is named by identity; never guess a position.
        raise HostError(ErrorCode.NOT_FOUND, f"Session {session_id} has no message {message_id!r}.")
    now = ctx.clock()
    aborted = _abort_running_turns(ctx, session_id, now)

    kept = messages[:cut]
    archived: list[revisions.RowChange] = []
    root = _family_root(messages, cut)
    if root is not None:
        key = revisions.family_key(messages[root])
        family = revisions.load_family(ctx, session_id, key)
        change = revisions.archive_branch(ctx, session_id, key, messages[root:], now, family)
        archived.append(change)
        if root < cut:
            # Regenerate: the root stays and the reply about to come is the
            # family's next variant, so a later archive never lands on an old one.
            following = max(family.indexes() | {change.index}) + 1
            kept[root] = revisions.stamp(kept[root], following, following)

    count = rewrite(
        ctx, session_id, header, kept, records, now, lambda conn: revisions.apply(conn, session_id, archived, now)
    )
    inflight.remove(ctx, session_id)
    for turn_id in aborted:
        session_rows.record_current(ctx, session_id, "turns", turn_id)  # its end, for a rebuild
        ctx.emit(topics.TURN_CHANGED, {"sessionId": session_id, "turn": turn_rows.load(ctx.conn, session_id, turn_id)})
    changed(ctx, session_id)
    return {"messageCount": count}


def _family_root(messages: list[dict[str, Any]], cut: int) -> int | None:
    """The user message a cut belongs to: the cut itself (edit) or the last user message before it (regenerate)."""
    for number in range(cut, -1, -1):
        if messages[number].get("role") == "user":
            return number
    return None


def _abort_running_turns(ctx: HostContext, session_id: str, now: int) -> list[str]:
    with ctx.conn:
        rows = all_rows(
            ctx.conn.execute(
                "UPDATE turns SET status = 'aborted', ended_at = ? "
                "WHERE session_id = ? AND status = 'running' RETURNING id",
                (now, session_id),
            )
        )
    return [row[0] for row in rows]


# -- session.replaceMessages ---------------------------------------------------------------
@command("session.replaceMessages", emits=[topics.SESSION_CHANGED])
def replace_messages(ctx: HostContext, p: Params) -> dict[str, Any]:
    session_id = sessions.session_id_param(p)
    new_messages = messages_param(p)
    sessions.require(ctx.conn, session_id)
    now = ctx.clock()
    for message in new_messages:
        message.setdefault("createdAt", message_index.rfc3339(now))
    header, records, old_messages = read(ctx, session_id)
    archived = archive_dropped_live_branches(ctx, session_id, old_messages, new_messages, now)
    count = rewrite(
        ctx,
        session_id,
        header,
        new_messages,
        records,
        now,
        lambda conn: revisions.apply(conn, session_id, archived, now),
    )
    changed(ctx, session_id)
    return {"messageCount": count}


def messages_param(p: Params) -> list[dict[str, Any]]:
    """``messages`` as records, each checked like ``session.appendMessage`` checks its message."""
    raw = p.array("messages")
    checked = []
    seen: dict[str, int] = {}
    for number, item in enumerate(raw):
        field = f"messages[{number}]"
        message = message_param(Params(p.method, {field: item}), field)
        if message["id"] in seen:
            raise invalid(
                f"{p.method}: '{field}.id' repeats the id of 'messages[{seen[message['id']]}]': {message['id']!r}.",
                f"{field}.id",
            )
        seen[message["id"]] = number
        checked.append(message)
    return checked


def archive_dropped_live_branches(
    ctx: HostContext, session_id: str, old: list[dict[str, Any]], new: list[dict[str, Any]], now: int
) -> list[revisions.RowChange]:
    """Store, in full, every archived family's live branch whose root message the rewrite deletes.

    Its ``revision_live`` line could no longer be resolved once the root is
    gone (spec 004, section 2.1). Families never archived have nothing to strand.
    """
    keep = {message["id"] for message in new}
    done: set[str] = set()
    changes = []
    for number, message in enumerate(old):
        if message.get("role") != "user" or message["id"] in keep:
            continue
        key = revisions.family_key(message)
        if key in done or revisions.find_root(old, key) != number:
            continue
        done.add(key)
        family = revisions.load_family(ctx, session_id, key)
        if not family.indexes():
            continue
        changes.append(revisions.archive_branch(ctx, session_id, key, old[number:], now, family))
    return changes


# -- session.deleteMessage -----------------------------------------------------------------
REPLY_BATCH = 64  # messages read per step while looking for the end of a deleted prompt's reply


@command("session.deleteMessage", emits=[topics.SESSION_CHANGED])
def delete_message(ctx: HostContext, p: Params) -> dict[str, Any]:
    """Take one message out of the transcript; a user message takes the reply it started with it.

    That reply (every message after the prompt up to the next user message) is
    what the prompt's turn produced, and without its prompt it would read as an
    answer to the message before. The prompt and its reply are stored in full
    as a ``revision`` of the prompt's family before they leave (over the
    family's active variant, else as a new inactive one), so nothing the
    person got back is lost and no ``revision_live`` line is stranded (spec
    004, section 2.1). The transcript is rewritten in one streaming pass; the
    index loses the removed rows and closes the gap.
    """
    session_id = sessions.session_id_param(p)
    message_id = p.text("messageId", nonempty=True)
    sessions.require(ctx.conn, session_id)
    layout = ctx.transcripts.layout(session_id)
    position = layout.last_position(message_id) if layout is not None else None
    if layout is None or position is None:
        raise HostError(ErrorCode.NOT_FOUND, f"Session {session_id} has no message {message_id!r}.")
    removed, compactions = _prompt_and_reply(ctx, session_id, position)
    gone = {message["id"] for message in removed}
    # A checkpoint whose boundary leaves (or had already left) goes too, as in every rewrite.
    dropped = {
        record["id"]
        for record in compactions
        if record.get("throughMessageId") is not None
        and (record["throughMessageId"] in gone or layout.last_position(record["throughMessageId"]) is None)
    }
    in_step = message_index.in_step(ctx.conn, session_id, layout.visible_count())
    header = ctx.transcripts.header(session_id)
    now = ctx.clock()

    archived: list[revisions.RowChange] = []
    if removed[0].get("role") == "user":
        root = removed[0]
        key = revisions.family_key(root)
        family = revisions.load_family(ctx, session_id, key)
        if len(removed) > 1 or family.indexes():
            # Another live message opening the family holds its active variant: this branch is a new one.
            elsewhere = key != root["id"] and layout.last_position(key) is not None
            archived.append(
                revisions.archive_branch(
                    ctx, session_id, key, removed, now, family, family.next_index() if elsewhere else None
                )
            )

    def reindex(conn: apsw.Connection) -> int:
        if in_step:
            return message_index.remove(conn, session_id, sorted(gone))
        # The index had already drifted from the file (a lost commit): rebuild it whole, which heals it.
        fresh = ctx.transcripts.read_all(session_id)
        return message_index.rebuild(conn, session_id, [strip_type(m) for _, m in fresh.messages], now)

    count = commit_rewrite(
        ctx,
        session_id,
        header,
        now,
        lambda new_header: ctx.transcripts.rewrite_dropping(session_id, gone, dropped, new_header),
        reindex,
        lambda conn: revisions.apply(conn, session_id, archived, now),
        reindex_reads_file=not in_step,
    )
    changed(ctx, session_id)
    revision = None
    if archived:
        change = archived[0]
        revision = {
            "rootUserId": change.key,
            "revisionIndex": change.index,
            "messageCount": change.count,
            "isActive": False,
        }
    return {"messageCount": count, "removedMessageIds": [message["id"] for message in removed], "revision": revision}


def _prompt_and_reply(
    ctx: HostContext, session_id: str, position: int
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The message at ``position`` plus, for a user message, the reply after it; and every checkpoint.

    Read through the layout a few lines at a time, never the whole history.
    """
    window = ctx.transcripts.window(session_id, start=position, limit=REPLY_BATCH)
    compactions = window.compactions
    if not window.messages or window.messages[0][0] != position:  # the line is not a readable record
        raise HostError(ErrorCode.NOT_FOUND, f"Session {session_id} has no readable message at position {position}.")
    removed = [strip_type(window.messages[0][1])]
    if removed[0].get("role") != "user":
        return removed, compactions
    messages = window.messages[1:]
    while True:
        for _position, record in messages:
            if record.get("role") == "user":
                return removed, compactions
            removed.append(strip_type(record))
        if not window.has_more_after:
            return removed, compactions
        window = ctx.transcripts.window(session_id, start=window.end, limit=REPLY_BATCH)
        messages = window.messages


# -- session.activateRevision (a history rewrite that restores a stored branch) ---------------
@command("session.activateRevision", emits=[topics.SESSION_CHANGED])
def activate_revision(ctx: HostContext, p: Params) -> dict[str, Any]:
    session_id = sessions.session_id_param(p)
    requested = p.text("rootUserId", nonempty=True)
    index = p.integer("revisionIndex", minimum=1)
    sessions.require(ctx.conn, session_id)
    header, records, messages, root = revisions.live(ctx, session_id, requested)
    if root is None:
        raise revisions.no_root(session_id, requested)
    key = revisions.family_key(messages[root])
    family = revisions.load_family(ctx, session_id, key)
    target = family.records.get(index)
    if target is None:
        raise HostError(ErrorCode.NOT_FOUND, f"Session {session_id} has no revision {index} of {key!r}.")
    if family.active_index() == index:
        return {"messageCount": len(messages)}  # already the live branch
    if target["type"] == revisions.REVISION_LIVE:
        # A reference resolves only while its branch is live; this one is not.
        raise HostError(ErrorCode.NOT_FOUND, f"Revision {index} of {key!r} has no stored branch to restore.")
    branch = revisions.stored_messages(target)
    if not branch:
        raise HostError(ErrorCode.NOT_FOUND, f"Revision {index} of {key!r} holds no messages.")

    now = ctx.clock()
    leaving = revisions.archive_branch(ctx, session_id, key, messages[root:], now, family)
    count = max(family.indexes() | {leaving.index})
    branch[0] = revisions.stamp(branch[0], count, index)
    restored = _dedupe(messages[:root] + branch)
    links = object_at(target, "turns")

    def index_rows(conn: apsw.Connection) -> None:
        revisions.apply(conn, session_id, [leaving, revisions.RowChange(key, index, len(branch), active=True)], now)
        for message in branch:
            turn = (
                message_index.valid_turn(conn, session_id, links.get(message["id"]))
                if isinstance(links.get(message["id"]), str)
                else None
            )
            if turn is not None:
                conn.execute(
                    "UPDATE messages SET turn_id = ? WHERE id = ? AND session_id = ?", (turn, message["id"], session_id)
                )

    total = rewrite(ctx, session_id, header, restored, records, now, index_rows)
    changed(ctx, session_id)
    return {"messageCount": total}


def _dedupe(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Keep-last by id, as a transcript reader would."""
    last = {message["id"]: number for number, message in enumerate(messages)}
    return [message for number, message in enumerate(messages) if last[message["id"]] == number]
