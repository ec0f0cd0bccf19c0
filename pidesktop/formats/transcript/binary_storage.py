"""Decoding the storage-private ``binaryStorage`` v1 envelope of transcript format 2 (spec 004, preface, #1868).

Pi Desktop v26+ may store a tool result's image/blob strings once per record and
rebuild every place they appear (the structured result and its JSON text
mirrors) from typed JSON paths and exact text templates. The spec fixes the
rules, not the key names; this module reads the envelope as::

    "binaryStorage": {
      "version": 1,
      "strings": ["iVBORw0KGgo...", ...],          # each blob string once
      "texts": [[part, ...], ...],                  # exact text templates
      "paths": [{"path": ["blocks", 0, "content", 0, "data"], "string": 0},
                {"path": ["blocks", 0, "details", "json"], "text": 0}]
    }

A template part is a literal string (kept byte for byte: key order, whitespace
and escape spelling are whatever the writer had), ``{"string": i}``, or
``{"text": j}`` with ``j`` lower than the template's own index (an inner mirror
comes first, so references cannot loop). ``"escape": n`` on a reference
inserts it JSON-string-escaped ``n`` times the way ``JSON.stringify`` spells a
string token (a nested mirror shares its inner text only in that canonical
spelling; any other spelling stays literal). A path step that is an integer
indexes an array, a string names an object key; the value at the path is
replaced, so the path must exist.

``decode`` returns the record with every value restored and the envelope
removed. An unknown version or any bad reference raises ``BinaryStorageError``:
a reader must refuse, never go on with an empty or half-decoded history.
Nothing here writes: reading a file never converts it.
"""

from __future__ import annotations

import json
from typing import Any

from pidesktop.bus.errors import ErrorCode, HostError

ENVELOPE_KEY = "binaryStorage"
CODEC_VERSION = 1


class BinaryStorageError(HostError):
    """An encoded record this build cannot decode; ``data.reason`` is ``unknownVersion`` or ``badReference``."""


def is_encoded(record: dict[str, Any]) -> bool:
    return ENVELOPE_KEY in record


def decode(record: dict[str, Any], where: str) -> dict[str, Any]:
    """``record`` with its envelope applied and removed; ``where`` names the line in an error."""
    envelope = record[ENVELOPE_KEY]
    if not isinstance(envelope, dict):
        raise _bad(where, "the binaryStorage envelope is not an object")
    version = envelope.get("version")
    if version != CODEC_VERSION:
        raise BinaryStorageError(
            ErrorCode.SCHEMA_INCOMPATIBLE,
            f"{where} holds tool images in storage format version {version!r}, which this version of pidesktop "
            f"cannot read (it reads version {CODEC_VERSION}). Nothing was changed; update pidesktop to open this chat.",
            {"reason": "unknownVersion", "codecVersion": version, "where": where},
        )
    strings = _list_of(envelope, "strings", where)
    templates = _list_of(envelope, "texts", where)
    paths = _list_of(envelope, "paths", where)
    if not all(isinstance(value, str) for value in strings):
        raise _bad(where, "a binaryStorage string is not a string")
    texts: list[str] = []
    for index, template in enumerate(templates):
        texts.append(_render(template, index, strings, texts, where))
    decoded = {key: value for key, value in record.items() if key != ENVELOPE_KEY}
    for entry in paths:
        decoded = _place(decoded, entry, strings, texts, where)
    return decoded


def json_escape(text: str) -> str:
    """``text`` as the inside of a JSON string token, spelled as ``JSON.stringify`` spells it."""
    return json.dumps(text, ensure_ascii=False)[1:-1]


def _list_of(envelope: dict[str, Any], key: str, where: str) -> list[Any]:
    value = envelope.get(key, [])
    if not isinstance(value, list):
        raise _bad(where, f"binaryStorage.{key} is not a list")
    return value


def _render(template: Any, index: int, strings: list[str], texts: list[str], where: str) -> str:
    if not isinstance(template, list):
        raise _bad(where, f"text template {index} is not a list")
    out = []
    for part in template:
        if isinstance(part, str):
            out.append(part)
            continue
        value = _reference(part, strings, texts[:index], where, f"text template {index}")
        escape = part.get("escape", 0)
        if not isinstance(escape, int) or isinstance(escape, bool) or not 0 <= escape <= 8:
            raise _bad(where, f"text template {index} has an invalid escape depth {escape!r}")
        for _ in range(escape):
            value = json_escape(value)
        out.append(value)
    return "".join(out)


def _reference(part: Any, strings: list[str], texts: list[str], where: str, owner: str) -> str:
    if not isinstance(part, dict) or len({"string", "text"} & part.keys()) != 1:
        raise _bad(where, f"{owner} has a part that is neither text nor one reference")
    kind = "string" if "string" in part else "text"
    pool = strings if kind == "string" else texts
    ref = part[kind]
    if not isinstance(ref, int) or isinstance(ref, bool) or not 0 <= ref < len(pool):
        raise _bad(where, f"{owner} refers to {kind} {ref!r}, which does not exist")
    return pool[ref]


def _place(record: dict[str, Any], entry: Any, strings: list[str], texts: list[str], where: str) -> dict[str, Any]:
    if not isinstance(entry, dict) or not isinstance(entry.get("path"), list) or not entry["path"]:
        raise _bad(where, "a binaryStorage path entry has no path")
    path: list[Any] = entry["path"]
    value = _reference(entry, strings, texts, where, f"path {path!r}")
    parent: Any = record
    for step in path[:-1]:
        parent = _child(parent, step, path, where)
    last = path[-1]
    _child(parent, last, path, where)  # the placeholder must be there
    parent[last] = value
    return record


def _child(container: Any, step: Any, path: list[Any], where: str) -> Any:
    if isinstance(step, bool):
        raise _bad(where, f"path {path!r} has a step that is neither a key nor an index")
    if isinstance(step, int):
        if isinstance(container, list) and 0 <= step < len(container):
            return container[step]
    elif isinstance(step, str):
        if isinstance(container, dict) and step in container:
            return container[step]
    raise _bad(where, f"path {path!r} does not lead to a value in the record")


def _bad(where: str, reason: str) -> BinaryStorageError:
    return BinaryStorageError(
        ErrorCode.STORAGE_UNAVAILABLE,
        f"{where} holds tool images in a form that cannot be decoded ({reason}). Nothing was changed; "
        f"the chat cannot be shown until the file is repaired or restored from a backup.",
        {"reason": "badReference", "detail": reason, "where": where},
    )
