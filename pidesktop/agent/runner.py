"""The turn runner: one prompt in, one stored reply out, in the order spec 004 section 5 requires.

1. the user line is appended (durable) before anything else;
2. ``session.startTurn`` opens the turn;
3. the provider streams; deltas only reach the screen, never storage, except
   an in-flight checkpoint at most every 1.5 s while content arrives;
4. at the end, one last checkpoint, then the final ``appendMessage``;
5. ``session.endTurn`` with ``createNotification`` false only when the person
   is looking at that very chat.

Stop cancels the stream and keeps what arrived (``aborted``, no inbox row).
A prompt sent while a turn runs waits in the host's queue and is sent after
the running turn ends. A queued prompt leaves the queue in the same host step
that stores its user line (``appendMessage`` with ``queueEntryId``); a start
that fails before that keeps the entry, marked with its error, for Retry.

Deleting a chat (``session.changed {reason: "deleted"}`` from any client of
the host) stops its running turn and stores nothing more for it: no
checkpoint, no final append, no end of turn; the outbox drops what it holds.
Everything durable goes through the bus.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ..bus import ErrorCode, HostClient, HostError
from . import attachment_content, modes
from .errors import ProviderError, ProviderErrorCode
from .events import TextDelta, ThinkingDelta, Usage
from .offline import OfflineDemoProvider
from .openai_compat import OpenAICompatibleProvider
from .outbox import Outbox, OutboxFull
from .reply import ReplyBuilder

log = logging.getLogger("pidesktop.agent.runner")

CHECKPOINT_EVERY = 1.5
OFFLINE_ID, OFFLINE_MODEL = "offline", "offline-demo"

Listener = Callable[[str, str, dict | None], None]  # (session id, phase, message snapshot)


@dataclass
class ProviderChoice:
    """An explicit provider for one run (``pidesktop chat --base-url``), bypassing the stored default."""

    base_url: str
    model: str
    api_key: str | None = None
    label: str = "custom"


@dataclass
class _Active:
    turn_id: str
    cancel: asyncio.Event = field(default_factory=asyncio.Event)
    task: asyncio.Task | None = None
    user_stored: bool = False  # the prompt's line is stored (a queued entry has left the queue)


QUEUED_PROMPT_IDS = uuid.UUID("9a1f7c64-3a55-4c1e-8f53-2f0d6b1b8e21")


def queued_user_id(entry: dict) -> str:
    """The user message id of a queued prompt: the same on every try, so a retry never stores it twice."""
    return entry.get("userMessageId") or str(uuid.uuid5(QUEUED_PROMPT_IDS, entry["id"]))


def is_deleted_error(error: BaseException) -> bool:
    """The host's answer for a chat that ``session.delete`` removed."""
    return isinstance(error, HostError) and error.code == ErrorCode.NOT_FOUND and error.data.get("deleted") is True


