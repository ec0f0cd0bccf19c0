"""Steering a running turn and smart Stop (spec 004 section 5, SR-1, W.20).

A prompt sent *into* a running turn waits in the host's queue (durable, like
any queued prompt: a crash keeps it as a queued prompt), and the turn's next
request round takes it: it is stored as a user line with ``meta.steering``
right after the round's reply and goes to the model with it. A reply that
ends without calling tools is asked once more when steering waits, so a
steering prompt never waits for a turn of its own.

Stop takes back what no reply has answered yet: the prompts stored in this
turn after the last reply that has content (the turn's own prompt when
nothing arrived, else the steering prompts the next round carried), and the
steering prompts still waiting in the queue. They leave the transcript and
the queue and go back into the composer. That is the only rewrite Stop makes;
a prompt with any reply text keeps it.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from pidesktop.bus import HostClient, HostError

log = logging.getLogger("pidesktop.agent.steering")


@dataclass
class Steering:
    waiting: list[dict[str, Any]] = field(default_factory=list)  # queue entries the next round takes
    unanswered: list[dict[str, Any]] = field(default_factory=list)  # stored prompts no reply has answered yet

    def answered(self) -> None:
        """A reply with content was stored: the prompts before it stay whatever happens now."""
        self.unanswered = []


async def take(
    client: HostClient,
    session_id: str,
    turn_id: str,
    steering: Steering,
    prompt_of: Callable[[dict[str, Any]], dict[str, Any]],
) -> list[dict[str, Any]]:
    """Store the waiting steering prompts as user lines of the turn; they leave the queue with their lines.

    ``prompt_of`` makes a queue entry's user message, the same one a queued prompt would get.
    """
    # A steering prompt removed from the queue meanwhile (the queue strip's Remove) is not sent.
    queued = (await client.call("session.queueList", {"sessionId": session_id}))["entries"]
    still = {entry["id"] for entry in queued}
    steering.waiting = [entry for entry in steering.waiting if entry["id"] in still]
    stored: list[dict[str, Any]] = []
    while steering.waiting:
        entry = steering.waiting.pop(0)
        message = prompt_of(entry)
        message["meta"] = {**(message.get("meta") or {}), "steering": True}
        await client.call(
            "session.appendMessage",
            {"sessionId": session_id, "message": message, "turnId": turn_id, "queueEntryId": entry["id"]},
        )
        stored.append(message)
    steering.unanswered = [*steering.unanswered, *stored]
    return stored


async def withdraw(client: HostClient, session_id: str, steering: Steering) -> tuple[dict[str, Any] | None, bool]:
    """Take back the unanswered prompts and the waiting steering ones: (their draft or None, transcript rewritten)."""
    texts: list[str] = []
    attachments: list[dict[str, Any]] = []
    rewritten = False
    for message in steering.unanswered:
        if (message.get("meta") or {}).get("revisionRootId"):
            continue  # an edited prompt replaced an earlier one: taking it back would lose both
        await client.call("session.deleteMessage", {"sessionId": session_id, "messageId": message["id"]})
        rewritten = True
        _collect(message["blocks"], texts, attachments)
    steering.unanswered = []
    for entry in steering.waiting:
        try:
            await client.call("session.queueRemove", {"sessionId": session_id, "entryId": entry["id"]})
        except HostError as exc:  # already gone (sent or removed elsewhere): nothing to give back
            log.info("steering prompt %s left the queue already: %s", entry["id"], exc)
            continue
        texts.append(str(entry.get("content") or ""))
        attachments.extend(entry.get("attachments") or [])
    steering.waiting = []
    text = "\n\n".join(t for t in texts if t.strip())
    if not text and not attachments:
        return None, rewritten
    return {"text": text, "attachments": attachments}, rewritten


def _collect(blocks: list[dict[str, Any]], texts: list[str], attachments: list[dict[str, Any]]) -> None:
    texts.append("".join(str(b.get("text") or "") for b in blocks if b.get("type") == "text"))
    attachments.extend(b for b in blocks if b.get("type") == "attachment")
