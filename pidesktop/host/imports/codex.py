"""Codex CLI rollouts (``~/.codex/sessions/YYYY/MM/DD/rollout-<time>-<uuid>.jsonl``).

Modern lines are ``{timestamp, type, payload}``: ``session_meta`` (id, cwd,
time), ``turn_context`` (the model), ``response_item`` (Responses API items:
``message``, ``reasoning``, ``function_call``/``custom_tool_call`` and their
``*_output``) and ``event_msg`` (UI echoes of the same conversation, not
read: the response items are the record). Older rollouts have a first line
``{id, timestamp, instructions}`` and bare items after it; both are read.

Between two user prompts, the model's reasoning summaries, tool calls and
answer text form assistant messages: an answer text closes one, so a turn
that thinks, calls tools and answers more than once becomes several.
Encrypted reasoning is never shown. Developer and environment messages the
CLI injects are dropped.
"""

from __future__ import annotations

import re
from typing import Any

from pidesktop.host.imports.common import (
    Ids,
    ImportedSession,
    ReadFailure,
    clean_text,
    json_lines,
    millis,
    stamp,
    text_of,
    tool_args,
)

SOURCE = "codex"
IGNORED = frozenset({"event_msg", "turn_context", "state"})
ITEM_TYPES = frozenset(
    {
        "message",
        "reasoning",
        "function_call",
        "function_call_output",
        "custom_tool_call",
        "custom_tool_call_output",
        "local_shell_call",
        "local_shell_call_output",
        "web_search_call",
        "tool_search_call",
        "ghost_snapshot",
    }
)
INJECTED = (
    "<environment_context>",
    "<user_instructions>",
    "<permissions instructions>",
    "# AGENTS.md",
    "<turn_aborted>",
    "<user_shell_command>",
)
_UUID = re.compile(r"([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\.jsonl$", re.I)


class _Reader:
    def __init__(self, name: str):
        match = _UUID.search(name)
        self.result = ImportedSession(external_id=match.group(1).lower() if match else "")
        self.ids = Ids()
        self.calls: dict[str, dict[str, Any]] = {}
        self.open: dict[str, Any] | None = None  # the assistant message being filled
        self.model: str | None = None
        self.items = 0
        self.meta_seen = False

    def assistant(self, when: int | None) -> dict[str, Any]:
        if self.open is None:
            message: dict[str, Any] = {"id": self.ids.make(), "role": "assistant", "blocks": []}
            if self.model:
                message["meta"] = {"modelId": self.model}
            stamp(message, when, self.result)
            self.result.messages.append(message)
            self.open = message
        elif when is not None and (self.result.updated_at is None or when > self.result.updated_at):
            self.result.updated_at = when
        return self.open

    def item(self, item: dict[str, Any], when: int | None) -> None:
        kind = item.get("type")
        if kind not in ITEM_TYPES:
            self.result.skipped[f"response_item:{str(kind)[:30]}"] += 1
            return
        self.items += 1
        if kind == "message":
            role = item.get("role")
            text = clean_text(text_of(item.get("content")))
            if role == "user":
                if not text.strip() or text.lstrip().startswith(INJECTED):
                    return
                self.open = None
                message = {"id": self.ids.make(), "role": "user", "blocks": [{"type": "text", "text": text}]}
                stamp(message, when, self.result)
                self.result.messages.append(message)
            elif role == "assistant":
                if text:
                    self.assistant(when)["blocks"].append({"type": "text", "text": text})
                    self.open = None
        elif kind == "reasoning":
            summary = "\n\n".join(
                clean_text(part.get("text"))
                for part in item.get("summary") or []
                if isinstance(part, dict) and isinstance(part.get("text"), str)
            )
            if summary.strip():
                self.assistant(when)["blocks"].append({"type": "thinking", "text": summary})
        elif kind in ("function_call", "custom_tool_call", "local_shell_call"):
            raw_id = item.get("call_id") or item.get("id")
            call_id = clean_text(raw_id) if isinstance(raw_id, str) else f"call{len(self.calls) + 1}"
            raw_args = item.get("arguments") if kind == "function_call" else item.get("input", item.get("action"))
            call = {
                "type": "tool_call",
                "callId": call_id,
                "name": clean_text(item.get("name")) or ("shell" if kind == "local_shell_call" else "tool"),
                "args": tool_args(raw_args),
                "status": "ok",
            }
            self.calls[call_id] = call
            self.assistant(when)["blocks"].append(call)
        elif kind.endswith("_output"):
            result_of = item.get("call_id")
            called = self.calls.get(result_of) if isinstance(result_of, str) else None
            if called is not None:
                output = item.get("output")
                if isinstance(output, dict) and "content" in output:
                    if output.get("success") is False:
                        called["status"] = "error"
                    output = output.get("content")
                called["result"] = clean_text(text_of(output))
        # web searches, snapshots: part of the record, nothing to show


def read(data: bytes, name: str = "") -> ImportedSession:
    reader = _Reader(name)
    result = reader.result
    first = True
    for _number, line in json_lines(data, result):
        kind = line.get("type")
        when = millis(line.get("timestamp"))
        if first and kind is None and isinstance(line.get("id"), str):
            _meta(reader, line, when)  # an older rollout's header
            first = False
            continue
        first = False
        if kind == "session_meta" and isinstance(line.get("payload"), dict):
            _meta(reader, line["payload"], when)
        elif kind == "turn_context" and isinstance(line.get("payload"), dict):
            model = line["payload"].get("model")
            if isinstance(model, str) and model:
                reader.model = result.model_id = clean_text(model)
            if result.cwd is None and isinstance(line["payload"].get("cwd"), str):
                result.cwd = clean_text(line["payload"]["cwd"])
        elif kind == "response_item" and isinstance(line.get("payload"), dict):
            reader.item(line["payload"], when)
        elif kind == "compacted" and isinstance(line.get("payload"), dict):
            _compaction(reader, clean_text(line["payload"].get("message")), when)
        elif kind in IGNORED:
            continue
        elif kind in ITEM_TYPES and "payload" not in line:
            reader.item(line, when)  # an older rollout's bare item
        elif kind is None and "record_type" in line:
            continue  # an older rollout's state marker
        else:
            result.skipped[str(kind)[:40]] += 1
    if not reader.meta_seen and not reader.items:
        raise ReadFailure("no Codex session in this file")
    if not result.external_id:
        result.external_id = "rollout"
    return result


def _compaction(reader: _Reader, summary: str, when: int | None) -> None:
    """Codex replaced the history with a summary: a compaction checkpoint after the last message so far."""
    reader.open = None
    reader.result.add_compaction(summary, when, SOURCE)


def _meta(reader: _Reader, meta: dict[str, Any], when: int | None) -> None:
    result = reader.result
    reader.meta_seen = True
    if isinstance(meta.get("id"), str) and meta["id"].strip():
        result.external_id = clean_text(meta["id"].strip())
    if isinstance(meta.get("cwd"), str) and meta["cwd"].strip():
        result.cwd = clean_text(meta["cwd"])
    if isinstance(meta.get("model_provider"), str):
        result.provider_id = clean_text(meta["model_provider"])
    started = millis(meta.get("timestamp")) or when
    if started is not None and (result.created_at is None or started < result.created_at):
        result.created_at = started
        if result.updated_at is None:
            result.updated_at = started
