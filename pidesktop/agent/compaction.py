"""Compaction: the oldest part of a long chat becomes one summary, so the next request fits the model.

A compaction makes ONE model call: an instruction, then (as one user message)
the previous checkpoint's summary followed by the messages that must go,
written out as a plain transcript. The request itself never exceeds the
window: when the part to drop is larger than one request can carry, only its
newest messages that fit are summarised, and the summary says that older
history was left out. The result is a checkpoint line (spec 004 section 2.1)
the runner appends with ``session.appendCompaction``; a failed or stopped
summary call writes nothing.

The transcript itself keeps every message: the checkpoint changes only what
the model is sent (the summary, then the messages from ``firstKeptMessageId``).
"""

from __future__ import annotations

import asyncio
import contextlib
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import orjson

from pidesktop.agent import context as budget
from pidesktop.agent.errors import ProviderError
from pidesktop.agent.events import TextDelta
from pidesktop.agent.provider import ChatProvider
from pidesktop.bus.errors import ErrorCode

PURPOSE = "compaction"  # meta.purpose of the instruction, so the offline demo knows what is asked
FAMILY = "pidesktop-summary"
COMMAND = "/compact"

INSTRUCTION = (
    "You are compacting a long conversation so it can continue within a limited context window. "
    "Write a summary that replaces the conversation below for the assistant that continues it. Keep: "
    "what the person wants and why; decisions made and their reasons; facts, names, numbers, file paths, "
    "code and commands that still matter; open questions and unfinished work; the person's preferences "
    "and corrections. Drop greetings, repetition and anything already resolved and no longer needed. "
    "If an earlier summary is given, merge it in: the result must stand alone. If the text says older "
    "history was left out, say so in one sentence at the start of the summary. Write plain Markdown with "
    "short sections and bullet points, in the language of the conversation. Reply with the summary only."
)
LEFT_OUT = (
    "(Older history of this chat was left out: it did not fit in one summary request. "
    "Only the messages below were summarised.)"
)
SUMMARY_HEADER = "Summary of the earlier part of this conversation (the messages it replaces are not shown):"
MESSAGE_CHARS_MAX = 20_000  # one message in the summary input, before the budget trims further


class CompactionAborted(Exception):
    """Stop was pressed while the summary was being written: nothing is stored."""


@dataclass(frozen=True)
class Plan:
    """What one compaction does, worked out from the messages after the active checkpoint."""

    summarise: list[dict[str, Any]]  # the messages that go into the summary request
    through: dict[str, Any]  # the last message the checkpoint replaces (the durable boundary)
    first_kept: dict[str, Any]  # the first message sent word for word afterwards
    left_out: bool  # some of the messages that must go did not fit in the request
    tokens_before: int  # the estimated context before the compaction


def plan(
    messages: Sequence[dict[str, Any]],
    tokens: Sequence[int],
    *,
    window: int,
    previous_summary: str = "",
    complete: bool = True,
    tokens_before: int | None = None,
    last_exchange: bool = False,
    request_window: int | None = None,
) -> Plan | None:
    """The compaction for ``messages`` (model-visible, oldest first), or None when nothing can go.

    ``complete`` is False when the messages read do not reach back to the
    previous checkpoint (or the chat's start): whatever lies before them is
    left out by construction.
    """
    if len(messages) < 2:
        return None
    start = budget.tail_start(messages, tokens, budget.tail_target(window), last_exchange=last_exchange)
    if start <= 0:
        return None
    room = (
        budget.input_budget(request_window or window)
        - budget.estimate([instruction_message()])
        - budget.tokens_for_chars(len(previous_summary) + len(LEFT_OUT) + 200)
    )
    rendered = [budget.tokens_for_chars(min(len(render(m)), MESSAGE_CHARS_MAX) + 2) for m in messages[:start]]
    first = budget.newest_that_fit(rendered, max(room, 0))
    if first >= start:  # not even the newest message that must go fits whole: send its end, trimmed
        first = start - 1
    chosen = list(messages[first:start])
    return Plan(
        summarise=chosen,
        through=messages[start - 1],
        first_kept=messages[start],
        left_out=first > 0 or not complete,
        tokens_before=tokens_before if tokens_before is not None else sum(tokens),
    )


def instruction_message() -> dict[str, Any]:
    return {
        "id": "compaction:instruction",
        "role": "system",
        "blocks": [{"type": "text", "text": INSTRUCTION}],
        "meta": {"purpose": PURPOSE},
    }


def request(plan: Plan, previous_summary: str, window: int) -> list[dict[str, Any]]:
    """The summary request: the instruction, then one user message holding what is summarised."""
    parts = []
    if plan.left_out:
        parts.append(LEFT_OUT)
    if previous_summary:
        parts.append("Earlier summary:\n" + previous_summary)
    head = "\n\n".join(parts)
    room_chars = (
        (budget.input_budget(window) - budget.estimate([instruction_message()]) - 2 * budget.MESSAGE_OVERHEAD)
        * budget.CHARS_PER_TOKEN
        - len(head)
        - 64
    )
    lines = [render(message)[:MESSAGE_CHARS_MAX] for message in plan.summarise]
    # the newest lines win when the estimate was short; the oldest one is trimmed from its start
    kept: list[str] = []
    used = 0
    for line in reversed(lines):
        if used + len(line) + 2 > room_chars:
            rest = room_chars - used - 2
            if rest > 200 or not kept:
                kept.append("…" + line[len(line) - max(rest, 0) :])
            break
        kept.append(line)
        used += len(line) + 2
    text = "\n\n".join(part for part in (head, "Conversation:", "\n\n".join(reversed(kept))) if part)
    return [
        instruction_message(),
        {"id": "compaction:input", "role": "user", "blocks": [{"type": "text", "text": text}]},
    ]


