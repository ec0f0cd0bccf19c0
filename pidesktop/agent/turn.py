"""One turn of a chat, in the order spec 004 section 5 requires (see ``runner.py``).

The prompt is stored, the turn opened, the request rounds streamed (the app's
tool calls answered between them, steering prompts taken in), the reply stored
and the turn ended. A ``Turn`` holds what one turn learns on the way: its
reply, its status and error, how long the model thought, the last usage the
provider reported. The runner makes one per turn and keeps what outlives it.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
import uuid
from collections.abc import AsyncGenerator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from pidesktop.agent import attachment_content, compaction, permissions, plan_gate, steering, tool_loop
from pidesktop.agent import context as budget
from pidesktop.agent.errors import ProviderError
from pidesktop.agent.events import StreamEvent, TextDelta, ThinkingDelta, Usage
from pidesktop.agent.outbox import OutboxFull
from pidesktop.agent.prompt_blocks import queued_prompt
from pidesktop.agent.provider import ChatProvider
from pidesktop.agent.reply import ReplyBuilder
from pidesktop.agent.request_plan import OFFLINE_ID, Prepared
from pidesktop.agent.stopping import Stopped, unless_stopped
from pidesktop.agent.tool_calls import WorkspaceCalls
from pidesktop.bus import ErrorCode, HostClient, HostError

if TYPE_CHECKING:
    from pidesktop.agent.mcp.calls import McpCalls
    from pidesktop.agent.runner import TurnRunner

log = logging.getLogger("pidesktop.agent.runner")


@dataclass
class ActiveTurn:
    """A chat's running turn (or compaction) as the runner tracks it: what Stop and steering reach."""

    turn_id: str
    cancel: asyncio.Event = field(default_factory=asyncio.Event)
    task: asyncio.Task[Any] | None = None  # the task running the turn, whatever it returns
    user_stored: bool = False  # the prompt's line is stored (a queued entry has left the queue)
    interactive: bool | None = None  # this turn only; None: the runner's own setting
    steering: steering.Steering = field(default_factory=steering.Steering)  # prompts sent into this turn


def is_deleted_error(error: BaseException) -> bool:
    """The host's answer for a chat that ``session.delete`` removed."""
    return isinstance(error, HostError) and error.code == ErrorCode.NOT_FOUND and error.data.get("deleted") is True


