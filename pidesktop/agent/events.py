"""The events every provider's ``stream()`` yields, in arrival order.

A successful stream ends with exactly one ``Finished``; a failed one raises
``ProviderError`` instead, after yielding whatever arrived before the failure.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True, slots=True)
class TextDelta:
    """A fragment of the visible answer."""

    text: str


@dataclass(frozen=True, slots=True)
class ThinkingDelta:
    """A fragment of the model's reasoning, shown apart and never sent back."""

    text: str


@dataclass(frozen=True, slots=True)
class RefusalDelta:
    """A fragment of a refusal, which stands in for the answer."""

    text: str


@dataclass(frozen=True, slots=True)
class ToolCallDelta:
    """A fragment of one tool call; fragments with the same ``index`` belong together.

    ``id`` and ``name`` usually arrive only on the first fragment; ``arguments``
    is a piece of a JSON text to be concatenated.
    """

    index: int
    id: str | None
    name: str | None
    arguments: str


@dataclass(frozen=True, slots=True)
class Usage:
    """Token counts; ``raw`` is the provider's usage object exactly as received."""

    input_tokens: int
    output_tokens: int
    raw: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Finished:
    """The last event of a successful stream."""

    reason: str | None
    model: str | None


StreamEvent = TextDelta | ThinkingDelta | RefusalDelta | ToolCallDelta | Usage | Finished
