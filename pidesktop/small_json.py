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
from typing import Any

# What ``loads`` raises for bytes that are not JSON: ``json.JSONDecodeError``, or ``UnicodeDecodeError`` for
# bytes that are not UTF-8; both are ``ValueError``s.
DecodeError = ValueError


def loads(data: bytes | str) -> Any:
    return json.loads(data)


def dumps(value: Any, *, indent: bool = False) -> bytes:
    """``value`` as UTF-8 JSON; ``TypeError`` for what JSON cannot hold (a lone surrogate included), as orjson."""
    try:
        if indent:
            return json.dumps(value, ensure_ascii=False, indent=2).encode()
        return json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode()
    except (UnicodeEncodeError, ValueError) as exc:  # a lone surrogate; a circular reference
        raise TypeError(str(exc)) from exc
