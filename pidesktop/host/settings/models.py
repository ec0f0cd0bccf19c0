"""The model catalog of each provider (spec 004, 4.4).

Rows come from three places (``source``): ``bundled`` with the app,
``discovered`` from a provider's ``GET /v1/models``, and ``user`` entries.
Discovery never touches a user row and never changes a bundled row's source.
A discovered row the endpoint stops listing is kept and marked
``discovery_state = 'unlisted'``; it is ``published`` again when it returns.
A price the endpoint lists is stored apart from the row (see ``prices``).
"""

from __future__ import annotations

from typing import Any

import apsw
import orjson

from pidesktop.bus import topics
from pidesktop.bus.errors import ErrorCode, HostError
from pidesktop.formats.index.sql_rows import all_rows
from pidesktop.host.commands import command
from pidesktop.host.context import HostContext
from pidesktop.host.params import Params, invalid
from pidesktop.host.settings import model_cache, prices, providers

MODEL_ID_MAX = providers.MODEL_ID_MAX
DISPLAY_NAME_MAX = 200
TOKENS_MAX = 100_000_000
DISCOVERY_MAX = 10_000
CAPABILITY_MAX = 64

_SELECT = (
    "SELECT provider_id, model_id, display_name, source, capabilities_json, context_window, "
    "max_output_tokens, deprecated, discovery_state, updated_at FROM models"
)


def _to_model(row: tuple[Any, ...]) -> dict[str, Any]:
    (pid, mid, name, source, caps_json, window, max_out, deprecated, state, updated) = row
    try:
        caps = orjson.loads(caps_json)
    except orjson.JSONDecodeError:
        caps = []
    return {
        "providerId": pid,
        "modelId": mid,
        "displayName": name,
        "source": source,
        "capabilities": caps if isinstance(caps, list) else [],
        "contextWindow": window,
        "maxOutputTokens": max_out,
        "deprecated": bool(deprecated),
        "discoveryState": state,
        "updatedAt": updated,
    }


def read(conn: apsw.Connection, provider_id: str, model_id: str) -> dict[str, Any] | None:
    row = conn.execute(_SELECT + " WHERE provider_id = ? AND model_id = ?", (provider_id, model_id)).fetchone()
    return None if row is None else _to_model(row) | {"price": prices.price_of(conn, provider_id, model_id)}


def _model_id(q: Params, name: str) -> str:
    return q.text(name, strip=True, nonempty=True, max_chars=MODEL_ID_MAX)


def _capabilities(method: str, q: Params, name: str) -> list[str] | None:
    raw = q.array(name, required=False)
    if raw is None:
        return None
    caps: list[str] = []
    for i, cap in enumerate(raw):
        if not isinstance(cap, str) or not cap.strip() or len(cap) > CAPABILITY_MAX:
            raise invalid(
                f"{method}: '{name}[{i}]' must be a non-empty string of at most {CAPABILITY_MAX} characters.",
                f"{name}[{i}]",
            )
        if cap.strip() not in caps:
            caps.append(cap.strip())
    return caps


@command("models.list", emits=[])
def models_list(ctx: HostContext, p: Params) -> dict[str, Any]:
    provider_id = p.text("providerId", required=False)
    if provider_id is not None:
        providers.require(ctx.conn, provider_id)
        rows = all_rows(ctx.conn.execute(_SELECT + " WHERE provider_id = ?", (provider_id,)))
    else:
        rows = all_rows(ctx.conn.execute(_SELECT))
    rank = {pid: i for i, pid in enumerate(providers.display_order(ctx.conn))}
    known = prices.all_prices(ctx.conn)
    models = sorted(
        (_to_model(r) | {"price": known.get((r[0], r[1]))} for r in rows),
        key=lambda m: (rank.get(m["providerId"], len(rank)), m["displayName"].casefold(), m["modelId"]),
    )
    return {"models": models, "refreshedAt": model_cache.refreshed_at(ctx.conn)}


