"""The tool loop of one turn: offer the app's tools, run the calls, ask the model again.

A round is one request and its streamed answer. When the answer calls tools
the app offered (``tools.py``), each call runs through the host, its result
goes into the call's ``tool_call`` block, the round's message is stored (as
an assistant message of the same turn, like any streamed reply) and the model
is asked again with the results, until it answers without calling a tool.
A call to a tool the app did not offer, or with arguments that are not a
JSON object, is answered with an error result the model reads (its block
stores status "error") and the turn goes on. When the server refused tools
altogether, such calls are answered the same way but the turn ends there.

Limits: ``MAX_ROUNDS`` rounds of tool calls per turn, then the turn stops with
``tool_rounds_exceeded``. A ``SubmitPlan``/``SubmitGoal`` that was stored ends
the turn: the proposal waits for the person. Stop is checked before every
call and ends a call that is still waiting (its block keeps no result),
except ``bash``, which handles Stop itself: its command is killed and its
result says so.

A server that refuses a request and names ``tools`` (a 4xx before any reply,
as models without tool support do on Ollama and OpenRouter) is asked once more without them;
the runner then does without tools for that provider and model (``refused``, the runner's own set).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
import uuid
from collections.abc import AsyncGenerator, Callable
from typing import TYPE_CHECKING, Any

from pidesktop.agent import attachment_content, tools, workspace_tools
from pidesktop.agent.errors import ProviderError
from pidesktop.agent.events import StreamEvent
from pidesktop.agent.reply import ReplyBuilder
from pidesktop.agent.stopping import Stopped, unless_stopped
from pidesktop.agent.tool_calls import WorkspaceCalls
from pidesktop.bus import ErrorCode, HostError

if TYPE_CHECKING:
    from pidesktop.agent.mcp.calls import McpCalls
    from pidesktop.agent.provider import ChatProvider
    from pidesktop.agent.turn import ImageFallback

log = logging.getLogger("pidesktop.agent.tool_loop")

MAX_ROUNDS = 25

# (provider id, model id) pairs whose server refused a request with tools
ToolRefusals = set[tuple[str, str]]


def refuses_tools(error: ProviderError) -> bool:
    """A refusal of the request itself that names tools: a 4xx whose message says "tool".

    Ollama answers a model without tool support with 400 "... does not support
    tools"; OpenRouter with 404 "No endpoints found that support tool use";
    llama.cpp and vLLM name their tool flags. Any other refusal (a plain 400
    about something else, keys, permissions, rate limits) is not retried: it
    would fail the same way and send the prompt twice.
    """
    status = error.status or (400 if error.code == ErrorCode.BAD_REQUEST else 0)
    return 400 <= status < 500 and status not in (401, 403, 429) and "tool" in error.message.lower()


class ToolLoop:
    def __init__(
        self,
        client: Any,
        session_id: str,
        turn_id: str,
        mode: object,
        cancel: asyncio.Event,
        *,
        provider_id: str = "",
        model_id: str = "",
        notify: Callable[[str, str, dict[str, Any] | None], None] = lambda *_: None,
        workspace: WorkspaceCalls | None = None,
        mcp: McpCalls | None = None,
        refused: ToolRefusals | None = None,
    ):
        self.client = client
        # the runner's memory of servers that refused tools (None: this loop's alone)
        self.refused: ToolRefusals = set() if refused is None else refused
        self.session_id = session_id
        self.turn_id = turn_id
        self.cancel = cancel
        self.key = (provider_id, model_id)
        self.tools = [] if self.key in self.refused else tools.offered(mode, workspace=workspace is not None)
        if self.tools and mcp is not None:
            self.tools += mcp.definitions
        self.names = tools.names(self.tools)
        self.rounds = 0
        self.approval: dict[str, Any] | None = None  # the proposal this turn ended waiting for
        self._notify = notify
        self.workspace = workspace
        self.mcp = mcp

    # -- streaming ------------------------------------------------------------------------
    async def stream(
        self, fallback: ImageFallback, provider: ChatProvider, context: list[dict[str, Any]], **options: Any
    ) -> AsyncGenerator[StreamEvent, None]:
        """``fallback.stream`` with the tools offered; once more without them if the server refuses them."""
        if not self.tools:
            async with contextlib.aclosing(fallback.stream(provider, context, **options)) as events:
                async for event in events:
                    yield event
            return
        arrived = False
        try:
            async with contextlib.aclosing(fallback.stream(provider, context, tools=self.tools, **options)) as events:
                async for event in events:
                    arrived = True
                    yield event
            return
        except ProviderError as exc:
            if arrived or not refuses_tools(exc):
                raise
        self.refused.add(self.key)
        self.tools, self.names = [], set()
        async with contextlib.aclosing(fallback.stream(provider, context, **options)) as events:
            async for event in events:
                yield event

    # -- running the calls ----------------------------------------------------------------
    async def run_calls(self, builder: ReplyBuilder) -> bool:
        """Run the round's calls to the app's tools; True when the model should be asked again.

        Raises ``ProviderError(tool_rounds_exceeded)`` when another round would pass ``MAX_ROUNDS``.
        """
        calls = builder.tool_calls
        if calls or self.rounds:
            await self._record_usage(builder)
        if not calls:
            return False  # no tool was called: the reply stands as it is
        ends_turn = not self.names  # tools were refused by the server: answer the calls, ask no more
        await self._checkpoint(builder)  # a crash while a call runs or waits keeps the calls, marked aborted
        for call in calls:
            if self.cancel.is_set():
                return False
            started, waited = time.monotonic(), self._waited()
            running = tools.run(self.client, self.session_id, self.turn_id, call, self.names, self.workspace, self.mcp)
            try:
                # bash stops its own command on Stop, so its result can say so
                outcome = await (
                    running if call["name"] == workspace_tools.BASH else unless_stopped(running, self.cancel)
                )
            except Stopped:
                return False  # stopped during the call: it keeps no result
            builder.set_result(
                call["callId"],
                outcome.result,
                ok=outcome.ok,
                # the call's own time: a permission card waiting for the person is not part of it
                duration_ms=round((time.monotonic() - started - (self._waited() - waited)) * 1000),
                details=outcome.details,
                attachments=outcome.attachments,
                denied=outcome.denied,
                audit=outcome.audit,
            )
            self._notify(
                self.session_id,
                "tool_done",
                {
                    "turnId": self.turn_id,
                    "callId": call["callId"],
                    "tool": call["name"],
                    "ok": outcome.ok,
                    "result": outcome.result,
                },
            )
            if outcome.ends_turn:
                ends_turn = True
                self.approval = outcome.approval
        if ends_turn or self.cancel.is_set():
            return False
        self.rounds += 1
        if self.rounds >= MAX_ROUNDS:
            raise ProviderError(
                ErrorCode.TOOL_ROUNDS_EXCEEDED,
                f"The model used tools {MAX_ROUNDS} times in this turn without answering, so the "
                f"turn was stopped. Send a message to let it go on, or ask it to finish.",
            )
        return True

    def _waited(self) -> float:
        """Seconds this turn's calls have waited for the person's answers so far."""
        gates = [calls.gate for calls in (self.workspace, self.mcp) if calls is not None]
        return sum(gate.waited for gate in gates)

    async def next_round(
        self, builder: ReplyBuilder, model_id: str, provider_id: str, context: list[dict[str, Any]]
    ) -> tuple[ReplyBuilder, list[dict[str, Any]]]:
        """Store the round's message (its calls answered) and start the next one: a new builder and context."""
        done = builder.snapshot("completed")
        await self.client.call(
            "session.appendMessage", {"sessionId": self.session_id, "message": done, "turnId": self.turn_id}
        )
        self._notify(self.session_id, "finished", done)
        following = ReplyBuilder(str(uuid.uuid4()), model_id, provider_id)
        self._notify(self.session_id, "started", following.snapshot("streaming"))
        sent = done
        if any(block.get("attachments") for block in done["blocks"] if block.get("type") == "tool_call"):
            [sent] = await attachment_content.hydrate(self.client, [done])  # a read picture goes to the model
        return following, [*context, sent]

    async def _checkpoint(self, builder: ReplyBuilder) -> None:
        try:
            await self.client.call(
                "session.saveInflightMessage",
                {"sessionId": self.session_id, "turnId": self.turn_id, "message": builder.snapshot("streaming")},
            )
        except HostError as exc:  # only crash recovery loses the calls of this round
            log.warning("could not checkpoint a tool round: %s", exc)

    async def _record_usage(self, builder: ReplyBuilder) -> None:
        """Each round's tokens as one usage record of the turn, so its totals count every request."""
        usage = builder.usage
        if not isinstance(usage, dict):
            return
        record: dict[str, Any] = {"id": f"{self.turn_id}:round-{self.rounds + 1}", "kind": "tool-loop-round"}
        tokens_in = usage.get("prompt_tokens", usage.get("input_tokens"))
        tokens_out = usage.get("completion_tokens", usage.get("output_tokens"))
        if isinstance(tokens_in, int) and not isinstance(tokens_in, bool) and tokens_in >= 0:
            record["inputTokens"] = tokens_in
        if isinstance(tokens_out, int) and not isinstance(tokens_out, bool) and tokens_out >= 0:
            record["outputTokens"] = tokens_out
        try:
            await self.client.call(
                "session.recordUsage", {"sessionId": self.session_id, "turnId": self.turn_id, "records": [record]}
            )
        except HostError as exc:  # the turn's totals miss a round; the reply itself is unaffected
            log.warning("could not record the usage of a tool round: %s", exc)
