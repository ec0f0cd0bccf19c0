"""``ReplyBuilder``: folds stream events into the stored assistant message, at any moment.

``snapshot`` can be taken mid-stream (to show or checkpoint a partial reply)
and again at the end; blocks are always thinking, then text, then tool calls.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import orjson

from pidesktop.agent.events import Finished, RefusalDelta, StreamEvent, TextDelta, ThinkingDelta, ToolCallDelta, Usage


@dataclass
class _ToolCall:
    id: str | None = None
    name: str = ""
    arguments: list[str] = field(default_factory=list)


class ReplyBuilder:
    def __init__(self, message_id: str, model_id: str | None, provider_id: str | None):
        self.message_id = message_id
        self.model_id = model_id
        self.provider_id = provider_id
        self._thinking: list[str] = []
        self._text: list[str] = []
        self._refusal: list[str] = []
        self._calls: dict[int, _ToolCall] = {}
        self.usage: dict[str, Any] | None = None
        self.finish_reason: str | None = None
        self.finished = False
        self._results: dict[str, dict[str, Any]] = {}  # call id -> what the app's tool returned (the tool loop)

    def feed(self, event: StreamEvent) -> None:
        if isinstance(event, TextDelta):
            self._text.append(event.text)
        elif isinstance(event, ThinkingDelta):
            self._thinking.append(event.text)
        elif isinstance(event, RefusalDelta):
            self._refusal.append(event.text)
        elif isinstance(event, ToolCallDelta):
            call = self._calls.setdefault(event.index, _ToolCall())
            call.id = call.id or event.id
            call.name = call.name or (event.name or "")
            call.arguments.append(event.arguments)
        elif isinstance(event, Usage):
            self.usage = event.raw  # the last report wins: some servers send running totals
        elif isinstance(event, Finished):
            self.finished = True
            self.finish_reason = event.reason
            self.model_id = self.model_id or event.model

    @property
    def text(self) -> str:
        """The visible answer; a refusal is the answer when there is one."""
        text, refusal = "".join(self._text), "".join(self._refusal)
        return f"{text}\n\n{refusal}" if text and refusal else text or refusal

    @property
    def thinking(self) -> str:
        return "".join(self._thinking)

    @property
    def tool_calls(self) -> list[dict[str, Any]]:
        """One ``tool_call`` block per call, in index order; args parsed when they are complete JSON.

        Status: ``pending`` until ``set_result`` gives ``ok``, ``error`` or ``denied``; a final snapshot
        (any status but ``streaming``) marks a call still pending ``aborted``.
        """
        blocks = []
        for index, call in sorted(self._calls.items()):
            call_id = call.id or f"call_{self.message_id}_{index}"
            block = {
                "type": "tool_call",
                "callId": call_id,
                "name": call.name,
                "args": _parsed_arguments("".join(call.arguments)),
                "status": "pending",  # until the app answers it; never shown as a success it was not
            }
            blocks.append({**block, **self._results.get(call_id, {})})
        return blocks

    def set_result(
        self,
        call_id: str,
        result: object,
        *,
        ok: bool = True,
        duration_ms: int | None = None,
        details: dict[str, Any] | None = None,
        attachments: list[dict[str, Any]] | None = None,
        denied: bool = False,
        audit: dict[str, Any] | None = None,
    ) -> None:
        """The result of a call the app ran; it goes into the call's block (and back to the model).

        ``details`` is for the window only (a write's ``review`` record and diff), never sent to the model.
        ``audit`` is the host's record of the call (``tool_execute``/``tool_denied``): the host writes it
        in the transaction that stores this block.
        """
        status = "denied" if denied else "ok" if ok else "error"
        answered: dict[str, Any] = {"result": result, "status": status}
        if duration_ms is not None:
            answered["durationMs"] = duration_ms
        if details:
            answered["details"] = details
        if attachments:  # stored attachment blocks: the pictures go to the model after the results
            answered["attachments"] = attachments
        if audit:
            answered["audit"] = audit
        self._results[call_id] = answered

    def has_content(self) -> bool:
        return bool(self.thinking or self.text or self._calls)

    def snapshot(self, status: str) -> dict[str, Any]:
        blocks: list[dict[str, Any]] = []
        if self.thinking:
            blocks.append({"type": "thinking", "text": self.thinking})
        if self.text:
            blocks.append({"type": "text", "text": self.text})
        if status == "streaming":
            blocks += self.tool_calls
        else:  # the reply is over: a call still without a result never ran to its end
            blocks += [
                call if call["status"] != "pending" else {**call, "status": "aborted"} for call in self.tool_calls
            ]
        meta: dict[str, Any] = {"status": status, "modelId": self.model_id, "providerId": self.provider_id}
        if self.usage is not None:
            meta["usage"] = self.usage
        if self.finish_reason is not None:
            meta["finishReason"] = self.finish_reason
        if self._refusal:
            meta["refusal"] = True
        return {"id": self.message_id, "role": "assistant", "blocks": blocks, "meta": meta}


def _parsed_arguments(text: str) -> object:
    if not text.strip():
        return {}  # a call without parameters
    try:
        return orjson.loads(text)
    except orjson.JSONDecodeError:
        return text  # still streaming, or malformed: keep what the model sent
