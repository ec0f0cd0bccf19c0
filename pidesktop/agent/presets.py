"""Ready-made settings for the OpenAI-compatible servers people use most."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Preset:
    id: str
    name: str
    base_url: str
    needs_key: bool
    # The name the key is stored under in the app's key store.
    vendor_key: str


PRESETS: dict[str, Preset] = {
    preset.id: preset
    for preset in (
        Preset("openai", "OpenAI", "https://api.openai.com/v1", True, "openai"),
        Preset("openrouter", "OpenRouter", "https://openrouter.ai/api/v1", True, "openrouter"),
        Preset("ollama", "Ollama", "http://localhost:11434/v1", False, "ollama"),
        Preset("lmstudio", "LM Studio", "http://localhost:1234/v1", False, "lmstudio"),
        Preset("llamacpp", "llama.cpp server", "http://localhost:8080/v1", False, "llamacpp"),
    )
}
