"""``ProviderError``: one exception type with a stable code for every way a provider call fails.

Messages are written for the person using the app. They may quote the
provider's own error text, so every message passes through ``redact`` to make
sure the API key never appears in it.
"""

from __future__ import annotations

import re
from typing import Any

import orjson

from pidesktop.bus.errors import ErrorCode


class ProviderError(Exception):
    """A failed provider call: a stable ``code``, a message a person can act on, the HTTP ``status``.

    The code is an ``ErrorCode`` (a host's code passed on when the host refused a step of the turn).
    """

    def __init__(self, code: str, message: str, status: int | None = None, retry_after: float | None = None):
        super().__init__(f"{code}: {message}")
        self.code = str(code)
        self.message = message
        self.status = status
        self.retry_after = retry_after

    def __repr__(self) -> str:
        return f"ProviderError(code={self.code!r}, status={self.status!r}, message={self.message!r})"


# How much of a provider's own error text to quote; bodies can be whole HTML pages.
DETAIL_LIMIT = 300

_MODEL_MISSING = re.compile(r"\bmodel\b.*\b(not found|does not exist|not exist|no such model|unknown)\b", re.I | re.S)


def redact(text: str, secret: str | None) -> str:
    """``text`` with every occurrence of ``secret`` masked."""
    if secret and len(secret) >= 4 and secret in text:
        return text.replace(secret, "***")
    return text


def error_detail(body: bytes | str | dict[str, Any] | None) -> tuple[str, str]:
    """``(message, code)`` from an error body; understands the OpenAI shape and common variants."""
    payload = body
    if isinstance(body, (bytes, str)):
        try:
            payload = orjson.loads(body)
        except orjson.JSONDecodeError:
            text = body.decode("utf-8", "replace") if isinstance(body, bytes) else body
            text = " ".join(text.split())
            # An HTML error page says nothing a person can act on.
            return ("" if text.startswith("<") else _clip(text)), ""
    if not isinstance(payload, dict):
        return "", ""
    error = payload.get("error", payload)
    if isinstance(error, str):
        return _clip(error), ""
    if not isinstance(error, dict):
        return "", ""
    message = error.get("message") or error.get("detail") or error.get("error") or ""
    code = error.get("code") or error.get("type") or ""
    return _clip(str(message)), str(code)


def says_model_missing(message: str, code: str) -> bool:
    return code == "model_not_found" or bool(_MODEL_MISSING.search(message))


def error_for_status(
    status: int, body: bytes, *, host: str, model: str, retry_after: str | None = None, secret: str | None = None
) -> ProviderError:
    """The ``ProviderError`` for an HTTP error response."""
    detail, code = error_detail(body)
    detail = redact(detail, secret)
    suffix = f": {detail}." if detail else "."
    if status in (401, 403):
        return ProviderError(
            ErrorCode.AUTH_FAILED,
            f"The API key was rejected by {host} ({status}). Open Settings > Providers.",
            status,
        )
    if status == 404 or (400 <= status < 500 and status != 429 and says_model_missing(detail, code)):
        return ProviderError(
            ErrorCode.MODEL_NOT_FOUND,
            f'{host} does not know the model "{model}" ({status}){suffix} '
            "Check the model and base URL in Settings > Providers.",
            status,
        )
    if status == 429:
        seconds = parse_retry_after(retry_after)
        wait = f"Try again in {seconds:g} s." if seconds is not None else "Try again in a moment."
        return ProviderError(
            ErrorCode.RATE_LIMITED,
            f"{host} is limiting requests (429){suffix} {wait}",
            status,
            retry_after=seconds,
        )
    if status >= 500:
        return ProviderError(
            ErrorCode.PROVIDER_UNAVAILABLE,
            f"{host} is having trouble ({status}){suffix} Try again in a moment.",
            status,
        )
    return ProviderError(ErrorCode.BAD_REQUEST, f"{host} rejected the request ({status}){suffix}", status)


def error_in_stream(error: object, *, host: str, model: str, secret: str | None = None) -> ProviderError:
    """The ``ProviderError`` for an ``error`` object that arrived inside the stream."""
    detail, code = error_detail({"error": error})
    detail = redact(detail, secret) or "no details given"
    if says_model_missing(detail, code):
        return ProviderError(
            ErrorCode.MODEL_NOT_FOUND,
            f'{host} does not know the model "{model}": {detail}. Check the model in Settings > Providers.',
        )
    return ProviderError(ErrorCode.PROVIDER_ERROR, f"{host} stopped the reply with an error: {detail}.")


def parse_retry_after(value: str | None) -> float | None:
    """Seconds from a ``Retry-After`` header; HTTP dates are rare from model APIs and are ignored."""
    try:
        seconds = float(value) if value is not None else None
    except ValueError:
        return None
    return seconds if seconds is not None and seconds >= 0 else None


def _clip(text: str) -> str:
    text = text.strip().rstrip(".")
    return text if len(text) <= DETAIL_LIMIT else text[: DETAIL_LIMIT - 1] + "…"
