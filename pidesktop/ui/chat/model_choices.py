"""What the composer's model picker offers: a pure function of the host's provider and model lists."""

from __future__ import annotations


def model_choices(listed: dict, models: list[dict], recent: list[dict] | None = None) -> list[tuple[str, str, str]]:
    """``(provider id, model id, label)`` for every enabled provider's known models.

    ``listed`` is a ``providers.list`` result, ``models`` a ``models.list`` one.
    A provider's default model typed in Settings may not be in the catalogue: it
    is offered too, once, after the catalogue's models. ``recent`` (a
    ``models.recent`` list) brings the models used last to the top, newest
    first; a recent model that is no longer offered is left out.
    """
    choices = _all_choices(listed, models)
    rank = {(r.get("providerId"), r.get("modelId")): n for n, r in enumerate(recent or [])}
    return sorted(choices, key=lambda choice: rank.get((choice[0], choice[1]), len(rank)))  # stable: rest in order


def _all_choices(listed: dict, models: list[dict]) -> list[tuple[str, str, str]]:
    names = {p["id"]: p["name"] for p in listed.get("providers", []) if p.get("enabled", True)}
    choices = [
        (m["providerId"], m["modelId"], f"{names[m['providerId']]} · {m.get('displayName') or m['modelId']}")
        for m in models
        if m["providerId"] in names
    ]
    offered = {(provider_id, model_id) for provider_id, model_id, _label in choices}
    for provider in listed.get("providers", []):
        key = (provider["id"], provider.get("defaultModelId"))
        if provider["id"] in names and key[1] and key not in offered:
            choices.append((key[0], key[1], f"{provider['name']} · {key[1]}"))
            offered.add(key)
    return choices


def chip_text(listed: dict, offline_label: str) -> str:
    """The header chip: the default provider and model, or the offline demo's label."""
    provider_id = listed.get("defaultProviderId")
    if provider_id in (None, "offline"):
        return offline_label
    name = next((p["name"] for p in listed.get("providers", []) if p["id"] == provider_id), provider_id)
    model = listed.get("defaultModelId")
    return f"{name} · {model}" if model else name
