"""Old root to new root: which strings are paths under the old root, and their new spelling.

Two kinds of field exist (spec 004, section 2, ``--relocate-data``):

- a *path field* holds one path: it is rewritten when it is the old root or
  lies below it (``/old``, ``/old/x``, ``file:///old/x``), never when it only
  starts with the same letters (``/old-2``);
- a *tool payload* (tool-call arguments, results, details) is free text that
  may mention files the data root hands to tools. Only mentions of the old
  root followed by one of :data:`TOOL_FOLDERS` are rewritten there, so a
  command or a sentence that merely names the data folder stays as it was.

Each old root is matched in two spellings, as recorded and with links
resolved, since either may have been stored.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from pathlib import Path

import orjson

# Data-root folders whose files tools read and write by absolute path.
TOOL_FOLDERS = ("scratch", "visualizations", "attachments", "review-changes", "openable-attachments")
_FILE_URL = "file://"


class PathMap:
    def __init__(self, roots: list[tuple[Path, Path]]):
        """``roots``: (old, new) pairs, e.g. the data roots and the front-end roots."""
        pairs: dict[str, str] = {}
        for old, new in roots:
            for spelling in {str(old), os.path.realpath(old)}:
                spelling = spelling.rstrip("/") or "/"
                if spelling != "/" and spelling != str(new):
                    pairs.setdefault(spelling, str(new).rstrip("/"))
        # Longest first: a root nested in another must win.
        self.pairs = sorted(pairs.items(), key=lambda kv: len(kv[0]), reverse=True)
        folders = "|".join(re.escape(f) for f in TOOL_FOLDERS)
        self._embedded = [
            (re.compile(rf"(?<![\w.~-]){re.escape(old)}(?=/(?:{folders})(?:[/\\\s\"'`),;:\]}}>]|$))"), new)
            for old, new in self.pairs
        ]
        # How an old root is spelled inside JSON text: the cheap test before parsing.
        self.needles = sorted({orjson.dumps(old)[1:-1] for old, _ in self.pairs}, key=len)
        self.raw_needles = sorted({old for old, _ in self.pairs}, key=len)

    def mentioned_in(self, data: bytes) -> bool:
        return any(needle in data for needle in self.needles)

    def whole(self, value: str) -> str | None:
        """The relocated value of a path field, or None when it is not under an old root."""
        prefix = ""
        if value.startswith(_FILE_URL):
            prefix, value = _FILE_URL, value[len(_FILE_URL) :]
        for old, new in self.pairs:
            if value == old or value.startswith(old + "/"):
                return prefix + new + value[len(old) :]
        return None

    def embedded(self, text: str) -> str | None:
        """``text`` with mentions of tool files under an old root relocated, or None when there are none."""
        changed = text
        for pattern, new in self._embedded:
            changed = pattern.sub(_literal(new), changed)
        return changed if changed != text else None


def _literal(text: str) -> Callable[[re.Match[str]], str]:
    """A ``re.sub`` replacement that inserts ``text`` as it is (no ``\\1`` or ``\\g<>`` expansion)."""
    return lambda _match: text
