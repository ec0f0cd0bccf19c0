"""What every reader shares: the result shape, JSONL splitting, times and text.

A reader is a pure function from a file's bytes to an ``ImportedSession``: no
file system, no database, no clock. It never raises on any input; what it
cannot use is skipped and counted, and a file with nothing usable in it is a
``ReadFailure`` the caller reports with the path.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import orjson

from pidesktop.formats.transcript import records


class ReadFailure(ValueError):
    """The bytes are not a session of this kind; the message says why, for a person."""


@dataclass
class ImportedSession:
    """One session read from another tool, as Desktop messages.

    Message and compaction ids here are *local* (unique within the session and
    stable across reads of the same source); the importer prefixes them with
    the chat's id before they are stored.
    """

    external_id: str
    messages: list[dict[str, Any]] = field(default_factory=list)
    compactions: list[dict[str, Any]] = field(default_factory=list)
    title: str | None = None
    cwd: str | None = None
    created_at: int | None = None  # ms
    updated_at: int | None = None  # ms
    model_id: str | None = None
    provider_id: str | None = None
    skipped: Counter[str] = field(default_factory=Counter)  # unknown entry types -> lines
    bad_lines: int = 0  # lines that were not JSON objects (a torn last line not counted)
    torn_tail: bool = False

    def add_compaction(self, summary: str, when: int | None, source: str) -> None:
        """The source replaced its history with ``summary``: a checkpoint after the last message so far
        (none before the first message: there is nothing to summarise)."""
        if not self.messages or not summary.strip():
            return
        checkpoint = {
            "id": f"compaction-{len(self.compactions) + 1}",
            "summary": summary,
            "throughMessageId": self.messages[-1]["id"],
            "details": {"source": source},
        }
        if when is not None:
            checkpoint["createdAt"] = rfc3339(when)
        self.compactions.append(checkpoint)

    def counts(self) -> dict[str, int]:
        """Messages, tool calls and thinking blocks: what a preview and the tests talk about."""
        tool_calls = thinking = 0
        for message in self.messages:
            for block in message["blocks"]:
                if block.get("type") == "tool_call":
                    tool_calls += 1
                elif block.get("type") == "thinking":
                    thinking += 1
        return {
            "messages": len(self.messages),
            "toolCalls": tool_calls,
            "thinking": thinking,
            "compactions": len(self.compactions),
            "skipped": sum(self.skipped.values()),
        }


def json_lines(data: bytes, result: ImportedSession) -> Iterator[tuple[int, dict[str, Any]]]:
    """(line number, object) for every line that is a JSON object.

    A last line without its newline that does not parse is a write in progress
    (the other tool was still running): it is ignored, not counted as bad.
    """
    lines = data.split(b"\n")
    last = len(lines) - 1
    for number, raw in enumerate(lines):
        if not raw.strip():
            continue
        try:
            value = orjson.loads(raw)
        except orjson.JSONDecodeError:
            try:
                value = orjson.loads(raw.decode("utf-8", "replace"))
            except orjson.JSONDecodeError:
                if number == last:
                    result.torn_tail = True
                else:
                    result.bad_lines += 1
                continue
        if isinstance(value, dict):
            yield number, value
        else:
            result.bad_lines += 1


def millis(value: Any) -> int | None:
    """An RFC3339 string, or epoch seconds/ms, as ms since the epoch; None when it is not a time."""
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        number = float(value)
        if number != number or abs(number) > 1e16:
            return None
        return int(number if number > 1e11 else number * 1000)
    return records.parse_rfc3339(value)


def rfc3339(ms: int) -> str:
    """``transcripts.records.rfc3339``, with a time no calendar holds (a source's garbage) read as 0."""
    try:
        return records.rfc3339(ms)
    except (OverflowError, OSError, ValueError):
        return records.rfc3339(0)


def stamp(message: dict[str, Any], ms: int | None, result: ImportedSession) -> None:
    """Keep the source's time on the message and widen the session's created/updated span."""
    if ms is None:
        return
    message["createdAt"] = rfc3339(ms)
    if result.created_at is None or ms < result.created_at:
        result.created_at = ms
    if result.updated_at is None or ms > result.updated_at:
        result.updated_at = ms


def text_of(content: Any) -> str:
    """The text of a tool result or message content: a string, or a list of text-bearing blocks."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = []
        for item in content:
            if isinstance(item, str):
                parts.append(item)
            elif isinstance(item, dict):
                if isinstance(item.get("text"), str):
                    parts.append(item["text"])
                elif item.get("type") in ("image", "input_image"):
                    parts.append("[image]")
        return "\n".join(parts)
    if isinstance(content, dict) and isinstance(text := content.get("text"), str):
        return text
    if content is None:
        return ""
    try:
        return orjson.dumps(content).decode()
    except TypeError:
        return str(content)


def clean_text(value: Any) -> str:
    """Text that can be stored: a string without lone surrogates (JSON and SQLite cannot carry them)."""
    if not isinstance(value, str):
        return ""
    try:
        value.encode("utf-8")
        return value
    except UnicodeEncodeError:
        return value.encode("utf-8", "replace").decode("utf-8")


def storable(value: Any) -> Any:
    """A JSON value safe to store (round-tripped through orjson); strings cleaned of lone surrogates."""
    try:
        return orjson.loads(orjson.dumps(value))
    except (TypeError, orjson.JSONEncodeError):
        return clean_text(str(value))


def tool_args(raw: Any) -> Any:
    """Tool arguments: parsed when they are a JSON text of an object, else kept as given."""
    if isinstance(raw, str):
        try:
            parsed = orjson.loads(raw)
        except orjson.JSONDecodeError:
            return clean_text(raw)
        return storable(parsed)
    return storable(raw)


class Ids:
    """Local message ids unique within one session, derived from the source's own ids when it has them."""

    def __init__(self) -> None:
        self.taken: set[str] = set()
        self.counter = 0

    def make(self, hint: Any = None) -> str:
        self.counter += 1
        base = hint if isinstance(hint, str) and 0 < len(hint) <= 100 and _plain(hint) else f"m{self.counter}"
        candidate, n = base, 1
        while candidate in self.taken:
            n += 1
            candidate = f"{base}.{n}"
        self.taken.add(candidate)
        return candidate


def _plain(text: str) -> bool:
    return all(ch.isascii() and (ch.isalnum() or ch in "-_.") for ch in text)