class Turn:
    def __init__(self, runner: TurnRunner, session_id: str, active: ActiveTurn, user: dict[str, Any] | None) -> None:
        self.runner = runner
        self.client: HostClient = runner.client
        self.session_id = session_id
        self.active = active
        self.user = user  # the prompt to append first, or None to answer the last one again
        self.status = "completed"
        self.error: ProviderError | None = None
        self.fallback = ImageFallback(self.client, session_id)
        self.thinking_started: float | None = None
        self.thinking_seconds: float | None = None
        self.last_checkpoint = time.monotonic()
        self.sent_estimate = 0  # the estimate of the request the usage reported last belongs to
        self.reported: Usage | None = None

    @property
    def unattended(self) -> bool:
        interactive = self.active.interactive
        return not (self.runner.interactive if interactive is None else interactive)

    async def run(self, queue_entry_id: str | None) -> dict[str, Any]:
        await self._store_prompt(queue_entry_id)
        prepared = await self.runner.planner.prepare(self.session_id)
        provider = prepared.sender()
        await self.client.call(
            "session.startTurn",
            {
                "sessionId": self.session_id,
                "turnId": self.active.turn_id,
                "providerId": prepared.provider_id,
                "modelId": prepared.model_id,
            },
        )
        # the reply being written; each tool round's stored message makes way for a new one
        self.builder = ReplyBuilder(str(uuid.uuid4()), prepared.model_id, prepared.provider_id)
        self.runner.notify(self.session_id, "started", self.builder.snapshot("streaming"))
        self.last_checkpoint = time.monotonic()
        tools = tool_loop.ToolLoop(
            self.client,
            self.session_id,
            self.active.turn_id,
            prepared.session.get("mode"),
            self.active.cancel,
            provider_id=prepared.provider_id,
            model_id=prepared.model_id,
            notify=self.runner.notify,
            workspace=self._workspace_calls(prepared),
            mcp=await self._mcp_calls(prepared, prepared.session.get("mode")),
            refused=self.runner.tool_refusals,
        )
        try:
            if self.unattended:
                plan_gate.refuse_unattended(prepared.session)  # before any model request (spec 004)
            prepared = await self.runner.contexts.fit(self.session_id, prepared, self.active.cancel)
            await self._converse(prepared, provider, tools)
            if self.active.cancel.is_set():
                self.status = "aborted"
        except ProviderError as exc:
            self.status, self.error = "error", exc
        except HostError as exc:
            if is_deleted_error(exc):
                raise
            # The host refused a step inside the turn (a tool round's store, a tool call): the turn
            # still ends, as an error with that code, instead of staying "running" until a restart.
            self.status, self.error = "error", ProviderError(exc.code, exc.message)
        except (asyncio.CancelledError, compaction.CompactionAborted):
            self.status = "aborted"
        finally:
            await provider.aclose()
        return await self._finish(prepared, tools)

    async def _store_prompt(self, queue_entry_id: str | None) -> None:
        if self.user is not None:
            params = {"sessionId": self.session_id, "message": self.user}
            if queue_entry_id is not None:
                params["queueEntryId"] = queue_entry_id  # leaves the queue with this very append
            await self.client.call("session.appendMessage", params)
            self.active.steering.unanswered = [self.user]
        self.active.user_stored = True

    # -- the request rounds ---------------------------------------------------------------
    async def _converse(self, prepared: Prepared, provider: ChatProvider, tools: tool_loop.ToolLoop) -> None:
        """Ask the model, answer the app's tool calls and ask again, until a round calls none (or Stop)."""
        context = prepared.context()
        if prepared.provider_id != OFFLINE_ID:  # the demo only names attachments; it never needs their bytes
            context = await attachment_content.hydrate(self.client, context)
            # a picture over the inline bound goes by path, so the model's tools can still open it
            context = await attachment_content.with_paths(self.client, self.session_id, context)
        self.sent_estimate = budget.estimate(context)
        cancel = self.active.cancel
        while True:  # one round per request; the app's tool calls are answered and the model asked again
            builder = self.builder
            await self._stream_round(tools, provider, context, prepared.session["thinkingLevel"], builder)
            if cancel.is_set():
                break
            more = await tools.run_calls(builder)
            # A reply that called no tools is asked once more when a steering prompt waits for it.
            steered = not builder.tool_calls and tools.approval is None and bool(self.active.steering.waiting)
            if steered:  # one removed from the queue meanwhile asks for nothing
                steered = await self._still_queued()
            if cancel.is_set() or not (more or steered):
                break
            if builder.has_content():
                self.active.steering.answered()
            self.builder, context = await tools.next_round(builder, prepared.model_id, prepared.provider_id, context)
            context = [*context, *await self._take_steering(prepared.provider_id)]
            self.sent_estimate = budget.estimate(context)  # the usage reported last is this request's

    async def _stream_round(
        self,
        tools: tool_loop.ToolLoop,
        provider: ChatProvider,
        context: list[dict[str, Any]],
        thinking_level: str,
        builder: ReplyBuilder,
    ) -> None:
        """One request and its streamed answer: deltas to the screen, an in-flight checkpoint now and then."""
        events = tools.stream(
            self.fallback, provider, context, thinking_level=thinking_level, cancel=self.active.cancel
        )
        # Closed here, in this task, however the loop ends: see OpenAICompatibleProvider._read_stream.
        async with contextlib.aclosing(events):
            async for event in events:
                builder.feed(event)
                if isinstance(event, ThinkingDelta) and self.thinking_started is None:
                    self.thinking_started = time.monotonic()
                elif (
                    isinstance(event, TextDelta) and self.thinking_started is not None and self.thinking_seconds is None
                ):
                    self.thinking_seconds = time.monotonic() - self.thinking_started
                if isinstance(event, Usage):
                    if not event.raw.get("estimated"):
                        self.reported = event
                    continue
                self.runner.notify(self.session_id, "delta", builder.snapshot("streaming"))
                if time.monotonic() - self.last_checkpoint >= self.runner.checkpoint_every and builder.has_content():
                    await self._checkpoint(builder.snapshot("streaming"))
                    self.last_checkpoint = time.monotonic()

    async def _still_queued(self) -> bool:
        """Whether a waiting steering prompt is still in the queue (the queue strip can remove it)."""
        entries = (await self.client.call("session.queueList", {"sessionId": self.session_id}))["entries"]
        queued = {entry["id"] for entry in entries}
        waiting = self.active.steering
        waiting.waiting = [entry for entry in waiting.waiting if entry["id"] in queued]
        return bool(waiting.waiting)

    async def _take_steering(self, provider_id: str) -> list[dict[str, Any]]:
        """The steering prompts waiting for this round, stored and ready for the request."""
        session_id = self.session_id
        taken = await steering.take(self.client, session_id, self.active.turn_id, self.active.steering, queued_prompt)
        for message in taken:
            self.runner.notify(session_id, "steered", message)
        if provider_id != OFFLINE_ID and any(b["type"] == "attachment" for m in taken for b in m["blocks"]):
            taken = await attachment_content.hydrate(self.client, taken)
        return taken

    def _workspace_calls(self, prepared: Prepared) -> WorkspaceCalls | None:
        if prepared.workspace is None:
            return None
        runner = self.runner
        return WorkspaceCalls(
            self.client,
            self.session_id,
            self.active.turn_id,
            self.active.cancel,
            prepared.workspace,
            asker=None if self.unattended else runner.asker,  # an unattended turn has nobody to ask
            notify=runner.notify,
            confirm_unconfined=runner.confirm_unconfined,
        )

    async def _mcp_calls(self, prepared: Prepared, mode: object) -> McpCalls | None:
        """The chat's MCP tools (their servers started if needed); Plan and Goal get the read-only ones."""
        runner, session_id = self.runner, self.session_id
        if runner.mcp is None or prepared.provider_id == OFFLINE_ID:
            return None
        try:
            offer = await unless_stopped(runner.mcp.offer(session_id), self.active.cancel)
        except Stopped:
            return None
        for server, sentence in offer.failed.items():
            runner.notify(session_id, "mcp_failure", {"server": server, "message": sentence})
        if mode in ("plan", "goal"):
            offer.tools = {name: tool for name, tool in offer.tools.items() if tool.read_only}
        if not offer.tools:
            return None
        from pidesktop.agent.mcp.calls import McpCalls

        workspace = prepared.workspace or {}
        return McpCalls(
            self.client,
            runner.mcp,
            offer,
            session_id,
            self.active.turn_id,
            self.active.cancel,
            mode=str(workspace.get("permissionMode") or permissions.DEFAULT_MODE),
            asker=None if self.unattended else runner.asker,
            notify=runner.notify,
        )

    # -- the end of the turn ----------------------------------------------------------------
    async def _finish(self, prepared: Prepared, tools: tool_loop.ToolLoop) -> dict[str, Any]:
        """Store the reply (unless the chat was deleted), end the turn, and say how it went."""
        runner, session_id, active, builder = self.runner, self.session_id, self.active, self.builder
        status = self.status
        final = builder.snapshot(status)
        runner.contexts.remember(session_id, prepared, self.sent_estimate, self.reported, final)
        if runner.is_deleted(session_id):
            return runner.dropped(session_id, final)
        if status == "completed" or builder.has_content():
            active.steering.answered()
        meta = final.setdefault("meta", {})
        if self.thinking_seconds is not None:
            meta["thinkingSeconds"] = round(self.thinking_seconds, 1)
        if self.fallback.images_named:
            meta["imagesNotSent"] = True  # the reply says so under it
        if self.error is not None:
            meta["error"] = {"code": self.error.code, "message": self.error.message}
        stored = None
        if builder.has_content() or self.error is not None:
            if status == "completed":
                await self._checkpoint(final)  # D327: before the final append
            if runner.outbox is not None:  # None while it waits in the queue; the turn still ends (D327)
                try:
                    stored = await runner.outbox.append(session_id, final, active.turn_id)
                except OutboxFull as exc:
                    # Refused loudly; the reply stays in its in-flight checkpoint for recovery.
                    status, self.error = "error", ProviderError(ErrorCode.OUTBOX_FULL, str(exc))
            else:
                try:
                    stored = await self.client.call(
                        "session.appendMessage", {"sessionId": session_id, "message": final, "turnId": active.turn_id}
                    )
                except HostError as exc:
                    if is_deleted_error(exc):
                        runner.mark_deleted(session_id)
                        return runner.dropped(session_id, final)
                    raise
        error = self.error
        usage = final.get("meta", {}).get("usage")
        try:
            ended = await self.client.call(
                "session.endTurn",
                {
                    "sessionId": session_id,
                    "turnId": active.turn_id,
                    "status": status,
                    "errorCode": error.code if error else None,
                    "createNotification": status != "aborted" and not runner.watched(session_id),
                    "usage": usage_summary(usage),
                },
            )
        except HostError:
            if runner.is_deleted(session_id):  # deleted while the reply was being stored
                return runner.dropped(session_id, final)
            raise
        withdrawn, rewritten = None, False
        if status == "aborted":  # smart Stop: what no reply answered goes back into the composer
            withdrawn, rewritten = await steering.withdraw(self.client, session_id, active.steering)
            if withdrawn is not None:
                runner.notify(session_id, "withdrawn", withdrawn)
        # Only a regenerated or edited prompt has variants to page through; stamping
        # every new prompt would rewrite the whole transcript after every turn.
        user = self.user
        branching = user is None or bool((user.get("meta") or {}).get("revisionRootId"))
        if status == "completed" and stored is not None and branching:
            await self._archive_branch(prepared.messages)
        runner.notify(session_id, "finished", final if stored is not None else None)
        return {
            "status": "withdrawn" if rewritten else status,
            "turn": ended["turn"],
            "message": final,
            "stored": stored,
            "error": {"code": error.code, "message": error.message} if error else None,
            "approval": tools.approval,  # a plan or goal this turn left waiting for an answer
            "withdrawn": withdrawn,  # the draft Stop took back: {text, attachments}, or None
        }

    async def _archive_branch(self, history: list[dict[str, Any]]) -> None:
        """Record the finished branch as the live revision of its prompt (spec 004, 4.9)."""
        root = self.user or next((m for m in reversed(history) if m.get("role") == "user"), None)
        if root is None:
            return
        family = (root.get("meta") or {}).get("revisionRootId") or root["id"]
        try:
            await self.client.call("session.saveActiveRevision", {"sessionId": self.session_id, "rootUserId": family})
        except HostError as exc:  # the pager loses a variant label, never content
            log.warning("could not archive the finished branch: %s", exc)

    async def _checkpoint(self, message: dict[str, Any]) -> None:
        if self.runner.is_deleted(self.session_id):
            return  # a checkpoint would be refused anyway: the chat is gone
        try:
            await self.client.call(
                "session.saveInflightMessage",
                {"sessionId": self.session_id, "turnId": self.active.turn_id, "message": message},
            )
        except HostError as exc:  # a lost checkpoint costs at most one interval of text
            log.warning("checkpoint failed: %s", exc)


