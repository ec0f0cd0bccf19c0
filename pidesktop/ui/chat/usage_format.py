"""Token counts and costs as a person reads them: "12.3k", "$0.0042", "1.2k in · 310 out · $0.01".

Prices come from ``models.list`` rows (``price: {inputPerMillion, outputPerMillion,
currency} | null``), keyed by (provider id, model id). A model without a price
has no cost: it is never shown as zero.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from PySide6.QtCore import QCoreApplication

Prices = Mapping[tuple[str, str], dict]
SYMBOLS = {"USD": "$", "EUR": "€", "GBP": "£", "JPY": "¥", "CNY": "¥"}
NEAR_LIMIT = 0.8  # the context meter turns amber from here


def _tr(text: str) -> str:
    return QCoreApplication.translate("Usage", text)


def short_tokens(count: int) -> str:
    """832, 12.3k, 128k, 1.2M."""
    if count < 1000:
        return str(count)
    if count < 1_000_000:
        value = count / 1000
        text = f"{value:.1f}" if value < 100 else f"{value:.0f}"
        return text.removesuffix(".0") + "k"
    value = count / 1_000_000
    return (f"{value:.1f}" if value < 100 else f"{value:.0f}").removesuffix(".0") + "M"


def message_tokens(meta: Mapping[str, Any] | None) -> tuple[int, int] | None:
    """(input, output) tokens of a reply from its ``meta.usage`` (the provider's own usage object)."""
    usage = (meta or {}).get("usage")
    if not isinstance(usage, dict):
        return None

    def count(*names: str) -> int | None:
        for name in names:
            value = usage.get(name)
            if isinstance(value, (int, float)) and not isinstance(value, bool):
                return int(value)
        return None

    tokens_in = count("prompt_tokens", "input_tokens", "inputTokens", "input")  # "input": a pi session's reply
    tokens_out = count("completion_tokens", "output_tokens", "outputTokens", "output")
    if tokens_in is None and tokens_out is None:
        return None
    return tokens_in or 0, tokens_out or 0


def price_table(models: list[dict]) -> dict[tuple[str, str], dict]:
    """(provider id, model id) -> price, for the ``models.list`` rows that have one."""
    return {
        (model.get("providerId"), model.get("modelId")): model["price"]
        for model in models
        if isinstance(model.get("price"), dict)
    }


def cost(tokens_in: int, tokens_out: int, price: Mapping[str, Any] | None) -> float | None:
    """What the tokens cost at ``price``; None when a figure they need is unknown."""
    if not price:
        return None
    per_in, per_out = _number(price.get("inputPerMillion")), _number(price.get("outputPerMillion"))
    if (tokens_in and per_in is None) or (tokens_out and per_out is None):
        return None
    return tokens_in * (per_in or 0) / 1_000_000 + tokens_out * (per_out or 0) / 1_000_000


def format_cost(amount: float, currency: str | None = "USD") -> str:
    """$0.42, $0.0042, <$0.0001, "free"; another currency by its symbol or code."""
    currency = (currency or "USD").upper()
    if amount == 0:
        return _tr("free")
    if amount < 0.0001:
        number = "<0.0001"
    elif amount < 0.01:
        number = f"{amount:.4f}"
    else:
        number = f"{amount:,.2f}"
    symbol = SYMBOLS.get(currency)
    if symbol is None:
        return f"{number} {currency}"
    return f"<{symbol}{number[1:]}" if number.startswith("<") else f"{symbol}{number}"


def usage_line(meta: Mapping[str, Any] | None, prices: Prices | None) -> str:
    """The muted line under a reply: tokens in and out, and the cost where the model's price is known."""
    tokens = message_tokens(meta)
    if tokens is None:
        return ""
    text = _tr("%1 in · %2 out").replace("%1", short_tokens(tokens[0])).replace("%2", short_tokens(tokens[1]))
    meta = meta or {}
    price = (prices or {}).get((meta.get("providerId"), meta.get("modelId")))
    amount = cost(tokens[0], tokens[1], price)
    if amount is not None and price is not None:
        text += " · " + format_cost(amount, price.get("currency"))
    return text


def meter_text(tokens: int, window: int | None) -> str:
    """The header's context meter: "12.3k / 32k", or "12.3k" while the window is unknown."""
    if window:
        return f"{short_tokens(tokens)} / {short_tokens(window)}"
    return short_tokens(tokens)


def near_limit(tokens: int, window: int | None) -> bool:
    return bool(window) and tokens >= NEAR_LIMIT * window


def _number(value: Any) -> float | None:
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) and value >= 0 else None