class TurnRunner:
    def __init__(self, client: HostClient, *, checkpoint_every: float = CHECKPOINT_EVERY,
                 offline_delay: float = 0.02, watched: Callable[[str], bool] = lambda session_id: False,
                 override: ProviderChoice | None = None, outbox: Outbox | None = None):
        self.client = client
        self.outbox = outbox
        self.checkpoint_every = checkpoint_every
        self.offline_delay = offline_delay
        self.watched = watched
        self.override = override
        self.listeners: list[Listener] = []
        self._active: dict[str, _Active] = {}
        self._deleted: set[str] = set()
        subscribe = getattr(client, "subscribe", None)
        self._unsubscribe = subscribe(self._on_event) if callable(subscribe) else None

    # -- public -------------------------------------------------------------------------
    def is_running(self, session_id: str) -> bool:
        return session_id in self._active

    def stop(self, session_id: str) -> None:
        active = self._active.get(session_id)
        if active is not None:
            active.cancel.set()

    def forget_session(self, session_id: str) -> None:
        """The chat was deleted: stop its turn, store nothing more for it, drop what the outbox holds."""
        self._deleted.add(session_id)
        self.stop(session_id)
        if self.outbox is not None:
            self.outbox.forget_session(session_id)

    def _on_event(self, topic: str, payload: dict) -> None:
        if topic == "session.changed" and payload.get("reason") == "deleted" and payload.get("sessionId"):
            self.forget_session(str(payload["sessionId"]))

    async def send(self, session_id: str, text: str, *, attachments: list[dict] | None = None,
                   revision_root_id: str | None = None) -> dict:
        """Run a turn for ``text`` and ``attachments``, or queue them if a turn is running in that chat.

        ``attachments`` are stored attachment blocks (``attachments.import``
        results); they follow the text in the prompt. ``revision_root_id``
        keeps an edited prompt in its original regenerate family
        (``meta.revisionRootId``), so the pager shows every variant.
        """
        blocks = prompt_blocks(text, attachments)
        if self.is_running(session_id):
            params = {"sessionId": session_id, "content": text, "idempotencyKey": str(uuid.uuid4())}
            attached = [block for block in blocks if block["type"] == "attachment"]
            if attached:
                params["attachments"] = attached
            result = await self.client.call("session.queuePush", params)
            return {"queued": result["entry"]}
        user = {"id": str(uuid.uuid4()), "role": "user", "blocks": blocks}
        if revision_root_id:
            user["meta"] = {"revisionRootId": revision_root_id}
        return await self._turn(session_id, user)

    async def regenerate(self, session_id: str, reply_id: str) -> dict:
        """Answer the prompt before ``reply_id`` again; the old reply stays as a revision."""
        if self.is_running(session_id):
            raise HostError(ErrorCode.CONFLICT, "Wait for the running reply to finish (or stop it) first.")
        await self.client.call("session.truncateFrom", {"sessionId": session_id, "messageId": reply_id})
        return await self._turn(session_id, None)

    async def resume(self, session_id: str) -> None:
        """Send the waiting prompts of a chat, one turn at a time (nothing is replayed on its own).

        Also Retry for a prompt whose start failed: the error of a start that
        fails again is raised here (the entry stays, marked).
        """
        if not self.is_running(session_id):
            await self._drain_queue(session_id, raise_errors=True)

    # -- one turn --------------------------------------------------------------------
    async def _turn(self, session_id: str, user: dict | None, active: _Active | None = None,
                    queue_entry_id: str | None = None) -> dict:
        active = active or _Active(turn_id=str(uuid.uuid4()))
        self._active[session_id] = active
        active.task = asyncio.current_task()
        try:
            result = await self._run(session_id, user, active, queue_entry_id)
        except HostError:
            if session_id not in self._deleted:
                raise
            result = self._dropped(session_id, None)  # deleted between two host calls of the turn
        finally:
            self._active.pop(session_id, None)
        self._notify(session_id, "idle", None)
        await self._drain_queue(session_id)
        return result

    async def _run(self, session_id: str, user: dict | None, active: _Active, queue_entry_id: str | None) -> dict:
        """One turn; ``user`` is the prompt to append first, or None to answer the last one again."""
        call = self.client.call
        if user is not None:
            params = {"sessionId": session_id, "message": user}
            if queue_entry_id is not None:
                params["queueEntryId"] = queue_entry_id  # leaves the queue with this very append
            await call("session.appendMessage", params)
        active.user_stored = True
        window = await call("session.get", {"sessionId": session_id})
        session = window["session"]
        provider, provider_id, model_id = await self._provider_for(session)
        await call("session.startTurn", {"sessionId": session_id, "turnId": active.turn_id,
                                         "providerId": provider_id, "modelId": model_id})
        builder = ReplyBuilder(str(uuid.uuid4()), model_id, provider_id)
        self._notify(session_id, "started", builder.snapshot("streaming"))
        status, error = "completed", None
        fallback = ImageFallback()
        thinking_started = thinking_seconds = None
        last_checkpoint = time.monotonic()
        try:
            context = modes.with_mode(_context(window["messages"]), session.get("mode"))
            if provider_id != OFFLINE_ID:  # the demo only names attachments; it never needs their bytes
                context = await attachment_content.hydrate(self.client, context)
            # Closed here, in this task, however the loop ends: see OpenAICompatibleProvider._read_stream.
            events = fallback.stream(provider, context, thinking_level=session["thinkingLevel"], cancel=active.cancel)
            async with contextlib.aclosing(events):
                async for event in events:
                    builder.feed(event)
                    if isinstance(event, ThinkingDelta) and thinking_started is None:
                        thinking_started = time.monotonic()
                    elif isinstance(event, TextDelta) and thinking_started is not None and thinking_seconds is None:
                        thinking_seconds = time.monotonic() - thinking_started
                    if isinstance(event, Usage):
                        continue
                    self._notify(session_id, "delta", builder.snapshot("streaming"))
                    if time.monotonic() - last_checkpoint >= self.checkpoint_every and builder.has_content():
                        await self._checkpoint(session_id, active.turn_id, builder.snapshot("streaming"))
                        last_checkpoint = time.monotonic()
            if active.cancel.is_set():
                status = "aborted"
        except ProviderError as exc:
            status, error = "error", exc
        except asyncio.CancelledError:
            status = "aborted"
        finally:
            close = getattr(provider, "aclose", None)
            if close is not None:
                await close()
        final = builder.snapshot(status)
        if session_id in self._deleted:
            return self._dropped(session_id, final)
        meta = final.setdefault("meta", {})
        if thinking_seconds is not None:
            meta["thinkingSeconds"] = round(thinking_seconds, 1)
        if fallback.images_named:
            meta["imagesNotSent"] = True  # the reply says so under it
        if error is not None:
            meta["error"] = {"code": error.code, "message": error.message}
        stored = None
        if builder.has_content() or error is not None:
            if status == "completed":
                await self._checkpoint(session_id, active.turn_id, final)  # D327: before the final append
            if self.outbox is not None:  # None while it waits in the queue; the turn still ends (D327)
                try:
                    stored = await self.outbox.append(session_id, final, active.turn_id)
                except OutboxFull as exc:
                    # Refused loudly; the reply stays in its in-flight checkpoint for recovery.
                    status, error = "error", ProviderError("outbox_full", str(exc))
            else:
                try:
                    stored = await call("session.appendMessage", {"sessionId": session_id, "message": final,
                                                                  "turnId": active.turn_id})
                except HostError as exc:
                    if is_deleted_error(exc):
                        self._deleted.add(session_id)
                        return self._dropped(session_id, final)
                    raise
        usage = final.get("meta", {}).get("usage")
        try:
            ended = await call("session.endTurn", {
                "sessionId": session_id, "turnId": active.turn_id, "status": status,
                "errorCode": error.code if error else None,
                "createNotification": status != "aborted" and not self.watched(session_id),
                "usage": _usage_summary(usage)})
        except HostError:
            if session_id in self._deleted:  # deleted while the reply was being stored
                return self._dropped(session_id, final)
            raise
        # Only a regenerated or edited prompt has variants to page through; stamping
        # every new prompt would rewrite the whole transcript after every turn.
        branching = user is None or bool((user.get("meta") or {}).get("revisionRootId"))
        if status == "completed" and stored is not None and branching:
            await self._archive_branch(session_id, window["messages"], user)
        self._notify(session_id, "finished", final if stored is not None else None)
        return {"status": status, "turn": ended["turn"], "message": final,
                "stored": stored, "error": {"code": error.code, "message": error.message} if error else None}

    def _dropped(self, session_id: str, final: dict | None) -> dict:
        """The chat was deleted during the turn: nothing of it is stored."""
        log.info("session %s was deleted during its turn; the reply is dropped", session_id)
        self._notify(session_id, "finished", None)
        return {"status": "aborted", "turn": None, "message": final, "stored": None, "error": None,
                "deleted": True}

    async def _archive_branch(self, session_id: str, history: list[dict], user: dict | None) -> None:
        """Record the finished branch as the live revision of its prompt (spec 004, 4.9)."""
        root = user or next((m for m in reversed(history) if m.get("role") == "user"), None)
        if root is None:
            return
        family = (root.get("meta") or {}).get("revisionRootId") or root["id"]
        try:
            await self.client.call("session.saveActiveRevision", {"sessionId": session_id, "rootUserId": family})
        except HostError as exc:  # the pager loses a variant label, never content
            log.warning("could not archive the finished branch: %s", exc)

    async def _checkpoint(self, session_id: str, turn_id: str, message: dict) -> None:
        if session_id in self._deleted:
            return  # a checkpoint would be refused anyway: the chat is gone
        try:
            await self.client.call("session.saveInflightMessage",
                                   {"sessionId": session_id, "turnId": turn_id, "message": message})
        except HostError as exc:  # a lost checkpoint costs at most one interval of text
            log.warning("checkpoint failed: %s", exc)

    async def _provider_for(self, session: dict) -> tuple[Any, str, str]:
        if self.override is not None:
            choice = self.override
            return (OpenAICompatibleProvider(base_url=choice.base_url, api_key=choice.api_key, model=choice.model,
                                             label=choice.label), "custom", choice.model)
        provider_id, model_id = session.get("providerId"), session.get("modelId")
        if not provider_id:
            try:
                default = await self.client.call("providers.list", {})
                provider_id = default.get("defaultProviderId") or OFFLINE_ID
                model_id = model_id or default.get("defaultModelId")
            except HostError:
                provider_id = OFFLINE_ID
        if provider_id == OFFLINE_ID:
            return OfflineDemoProvider(delay=self.offline_delay), OFFLINE_ID, OFFLINE_MODEL
        creds = await self.client.call("providers.credentials", {"providerId": provider_id})
        model = model_id or creds.get("defaultModelId")
        if not model:
            raise HostError(ErrorCode.INVALID_PARAMS, f"No model is chosen for {creds.get('name', provider_id)}. "
                                              f"Pick one in Settings > Providers.")
        return (OpenAICompatibleProvider(base_url=creds["baseUrl"], api_key=creds.get("apiKey"), model=model,
                                         label=creds.get("name", provider_id)), provider_id, model)

    async def _drain_queue(self, session_id: str, *, raise_errors: bool = False) -> None:
        """After a terminal event (or on Resume/Retry), send the next waiting prompt (one at a time).

        The entry leaves the queue only with its stored user line. When the
        start fails before that, the entry stays and is marked with the error
        (``session.queueMarkFailed``); ``raise_errors`` then re-raises it.
        """
        if session_id in self._deleted:
            return
        try:
            entries = (await self.client.call("session.queueList", {"sessionId": session_id}))["entries"]
        except HostError:
            if raise_errors:
                raise
            return
        if not entries or self.is_running(session_id):
            return
        entry = entries[0]
        active = _Active(turn_id=str(uuid.uuid4()))
        try:
            user = {"id": queued_user_id(entry), "role": "user",
                    "blocks": prompt_blocks(entry["content"], entry.get("attachments") or None)}
            await self._turn(session_id, user, active, queue_entry_id=entry["id"])
        except Exception as exc:
            if not active.user_stored and session_id not in self._deleted and not is_deleted_error(exc):
                await self._mark_failed(session_id, entry["id"], exc)
            if raise_errors or not isinstance(exc, (HostError, OSError)):
                raise
            log.warning("could not send the queued prompt %s of session %s: %s", entry["id"], session_id, exc)

    async def _mark_failed(self, session_id: str, entry_id: str, exc: BaseException) -> None:
        error = exc if isinstance(exc, HostError) else HostError(ErrorCode.INTERNAL, f"{type(exc).__name__}: {exc}")
        try:
            await self.client.call("session.queueMarkFailed", {"sessionId": session_id, "entryId": entry_id,
                                                               "error": {"code": error.code,
                                                                         "message": error.message}})
        except HostError as failed:  # the entry is still queued; only its mark is missing
            log.warning("could not mark the queued prompt %s as failed: %s", entry_id, failed)

    def _notify(self, session_id: str, phase: str, message: dict | None) -> None:
        for listener in list(self.listeners):
            try:
                listener(session_id, phase, message)
            except Exception:
                log.exception("turn listener failed")


