"""The context budget: how many tokens a model can take, and how many a request would use.

Every model has a context window: the ``--context-window`` of one run, else
the model's row (``models.list``: ``contextWindow``), else the table below for
well-known model names, else ``DEFAULT_WINDOW``. Part of it is kept for the
reply (``reply_reserve``); a request never uses more than the rest
(``input_budget``).

Token counts are estimates (characters / 4, an image as ``IMAGE_TOKENS``),
corrected per chat by what the provider reports as ``prompt_tokens`` after
each reply (``Correction``). Everything here is pure except ``Correction``,
which only holds numbers in memory.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import orjson

DEFAULT_WINDOW = 32_000
CHARS_PER_TOKEN = 4
MESSAGE_OVERHEAD = 4  # role and framing of one chat message
IMAGE_TOKENS = 1_000  # a picture sent inline; providers bill roughly 85-1,500 depending on size
NAMED_ATTACHMENT_TOKENS = 12  # "[attachment: name, size]" when only the name travels
TEXT_INLINE_MAX = 256 << 10  # what attachment_content inlines of a text file at most
REPLY_RESERVE_MAX = 4096
COMPACT_AT_DEFAULT, COMPACT_AT_MIN, COMPACT_AT_MAX = 0.8, 0.5, 0.95
TAIL_SHARE = 4  # the kept tail is about a quarter of the window
FACTOR_MIN, FACTOR_MAX = 0.25, 4.0

# Context windows of well-known models, by id prefix (the longest matching prefix wins).
KNOWN_WINDOWS: dict[str, int] = {
    "offline-demo": DEFAULT_WINDOW,
    "gpt-4.1": 1_047_576,
    "gpt-4o": 128_000,
    "gpt-4-turbo": 128_000,
    "gpt-4": 8_192,
    "gpt-3.5-turbo": 16_385,
    "gpt-5": 400_000,
    "o1": 200_000,
    "o3": 200_000,
    "o4": 200_000,
    "claude": 200_000,
    "gemini": 1_048_576,
    "deepseek": 128_000,
    "llama3.1": 128_000,
    "llama3.2": 128_000,
    "llama3": 8_192,
    "llama-3.1": 128_000,
    "llama-3.2": 128_000,
    "llama-3": 8_192,
    "mistral": 32_768,
    "mixtral": 32_768,
    "qwen2.5": 32_768,
    "qwen3": 40_960,
    "gemma2": 8_192,
    "gemma3": 128_000,
    "phi3": 128_000,
    "phi4": 16_384,
}


def known_window(model_id: str | None) -> int | None:
    """The table's window for ``model_id`` (vendor prefixes such as ``openai/`` are ignored)."""
    if not model_id:
        return None
    name = model_id.lower().rsplit("/", 1)[-1]
    best = max((prefix for prefix in KNOWN_WINDOWS if name.startswith(prefix)), key=len, default=None)
    return KNOWN_WINDOWS[best] if best else None


def window_for(model_id: str | None, row: dict[str, Any] | None = None, override: int | None = None) -> int:
    """The context window: the override, the model row's ``contextWindow``, the table, else the default."""
    if isinstance(override, int) and override > 0:
        return override
    for key in ("contextWindow", "context_window"):
        value = (row or {}).get(key)
        if isinstance(value, int) and not isinstance(value, bool) and value > 0:
            return value
    return known_window(model_id) or DEFAULT_WINDOW


