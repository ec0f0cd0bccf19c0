"""Classifying a transcript line without parsing it.

Building the layout of a long transcript must not cost a full JSON parse of
every line, so a line is classified by one depth-aware pass over its raw bytes
that reads only the top-level ``"type"`` and ``"id"`` string values. Nested
objects and arrays (tool results carry their own ``"type"`` keys) and string
contents (quotes, backslashes, braces) are skipped without being decoded.

Writers put ``type`` first and ``id`` second, so the pass usually stops after a
few dozen bytes; older lines that carry ``type`` after their payload are still
classified, by stepping over the payload values.

The pass never raises: on malformed input it returns whatever it found before
the damage. When a key repeats, the first occurrence is reported (a full parse
keeps the last); readers compare the parsed record with the classification, so
such a line is treated as invalid rather than misfiled.
"""

from __future__ import annotations

import re
from typing import NamedTuple

import orjson

MESSAGE = "message"
COMPACTION = "compaction"
SESSION = "session"


class TopLevel(NamedTuple):
    """The top-level ``type`` and ``id`` of a line; None when absent or not a string."""

    type: str | None
    id: str | None


# The shape our own writer produces: a fast exit for nearly every line.
_LEADING_TYPE_AND_ID = re.compile(rb'\{"type":"([^"\\]*)","id":"([^"\\]*)"')

# How the writer starts a line: group 1 is the type and group 2, when the id
# comes next and needs no unescaping, the id. Where it matches, its values
# are what scan_top_level() would find.
WRITER_LINE_START = re.compile(rb'\{"type":"([^"\\\n]*)"(?:,"id":"([^"\\\n]*)")?')
# The rest of a JSON string after its opening quote, closing quote included.
_STRING_REST = re.compile(rb'[^"\\]*(?:\\.[^"\\]*)*"', re.DOTALL)
_WHITESPACE = re.compile(rb"[ \t\r\n]*")
_STRUCTURAL = re.compile(rb'["{}\[\]]')
_SCALAR = re.compile(rb"[^,}\] \t\r\n]+")

_QUOTE, _BACKSLASH, _COLON, _COMMA = 0x22, 0x5C, 0x3A, 0x2C
_OPEN_OBJECT, _CLOSE_OBJECT, _OPEN_ARRAY = 0x7B, 0x7D, 0x5B
_OPENERS = (_OPEN_OBJECT, _OPEN_ARRAY)

Buffer = bytes | bytearray | memoryview


def scan_top_level(buf: Buffer, start: int = 0, end: int | None = None) -> TopLevel:
    """Find the top-level ``type`` and ``id`` string values of the JSON object in ``buf[start:end]``."""
    if end is None:
        end = len(buf)
    fast = _LEADING_TYPE_AND_ID.match(buf, start, end)
    if fast is not None:
        return TopLevel(_decode_plain(fast.group(1)), _decode_plain(fast.group(2)))
    return _scan_object(buf, start, end)


def is_classified_as(buf: Buffer, start: int, end: int, kind: str, record_id: str | None) -> bool:
    """``scan_top_level(buf, start, end) == (kind, record_id)``, without decoding the values of a line in
    the writer's shape: a reader checks every line it fetches through a layout this way."""
    fast = _LEADING_TYPE_AND_ID.match(buf, start, end)
    if (
        fast is not None
        and record_id is not None
        and fast.group(2) == record_id.encode("utf-8", "surrogatepass")
        and fast.group(1) == kind.encode()
    ):
        return True  # equal bytes decode to equal strings; anything else takes the full answer below
    return scan_top_level(buf, start, end) == (kind, record_id)


def _scan_object(buf: Buffer, start: int, end: int) -> TopLevel:
    found: dict[bytes, str | None] = {}
    i = _skip_whitespace(buf, start, end)
    if i >= end or buf[i] != _OPEN_OBJECT:
        return TopLevel(None, None)
    i += 1
    while True:
        i = _skip_whitespace(buf, i, end)
        if i >= end or buf[i] != _QUOTE:
            break  # closing brace, or damage: either way nothing more to learn
        key_end = _string_end(buf, i, end)
        if key_end < 0:
            break
        key = _key_name(buf[i + 1 : key_end - 1])
        i = _skip_whitespace(buf, key_end, end)
        if i >= end or buf[i] != _COLON:
            break
        i = _skip_whitespace(buf, i + 1, end)
        if i >= end:
            break
        wanted = key in (b"type", b"id") and key not in found
        if wanted and buf[i] == _QUOTE:
            value_end = _string_end(buf, i, end)
            if value_end < 0:
                break
            found[key] = _decode_string(buf[i + 1 : value_end - 1])
            i = value_end
        else:
            if wanted:
                found[key] = None  # present but not a string: no usable value
            i = _skip_value(buf, i, end)
            if i < 0:
                break
        if len(found) == 2:
            break
        i = _skip_whitespace(buf, i, end)
        if i >= end or buf[i] != _COMMA:
            break
        i += 1
    return TopLevel(found.get(b"type"), found.get(b"id"))


def _skip_whitespace(buf: Buffer, i: int, end: int) -> int:
    match = _WHITESPACE.match(buf, i, end)
    assert match is not None  # the pattern matches the empty string, so it matches at any position
    return match.end()


def _string_end(buf: Buffer, quote: int, end: int) -> int:
    """Index just past the string starting at ``quote``, or -1 if unterminated."""
    match = _STRING_REST.match(buf, quote + 1, end)
    return -1 if match is None else match.end()


def _skip_value(buf: Buffer, i: int, end: int) -> int:
    """Index just past the JSON value at ``i``, or -1 if it is unterminated."""
    first = buf[i]
    if first == _QUOTE:
        return _string_end(buf, i, end)
    if first not in _OPENERS:
        scalar = _SCALAR.match(buf, i, end)
        return -1 if scalar is None else scalar.end()
    depth = 0
    while True:
        mark = _STRUCTURAL.search(buf, i, end)
        if mark is None:
            return -1
        at = mark.start()
        char = buf[at]
        if char == _QUOTE:
            i = _string_end(buf, at, end)
            if i < 0:
                return -1
            continue
        depth += 1 if char in _OPENERS else -1
        i = at + 1
        if depth == 0:
            return i


def _key_name(raw: Buffer) -> bytes:
    # Keys are compared as bytes; only an escaped key needs decoding first.
    raw = bytes(raw)
    if _BACKSLASH not in raw:
        return raw
    decoded = _decode_string(raw)
    return b"" if decoded is None else decoded.encode("utf-8", "surrogatepass")


def _decode_plain(raw: Buffer) -> str:
    return bytes(raw).decode("utf-8", "replace")


def _decode_string(raw: Buffer) -> str | None:
    """Decode a JSON string body the way a full parse of the line would."""
    raw = bytes(raw)
    if _BACKSLASH not in raw:
        return raw.decode("utf-8", "replace")
    try:
        decoded: str = orjson.loads(b'"' + raw + b'"')  # a JSON string body parses to a str
        return decoded
    except orjson.JSONDecodeError:
        pass
    try:
        # Invalid UTF-8 bytes are replaced before parsing, as readers do.
        replaced: str = orjson.loads('"' + raw.decode("utf-8", "replace") + '"')
        return replaced
    except orjson.JSONDecodeError:
        return None  # a bad escape: the full parse fails too
