"""Reading JSON-shaped records whose parts may be missing or of another type."""

from __future__ import annotations

from typing import Any


def object_at(parent: dict[str, Any], key: str) -> dict[str, Any]:
    """The object under ``key``, or an empty one when it is missing or not an object."""
    value = parent.get(key)
    return value if isinstance(value, dict) else {}


def array_at(parent: dict[str, Any], key: str) -> list[Any]:
    """The array under ``key``, or an empty one when it is missing or not an array."""
    value = parent.get(key)
    return value if isinstance(value, list) else []
