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
the running turn ends, unless it was sent with ``steer``: then the turn's next
request round carries it (``steering.py``), and Stop before any answer takes
unanswered prompts back into the composer. A queued prompt leaves the queue in the same host step
that stores its user line (``appendMessage`` with ``queueEntryId``); a start
that fails before that keeps the entry, marked with its error, for Retry.

Deleting a chat (``session.changed {reason: "deleted"}`` from any client of
the host) stops its running turn and stores nothing more for it: no
checkpoint, no final append, no end of turn; the outbox drops what it holds.
Everything durable goes through the bus.

Long chats (``context`` and ``compaction``): a turn reads only the newest
checkpoint and the messages after it, through windowed ``session.get``
calls, never the whole transcript. When the request would pass the
``compactAt`` share of the model's context window (or not fit at all), the
older part is summarised first with one model call and a checkpoint is
appended; a failed or stopped summary fails the turn and stores no
checkpoint. No request is ever larger than the window. ``compact`` (and the
prompt ``/compact``) compacts on demand; ``context_usage`` tells the UI how
full the context is.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
import uuid
from collections.abc import AsyncGenerator, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from pidesktop.agent import (
    attachment_content,
    compaction,
    model_settings,
    modes,
    permissions,
    plan_gate,
    project_notes,
    send_check,
    steering,
    tool_loop,
    tool_permission,
    workspace_tools,
)
from pidesktop.agent import context as budget
from pidesktop.agent.errors import ProviderError, ProviderErrorCode
from pidesktop.agent.events import StreamEvent, TextDelta, ThinkingDelta, Usage
from pidesktop.agent.offline import OfflineDemoProvider
from pidesktop.agent.outbox import Outbox, OutboxFull
from pidesktop.agent.reply import ReplyBuilder
from pidesktop.agent.stopping import Stopped, unless_stopped
from pidesktop.agent.tool_calls import WorkspaceCalls
from pidesktop.bus import ErrorCode, HostClient, HostError

if TYPE_CHECKING:
    from pidesktop.agent.mcp.calls import McpCalls
    from pidesktop.agent.mcp.pool import McpPool

log = logging.getLogger("pidesktop.agent.runner")

FIRST_PAGE = 200  # the newest messages; usually reaches back to the active checkpoint
READ_PAGE = 1000  # each further page read backwards

CHECKPOINT_EVERY = 1.5
OFFLINE_ID, OFFLINE_MODEL = "offline", "offline-demo"

Listener = Callable[[str, str, dict[str, Any] | None], None]  # (session id, phase, message snapshot)


@dataclass
class ProviderChoice:
    """An explicit provider for one run (``pidesktop chat --base-url``), bypassing the stored default."""

    base_url: str
    model: str
    api_key: str | None = None
    label: str = "custom"


@dataclass
class Prepared:
    """A request built and ready to send: what the model sees, and what the budget knows about it."""

    session: dict[str, Any]
    provider: Any
    provider_id: str
    model_id: str
    window: int
    compact_at: float | None
    checkpoint: dict[str, Any] | None  # the active (newest) checkpoint
    generation: int  # how many checkpoints the chat holds
    messages: list[
        dict[str, Any]
    ]  # model-visible messages after the checkpoint (or the newest part read), oldest first
    tokens: list[int]  # the estimate of each of ``messages``
    complete: bool  # ``messages`` reach back to the checkpoint, or to the chat's start
    total: int  # every message line of the transcript
    notes: dict[str, Any] | None = None  # the project's memory as the person's own notes (``project_notes``)
    workspace: dict[str, Any] | None = None  # ``tools.workspace``: the folder the tools work in, the permission mode
    system_prompt: str = ""  # the model's system prompt (Settings > Providers, ``model_settings``)

    def context(self) -> list[dict[str, Any]]:
        """The checkpoint's summary first, then the kept messages; the chat's mode instruction in front,
        the model's system prompt after it, then the workspace note and the project notes."""
        head = [compaction.summary_message(self.checkpoint)] if self.checkpoint else []
        context = modes.with_mode(head + self.messages, self.session.get("mode"))
        context = project_notes.placed(context, model_settings.system_message(self.system_prompt))
        if self.workspace is not None:
            note = workspace_tools.workspace_note(str(self.workspace["workspace"]), bool(self.workspace["scratch"]))
            context = project_notes.placed(context, note)
        return project_notes.placed(context, self.notes)

    def summary(self) -> str:
        return str((self.checkpoint or {}).get("summary") or "")

    def after(self, record: dict[str, Any]) -> Prepared:
        """The same request once ``record`` (just appended) is the active checkpoint."""
        ids = [message["id"] for message in self.messages]
        start = ids.index(record["firstKeptMessageId"])
        return Prepared(
            self.session,
            self.provider,
            self.provider_id,
            self.model_id,
            self.window,
            self.compact_at,
            record,
            self.generation + 1,
            self.messages[start:],
            self.tokens[start:],
            True,
            self.total,
            self.notes,
            self.workspace,
            self.system_prompt,
        )