@command("models.upsert", emits=[topics.MODELS_CHANGED])
def models_upsert(ctx: HostContext, p: Params) -> dict[str, Any]:
    provider_id = p.text("providerId")
    q = providers.nested(p, "model")
    model_id = _model_id(q, "model.modelId")
    display = q.text("model.displayName", required=False, strip=True, nonempty=True, max_chars=DISPLAY_NAME_MAX)
    window = q.integer("model.contextWindow", required=False, minimum=1, maximum=TOKENS_MAX)
    max_out = q.integer("model.maxOutputTokens", required=False, minimum=1, maximum=TOKENS_MAX)
    # null clears a token count (back to the known or default window, the server's own output limit)
    cleared = {name for name in ("contextWindow", "maxOutputTokens") if q.raw.get(f"model.{name}", 0) is None}
    caps = _capabilities(p.method, q, "model.capabilities")
    providers.require(ctx.conn, provider_id)
    old = read(ctx.conn, provider_id, model_id) or {}
    # Absent fields keep what the row had; the row becomes the user's, so
    # discovery leaves it alone from now on (its discovery state is unknown).
    with ctx.conn:
        ctx.conn.execute(
            "INSERT INTO models(provider_id, model_id, display_name, source, capabilities_json, context_window, "
            "max_output_tokens, deprecated, discovery_state, updated_at) VALUES (?, ?, ?, 'user', ?, ?, ?, ?, NULL, ?) "
            "ON CONFLICT(provider_id, model_id) DO UPDATE SET display_name = excluded.display_name, "
            "source = 'user', capabilities_json = excluded.capabilities_json, "
            "context_window = excluded.context_window, max_output_tokens = excluded.max_output_tokens, "
            "discovery_state = NULL, updated_at = excluded.updated_at",
            (
                provider_id,
                model_id,
                display or old.get("displayName") or model_id,
                orjson.dumps(caps if caps is not None else old.get("capabilities", [])).decode(),
                window if window is not None or "contextWindow" in cleared else old.get("contextWindow"),
                max_out if max_out is not None or "maxOutputTokens" in cleared else old.get("maxOutputTokens"),
                int(old.get("deprecated", False)),
                ctx.clock(),
            ),
        )
    ctx.emit(topics.MODELS_CHANGED, {"providerId": provider_id})
    return {"model": read(ctx.conn, provider_id, model_id)}


@command("models.setPrice", emits=[topics.MODELS_CHANGED])
def models_set_price(ctx: HostContext, p: Params) -> dict[str, Any]:
    """Store the price the person pays for a model; the model need not have a row (custom ids are allowed)."""
    provider_id = p.text("providerId")
    model_id = _model_id(p, "modelId")
    input_per_million, output_per_million = (_per_million(p, name) for name in ("inputPerMillion", "outputPerMillion"))
    currency = p.choice("currency", prices.CURRENCIES, default="USD")
    providers.require(ctx.conn, provider_id)
    with ctx.conn:
        prices.put(ctx.conn, provider_id, model_id, input_per_million, output_per_million, currency, ctx.clock())
    ctx.emit(topics.MODELS_CHANGED, {"providerId": provider_id})
    return {"providerId": provider_id, "modelId": model_id, "price": prices.price_of(ctx.conn, provider_id, model_id)}


def _per_million(p: Params, name: str) -> float | None:
    """A required field that may be null (unknown); else a finite number 0..PER_MILLION_MAX."""
    if name not in p.raw:
        raise invalid(f"{p.method}: missing required field '{name}' (send null when the price is unknown).", name)
    value = p.raw[name]
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise invalid(f"{p.method}: field '{name}' must be a number or null.", name)
    if not prices.is_figure(value):
        # the value is not quoted: a huge integer has no printable form (Python caps int-to-text digits)
        raise invalid(
            f"{p.method}: field '{name}' must be a finite number from 0 to {prices.PER_MILLION_MAX:,.0f} "
            "(per million tokens).",
            name,
        )
    return value


@command("models.delete", emits=[topics.MODELS_CHANGED])
def models_delete(ctx: HostContext, p: Params) -> dict[str, Any]:
    provider_id = p.text("providerId")
    model_id = p.text("modelId")
    providers.require(ctx.conn, provider_id)
    with ctx.conn:
        gone = ctx.conn.execute(
            "DELETE FROM models WHERE provider_id = ? AND model_id = ? RETURNING model_id", (provider_id, model_id)
        ).fetchone()
    if gone is None:
        raise HostError(ErrorCode.NOT_FOUND, f"Provider {provider_id!r} has no model {model_id!r}.")
    ctx.emit(topics.MODELS_CHANGED, {"providerId": provider_id})
    return {"deleted": True}


