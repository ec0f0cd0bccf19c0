"""Continue a pi session in pidesktop: one prompt answered, then both written into the pi file itself.

The pi coding agent's own sessions are read-only to the app's chat commands;
this is the one way to add to one (docs/rpc.md, "Native pi sessions"):

1. read the session's current branch, windowed: the newest page (its
   compaction summary first when pi compacted it, then the messages pi
   kept, as pi's ``context_edit`` entries left them for the model: omitted
   or replaced), with the ``nativeToken`` naming the exact file state read;
2. stream the answer from the provider the app's own chats would use
   (the runner's choice: the chat's pick, else the default, else the
   offline demo), showing each snapshot as it arrives;
3. ``native.append`` the user message and the reply as pi entries, with the
   token read in 1. The host refuses (``CONFLICT``) when the file changed
   since, is not exact v3, or a live pi holds it; then nothing is written and
   the caller gives the prompt back.

Nothing is written before the reply is complete: a failed or empty answer
writes nothing either. A session whose working folder (the header's ``cwd``)
is not a folder here, or one the person has not trusted (``native.trust``),
is refused before the model is asked.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import uuid
from collections.abc import Callable
from typing import Any

from pidesktop.agent import compaction
from pidesktop.agent import context as budget
from pidesktop.agent.errors import ProviderError
from pidesktop.agent.events import Usage
from pidesktop.agent.reply import ReplyBuilder
from pidesktop.bus import ErrorCode, HostClient, HostError

FIRST_PAGE = 200  # the newest messages of the branch: what the request can carry in practice

# pi's stop reasons, from the OpenAI-style finish reasons the providers report.
STOP_REASONS = {
    "stop": "stop",
    "length": "length",
    "tool_calls": "toolUse",
    "function_call": "toolUse",
    "content_filter": "stop",
}

Update = Callable[[dict[str, Any]], None]


async def continue_session(
    client: HostClient,
    runner: Any,
    session_id: str,
    text: str,
    *,
    provider_id: str | None = None,
    model_id: str | None = None,
    thinking_level: str = "off",
    cancel: asyncio.Event | None = None,
    on_update: Update | None = None,
) -> dict[str, Any]:
    """Answer ``text`` in the pi session and append both; ``{"entryIds", "token", "message", "stopReason"}``.

    ``runner`` (a ``TurnRunner``) picks the provider the way it does for the
    app's own chats; ``provider_id``/``model_id`` are the person's pick for this
    chat (None: the default). Raises ``HostError`` (the provider's failure under
    its code, or the host's refusal) with nothing written.
    """
    if not text.strip():
        raise HostError(ErrorCode.INVALID_PARAMS, "The prompt is empty: type a message first.", {"field": "text"})
    page = await client.call("session.get", {"sessionId": session_id, "messageLimit": FIRST_PAGE})
    token = page["session"].get("nativeToken")
    if not isinstance(token, str) or not token:
        raise HostError(ErrorCode.PERMISSION_DENIED, "Only a pi session can be continued this way.")
    _check_working_folder(page["session"].get("cwd"), page["session"].get("cwdTrusted"))
    # The runner's own choice of provider (stored default, offline demo, or ``--base-url``), so a pi
    # session is answered by the same model the person's chats use.
    provider, provider_id, model_id = await runner.planner.provider_for(
        {"providerId": provider_id, "modelId": model_id}
    )
    builder = ReplyBuilder(str(uuid.uuid4()), model_id, provider_id)
    try:
        window = budget.window_for(model_id, None, getattr(runner, "context_window", None))
        messages = request_messages(page, text, budget.input_budget(window))
        events = provider.stream(messages, thinking_level=thinking_level or "off", cancel=cancel)
        async with contextlib.aclosing(events):
            async for event in events:
                builder.feed(event)
                if on_update is not None and not isinstance(event, Usage):
                    on_update(builder.snapshot("streaming"))
    except ProviderError as exc:
        raise HostError(exc.code, exc.message) from exc
    finally:
        close = getattr(provider, "aclose", None)
        if close is not None:
            await close()
    aborted = cancel is not None and cancel.is_set()
    if not builder.text.strip():
        raise HostError(
            ErrorCode.CONFLICT,
            "Stopped before any answer arrived; nothing was added to the pi session."
            if aborted
            else "The model sent no answer; nothing was added to the pi session.",
            {"aborted": aborted},
        )
    stop = "aborted" if aborted else STOP_REASONS.get(builder.finish_reason or "stop", "stop")
    assistant: dict[str, Any] = {
        "role": "assistant",
        "text": builder.text,
        "provider": provider_id,
        "model": builder.model_id or model_id,
        "usage": pi_usage(builder.usage),
        "stopReason": stop,
    }
    if builder.thinking:
        assistant["thinking"] = builder.thinking
    result = await client.call(
        "native.append",
        {"sessionId": session_id, "token": token, "messages": [{"role": "user", "text": text}, assistant]},
    )
    return {
        "entryIds": result["entryIds"],
        "token": result["token"],
        "message": builder.snapshot("completed"),
        "stopReason": stop,
    }


def _check_working_folder(cwd: object, trusted: object) -> None:
    """Spec 004 section 12 (NP.9): a pi session is continued only where it works, and only in a folder the
    person trusts (``native.trust``); a folder that is not there (another computer's, or moved) or not
    trusted is refused before anything is asked or written."""
    if not isinstance(cwd, str) or not cwd:
        return  # pi wrote no folder: nothing to check against
    if not os.path.isabs(cwd) or not os.path.isdir(cwd):
        raise HostError(
            ErrorCode.CONFLICT,
            f"This pi session works in {cwd}, which is not a folder on this computer, so it cannot be "
            f"continued here. Nothing was added; fork it to keep talking, or continue it in pi where that "
            f"folder exists.",
            {"reason": "cwd", "cwd": cwd},
        )
    if trusted is not True:
        raise HostError(
            ErrorCode.PERMISSION_DENIED,
            f"This pi session works in {cwd}, a folder you have not trusted yet. Nothing was added; trust the "
            f"folder to continue the session here.",
            {"reason": "trust", "cwd": cwd},
        )


def request_messages(page: dict[str, Any], text: str, token_budget: int) -> list[dict[str, Any]]:
    """What the model sees: pi's compaction summary first (when there is one), the messages it kept
    from the window read, then the new prompt; the oldest go first when they do not fit ``token_budget``."""
    messages = list(page.get("messages") or [])
    chain = page.get("compactions") or []
    head: list[dict[str, Any]] = []
    if chain:
        checkpoint = chain[-1]
        ids = [message["id"] for message in messages]
        if checkpoint.get("firstKeptMessageId") in ids:
            messages = messages[ids.index(checkpoint["firstKeptMessageId"]) :]
        elif checkpoint.get("throughMessageId") in ids:
            messages = messages[ids.index(checkpoint["throughMessageId"]) + 1 :]
        head = [compaction.summary_message(checkpoint)]
    kept = [_as_edited(_visible(message)) for message in messages if _counts(message) and not _omitted(message)]
    prompt = {"id": "prompt", "role": "user", "blocks": [{"type": "text", "text": text}]}
    while kept and budget.estimate(head + kept + [prompt]) > token_budget:
        kept.pop(0)
    while kept and kept[0]["role"] != "user":  # a request starts with the person's words (or the summary)
        kept.pop(0)
    return head + kept + [prompt]


def pi_usage(raw: dict[str, Any] | None) -> dict[str, Any]:
    """pi's usage fields from the provider's report (zeros when it sent none)."""
    raw = raw if isinstance(raw, dict) else {}
    tokens_in = _int(raw.get("prompt_tokens", raw.get("input_tokens")))
    tokens_out = _int(raw.get("completion_tokens", raw.get("output_tokens")))
    details = raw.get("prompt_tokens_details")
    if not isinstance(details, dict):
        details = {}
    cached = _int(details.get("cached_tokens"))
    usage = {"input": max(0, tokens_in - cached), "output": tokens_out, "cacheRead": cached, "cacheWrite": 0}
    usage["totalTokens"] = _int(raw.get("total_tokens")) or tokens_in + tokens_out
    return usage


def _counts(message: dict[str, Any]) -> bool:
    """Messages a model is shown again: not a reply that was still streaming, not an empty one."""
    if message.get("role") not in ("user", "assistant", "system"):
        return False
    return (message.get("meta") or {}).get("status") != "streaming" and bool(message.get("blocks"))


def _omitted(message: dict[str, Any]) -> bool:
    """pi's ``context_edit`` took this message out of what the model is shown (the history keeps it)."""
    return bool(((message.get("meta") or {}).get("contextEdit") or {}).get("omitted"))


def _as_edited(message: dict[str, Any]) -> dict[str, Any]:
    """The message as pi's ``context_edit`` entries replaced it for the model (host: ``meta.contextEdit``)."""
    edit = (message.get("meta") or {}).get("contextEdit") or {}
    blocks = edit["blocks"] if isinstance(edit.get("blocks"), list) else message.get("blocks") or []
    out = []
    for block in blocks:
        change = block.get("contextEdit") if isinstance(block, dict) else None
        if isinstance(change, dict):
            block = {key: value for key, value in block.items() if key not in ("contextEdit", "result")}
            if not change.get("omitted"):
                block["result"] = change.get("result", "")
        out.append(block)
    return {**message, "blocks": out}


def _visible(message: dict[str, Any]) -> dict[str, Any]:
    """A message without the reader's bookkeeping (positions, the cut marks of a capped window)."""
    return {key: value for key, value in message.items() if key not in ("seq", "index")}


def _int(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0