@dataclass
class _Active:
    turn_id: str
    cancel: asyncio.Event = field(default_factory=asyncio.Event)
    task: asyncio.Task[Any] | None = None  # the task running the turn, whatever it returns
    user_stored: bool = False  # the prompt's line is stored (a queued entry has left the queue)
    interactive: bool | None = None  # this turn only; None: the runner's own setting
    steering: steering.Steering = field(default_factory=steering.Steering)  # prompts sent into this turn


QUEUED_PROMPT_IDS = uuid.UUID("9a1f7c64-3a55-4c1e-8f53-2f0d6b1b8e21")


def queued_user_id(entry: dict[str, Any]) -> str:
    """The user message id of a queued prompt: the same on every try, so a retry never stores it twice."""
    return entry.get("userMessageId") or str(uuid.uuid5(QUEUED_PROMPT_IDS, entry["id"]))


def is_deleted_error(error: BaseException) -> bool:
    """The host's answer for a chat that ``session.delete`` removed."""
    return isinstance(error, HostError) and error.code == ErrorCode.NOT_FOUND and error.data.get("deleted") is True


class TurnRunner:
    def __init__(
        self,
        client: HostClient,
        *,
        checkpoint_every: float = CHECKPOINT_EVERY,
        offline_delay: float = 0.02,
        watched: Callable[[str], bool] = lambda session_id: False,
        override: ProviderChoice | None = None,
        outbox: Outbox | None = None,
        context_window: int | None = None,
        interactive: bool = True,
        asker: permissions.Asker | None = None,
        confirm_unconfined: bool = True,
        mcp: McpPool | None = None,
    ):
        self.client = client
        # The app's MCP servers (started when a chat first needs them); None: no MCP tools
        self.mcp = mcp
        # Who answers a tool call that needs the person's word; None: nobody, such calls are denied.
        self.asker = asker
        # False when the person already accepted that commands run without a sandbox (``pidesktop chat``'s flag)
        self.confirm_unconfined = confirm_unconfined
        self.grants = tool_permission.Grants()  # "Allow for this chat" answers, for this runner's life
        self.tool_refusals: tool_loop.ToolRefusals = set()  # models whose server refused tools, for this runner's life
        # False for runs nobody watches (``pidesktop chat``, automations): Plan/Goal turns are refused.
        self.interactive = interactive
        self.context_window = context_window  # ``pidesktop chat --context-window``: overrides every model's
        self.correction = budget.Correction()  # per chat: reported prompt tokens / estimated
        self._usage: dict[str, dict[str, Any]] = {}  # per chat: the context size the last turn or compaction left
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

    def running_sessions(self) -> list[str]:
        """The chats whose reply is being written now."""
        return list(self._active)

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

    def _on_event(self, topic: str, payload: dict[str, Any]) -> None:
        if topic == "session.changed" and payload.get("reason") == "deleted" and payload.get("sessionId"):
            self.forget_session(str(payload["sessionId"]))
        elif topic == "session.changed" and payload.get("reason") == "restored" and payload.get("sessionId"):
            self._deleted.discard(str(payload["sessionId"]))  # back from the trash: it can be written again
        elif topic in ("models.changed", "providers.changed"):
            self._usage.clear()  # a model's context window may have changed: measured again when asked

    async def send(
        self,
        session_id: str,
        text: str,
        *,
        attachments: list[dict[str, Any]] | None = None,
        revision_root_id: str | None = None,
        interactive: bool | None = None,
    ) -> dict[str, Any]:
        """Run a turn for ``text`` and ``attachments``, or queue them if a turn is running in that chat.

        ``attachments`` are stored attachment blocks (``attachments.import``
        results); they follow the text in the prompt. ``revision_root_id``
        keeps an edited prompt in its original regenerate family
        (``meta.revisionRootId``), so the pager shows every variant.
        ``interactive=False`` makes this one turn unattended (an automation run
        through the window's runner, so the window sees it running and can stop it).
        """
        if text.strip() == compaction.COMMAND and not attachments:
            record = await self.compact(session_id)
            return {
                "status": "compacted",
                "compaction": record,
                "turn": None,
                "message": None,
                "stored": None,
                "error": None,
            }
        blocks = prompt_blocks(text, attachments)
        if self.is_running(session_id):
            params: dict[str, Any] = {"sessionId": session_id, "content": text, "idempotencyKey": str(uuid.uuid4())}
            attached = [block for block in blocks if block["type"] == "attachment"]
            if attached:
                params["attachments"] = attached
            result = await self.client.call("session.queuePush", params)
            return {"queued": result["entry"]}
        await self.check_session(session_id)  # nothing is stored for a prompt that cannot go out
        user: dict[str, Any] = {"id": str(uuid.uuid4()), "role": "user", "blocks": blocks}
        if revision_root_id:
            user["meta"] = {"revisionRootId": revision_root_id}
        return await self._turn(session_id, user, _Active(turn_id=str(uuid.uuid4()), interactive=interactive))

    async def check_ready(self, choice: dict[str, Any]) -> None:
        """Raise ``not_ready`` (``send_check``) when a chat with ``choice``'s provider and model cannot send."""
        if self.override is None:
            await send_check.check(self.client, choice)

    async def check_session(self, session_id: str) -> None:
        """``check_ready`` for a stored chat's own provider and model."""
        if self.override is None:
            session = (await self.client.call("session.get", {"sessionId": session_id, "messageLimit": 1}))["session"]
            await send_check.check(self.client, session)

    async def steer(
        self, session_id: str, text: str, *, attachments: list[dict[str, Any]] | None = None
    ) -> dict[str, Any]:
        """Send ``text`` into the chat's running turn: its next request round carries it (``steering.py``).

        Returns ``{"steering": entry}``, the queue entry it waits in until then.
        A chat with no running turn simply gets it as a new prompt (``send``).
        """
        active = self._active.get(session_id)
        if active is None:
            return await self.send(session_id, text, attachments=attachments)
        blocks = prompt_blocks(text, attachments)
        params: dict[str, Any] = {"sessionId": session_id, "content": text, "idempotencyKey": str(uuid.uuid4())}
        attached = [block for block in blocks if block["type"] == "attachment"]
        if attached:
            params["attachments"] = attached
        entry = (await self.client.call("session.queuePush", params))["entry"]
        # If the turn ended meanwhile, the entry is an ordinary queued prompt and is sent next.
        active.steering.waiting.append(entry)
        return {"steering": entry}

    async def regenerate(self, session_id: str, reply_id: str) -> dict[str, Any]:
        """Answer the prompt before ``reply_id`` again; the old reply stays as a revision."""
        if self.is_running(session_id):
            raise HostError(ErrorCode.CONFLICT, "Wait for the running reply to finish (or stop it) first.")
        active = _Active(turn_id=str(uuid.uuid4()))
        self._active[session_id] = active  # from now on a prompt sent in this chat waits for the new reply
        try:
            await self.check_session(session_id)  # the old reply stays in place when the new one cannot be asked for
            await self.client.call("session.truncateFrom", {"sessionId": session_id, "messageId": reply_id})
        except BaseException:
            self._active.pop(session_id, None)
            self._notify(session_id, "idle", None)
            await self._drain_queue(session_id)
            raise
        return await self._turn(session_id, None, active)

    async def resume(self, session_id: str) -> None:
        """Send the waiting prompts of a chat, one turn at a time (nothing is replayed on its own).

        Also Retry for a prompt whose start failed: the error of a start that
        fails again is raised here (the entry stays, marked).
        """
        if not self.is_running(session_id):
            await self._drain_queue(session_id, raise_errors=True)

    # -- one turn --------------------------------------------------------------------
    async def _turn(
        self,
        session_id: str,
        user: dict[str, Any] | None,
        active: _Active | None = None,
        queue_entry_id: str | None = None,
    ) -> dict[str, Any]:
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

    async def _run(
        self, session_id: str, user: dict[str, Any] | None, active: _Active, queue_entry_id: str | None
    ) -> dict[str, Any]:
        """One turn; ``user`` is the prompt to append first, or None to answer the last one again."""
        call = self.client.call
        if user is not None:
            params = {"sessionId": session_id, "message": user}
            if queue_entry_id is not None:
                params["queueEntryId"] = queue_entry_id  # leaves the queue with this very append
            await call("session.appendMessage", params)
            active.steering.unanswered = [user]
        active.user_stored = True
        prepared = await self.prepare_request(session_id)
        session, provider, provider_id, model_id = (
            prepared.session,
            prepared.provider,
            prepared.provider_id,
            prepared.model_id,
        )
        await call(
            "session.startTurn",
            {"sessionId": session_id, "turnId": active.turn_id, "providerId": provider_id, "modelId": model_id},
        )
        builder = ReplyBuilder(str(uuid.uuid4()), model_id, provider_id)
        self._notify(session_id, "started", builder.snapshot("streaming"))
        status, error = "completed", None
        fallback = ImageFallback(self.client, session_id)
        thinking_started = thinking_seconds = None
        last_checkpoint = time.monotonic()
        sent_estimate, reported = 0, None
        tools = tool_loop.ToolLoop(
            self.client,
            session_id,
            active.turn_id,
            session.get("mode"),
            active.cancel,
            provider_id=provider_id,
            model_id=model_id,
            notify=self._notify,
            workspace=self._workspace_calls(session_id, active, prepared),
            mcp=await self._mcp_calls(session_id, active, prepared, session.get("mode")),
            refused=self.tool_refusals,
        )
        try:
            if not (self.interactive if active.interactive is None else active.interactive):
                plan_gate.refuse_unattended(session)  # before any model request (spec 004)
            prepared = await self._fit(session_id, prepared, active.cancel)
            context = prepared.context()
            if provider_id != OFFLINE_ID:  # the demo only names attachments; it never needs their bytes
                context = await attachment_content.hydrate(self.client, context)
                # a picture over the inline bound goes by path, so the model's tools can still open it
                context = await attachment_content.with_paths(self.client, session_id, context)
            # Closed here, in this task, however the loop ends: see OpenAICompatibleProvider._read_stream.
            sent_estimate = budget.estimate(context)
            while True:  # one round per request; the app's tool calls are answered and the model asked again
                events = tools.stream(
                    fallback, provider, context, thinking_level=session["thinkingLevel"], cancel=active.cancel
                )
                async with contextlib.aclosing(events):
                    async for event in events:
                        builder.feed(event)
                        if isinstance(event, ThinkingDelta) and thinking_started is None:
                            thinking_started = time.monotonic()
                        elif isinstance(event, TextDelta) and thinking_started is not None and thinking_seconds is None:
                            thinking_seconds = time.monotonic() - thinking_started
                        if isinstance(event, Usage):
                            if not event.raw.get("estimated"):
                                reported = event
                            continue
                        self._notify(session_id, "delta", builder.snapshot("streaming"))
                        if time.monotonic() - last_checkpoint >= self.checkpoint_every and builder.has_content():
                            await self._checkpoint(session_id, active.turn_id, builder.snapshot("streaming"))
                            last_checkpoint = time.monotonic()
                if active.cancel.is_set():
                    break
                more = await tools.run_calls(builder)
                # A reply that called no tools is asked once more when a steering prompt waits for it.
                steered = not builder.tool_calls and tools.approval is None and bool(active.steering.waiting)
                if steered:  # one removed from the queue meanwhile asks for nothing
                    steered = await self._still_queued(session_id, active)
                if active.cancel.is_set() or not (more or steered):
                    break
                if builder.has_content():
                    active.steering.answered()
                builder, context = await tools.next_round(builder, model_id, provider_id, context)
                context = [*context, *await self._take_steering(session_id, active, provider_id)]
                sent_estimate = budget.estimate(context)  # the usage reported last is this request's
            if active.cancel.is_set():
                status = "aborted"
        except ProviderError as exc:
            status, error = "error", exc
        except HostError as exc:
            if is_deleted_error(exc):
                raise
            # The host refused a step inside the turn (a tool round's store, a tool call): the turn
            # still ends, as an error with that code, instead of staying "running" until a restart.
            status, error = "error", ProviderError(exc.code, exc.message)
        except (asyncio.CancelledError, compaction.CompactionAborted):
            status = "aborted"
        finally:
            close = getattr(provider, "aclose", None)
            if close is not None:
                await close()
        final = builder.snapshot(status)
        self._remember_usage(session_id, prepared, sent_estimate, reported, final)
        if session_id in self._deleted:
            return self._dropped(session_id, final)
        if status == "completed" or builder.has_content():
            active.steering.answered()
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
                    stored = await call(
                        "session.appendMessage", {"sessionId": session_id, "message": final, "turnId": active.turn_id}
                    )
                except HostError as exc:
                    if is_deleted_error(exc):
                        self._deleted.add(session_id)
                        return self._dropped(session_id, final)
                    raise
        usage = final.get("meta", {}).get("usage")
        try:
            ended = await call(
                "session.endTurn",
                {
                    "sessionId": session_id,
                    "turnId": active.turn_id,
                    "status": status,
                    "errorCode": error.code if error else None,
                    "createNotification": status != "aborted" and not self.watched(session_id),
                    "usage": _usage_summary(usage),
                },
            )
        except HostError:
            if session_id in self._deleted:  # deleted while the reply was being stored
                return self._dropped(session_id, final)
            raise
        withdrawn, rewritten = None, False
        if status == "aborted":  # smart Stop: what no reply answered goes back into the composer
            withdrawn, rewritten = await steering.withdraw(self.client, session_id, active.steering)
            if withdrawn is not None:
                self._notify(session_id, "withdrawn", withdrawn)
        # Only a regenerated or edited prompt has variants to page through; stamping
        # every new prompt would rewrite the whole transcript after every turn.
        branching = user is None or bool((user.get("meta") or {}).get("revisionRootId"))
        if status == "completed" and stored is not None and branching:
            await self._archive_branch(session_id, prepared.messages, user)
        self._notify(session_id, "finished", final if stored is not None else None)
        return {
            "status": "withdrawn" if rewritten else status,
            "turn": ended["turn"],
            "message": final,
            "stored": stored,
            "error": {"code": error.code, "message": error.message} if error else None,
            "approval": tools.approval,  # a plan or goal this turn left waiting for an answer
            "withdrawn": withdrawn,  # the draft Stop took back: {text, attachments}, or None
        }

    async def _still_queued(self, session_id: str, active: _Active) -> bool:
        """Whether a waiting steering prompt is still in the queue (the queue strip can remove it)."""
        entries = (await self.client.call("session.queueList", {"sessionId": session_id}))["entries"]
        queued = {entry["id"] for entry in entries}
        active.steering.waiting = [entry for entry in active.steering.waiting if entry["id"] in queued]
        return bool(active.steering.waiting)

    async def _take_steering(self, session_id: str, active: _Active, provider_id: str) -> list[dict[str, Any]]:
        """The steering prompts waiting for this round, stored and ready for the request."""

        def prompt_of(entry: dict[str, Any]) -> dict[str, Any]:
            blocks = prompt_blocks(entry["content"], entry.get("attachments") or None)
            return {"id": queued_user_id(entry), "role": "user", "blocks": blocks}

        taken = await steering.take(self.client, session_id, active.turn_id, active.steering, prompt_of)
        for message in taken:
            self._notify(session_id, "steered", message)
        if provider_id != OFFLINE_ID and any(b["type"] == "attachment" for m in taken for b in m["blocks"]):
            taken = await attachment_content.hydrate(self.client, taken)
        return taken

    def _workspace_calls(self, session_id: str, active: _Active, prepared: Prepared) -> WorkspaceCalls | None:
        if prepared.workspace is None:
            return None
        unattended = not (self.interactive if active.interactive is None else active.interactive)
        return WorkspaceCalls(
            self.client,
            session_id,
            active.turn_id,
            active.cancel,
            prepared.workspace,
            asker=None if unattended else self.asker,  # an unattended turn has nobody to ask
            grants=self.grants,
            notify=self._notify,
            confirm_unconfined=self.confirm_unconfined,
        )

    async def _mcp_calls(self, session_id: str, active: _Active, prepared: Prepared, mode: object) -> McpCalls | None:
        """The chat's MCP tools (their servers started if needed); Plan and Goal get the read-only ones."""
        if self.mcp is None or prepared.provider_id == OFFLINE_ID:
            return None
        try:
            offer = await unless_stopped(self.mcp.offer(session_id), active.cancel)
        except Stopped:
            return None
        for server, sentence in offer.failed.items():
            self._notify(session_id, "mcp_failure", {"server": server, "message": sentence})
        if mode in ("plan", "goal"):
            offer.tools = {name: tool for name, tool in offer.tools.items() if tool.read_only}
        if not offer.tools:
            return None
        from pidesktop.agent.mcp.calls import McpCalls

        unattended = not (self.interactive if active.interactive is None else active.interactive)
        workspace = prepared.workspace or {}
        return McpCalls(
            self.client,
            self.mcp,
            offer,
            session_id,
            active.turn_id,
            active.cancel,
            mode=str(workspace.get("permissionMode") or permissions.DEFAULT_MODE),
            asker=None if unattended else self.asker,
            grants=self.grants,
            notify=self._notify,
        )

    # -- context budget and compaction ------------------------------------------------------
    async def prepare_request(self, session_id: str) -> Prepared:
        """Build the next request without sending it: windowed reads from the active checkpoint on.

        The newest page usually reaches back to the checkpoint; otherwise pages
        are read backwards until it is found, or (a chat never compacted) until
        they hold about two windows' worth: the kept tail plus the most one
        summary request can carry. Older messages are never read. The caller
        closes ``provider``.
        """
        call = self.client.call
        page = await call("session.get", {"sessionId": session_id, "messageLimit": FIRST_PAGE})
        session = page["session"]
        provider, provider_id, model_id = await self._provider_for(session)
        try:
            row = await self._model_row(provider_id, model_id)
            window = budget.window_for(model_id, row, self.context_window)
            settings = model_settings.read(row, await self._provider_config(provider_id), model_id)
            for name, value in (("max_tokens", settings.max_output_tokens), ("temperature", settings.temperature)):
                if hasattr(provider, name):  # the demo takes none of them
                    setattr(provider, name, value)
            compact_at = await self._compact_at()
            prepared = await self._read(session_id, page, provider, provider_id, model_id, window, compact_at)
            prepared.notes = await project_notes.read(self.client, session)
            prepared.system_prompt = settings.system_prompt
            try:
                prepared.workspace = await call("tools.workspace", {"sessionId": session_id})
            except HostError as exc:  # the chat answers without workspace tools rather than not at all
                log.warning("no workspace for session %s: %s", session_id, exc)
            return prepared
        except BaseException:
            close = getattr(provider, "aclose", None)
            if close is not None:
                await close()
            raise

    async def _read(
        self,
        session_id: str,
        page: dict[str, Any],
        provider: Any,
        provider_id: str,
        model_id: str,
        window: int,
        compact_at: float | None,
    ) -> Prepared:
        chain = page.get("compactions") or []
        checkpoint = chain[-1] if chain else None
        boundary = {checkpoint.get("firstKeptMessageId"), checkpoint.get("throughMessageId")} if checkpoint else set()
        want = 2 * window
        messages: list[dict[str, Any]] = list(page["messages"])
        more, start = page["hasMoreBefore"], page["messageStart"]
        tokens = budget.estimate(_context(messages))
        while more and not boundary.intersection(m["id"] for m in messages) and tokens < want:
            older = await self.client.call(
                "session.get", {"sessionId": session_id, "messageLimit": READ_PAGE, "messageBefore": start}
            )
            messages = older["messages"] + messages
            more, start = older["hasMoreBefore"], older["messageStart"]
            tokens += budget.estimate(_context(older["messages"]))
        complete = not more
        if checkpoint is not None:
            ids = [m["id"] for m in messages]
            if checkpoint.get("firstKeptMessageId") in ids:
                messages, complete = messages[ids.index(checkpoint["firstKeptMessageId"]) :], True
            elif checkpoint.get("throughMessageId") in ids:  # the first kept message was deleted since
                messages, complete = messages[len(ids) - ids[::-1].index(checkpoint["throughMessageId"]) :], True
        visible = _context(messages)
        return Prepared(
            page["session"],
            provider,
            provider_id,
            model_id,
            window,
            compact_at,
            checkpoint,
            len(chain),
            visible,
            [budget.message_tokens(m) for m in visible],
            complete,
            page["totalMessages"],
        )

    async def _window(self, provider_id: str, model_id: str | None) -> int:
        return budget.window_for(model_id, await self._model_row(provider_id, model_id), self.context_window)

    async def _model_row(self, provider_id: str, model_id: str | None) -> dict[str, Any] | None:
        """The model's ``models.list`` row: its context window and most output tokens, when set."""
        if provider_id in (OFFLINE_ID, "custom") or not model_id:
            return None
        try:
            rows = (await self.client.call("models.list", {"providerId": provider_id}))["models"]
        except HostError:
            return None
        return next((r for r in rows if r.get("modelId") == model_id), None)

    async def _provider_config(self, provider_id: str) -> dict[str, Any] | None:
        if provider_id in (OFFLINE_ID, "custom"):
            return None
        try:
            listed = (await self.client.call("providers.list", {}))["providers"]
        except HostError:
            return None
        return next((p.get("config") for p in listed if p.get("id") == provider_id), None)

    async def _compact_at(self) -> float | None:
        try:
            compact_at: float | None = (await self.client.call("settings.get", {}))["settings"].get("compactAt")
            return compact_at
        except HostError:
            return None

    def _estimate(self, session_id: str, prepared: Prepared) -> int:
        return self.correction.apply(session_id, budget.estimate(prepared.context()))

    async def _fit(self, session_id: str, prepared: Prepared, cancel: asyncio.Event) -> Prepared:
        """``prepared``, compacted first when it passes ``compactAt`` of the window; never over the window."""
        window = prepared.window
        if self._estimate(session_id, prepared) > budget.compact_threshold(window, prepared.compact_at):
            record = await self._compact(session_id, prepared, cancel, manual=False)
            if record is not None:
                prepared = prepared.after(record)
        needed = self._estimate(session_id, prepared)
        if needed > budget.input_budget(window):
            raise ProviderError(
                compaction.CONTEXT_TOO_LARGE,
                f"The newest messages need about {needed:,} tokens, more than the model's context "
                f"window of {window:,} tokens leaves for a request "
                f"({budget.input_budget(window):,}). Shorten the message or pick a model with "
                f"a larger context window.",
            )
        return prepared

    async def _compact(
        self, session_id: str, prepared: Prepared, cancel: asyncio.Event, *, manual: bool
    ) -> dict[str, Any] | None:
        """Summarise what must go with one model call and append the checkpoint; None if nothing can go."""
        factor = self.correction.factor(session_id)
        tokens = [max(1, round(t * factor)) for t in prepared.tokens]
        known = sum(tokens) + budget.tokens_for_chars(len(prepared.summary()))
        if not prepared.complete and prepared.messages:  # the first compaction of a long chat: extrapolated
            known = round(known * max(1.0, prepared.total / len(prepared.messages)))
        room = int(prepared.window / max(1.0, factor))  # the summary request is estimated, so corrected too
        plan = compaction.plan(
            prepared.messages,
            tokens,
            window=prepared.window,
            request_window=room,
            previous_summary=prepared.summary(),
            complete=prepared.complete,
            tokens_before=known,
            last_exchange=manual,
        )
        if plan is None:
            return None
        self._notify(session_id, "compacting", None)
        request = compaction.request(plan, prepared.summary(), room)
        if self.correction.apply(session_id, budget.estimate(request)) > budget.input_budget(prepared.window):
            raise ProviderError(
                compaction.COMPACTION_FAILED, "The summary request would not fit in the model's context window."
            )
        summary = await compaction.summarise(prepared.provider, request, cancel)
        record = compaction.checkpoint(
            plan,
            summary,
            generation=prepared.generation + 1,
            provider_id=prepared.provider_id,
            model_id=prepared.model_id,
            window=prepared.window,
            manual=manual,
        )
        if session_id in self._deleted:
            raise compaction.CompactionAborted()
        await self.client.call("session.appendCompaction", {"sessionId": session_id, "compaction": record})
        stored = {**record}
        after = prepared.after(record)
        self._usage[session_id] = {"tokens": self._estimate(session_id, after), "window": prepared.window}
        self._notify(session_id, "compacted", stored)
        return stored

    async def compact(self, session_id: str) -> dict[str, Any]:
        """Compact now: the checkpoint appended, or HostError (nothing to compact, a failed or stopped summary).

        Keeps the newest exchange (at most a quarter of the window) word for
        word. Stop (``stop(session_id)``) cancels the summary call; nothing is
        stored then.
        """
        if self.is_running(session_id):
            raise HostError(ErrorCode.CONFLICT, "Wait for the running reply to finish (or stop it) first.")
        active = _Active(turn_id=str(uuid.uuid4()))
        self._active[session_id] = active
        active.task = asyncio.current_task()
        try:
            prepared = await self.prepare_request(session_id)
            try:
                record = await self._compact(session_id, prepared, active.cancel, manual=True)
            finally:
                close = getattr(prepared.provider, "aclose", None)
                if close is not None:
                    await close()
        except compaction.CompactionAborted:
            raise HostError(
                compaction.COMPACTION_FAILED, "Compaction was stopped; nothing was changed.", {"aborted": True}
            ) from None
        except ProviderError as exc:
            raise HostError(exc.code, exc.message) from exc
        finally:
            self._active.pop(session_id, None)
            self._notify(session_id, "idle", None)
        if record is None:
            raise HostError(
                ErrorCode.CONFLICT,
                "Nothing to compact yet: this chat is no longer than the part a compaction keeps word for word.",
                {"nothingToCompact": True},
            )
        return record

    async def prompt_fit(
        self, session_id: str | None, choice: dict[str, Any], text: str, attachments: list[dict[str, Any]] | None = None
    ) -> dict[str, int]:
        """Whether a prompt of ``text`` and ``attachments`` fits the next request, asked before it is stored.

        ``{"tokens", "prompt", "history", "budget", "window"}``: the chat's context as the meter shows it
        plus the prompt's own estimate, which no correction learned from earlier replies shrinks (a large
        paste is not like the conversation before it), against what the window leaves for a request.
        ``choice`` names the provider and model of a chat not made yet.
        """
        if session_id is not None:
            usage = await self.context_usage(session_id)
            history, window = int(usage["tokens"]), int(usage["window"])
        else:
            provider_id, model_id = await self._model_of(choice)
            history, window = 0, await self._window(provider_id, model_id)
        prompt = budget.message_tokens({"blocks": prompt_blocks(text, attachments)})
        return {
            "tokens": history + prompt,
            "prompt": prompt,
            "history": history,
            "budget": budget.input_budget(window),
            "window": window,
        }

    async def context_usage(self, session_id: str) -> dict[str, Any]:
        """``{"tokens", "window"}``: the estimated size of the next request's context (summary + kept tail)."""
        known = self._usage.get(session_id)
        if known is not None:
            return dict(known)
        page = await self.client.call("session.get", {"sessionId": session_id, "messageLimit": FIRST_PAGE})
        provider_id, model_id = await self._model_of(page["session"])
        window = await self._window(provider_id, model_id)
        prepared = await self._read(session_id, page, None, provider_id, model_id or "", window, None)
        usage = {"tokens": self._estimate(session_id, prepared), "window": window}
        self._usage[session_id] = usage
        return dict(usage)

    def _remember_usage(
        self, session_id: str, prepared: Prepared, sent_estimate: int, reported: Usage | None, final: dict[str, Any]
    ) -> None:
        """Learn the correction from the provider's count, and keep the context size for ``context_usage``."""
        if reported is not None and sent_estimate:
            self.correction.observe(session_id, sent_estimate, reported.input_tokens)
        if reported is not None and reported.input_tokens > 0:
            tokens = reported.input_tokens + max(reported.output_tokens, 0)
        else:
            tokens = self._estimate(session_id, prepared) + self.correction.apply(
                session_id, budget.message_tokens(final)
            )
        self._usage[session_id] = {"tokens": int(tokens), "window": prepared.window}

    def _dropped(self, session_id: str, final: dict[str, Any] | None) -> dict[str, Any]:
        """The chat was deleted during the turn: nothing of it is stored."""
        log.info("session %s was deleted during its turn; the reply is dropped", session_id)
        self._notify(session_id, "finished", None)
        return {"status": "aborted", "turn": None, "message": final, "stored": None, "error": None, "deleted": True}

    async def _archive_branch(
        self, session_id: str, history: list[dict[str, Any]], user: dict[str, Any] | None
    ) -> None:
        """Record the finished branch as the live revision of its prompt (spec 004, 4.9)."""
        root = user or next((m for m in reversed(history) if m.get("role") == "user"), None)
        if root is None:
            return
        family = (root.get("meta") or {}).get("revisionRootId") or root["id"]
        try:
            await self.client.call("session.saveActiveRevision", {"sessionId": session_id, "rootUserId": family})
        except HostError as exc:  # the pager loses a variant label, never content
            log.warning("could not archive the finished branch: %s", exc)

    async def _checkpoint(self, session_id: str, turn_id: str, message: dict[str, Any]) -> None:
        if session_id in self._deleted:
            return  # a checkpoint would be refused anyway: the chat is gone
        try:
            await self.client.call(
                "session.saveInflightMessage", {"sessionId": session_id, "turnId": turn_id, "message": message}
            )
        except HostError as exc:  # a lost checkpoint costs at most one interval of text
            log.warning("checkpoint failed: %s", exc)

    async def _model_of(self, session: dict[str, Any]) -> tuple[str, str | None]:
        """``(provider id, model id)`` the chat's next request goes to (the model may still be unknown)."""
        if self.override is not None:
            return "custom", self.override.model
        provider_id, model_id = session.get("providerId"), session.get("modelId")
        if not provider_id:
            try:
                default = await self.client.call("providers.list", {})
                provider_id = default.get("defaultProviderId") or OFFLINE_ID
                model_id = model_id or default.get("defaultModelId")
            except HostError:
                provider_id = OFFLINE_ID
        if provider_id == OFFLINE_ID:
            return OFFLINE_ID, OFFLINE_MODEL
        return provider_id, model_id

    async def _provider_for(self, session: dict[str, Any]) -> tuple[Any, str, str]:
        # httpx comes with it: imported at the first real turn (or the warm-up after the window's first paint)
        from pidesktop.agent.openai_compat import OpenAICompatibleProvider

        if self.override is not None:
            choice = self.override
            return (
                OpenAICompatibleProvider(
                    base_url=choice.base_url,
                    api_key=choice.api_key,
                    model=choice.model,
                    label=choice.label,
                    proxy=await self._proxy(),
                ),
                "custom",
                choice.model,
            )
        provider_id, model_id = await self._model_of(session)
        if provider_id == OFFLINE_ID:
            return OfflineDemoProvider(delay=self.offline_delay), OFFLINE_ID, OFFLINE_MODEL
        creds = await self.client.call("providers.credentials", {"providerId": provider_id})
        model = model_id or creds.get("defaultModelId")
        if not model:
            raise HostError(
                ErrorCode.INVALID_PARAMS,
                f"No model is chosen for {creds.get('name', provider_id)}. Pick one in Settings > Providers.",
            )
        return (
            OpenAICompatibleProvider(
                base_url=creds["baseUrl"],
                api_key=creds.get("apiKey"),
                model=model,
                label=creds.get("name", provider_id),
                proxy=await self._proxy(),
            ),
            provider_id,
            model,
        )

    async def _proxy(self) -> object:
        """``settings.networkProxy``; None (the system's proxy) when the settings cannot be read."""
        try:
            settings: dict[str, Any] = (await self.client.call("settings.get", {}))["settings"]
        except HostError:
            return None
        return settings.get("networkProxy")

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
            user = {
                "id": queued_user_id(entry),
                "role": "user",
                "blocks": prompt_blocks(entry["content"], entry.get("attachments") or None),
            }
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
            await self.client.call(
                "session.queueMarkFailed",
                {"sessionId": session_id, "entryId": entry_id, "error": {"code": error.code, "message": error.message}},
            )
        except HostError as failed:  # the entry is still queued; only its mark is missing
            log.warning("could not mark the queued prompt %s as failed: %s", entry_id, failed)

    def _notify(self, session_id: str, phase: str, message: dict[str, Any] | None) -> None:
        for listener in list(self.listeners):
            try:
                listener(session_id, phase, message)
            except Exception:
                log.exception("turn listener failed")


