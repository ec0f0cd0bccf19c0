"""Reading command params with errors that name the field.

Every handler reads its params through ``Params`` before it writes anything,
so bad input is answered with ``INVALID_PARAMS`` naming the field (in the
message and in ``data["field"]``) and nothing is stored. Unknown extra fields
are ignored: callers may send optional fields a newer host understands.

What a handler gets can always be stored: text holds no lone surrogate
(UTF-8, SQLite and JSON cannot carry one), an integer fits SQLite's 64 bits,
and an object or array holds only JSON values, nested at most ``MAX_DEPTH``
levels. An in-process caller can hand over values JSON could not; they are
refused here, naming the field (``message.blocks[0].text``), instead of failing
deep in a write. The depth limit keeps every stored value readable over stdio:
orjson refuses to encode past 255 levels, so a deeper message stored once would
make every later reply that holds it unanswerable.
"""

from __future__ import annotations

import re
from typing import Any, Literal, overload

from pidesktop.bus.errors import ErrorCode, HostError

_MISSING = object()
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")
INT_MIN, INT_MAX = -(1 << 63), (1 << 63) - 1  # SQLite's INTEGER
JSON_INT_MAX = (1 << 64) - 1  # the largest integer JSON encoding (orjson) writes
MAX_DEPTH = 64  # objects and arrays inside one field; a command's reply wraps stored values a few levels deeper


def invalid(message: str, field: str | None = None) -> HostError:
    """``INVALID_PARAMS``; ``field`` (a dotted path such as ``provider.baseUrl``) goes to ``data["field"]``
    so a form can mark the refused input without reading the message."""
    return HostError(ErrorCode.INVALID_PARAMS, message, {"field": field} if field else None)


class Params:
    def __init__(self, method: str, raw: Any) -> None:
        if raw is None:
            raw = {}
        if not isinstance(raw, dict):
            raise invalid(f"{method}: params must be a JSON object, not {_kind(raw)}.")
        self.method = method
        self.raw: dict[str, Any] = raw

    def _get(self, name: str, required: bool) -> Any:
        value = self.raw.get(name, _MISSING)
        if value is _MISSING or value is None:
            if required:
                raise invalid(f"{self.method}: missing required field '{name}'.", name)
            return _MISSING
        return value

    def _wrong(self, name: str, expected: str, value: Any) -> HostError:
        return invalid(f"{self.method}: field '{name}' must be {expected}, not {_kind(value)}.", name)

    def has(self, name: str) -> bool:
        return self.raw.get(name) is not None

    # A required field, or one with a default, always reads as a value: the overloads tell the type checker so.
    @overload
    def text(
        self,
        name: str,
        *,
        required: Literal[True] = ...,
        default: str | None = ...,
        strip: bool = ...,
        nonempty: bool = ...,
        max_chars: int | None = ...,
    ) -> str: ...
    @overload
    def text(
        self,
        name: str,
        *,
        required: bool = ...,
        default: str,
        strip: bool = ...,
        nonempty: bool = ...,
        max_chars: int | None = ...,
    ) -> str: ...
    @overload
    def text(
        self,
        name: str,
        *,
        required: bool = ...,
        default: str | None = ...,
        strip: bool = ...,
        nonempty: bool = ...,
        max_chars: int | None = ...,
    ) -> str | None: ...
    def text(
        self,
        name: str,
        *,
        required: bool = True,
        default: str | None = None,
        strip: bool = False,
        nonempty: bool = False,
        max_chars: int | None = None,
    ) -> str | None:
        value = self._get(name, required)
        if value is _MISSING:
            return default
        if not isinstance(value, str):
            raise self._wrong(name, "a string", value)
        if _LONE_SURROGATE.search(value):
            raise invalid(f"{self.method}: field '{name}' is not valid Unicode text (it holds a lone surrogate).", name)
        if strip:
            value = value.strip()
        if nonempty and not value:
            raise invalid(f"{self.method}: field '{name}' must not be empty.", name)
        if max_chars is not None and len(value) > max_chars:
            raise invalid(f"{self.method}: field '{name}' is longer than {max_chars} characters.", name)
        return value

    @overload
    def integer(
        self,
        name: str,
        *,
        required: Literal[True] = ...,
        default: int | None = ...,
        minimum: int | None = ...,
        maximum: int | None = ...,
    ) -> int: ...
    @overload
    def integer(
        self,
        name: str,
        *,
        required: bool = ...,
        default: int,
        minimum: int | None = ...,
        maximum: int | None = ...,
    ) -> int: ...
    @overload
    def integer(
        self,
        name: str,
        *,
        required: bool = ...,
        default: int | None = ...,
        minimum: int | None = ...,
        maximum: int | None = ...,
    ) -> int | None: ...
    def integer(
        self,
        name: str,
        *,
        required: bool = True,
        default: int | None = None,
        minimum: int | None = None,
        maximum: int | None = None,
    ) -> int | None:
        value = self._get(name, required)
        if value is _MISSING:
            return default
        if isinstance(value, bool) or not isinstance(value, int):
            raise self._wrong(name, "an integer", value)
        if not INT_MIN <= value <= INT_MAX:
            raise invalid(f"{self.method}: field '{name}' is out of the 64-bit integer range.", name)
        if minimum is not None and value < minimum:
            raise invalid(f"{self.method}: field '{name}' must be at least {minimum}, not {value}.", name)
        if maximum is not None and value > maximum:
            raise invalid(f"{self.method}: field '{name}' must be at most {maximum}, not {value}.", name)
        return value

    @overload
    def boolean(self, name: str, *, required: bool = ..., default: bool = ...) -> bool: ...
    @overload
    def boolean(self, name: str, *, required: bool = ..., default: None) -> bool | None: ...
    def boolean(self, name: str, *, required: bool = False, default: bool | None = False) -> bool | None:
        value = self._get(name, required)
        if value is _MISSING:
            return default
        if not isinstance(value, bool):
            raise self._wrong(name, "true or false", value)
        return value

    @overload
    def choice(
        self, name: str, choices: tuple[str, ...], *, required: Literal[True], default: str | None = ...
    ) -> str: ...
    @overload
    def choice(self, name: str, choices: tuple[str, ...], *, required: bool = ..., default: str) -> str: ...
    @overload
    def choice(
        self, name: str, choices: tuple[str, ...], *, required: bool = ..., default: str | None = ...
    ) -> str | None: ...
    def choice(
        self, name: str, choices: tuple[str, ...], *, required: bool = False, default: str | None = None
    ) -> str | None:
        value = self.text(name, required=required, default=default)
        if value is not None and value not in choices:
            raise invalid(f"{self.method}: field '{name}' must be one of {', '.join(choices)}; got {value!r}.", name)
        return value

    @overload
    def obj(self, name: str, *, required: Literal[True] = ...) -> dict[str, Any]: ...
    @overload
    def obj(self, name: str, *, required: bool) -> dict[str, Any] | None: ...
    def obj(self, name: str, *, required: bool = True) -> dict[str, Any] | None:
        value = self._get(name, required)
        if value is _MISSING:
            return None
        if not isinstance(value, dict):
            raise self._wrong(name, "an object", value)
        self._check_json(name, value)
        return value

    @overload
    def array(self, name: str, *, required: Literal[True] = ...) -> list[Any]: ...
    @overload
    def array(self, name: str, *, required: bool) -> list[Any] | None: ...
    def array(self, name: str, *, required: bool = True) -> list[Any] | None:
        value = self._get(name, required)
        if value is _MISSING:
            return None
        if not isinstance(value, list):
            raise self._wrong(name, "an array", value)
        self._check_json(name, value)
        return value

    def _check_json(self, name: str, value: Any) -> None:
        where = _not_json(value)
        if where is not None:
            path, problem = where
            raise invalid(f"{self.method}: field '{name}{path}' {problem}.", f"{name}{path}")