def reply_reserve(window: int) -> int:
    """Tokens kept free for the reply: min(4096, a quarter of the window)."""
    return max(1, min(REPLY_RESERVE_MAX, window // 4))


def input_budget(window: int) -> int:
    """The most a request may carry."""
    return window - reply_reserve(window)


def tail_target(window: int) -> int:
    """About how much of the newest conversation a compaction keeps word for word."""
    return max(1, window // TAIL_SHARE)


def compact_threshold(window: int, compact_at: float | None) -> int:
    """Above this many (estimated) tokens the next request compacts first."""
    share = compact_at if isinstance(compact_at, (int, float)) and not isinstance(compact_at, bool) else None
    if share is None or not COMPACT_AT_MIN <= share <= COMPACT_AT_MAX:
        share = COMPACT_AT_DEFAULT
    return min(int(window * share), input_budget(window))


# -- estimates ---------------------------------------------------------------------------


def tokens_for_chars(chars: int) -> int:
    return math.ceil(chars / CHARS_PER_TOKEN)


def _json_chars(value: object) -> int:
    if value is None:
        return 0
    if isinstance(value, str):
        return len(value)
    try:
        return len(orjson.dumps(value, default=str))
    except TypeError:
        return len(str(value))


def block_tokens(block: object) -> int:
    """One stored (or hydrated) block as the model reads it; thinking is never sent back."""
    if not isinstance(block, dict):
        return 0
    kind = block.get("type")
    if kind == "text":
        return tokens_for_chars(len(block.get("text") or ""))
    if kind == "tool_call":
        chars = len(block.get("name") or "") + _json_chars(block.get("args")) + _json_chars(block.get("result"))
        return tokens_for_chars(chars) + MESSAGE_OVERHEAD
    if kind == "attachment":
        return attachment_tokens(block)
    return 0


def attachment_tokens(block: dict[str, Any]) -> int:
    """An attachment: its text, a picture's flat cost, a text file by its size, else only its name."""
    inline = block.get("inline")
    if not isinstance(inline, dict):
        inline = {}
    text = block.get("text") or inline.get("text")
    if isinstance(text, str) and text:
        return NAMED_ATTACHMENT_TOKENS + tokens_for_chars(len(text))
    mime = str(block.get("mimeType") or "")
    if inline.get("dataUrl") or (block.get("kind") == "image" and mime.startswith("image/")):
        return IMAGE_TOKENS
    size = block.get("size")
    if isinstance(size, int) and not isinstance(size, bool) and _is_text_mime(mime) and size <= TEXT_INLINE_MAX:
        return NAMED_ATTACHMENT_TOKENS + tokens_for_chars(size)  # inlined before sending; a larger one is named
    return NAMED_ATTACHMENT_TOKENS


def _is_text_mime(mime: str) -> bool:
    mime = mime.split(";", 1)[0].strip().lower()
    return mime.startswith("text/") or mime.endswith(("json", "xml", "yaml", "toml", "csv", "javascript", "sql"))


def message_tokens(message: dict[str, Any]) -> int:
    return MESSAGE_OVERHEAD + sum(block_tokens(block) for block in message.get("blocks") or [])


def trimmed(blocks: Sequence[dict[str, Any]], room: int) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """``blocks`` with the largest attachments taken out until the rest fits ``room`` tokens: (kept, removed).

    Text is never taken out; when the text alone does not fit, every attachment goes."""
    kept = list(blocks)
    removed: list[dict[str, Any]] = []
    attached = sorted((b for b in kept if b.get("type") == "attachment"), key=attachment_tokens, reverse=True)
    for block in attached:
        if message_tokens({"blocks": kept}) <= room:
            break
        kept.remove(block)
        removed.append(block)
    return kept, removed


def estimate(messages: Iterable[dict[str, Any]]) -> int:
    """Estimated prompt tokens of ``messages`` (uncorrected)."""
    return sum(message_tokens(message) for message in messages)


@dataclass
class Correction:
    """Per chat, reported prompt tokens / estimated ones, from the last reply that reported usage."""

    factors: dict[str, float] = field(default_factory=dict)

    def factor(self, session_id: str) -> float:
        return self.factors.get(session_id, 1.0)

    def observe(self, session_id: str, estimated: int, reported: object) -> None:
        if not isinstance(reported, int) or isinstance(reported, bool) or reported <= 0 or estimated <= 0:
            return
        self.factors[session_id] = min(FACTOR_MAX, max(FACTOR_MIN, reported / estimated))

    def apply(self, session_id: str, estimated: int) -> int:
        return math.ceil(estimated * self.factor(session_id))


# -- where the kept tail starts ----------------------------------------------------------


def tail_start(
    messages: Sequence[dict[str, Any]], tokens: Sequence[int], target: int, *, last_exchange: bool = False
) -> int:
    """Index of the first message kept word for word; the rest before it is summarised.

    Keeps the newest messages while they fit in ``target`` (always the newest
    one), then moves the start forward to a user message when the tail holds
    one, so the kept part reads as whole exchanges. ``last_exchange`` (a
    compaction asked for by the person) keeps at most the newest exchange.
    """
    if not messages:
        return 0
    start = len(messages) - 1
    used = tokens[start]
    while start > 0 and used + tokens[start - 1] <= target:
        start -= 1
        used += tokens[start]
    if last_exchange:
        newest_user = next((i for i in range(len(messages) - 1, -1, -1) if messages[i].get("role") == "user"), None)
        if newest_user is not None:
            start = max(start, newest_user)
    for index in range(start, len(messages)):
        if messages[index].get("role") == "user":
            return index
    while start < len(messages) - 1 and messages[start].get("role") == "tool":
        start += 1  # tool output never opens the tail without its call
    return start


def newest_that_fit(tokens: Sequence[int], budget: int) -> int:
    """Index of the oldest message of the newest run of ``tokens`` whose sum fits ``budget`` (len when none)."""
    start, used = len(tokens), 0
    while start > 0 and used + tokens[start - 1] <= budget:
        start -= 1
        used += tokens[start]
    return start
