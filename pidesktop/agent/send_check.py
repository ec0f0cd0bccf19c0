"""What a send needs, checked before anything is stored: a provider that exists, a model, a key it requires.

A prompt that cannot go out must not leave a line in the transcript (sending
it again would store it twice), so the runner and the window ask here first.
The refusal is a ``HostError`` with the code ``not_ready`` whose message is one
sentence a person can act on, naming the provider.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pidesktop.agent.presets import PRESETS
from pidesktop.bus import ErrorCode, HostClient, HostError

OFFLINE_ID = "offline"


def not_ready(sentence: str, **data: Any) -> HostError:
    return HostError(ErrorCode.NOT_READY, sentence, data)


async def check(client: HostClient, choice: Mapping[str, Any]) -> None:
    """Raise ``not_ready`` when a chat with ``choice`` (its ``providerId``/``modelId``, maybe unset) cannot send."""
    listed = await client.call("providers.list", {})
    provider_id = choice.get("providerId") or listed.get("defaultProviderId") or OFFLINE_ID
    model_id = choice.get("modelId") or (None if choice.get("providerId") else listed.get("defaultModelId"))
    if provider_id == OFFLINE_ID:
        return
    provider = next((row for row in listed.get("providers", []) if row.get("id") == provider_id), None)
    if provider is None:
        raise not_ready(
            "The provider this chat uses no longer exists: pick another in the composer or in Settings > Providers.",
            providerId=provider_id,
        )
    name = str(provider.get("name") or provider_id)
    if not (model_id or provider.get("defaultModelId")):
        raise not_ready(f"{name} has no model chosen: pick one in Settings > Providers.", providerId=provider_id)
    preset = PRESETS.get(str(provider.get("vendorKey") or ""))
    if preset is not None and preset.needs_key and not provider.get("hasKey"):
        raise not_ready(f"{name} has no API key: add one in Settings > Providers.", providerId=provider_id)