class ImageFallback:
    """Send pictures; if the server refuses the request outright, ask once more with them named only.

    A text-only model answers a request carrying an image with a 4xx before any
    reply streams (``BAD_REQUEST``), so retrying without the pictures cannot
    repeat or lose part of a reply. A named picture of a prompt carries the
    path of a copy in ``scratch/<sessionId>/replayed/`` (``@path``), so the
    model is not left without it.
    """

    def __init__(self, client: Any = None, session_id: str = "") -> None:
        self.images_named = False
        self.client = client
        self.session_id = session_id

    async def stream(
        self, provider: Any, context: list[dict[str, Any]], **options: Any
    ) -> AsyncGenerator[StreamEvent, None]:
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
        if self.client is not None:
            named_only = await attachment_content.with_paths(self.client, self.session_id, named_only)
        async with contextlib.aclosing(provider.stream(named_only, **options)) as events:
            async for event in events:
                yield event


STORED_ATTACHMENT_KEYS = frozenset({"type", "kind", "name", "ref", "mimeType", "size", "text"})


def prompt_blocks(text: str, attachments: list[dict[str, Any]] | None) -> list[dict[str, Any]]:
    """A prompt's blocks: its text (unless blank), then its attachment blocks, or INVALID_PARAMS."""
    if attachments is not None and not isinstance(attachments, list):
        raise HostError(
            ErrorCode.INVALID_PARAMS,
            f"attachments must be a list of attachment blocks, not {type(attachments).__name__}.",
        )
    attached = [_attachment_block(number, block) for number, block in enumerate(attachments or [])]
    if not text.strip() and not attached:
        raise HostError(ErrorCode.INVALID_PARAMS, "The prompt is empty: type a message or attach a file.")
    return ([{"type": "text", "text": text}] if text.strip() else []) + attached


