"""Refresh a provider's model list: ask the provider's ``GET /models``, hand the answer to the host.

This is the one place outside a chat turn that fetches a provider's
credentials. The key goes straight into the provider object and dies with
it; it is never stored on a widget, logged or returned.
"""

from __future__ import annotations

from typing import Any

from pidesktop.agent.openai_compat import OpenAICompatibleProvider
from pidesktop.bus import HostClient

# The host's limits for ``models.applyDiscovery``; entries outside them would fail the whole call.
MODEL_ID_MAX = 200
TOKENS_MAX = 100_000_000
DISCOVERY_MAX = 10_000
PER_MILLION_MAX = 1_000_000.0


async def refresh_models(client: HostClient, provider_id: str) -> dict[str, Any]:
    """``{added, updated, unlisted}`` from ``models.applyDiscovery``.

    Raises ``ProviderError`` when the provider cannot be reached or answers
    badly, ``HostError`` when the host refuses.
    """
    listed = await _fetch(client, provider_id)
    return await client.call("models.applyDiscovery", {"providerId": provider_id, "models": discovered(listed)})


async def _fetch(client: HostClient, provider_id: str) -> list[dict[str, Any]]:
    credentials = await client.call("providers.credentials", {"providerId": provider_id})
    settings = (await client.call("settings.get", {}))["settings"]
    provider = OpenAICompatibleProvider(
        base_url=credentials["baseUrl"],
        api_key=credentials.get("apiKey"),
        model="",
        label=credentials.get("name") or "",
        proxy=settings.get("networkProxy"),
    )
    del credentials  # from here on only the provider object holds the key
    try:
        return await provider.list_models()
    finally:
        await provider.aclose()


def discovered(listed: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """``list_models`` entries as ``applyDiscovery`` entries, leaving out what the host would reject."""
    models: list[dict[str, Any]] = []
    for item in listed:
        model_id = str(item.get("id") or "").strip()
        if not model_id or len(model_id) > MODEL_ID_MAX:
            continue
        entry: dict[str, Any] = {"modelId": model_id}
        window = item.get("contextWindow")
        if isinstance(window, int) and not isinstance(window, bool) and 1 <= window <= TOKENS_MAX:
            entry["contextWindow"] = window
        price = _price(item.get("price"))
        if price is not None:
            entry["price"] = price
        models.append(entry)
        if len(models) == DISCOVERY_MAX:
            break
    return models


def _price(listed: object) -> dict[str, Any] | None:
    """The price the server listed as ``{inputPerMillion, outputPerMillion}`` (USD; a figure outside what the
    host accepts is unknown, null), or None when neither figure is known."""
    if not isinstance(listed, dict):
        return None
    price = {}
    for side in ("inputPerMillion", "outputPerMillion"):
        figure = listed.get(side)
        ok = (
            isinstance(figure, (int, float)) and not isinstance(figure, bool) and 0 <= figure <= PER_MILLION_MAX
        )  # also refuses NaN and infinities
        price[side] = figure if ok else None
    return price if any(figure is not None for figure in price.values()) else None
