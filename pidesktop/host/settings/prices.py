"""Model prices: what a model's tokens cost, per million, when that is known.

A price is ``{inputPerMillion, outputPerMillion, currency}``; either figure may
be null (unknown). Where a known price comes from (``source``), first match wins:

- ``user``: the person's price (``models.setPrice``), in ``kv(modelPrice, <key>)``;
- ``provider``: the price the provider's own ``GET /models`` listed (OpenRouter's
  ``pricing``), in ``kv(modelPriceProvider, <key>)``, written only by
  ``models.applyDiscovery``; a user price always wins and discovery never
  touches it, so clearing the user price falls back to this one;
- ``local``: 0 / 0 for every model of a provider made from a local-server preset
  (``vendorKey`` ollama, lmstudio or llamacpp) whose base URL names this machine
  or a private network address: the model runs on hardware the person owns;
- ``default``: the built-in table below.

``<key>`` is the JSON array ``["<providerId>", "<modelId>"]`` so any id is
unambiguous. Prices live in ``kv`` (the ``models`` table of schema v27 has no
JSON column for them, and the schema is not changed for this), so a price is
kept when the model row goes away, and usage already recorded keeps its cost
if the model comes back.

Defaults: no vendor list prices ship with the host. Published prices change
and differ by account, region and tier, and a wrong figure shown as a cost is
worse than a cost shown as unknown; the person enters the prices they pay, or
the provider states them itself. The one default is a fact of this app, not a
vendor's figure: the built-in offline demo model runs on this machine and
costs nothing.

An unknown price is never treated as zero: a cost that needs an unknown figure
is ``None``.
"""

from __future__ import annotations

import ipaddress
from typing import Any
from urllib.parse import urlsplit

import apsw
import orjson

from pidesktop.host import kv

NS = "modelPrice"  # the person's prices
PROVIDER_NS = "modelPriceProvider"  # prices the provider listed in GET /models
SOURCES = ("user", "provider", "local", "default")
# The vendor keys of the local-server presets (pidesktop/agent/presets.py; the host cannot import it).
LOCAL_VENDORS = frozenset({"ollama", "lmstudio", "llamacpp"})
FREE = {"inputPerMillion": 0, "outputPerMillion": 0, "currency": "USD"}
CURRENCIES = ("USD",)
PER_MILLION_MAX = 1_000_000.0  # one currency unit per token: far above any real price

# (providerId, modelId) -> price. See the module docstring for why this is nearly empty.
DEFAULTS: dict[tuple[str, str], dict[str, Any]] = {
    ("offline", "offline-demo"): {"inputPerMillion": 0, "outputPerMillion": 0, "currency": "USD"},
}


# (providerId, modelId) -> price
Prices = dict[tuple[str, str], dict[str, Any]]
# (input, output) per million tokens; None where unknown
Figures = tuple[float | None, float | None]


def key(provider_id: str, model_id: str) -> str:
    return orjson.dumps([provider_id, model_id]).decode()


def _clean(value: object) -> dict[str, Any] | None:
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


def stored(conn: apsw.Connection, provider_id: str, model_id: str, ns: str = NS) -> dict[str, Any] | None:
    return _clean(kv.get(conn, ns, key(provider_id, model_id)))


def is_local_server(vendor_key: str | None, base_url: str | None) -> bool:
    """A provider made from a local-server preset that still points at this machine or a private network.

    The vendor key alone is not enough: the same preset pointed at a public host
    (a hosted Ollama, say) may be billed, and then its price is unknown.
    """
    if vendor_key not in LOCAL_VENDORS or not base_url:
        return False
    try:
        host = urlsplit(base_url).hostname
    except ValueError:
        return False
    if not host:
        return False
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return False  # a host name could be anywhere
    return address.is_loopback or address.is_private or address.is_link_local


def _local_providers(conn: apsw.Connection, provider_id: str | None = None) -> set[str]:
    sql = "SELECT id, vendor_key, base_url FROM providers"
    args: tuple[str, ...] = ()
    if provider_id is not None:
        sql, args = sql + " WHERE id = ?", (provider_id,)
    return {pid for pid, vendor, url in conn.execute(sql, args) if is_local_server(vendor, url)}


class Known:
    """Every known price, looked up by ``(providerId, modelId)``; ``get`` answers None when unknown."""

    def __init__(self, user: Prices, provider: Prices, local: set[str]) -> None:
        self._user, self._provider, self._local = user, provider, local

    def get(self, ids: tuple[str, str], default: dict[str, Any] | None = None) -> dict[str, Any] | None:
        if ids in self._user:
            return {**self._user[ids], "source": "user"}
        if ids in self._provider:
            return {**self._provider[ids], "source": "provider"}
        if ids[0] in self._local:
            return {**FREE, "source": "local"}
        if ids in DEFAULTS:
            return {**DEFAULTS[ids], "source": "default"}
        return default


def price_of(conn: apsw.Connection, provider_id: str | None, model_id: str | None) -> dict[str, Any] | None:
    """``{inputPerMillion, outputPerMillion, currency, source}`` or None (unknown); see the module docstring."""
    if provider_id is None or model_id is None:
        return None
    ids = (provider_id, model_id)
    user, provider = stored(conn, provider_id, model_id, NS), stored(conn, provider_id, model_id, PROVIDER_NS)
    return Known(
        {ids: user} if user else {},
        {ids: provider} if provider else {},
        _local_providers(conn, provider_id),
    ).get(ids)


def _all_stored(conn: apsw.Connection, ns: str) -> Prices:
    prices: Prices = {}
    for raw_key, raw_value in conn.execute("SELECT key, value_json FROM kv WHERE ns = ?", (ns,)):
        try:
            ids, value = orjson.loads(raw_key), orjson.loads(raw_value)
        except orjson.JSONDecodeError:
            continue
        price = _clean(value)
        if price is not None and isinstance(ids, list) and len(ids) == 2 and all(isinstance(part, str) for part in ids):
            prices[(ids[0], ids[1])] = price
    return prices


def all_prices(conn: apsw.Connection) -> Known:
    """Every known price, by (providerId, modelId), for many look-ups from one read."""
    return Known(_all_stored(conn, NS), _all_stored(conn, PROVIDER_NS), _local_providers(conn))


def put(
    conn: apsw.Connection,
    provider_id: str,
    model_id: str,
    input_per_million: float | None,
    output_per_million: float | None,
    currency: str,
    now: int,
    ns: str = NS,
) -> None:
    """Store a price in ``ns`` (the user's by default); both figures null removes it (the next source applies)."""
    if input_per_million is None and output_per_million is None:
        kv.delete(conn, ns, key(provider_id, model_id))
    else:
        kv.put(
            conn,
            ns,
            key(provider_id, model_id),
            {"inputPerMillion": input_per_million, "outputPerMillion": output_per_million, "currency": currency},
            now,
        )


def cost(price: dict[str, Any] | None, input_tokens: int, output_tokens: int) -> float | None:
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