def decimal(text: str, *, signed: bool = False) -> int | None:
    """``text`` as an integer if it is ASCII decimal digits (after one '-' when ``signed``) within SQLite's
    64 bits, else None. ``str.isdigit`` alone also accepts digits such as '²' that ``int()`` refuses."""
    digits = text[1:] if signed and text.startswith("-") else text
    if not digits or not digits.isascii() or not digits.isdigit() or len(digits) > 19:
        return None
    value = int(text)
    return value if INT_MIN <= value <= INT_MAX else None


def _not_json(value: Any) -> tuple[str, str] | None:
    """(path, problem) of the first part of ``value`` that is not a storable JSON value, else None.

    Iterative, so a deeply nested value cannot exhaust the Python stack. The
    field's own object or array is level 1.
    """
    stack: list[tuple[str, Any, int]] = [("", value, 0)]
    while stack:
        path, item, depth = stack.pop()
        if isinstance(item, (dict, list)):
            depth += 1
            if depth > MAX_DEPTH:
                return path, f"is nested more than {MAX_DEPTH} levels deep"
        if isinstance(item, str):
            if _LONE_SURROGATE.search(item):
                return path, "is not valid Unicode text (it holds a lone surrogate)"
        elif isinstance(item, bool) or item is None or isinstance(item, float):
            continue
        elif isinstance(item, int):
            if not INT_MIN <= item <= JSON_INT_MAX:
                return path, "is out of the 64-bit integer range"
        elif isinstance(item, dict):
            for key, child in item.items():
                if not isinstance(key, str) or _LONE_SURROGATE.search(key):
                    return path, f"has a key that is not valid text: {key!r}"
                stack.append((f"{path}.{key}", child, depth))
        elif isinstance(item, list):
            stack.extend((f"{path}[{index}]", child, depth) for index, child in enumerate(item))
        else:
            return path, f"holds {_kind(item)}, which is not a JSON value"
    return None


def _kind(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int):
        return "an integer"
    if isinstance(value, float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "an array"
    if isinstance(value, dict):
        return "an object"
    return type(value).__name__