class ImageFallback:
    """Send pictures; if the server refuses the request outright, ask once more with them named only.

    A text-only model answers a request carrying an image with a 4xx before any
    reply streams (``BAD_REQUEST``), so retrying without the pictures cannot
    repeat or lose part of a reply.
    """

    def __init__(self) -> None:
        self.images_named = False

    async def stream(self, provider: Any, context: list[dict], **options):
        try:
            async with contextlib.aclosing(provider.stream(context, **options)) as events:
                async for event in events:
                    yield event
            return
        except ProviderError as exc:
            if exc.code != ProviderErrorCode.BAD_REQUEST or not attachment_content.has_images(context):
                raise
            log.info("the model refused a request with pictures; asking again with them named only")
        self.images_named = True
        named_only = attachment_content.without_images(context)
        async with contextlib.aclosing(provider.stream(named_only, **options)) as events:
            async for event in events:
                yield event


STORED_ATTACHMENT_KEYS = frozenset({"type", "kind", "name", "ref", "mimeType", "size", "text"})


def prompt_blocks(text: str, attachments: list[dict] | None) -> list[dict]:
    """A prompt's blocks: its text (unless blank), then its attachment blocks, or INVALID_PARAMS."""
    if attachments is not None and not isinstance(attachments, list):
        raise HostError(ErrorCode.INVALID_PARAMS, f"attachments must be a list of attachment blocks, "
                                          f"not {type(attachments).__name__}.")
    attached = [_attachment_block(number, block) for number, block in enumerate(attachments or [])]
    if not text.strip() and not attached:
        raise HostError(ErrorCode.INVALID_PARAMS, "The prompt is empty: type a message or attach a file.")
    return ([{"type": "text", "text": text}] if text.strip() else []) + attached


