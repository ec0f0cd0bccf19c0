"""JSON for the small files a start reads and writes before the window's first paint.

Preferences, the data folder's pointer, the lock files, the maintenance
journal and request files, the crash-dump marker: a few hundred bytes each.
They use the standard library's ``json`` rather than orjson, whose import
also imports ``datetime``, ``uuid`` and ``platform``: about 5 ms the first
paint would wait for (``bench/startup.py``). The bytes are the ones orjson
wrote: compact UTF-8, or indented by two spaces.
"""

from __future__ import annotations

import json
import math
from typing import Any

# What ``loads`` raises for bytes that are not JSON: ``json.JSONDecodeError``, or ``UnicodeDecodeError`` for
# bytes that are not UTF-8; both are ``ValueError``s.
DecodeError = ValueError


def loads(data: bytes | str) -> Any:
    return json.loads(data)


def dumps(value: Any, *, indent: bool = False) -> bytes:
    """``value`` as UTF-8 JSON, NaN and infinities as null; ``TypeError`` for what JSON cannot hold (a lone
    surrogate included), as orjson."""
    try:
        return _dumps(value, indent)
    except ValueError:  # NaN or an infinity (json would write "NaN", which JSON readers refuse), or worse
        try:
            return _dumps(_finite(value), indent)
        except ValueError as exc:  # a lone surrogate (UnicodeEncodeError), a cycle
            raise TypeError(str(exc)) from exc


def _dumps(value: Any, indent: bool) -> bytes:
    if indent:
        return json.dumps(value, ensure_ascii=False, allow_nan=False, indent=2).encode()
    return json.dumps(value, ensure_ascii=False, allow_nan=False, separators=(",", ":")).encode()


def _finite(value: Any, depth: int = 0) -> Any:
    """``value`` with NaN and infinities as None, as orjson writes them; a cycle ends 1,000 levels down."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if depth > 1000:
        raise ValueError("Circular reference detected")
    if isinstance(value, dict):
        return {key: _finite(item, depth + 1) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_finite(item, depth + 1) for item in value]
    return value
