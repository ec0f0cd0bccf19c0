"""A model's own settings, as Settings > Providers stores them and the runner uses them.

The context window and the most output tokens are the model's row
(``models.upsert``: ``contextWindow``, ``maxOutputTokens``; spec 004, 4.4).
The temperature and a system prompt have no column: they live in the
provider's ``config`` under ``modelSettings``, keyed by model id
(``{"modelSettings": {"gpt-4o": {"temperature": 0.2, "systemPrompt": "..."}}}``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

CONFIG_KEY = "modelSettings"
TEMPERATURE_MAX = 2.0
SYSTEM_PROMPT_MAX = 16_000  # characters; the provider's whole config is capped at 64 KiB


@dataclass(frozen=True)
class ModelSettings:
    max_output_tokens: int | None = None
    temperature: float | None = None
    system_prompt: str = ""


def _number(value: Any) -> float | None:
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def read(row: dict[str, Any] | None, config: dict[str, Any] | None, model_id: str | None) -> ModelSettings:
    """What ``model_id`` is set to; anything missing or malformed is left to the provider."""
    max_out = (row or {}).get("maxOutputTokens")
    every = config.get(CONFIG_KEY) if isinstance(config, dict) else None
    mine = every.get(model_id or "") if isinstance(every, dict) else None
    mine = mine if isinstance(mine, dict) else {}
    temperature = _number(mine.get("temperature"))
    prompt = mine.get("systemPrompt")
    return ModelSettings(
        max_out if isinstance(max_out, int) and not isinstance(max_out, bool) and max_out > 0 else None,
        temperature if temperature is not None and 0 <= temperature <= TEMPERATURE_MAX else None,
        prompt.strip() if isinstance(prompt, str) else "",
    )


def with_settings(
    config: dict[str, Any] | None, model_id: str, temperature: float | None, system_prompt: str
) -> dict[str, Any]:
    """The provider's ``config`` with ``model_id``'s temperature and system prompt set (None / "" remove them)."""
    updated = dict(config or {})
    every = dict(updated.get(CONFIG_KEY) or {})
    mine = {k: v for k, v in dict(every.get(model_id) or {}).items() if k not in ("temperature", "systemPrompt")}
    if temperature is not None:
        mine["temperature"] = round(float(temperature), 2)
    if system_prompt.strip():
        mine["systemPrompt"] = system_prompt.strip()[:SYSTEM_PROMPT_MAX]
    if mine:
        every[model_id] = mine
    else:
        every.pop(model_id, None)
    updated[CONFIG_KEY] = every
    return updated


def system_message(prompt: str) -> dict[str, Any] | None:
    """The person's system prompt as the first thing the model reads after the mode's instruction."""
    if not prompt:
        return None
    return {"id": "model:system-prompt", "role": "system", "blocks": [{"type": "text", "text": prompt}]}