def _attachment_block(number: int, block: Any) -> dict:
    if not isinstance(block, dict) or block.get("type") != "attachment":
        raise HostError(ErrorCode.INVALID_PARAMS, f"attachments[{number}] must be an object with type \"attachment\".")
    if not isinstance(block.get("ref"), str) or not block["ref"]:
        raise HostError(ErrorCode.INVALID_PARAMS, f"attachments[{number}].ref must be a non-empty string.")
    # A prompt stores only what names the attachment (spec 004, 4.7): content fetched
    # for the model (``inline``) is transient, and the digest is already in the ref.
    return {key: value for key, value in block.items() if key in STORED_ATTACHMENT_KEYS}


def _context(messages: list[dict]) -> list[dict]:
    """What the model sees: the stored conversation without delegate rows or internal system state."""
    context = []
    for message in messages:
        meta = message.get("meta") or {}
        if meta.get("parentToolCallId") or meta.get("modelSystem") is not None:
            continue
        if message.get("role") == "assistant" and meta.get("status") == "streaming":
            continue
        context.append({k: v for k, v in message.items() if k not in ("seq", "index")})
    return context


def _usage_summary(usage: Any) -> dict | None:
    if not isinstance(usage, dict):
        return None
    tokens_in = usage.get("prompt_tokens", usage.get("input_tokens", usage.get("inputTokens")))
    tokens_out = usage.get("completion_tokens", usage.get("output_tokens", usage.get("outputTokens")))
    summary = {"raw": usage}
    if isinstance(tokens_in, int):
        summary["inputTokens"] = tokens_in
    if isinstance(tokens_out, int):
        summary["outputTokens"] = tokens_out
    return summary
