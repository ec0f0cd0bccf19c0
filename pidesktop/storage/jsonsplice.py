"""Replace chosen string tokens of a JSON text and keep every other byte.

Relocation must change only the path-bearing fields of a record, so a line is
not re-serialised: the text is walked token by token, tracking the path of
keys and array indexes to each value, and only the string tokens at the
requested paths are swapped for their new spelling. Whitespace, key order,
number spelling and escapes elsewhere stay exactly as they were.

Paths are tuples of object keys (str) and array indexes (int); ``()`` is the
document itself.
"""

from __future__ import annotations

import re
from typing import Any

import orjson

JsonPath = tuple[str | int, ...]

_TOKEN = re.compile(
    rb'[ \t\r\n]*(?:("[^"\\]*(?:\\.[^"\\]*)*")|([{\[])|([}\]])|(:)|(,)|([^ \t\r\n{}\[\]:,"]+))', re.DOTALL
)


class SpliceError(ValueError):
    """The text is not the JSON the caller parsed."""


def splice(text: bytes, values: dict[JsonPath, str], keys: dict[JsonPath, str] | None = None) -> bytes:
    """``text`` with the string at each path in ``values`` replaced, and each object key at a path in ``keys`` renamed.

    A key path is the path of the member (its container's path plus the old key).
    """
    keys = keys or {}
    out: list[bytes] = []
    last = 0
    pos = 0
    end = len(text)
    # Frames: [is_object, key_or_index, expecting_key]
    stack: list[list[Any]] = []
    path: list[str | int] = []
    while True:
        match = _TOKEN.match(text, pos)
        if match is None:
            if text[pos:].strip():
                raise SpliceError(f"unexpected byte at offset {pos}")
            break
        pos = match.end()
        string, opener, closer, _colon, comma, _scalar = match.groups()
        top = stack[-1] if stack else None
        if string is not None:
            start, stop = match.span(1)
            if top is not None and top[0] and top[2]:
                key = _decode(string)
                top[1], top[2] = key, False
                member = (*path, key)
                if member in keys:
                    out += [text[last:start], orjson.dumps(keys[member])]
                    last = stop
            else:
                here = (*path, top[1]) if top is not None else ()
                if here in values:
                    out += [text[last:start], orjson.dumps(values[here])]
                    last = stop
        elif opener is not None:
            if top is not None:
                path.append(top[1])
            stack.append([opener == b"{", None if opener == b"{" else 0, opener == b"{"])
        elif closer is not None:
            if not stack:
                raise SpliceError(f"unbalanced {closer!r} at offset {match.start(3)}")
            stack.pop()
            if stack:
                path.pop()
        elif comma is not None and top is not None:
            if top[0]:
                top[2] = True
            else:
                top[1] += 1
        if pos >= end:
            break
    out.append(text[last:])
    return b"".join(out)


def _decode(token: bytes) -> str:
    if b"\\" not in token:
        return token[1:-1].decode("utf-8", "replace")
    decoded: str = orjson.loads(token)  # the token is one JSON string
    return decoded