@command("models.applyDiscovery", emits=[topics.MODELS_CHANGED])
def models_apply_discovery(ctx: HostContext, p: Params) -> dict[str, Any]:
    provider_id = p.text("providerId")
    listed = _discovered_list(p)
    providers.require(ctx.conn, provider_id)
    now = ctx.clock()
    added: list[str] = []
    updated: list[str] = []
    unlisted: list[str] = []
    with ctx.conn:
        model_cache.stamp_refresh(ctx.conn, provider_id, now)
        existing = {
            r[0]: r[1:]
            for r in ctx.conn.execute(
                "SELECT model_id, source, display_name, context_window, discovery_state FROM models "
                "WHERE provider_id = ?",
                (provider_id,),
            )
        }
        for model_id, (display, window, price) in listed.items():
            price_changed = _store_provider_price(ctx.conn, provider_id, model_id, price, now)
            row = existing.get(model_id)
            if row is None:
                ctx.conn.execute(
                    "INSERT INTO models(provider_id, model_id, display_name, source, context_window, "
                    "discovery_state, updated_at) VALUES (?, ?, ?, 'discovered', ?, 'published', ?)",
                    (provider_id, model_id, display or model_id, window, now),
                )
                added.append(model_id)
                continue
            source, old_display, old_window, state = row
            if source == "user":
                if price_changed:
                    updated.append(model_id)
                continue  # the user's entry wins, field for field
            new_display = display or old_display
            new_window = window if window is not None else old_window
            if (new_display, new_window, state) != (old_display, old_window, "published"):
                ctx.conn.execute(
                    "UPDATE models SET display_name = ?, context_window = ?, discovery_state = 'published', "
                    "updated_at = ? WHERE provider_id = ? AND model_id = ?",
                    (new_display, new_window, now, provider_id, model_id),
                )
                updated.append(model_id)
            elif price_changed:
                updated.append(model_id)
        for model_id, (source, _display, _window, state) in existing.items():
            if source == "discovered" and model_id not in listed and state != "unlisted":
                ctx.conn.execute(
                    "UPDATE models SET discovery_state = 'unlisted', updated_at = ? "
                    "WHERE provider_id = ? AND model_id = ?",
                    (now, provider_id, model_id),
                )
                unlisted.append(model_id)
    if added or updated or unlisted:
        ctx.emit(topics.MODELS_CHANGED, {"providerId": provider_id})
    return {"added": sorted(added), "updated": sorted(updated), "unlisted": sorted(unlisted)}


def _store_provider_price(
    conn: apsw.Connection, provider_id: str, model_id: str, price: prices.Figures | None, now: int
) -> bool:
    """Store (or, when the listing has none, remove) the provider's price for a listed model; True if it changed."""
    before = prices.stored(conn, provider_id, model_id, prices.PROVIDER_NS)
    figures: prices.Figures = price or (None, None)
    after = (
        None
        if figures == (None, None)
        else {"inputPerMillion": figures[0], "outputPerMillion": figures[1], "currency": "USD"}
    )
    if before == after:
        return False
    prices.put(conn, provider_id, model_id, figures[0], figures[1], "USD", now, ns=prices.PROVIDER_NS)
    return True


def _discovered_list(p: Params) -> dict[str, tuple[str | None, int | None, prices.Figures | None]]:
    """modelId -> (displayName, contextWindow, price figures or None), in list order; a repeated id keeps its
    first entry."""
    raw = p.array("models")
    if len(raw) > DISCOVERY_MAX:
        raise invalid(f"{p.method}: 'models' has more than {DISCOVERY_MAX} entries.", "models")
    listed: dict[str, tuple[str | None, int | None, prices.Figures | None]] = {}
    for i, entry in enumerate(raw):
        if not isinstance(entry, dict):
            raise invalid(f"{p.method}: 'models[{i}]' must be an object.", f"models[{i}]")
        prefix = f"models[{i}]"
        q = Params(p.method, {f"{prefix}.{k}": v for k, v in entry.items()})
        model_id = _model_id(q, f"{prefix}.modelId")
        display = q.text(f"{prefix}.displayName", required=False, strip=True, max_chars=DISPLAY_NAME_MAX) or None
        window = q.integer(f"{prefix}.contextWindow", required=False, minimum=1, maximum=TOKENS_MAX)
        price = _listed_price(p.method, q, f"{prefix}.price")
        listed.setdefault(model_id, (display, window, price))
    return listed


def _listed_price(method: str, q: Params, name: str) -> prices.Figures | None:
    """``{inputPerMillion?, outputPerMillion?}`` (USD; each a figure or null) as a pair, or None if absent."""
    raw = q.obj(name, required=False)
    if raw is None:
        return None
    figures = []
    for side in ("inputPerMillion", "outputPerMillion"):
        value = raw.get(side)
        if value is not None and not prices.is_figure(value):
            raise invalid(
                f"{method}: field '{name}.{side}' must be a finite number from 0 to "
                f"{prices.PER_MILLION_MAX:,.0f} (USD per million tokens) or null.",
                f"{name}.{side}",
            )
        figures.append(value)
    return figures[0], figures[1]
