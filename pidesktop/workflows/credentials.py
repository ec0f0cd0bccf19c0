"""Credentials never enter the database (spec 000, "Storage boundary").

Values cannot be recognised as secrets, but the fields that carry them can:
a JSON object key such as ``token``, ``apiKey``, ``password`` or
``Authorization`` (compared without case, digits or punctuation), and in
free text the same names written as an assignment (``api_key=...``,
``Authorization: Bearer ...``). Every writer of caller-supplied JSON or text
(run input and bindings, workflow updates, decisions, notifications, channel
cursors, inbox records, effect payloads, results and receipts) passes it
through here first; a hit refuses the whole command with
``TransitionRejected`` before the transaction starts. The caller strips the
field and tries again.
"""

from __future__ import annotations

import re
from typing import Any

import orjson

from pidesktop.workflows.errors import TransitionRejected

_SECRET_KEY = re.compile(
    r"^(token|accesstoken|refreshtoken|idtoken|apikey|secret|clientsecret|password|passwd|authorization|"
    r"cookie|setcookie|credential|credentials|privatekey|sessiontoken|bearer)$"
)
# ``name = value`` or ``name: value`` (the name optionally quoted, as in JSON or YAML).
_ASSIGNMENT = re.compile(r"(?<![A-Za-z0-9_\-])([A-Za-z][A-Za-z0-9_\-]*)[\"']?\s*[:=]\s*\S")


def is_credential_name(name: Any) -> bool:
    return bool(_SECRET_KEY.match(re.sub(r"[^a-z]", "", str(name).lower())))


def require_nonsecret(value: Any, what: str) -> None:
    """Refuse JSON with credential-named keys, at any depth."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            for key, child in item.items():
                if is_credential_name(key):
                    raise TransitionRejected(f"{what} carries a credential field ({key!r}); strip it first")
                stack.append(child)
        elif isinstance(item, list | tuple):
            stack.extend(item)


def require_nonsecret_text(text: str, what: str) -> None:
    """Refuse text that assigns a credential-named field, or that is JSON with such a key."""
    if not isinstance(text, str):
        return
    for match in _ASSIGNMENT.finditer(text):
        if is_credential_name(match.group(1)):
            raise TransitionRejected(f"{what} carries a credential field ({match.group(1)!r}); strip it first")
    stripped = text.strip()
    if stripped[:1] in ("{", "["):
        try:
            value = orjson.loads(stripped)
        except orjson.JSONDecodeError:
            return
        require_nonsecret(value, what)