def _attachment_block(number: int, block: Any) -> dict[str, Any]:
    if not isinstance(block, dict) or block.get("type") != "attachment":
        raise HostError(ErrorCode.INVALID_PARAMS, f'attachments[{number}] must be an object with type "attachment".')
    if not isinstance(block.get("ref"), str) or not block["ref"]:
        raise HostError(ErrorCode.INVALID_PARAMS, f"attachments[{number}].ref must be a non-empty string.")
    # A prompt stores only what names the attachment (spec 004, 4.7): content fetched
    # for the model (``inline``) is transient, and the digest is already in the ref.
    return {key: value for key, value in block.items() if key in STORED_ATTACHMENT_KEYS}


def _context(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
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


def _usage_summary(usage: Any) -> dict[str, Any] | None:
    if not isinstance(usage, dict):
        return None
    tokens_in = usage.get("prompt_tokens", usage.get("input_tokens", usage.get("inputTokens")))
    tokens_out = usage.get("completion_tokens", usage.get("output_tokens", usage.get("outputTokens")))
    summary: dict[str, Any] = {"raw": usage}
    if isinstance(tokens_in, int):
        summary["inputTokens"] = tokens_in
    if isinstance(tokens_out, int):
        summary["outputTokens"] = tokens_out
    return summary
