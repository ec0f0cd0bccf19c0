"""Model prices: what a model's tokens cost, per million, when that is known.

A price lives in ``kv(modelPrice, <key>)`` (the ``models`` table of schema v27
has no JSON column for it, and the schema is not changed for this), where
``<key>`` is the JSON array ``["<providerId>", "<modelId>"]`` so any id is
unambiguous. The value is ``{inputPerMillion, outputPerMillion, currency}``;
either figure may be null (unknown). A stored price is the user's
(``models.setPrice``) and is kept when the model row goes away, so usage
already recorded keeps its cost if the model comes back.

Defaults: no vendor list prices ship with the host. Published prices change
and differ by account, region and tier, and a wrong figure shown as a cost is
worse than a cost shown as unknown; the person enters the prices they pay.
The one default is a fact of this app, not a vendor's figure: the built-in
offline demo model runs on this machine and costs nothing.

An unknown price is never treated as zero: a cost that needs an unknown figure
is ``None``.
"""

from __future__ import annotations

import apsw
import orjson

from . import kv

NS = "modelPrice"
CURRENCIES = ("USD",)
PER_MILLION_MAX = 1_000_000.0  # one currency unit per token: far above any real price

# (providerId, modelId) -> price. See the module docstring for why this is nearly empty.
DEFAULTS: dict[tuple[str, str], dict] = {
    ("offline", "offline-demo"): {"inputPerMillion": 0, "outputPerMillion": 0, "currency": "USD"},
}


def key(provider_id: str, model_id: str) -> str:
    return orjson.dumps([provider_id, model_id]).decode()


def _clean(value: object) -> dict | None:
    """A stored value as a price, or None if it is not one (hand-edited or damaged rows are read past)."""
    if not isinstance(value, dict) or value.get("currency") not in CURRENCIES:
        return None
    figures = {}
    for name in ("inputPerMillion", "outputPerMillion"):
        figure = value.get(name)
        if figure is not None and not is_figure(figure):
            return None
        figures[name] = figure
    if figures["inputPerMillion"] is None and figures["outputPerMillion"] is None:
        return None
    return {**figures, "currency": value["currency"]}


def is_figure(value: object) -> bool:
    # the range test also refuses NaN and infinities, and never converts a huge integer to float
    return isinstance(value, (int, float)) and not isinstance(value, bool) and 0 <= value <= PER_MILLION_MAX


def stored(conn: apsw.Connection, provider_id: str, model_id: str) -> dict | None:
    return _clean(kv.get(conn, NS, key(provider_id, model_id)))


def price_of(conn: apsw.Connection, provider_id: str | None, model_id: str | None) -> dict | None:
    """``{inputPerMillion, outputPerMillion, currency, source: "user"|"default"}`` or None (unknown)."""
    if provider_id is None or model_id is None:
        return None
    user = stored(conn, provider_id, model_id)
    if user is not None:
        return {**user, "source": "user"}
    default = DEFAULTS.get((provider_id, model_id))
    return {**default, "source": "default"} if default else None


def all_prices(conn: apsw.Connection) -> dict[tuple[str, str], dict]:
    """Every known price, by (providerId, modelId): the defaults, overridden by stored prices."""
    prices = {ids: {**price, "source": "default"} for ids, price in DEFAULTS.items()}
    for raw_key, raw_value in conn.execute("SELECT key, value_json FROM kv WHERE ns = ?", (NS,)):
        try:
            ids, value = orjson.loads(raw_key), orjson.loads(raw_value)
        except orjson.JSONDecodeError:
            continue
        price = _clean(value)
        if (price is not None and isinstance(ids, list) and len(ids) == 2
                and all(isinstance(part, str) for part in ids)):
            prices[(ids[0], ids[1])] = {**price, "source": "user"}
    return prices


def put(conn: apsw.Connection, provider_id: str, model_id: str, input_per_million: float | None,
        output_per_million: float | None, currency: str, now: int) -> None:
    """Store the user's price; both figures null removes it (the default, if any, applies again)."""
    if input_per_million is None and output_per_million is None:
        kv.delete(conn, NS, key(provider_id, model_id))
    else:
        kv.put(conn, NS, key(provider_id, model_id), {"inputPerMillion": input_per_million,
                                                      "outputPerMillion": output_per_million,
                                                      "currency": currency}, now)


def cost(price: dict | None, input_tokens: int, output_tokens: int) -> float | None:
    """What the tokens cost at ``price``; None when a figure it needs is unknown.

    A figure is needed only for a side with tokens: 0 output tokens cost 0 even
    when the output price is unknown.
    """
    total = 0.0
    for tokens, name in ((input_tokens, "inputPerMillion"), (output_tokens, "outputPerMillion")):
        if not tokens:
            continue
        figure = price.get(name) if price else None
        if figure is None:
            return None
        total += tokens * figure / 1_000_000
    return total
