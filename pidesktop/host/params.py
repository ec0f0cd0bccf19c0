"""Reading command params with errors that name the field.

Every handler reads its params through ``Params`` before it writes anything,
so bad input is answered with ``INVALID_PARAMS`` naming the field (in the
message and in ``data["field"]``) and nothing is stored. Unknown extra fields
are ignored: callers may send optional fields a newer host understands.
"""

from __future__ import annotations

from typing import Any

from ..bus.errors import ErrorCode, HostError

_MISSING = object()


def invalid(message: str, field: str | None = None) -> HostError:
    """``INVALID_PARAMS``; ``field`` (a dotted path such as ``provider.baseUrl``) goes to ``data["field"]``
    so a form can mark the refused input without reading the message."""
    return HostError(ErrorCode.INVALID_PARAMS, message, {"field": field} if field else None)


class Params:
    def __init__(self, method: str, raw: Any):
        if raw is None:
            raw = {}
        if not isinstance(raw, dict):
            raise invalid(f"{method}: params must be a JSON object, not {_kind(raw)}.")
        self.method = method
        self.raw = raw

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

    def text(self, name: str, *, required: bool = True, default: str | None = None,
             strip: bool = False, nonempty: bool = False, max_chars: int | None = None) -> str | None:
        value = self._get(name, required)
        if value is _MISSING:
            return default
        if not isinstance(value, str):
            raise self._wrong(name, "a string", value)
        if strip:
            value = value.strip()
        if nonempty and not value:
            raise invalid(f"{self.method}: field '{name}' must not be empty.", name)
        if max_chars is not None and len(value) > max_chars:
            raise invalid(f"{self.method}: field '{name}' is longer than {max_chars} characters.", name)
        return value

    def integer(self, name: str, *, required: bool = True, default: int | None = None,
                minimum: int | None = None, maximum: int | None = None) -> int | None:
        value = self._get(name, required)
        if value is _MISSING:
            return default
        if isinstance(value, bool) or not isinstance(value, int):
            raise self._wrong(name, "an integer", value)
        if minimum is not None and value < minimum:
            raise invalid(f"{self.method}: field '{name}' must be at least {minimum}, not {value}.", name)
        if maximum is not None and value > maximum:
            raise invalid(f"{self.method}: field '{name}' must be at most {maximum}, not {value}.", name)
        return value

    def boolean(self, name: str, *, required: bool = False, default: bool = False) -> bool:
        value = self._get(name, required)
        if value is _MISSING:
            return default
        if not isinstance(value, bool):
            raise self._wrong(name, "true or false", value)
        return value

    def choice(self, name: str, choices: tuple[str, ...], *, required: bool = False,
               default: str | None = None) -> str | None:
        value = self.text(name, required=required, default=default)
        if value is not None and value not in choices:
            raise invalid(f"{self.method}: field '{name}' must be one of {', '.join(choices)}; got {value!r}.", name)
        return value

    def obj(self, name: str, *, required: bool = True) -> dict | None:
        value = self._get(name, required)
        if value is _MISSING:
            return None
        if not isinstance(value, dict):
            raise self._wrong(name, "an object", value)
        return value

    def array(self, name: str, *, required: bool = True) -> list | None:
        value = self._get(name, required)
        if value is _MISSING:
            return None
        if not isinstance(value, list):
            raise self._wrong(name, "an array", value)
        return value


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
