"""``session.editReply``: an assistant reply edited in a fork (spec 004, section 4.5, "Assistant Edit").

The source chat is never rewritten: its transcript and revisions are only
read. The edit happens in a message-scoped fork through the reply. In that
child, the branch rooted at the prompt the reply answers is stored twice in the
child's own ``message_revisions``: variant 1 is the original reply (a full
``revision`` line), variant 2 is the edited one (live, active), so the pager on
the prompt switches between them like regenerated variants.
"""

from __future__ import annotations

import uuid
from typing import Any

from pidesktop.bus import topics
from pidesktop.bus.errors import ErrorCode, HostError
from pidesktop.formats.transcript.records import is_valid_message
from pidesktop.host.commands import command
from pidesktop.host.context import HostContext
from pidesktop.host.native import reading as native_reading
from pidesktop.host.params import Params, invalid
from pidesktop.host.sessions import commands as sessions
from pidesktop.host.sessions import history, message_index, revisions
from pidesktop.host.sessions.fork import announce_fork, copy_session

ORIGINAL, EDITED = 1, 2


@command("session.editReply", emits=[topics.SESSION_CHANGED])
def edit_reply(ctx: HostContext, p: Params) -> dict[str, Any]:
    source_id = sessions.session_id_param(p)
    message_id = p.text("messageId", nonempty=True)
    text = p.text("text", nonempty=True)
    if not text.strip():
        raise invalid("session.editReply: text must not be blank.", "text")
    if native_reading.is_native(source_id):
        raise HostError(ErrorCode.PERMISSION_DENIED, "A pi session's replies cannot be edited here; fork it first.")
    sessions.require(ctx.conn, source_id)
    _header, _records, messages = history.read(ctx, source_id)
    at = history.position(messages, message_id)
    if at is None:
        raise HostError(ErrorCode.NOT_FOUND, f"Session {source_id} has no message {message_id!r}.")
    _check_reply(messages, at)

    child_id = copy_session(ctx, source_id, message_id)
    try:
        _edit_last_reply(ctx, child_id, text)
    except BaseException:
        with ctx.conn:
            ctx.conn.execute("DELETE FROM sessions WHERE id = ?", (child_id,))
        sessions.remove_session_files(ctx, child_id)
        raise
    return {"session": announce_fork(ctx, child_id, source_id)}


def _check_reply(messages: list[dict[str, Any]], at: int) -> None:
    message = messages[at]
    meta = message.get("meta")
    if message.get("role") != "assistant" or (isinstance(meta, dict) and meta.get("parentToolCallId")):
        raise invalid("session.editReply: messageId must name an assistant reply of this chat.", "messageId")
    if not any(m.get("role") == "user" for m in messages[:at]):
        raise invalid("session.editReply: messageId must name a reply that answers a prompt.", "messageId")


def _edit_last_reply(ctx: HostContext, child_id: str, text: str) -> None:
    header, records, messages = history.read(ctx, child_id)
    root = max(n for n, m in enumerate(messages) if m.get("role") == "user")
    key = revisions.family_key(messages[root])  # the child's own id: a fork drops revision stamps
    now = ctx.clock()
    family = revisions.load_family(ctx, child_id, key)
    original = revisions.archive_branch(ctx, child_id, key, messages[root:], now, family, index=ORIGINAL)
    edited = [*messages[:-1], edited_reply(messages[-1], text)]
    edited[root] = revisions.stamp(edited[root], EDITED, EDITED)
    branch_length = len(edited) - root
    revisions.append_line(
        ctx,
        child_id,
        {
            "type": revisions.REVISION_LIVE,
            "rootUserId": key,
            "revisionIndex": EDITED,
            "createdAt": message_index.rfc3339(now),
        },
    )
    live = revisions.RowChange(key, EDITED, branch_length, active=True)
    history.rewrite(
        ctx, child_id, header, edited, records, now, lambda conn: revisions.apply(conn, child_id, [original, live], now)
    )


def edited_reply(message: dict[str, Any], text: str) -> dict[str, Any]:
    """The reply with ``text`` in place of its text blocks (where the first one was); other blocks stay."""
    blocks: list[dict[str, Any]] = []
    placed = False
    for block in message.get("blocks") or []:
        if isinstance(block, dict) and block.get("type") == "text":
            if not placed:
                blocks.append({"type": "text", "text": text})
                placed = True
            continue
        blocks.append(block)
    if not placed:
        blocks.append({"type": "text", "text": text})
    reply = {**message, "id": str(uuid.uuid4()), "blocks": blocks}
    if not is_valid_message(reply):
        raise HostError(ErrorCode.INVALID_PARAMS, "The edited reply is not a valid message.")
    return reply