def render(message: dict[str, Any]) -> str:
    """A message as one plain-text transcript entry."""
    role = message.get("role") or "unknown"
    pieces = []
    for block in message.get("blocks") or []:
        if not isinstance(block, dict):
            continue
        kind = block.get("type")
        if kind == "text" and block.get("text"):
            pieces.append(block["text"])
        elif kind == "attachment":
            text = block.get("text")
            pieces.append(f"[attachment: {block.get('name') or 'unnamed'}]" + (f"\n{text}" if text else ""))
        elif kind == "tool_call":
            args = block.get("args")
            pieces.append(f"[tool call {block.get('name') or ''}: {_short(args)}]")
            if block.get("result") is not None:
                pieces.append(f"[tool result: {_short(block.get('result'))}]")
    return f"{role}: " + "\n".join(pieces)


def _short(value: Any, limit: int = 2000) -> str:
    text = value if isinstance(value, str) else orjson.dumps(value, default=str).decode()
    return text if len(text) <= limit else text[:limit] + "…"


async def summarise(provider: ChatProvider, messages: list[dict[str, Any]], cancel: asyncio.Event | None) -> str:
    """Ask the model for the summary; ``ProviderError(compaction_failed)`` or ``CompactionAborted``."""
    pieces: list[str] = []
    try:
        events = provider.stream(messages, thinking_level="off", cancel=cancel)
        async with contextlib.aclosing(events):
            async for event in events:
                if isinstance(event, TextDelta):
                    pieces.append(event.text)
    except ProviderError as exc:
        raise ProviderError(
            ErrorCode.COMPACTION_FAILED,
            f"This chat is too long for the model and its older part could not be summarised: {exc.message}",
            exc.status,
        ) from exc
    except asyncio.CancelledError:
        raise CompactionAborted() from None
    if cancel is not None and cancel.is_set():
        raise CompactionAborted()
    summary = "".join(pieces).strip()
    if not summary:
        raise ProviderError(
            ErrorCode.COMPACTION_FAILED,
            "This chat is too long for the model and its older part could not "
            "be summarised: the model returned an empty summary.",
        )
    return summary


def checkpoint(
    plan: Plan, summary: str, *, generation: int, provider_id: str, model_id: str, window: int, manual: bool
) -> dict[str, Any]:
    """The ``compaction`` record (spec 004 section 2.1) for ``session.appendCompaction``."""
    return {
        "id": f"cp-{uuid.uuid4()}",
        "summary": summary,
        "firstKeptMessageId": plan.first_kept["id"],
        "throughMessageId": plan.through["id"],
        "tokensBefore": int(plan.tokens_before),
        "providerId": provider_id,
        "modelId": model_id,
        "details": {
            "generation": generation,
            "family": FAMILY,
            "trigger": "manual" if manual else "auto",
            "summarisedMessages": len(plan.summarise),
            "olderHistoryLeftOut": plan.left_out,
            "contextWindow": window,
        },
    }


def summary_message(record: dict[str, Any]) -> dict[str, Any]:
    """The checkpoint's summary as the first (system) message of every later request."""
    return {
        "id": f"compaction:{record.get('id')}",
        "role": "system",
        "blocks": [{"type": "text", "text": f"{SUMMARY_HEADER}\n\n{record.get('summary') or ''}"}],
        "meta": {"compactionId": record.get("id")},
    }


# -- the offline demo's answer to a summary request ----------------------------------------


def is_summary_request(messages: Sequence[dict[str, Any]]) -> bool:
    return bool(messages) and (messages[0].get("meta") or {}).get("purpose") == PURPOSE


def demo_summary(messages: Sequence[dict[str, Any]]) -> str:
    """A deterministic summary: the size of what was summarised and the first line of each request."""
    text = "\n".join(
        block.get("text") or ""
        for message in messages[1:]
        for block in message.get("blocks") or []
        if isinstance(block, dict) and block.get("type") == "text"
    )
    asks = [line[len("user: ") :].strip() for line in text.splitlines() if line.startswith("user: ")]
    lines = ["## Summary (offline demo)", ""]
    if LEFT_OUT in text:
        lines += ["Older history was left out of this summary.", ""]
    if "Earlier summary:" in text:
        lines += ["An earlier summary is merged in.", ""]
    lines.append(f"The person asked {len(asks)} question{'s' if len(asks) != 1 else ''} in this part.")
    for ask in asks[-5:]:
        shown = ask if len(ask) <= 80 else ask[:79] + "…"
        lines.append(f"- {shown}")
    return "\n".join(lines)