class ImageFallback:
    """Send pictures; if the server refuses the request outright, ask once more with them named only.

    A text-only model answers a request carrying an image with a 4xx before any
    reply streams (``BAD_REQUEST``), so retrying without the pictures cannot
    repeat or lose part of a reply. A named picture of a prompt carries the
    path of a copy in ``scratch/<sessionId>/replayed/`` (``@path``), so the
    model is not left without it.
    """

    def __init__(self, client: HostClient | None = None, session_id: str = "") -> None:
        self.images_named = False
        self.client = client
        self.session_id = session_id

    async def stream(
        self, provider: ChatProvider, context: list[dict[str, Any]], **options: Any
    ) -> AsyncGenerator[StreamEvent, None]:
        try:
            async with contextlib.aclosing(provider.stream(context, **options)) as events:
                async for event in events:
                    yield event
            return
        except ProviderError as exc:
            if exc.code != ErrorCode.BAD_REQUEST or not attachment_content.has_images(context):
                raise
            log.info("the model refused a request with pictures; asking again with them named only")
        self.images_named = True
        named_only = attachment_content.without_images(context)
        if self.client is not None:
            named_only = await attachment_content.with_paths(self.client, self.session_id, named_only)
        async with contextlib.aclosing(provider.stream(named_only, **options)) as events:
            async for event in events:
                yield event


def usage_summary(usage: Any) -> dict[str, Any] | None:
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
