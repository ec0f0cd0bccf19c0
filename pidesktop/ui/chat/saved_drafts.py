"""Unsent prompts kept across a quit or a crash: ``<ui root>/drafts.json``.

Text a person typed and did not send is never thrown away. The window keeps
each chat's draft while it is open (``ChatController.drafts``); this file
keeps their texts when it closes, and a second after each change while it
runs, so a crash loses at most that second. Attachments are not kept: the
files behind them are cleared at the next start. Like the preferences, the
file is the window's, best-effort: an unreadable one is set aside and
ignored, an unwritable folder is logged and never blocks typing.
"""

from __future__ import annotations

import logging
from pathlib import Path

import orjson

from pidesktop import durable

log = logging.getLogger("pidesktop.ui.chat.saved_drafts")

FILE_NAME = "drafts.json"
NEW_CHAT = ""  # the key of the draft typed on the empty page, before its chat exists
VERSION = 1


class SavedDrafts:
    """Load once at start, save the whole set on change (atomically, fsync'd)."""

    def __init__(self, folder: Path | None):
        self.path = folder / FILE_NAME if folder is not None else None
        self._last: bytes | None = None  # what the file holds, so an unchanged set is not written again

    def load(self) -> dict[str | None, str]:
        """Drafts by chat id (``None``: the new chat); ``{}`` when there is no file or it cannot be read."""
        if self.path is None:
            return {}
        try:
            raw = self.path.read_bytes()
            data = orjson.loads(raw)
        except FileNotFoundError:
            return {}
        except (OSError, orjson.JSONDecodeError) as exc:
            self._set_aside(f"unreadable: {exc}")
            return {}
        drafts = data.get("drafts") if isinstance(data, dict) and data.get("version") == VERSION else None
        if not isinstance(drafts, dict):
            self._set_aside("not a drafts file of this version")
            return {}
        self._last = raw
        return {
            (None if key == NEW_CHAT else key): text
            for key, text in drafts.items()
            if isinstance(key, str) and isinstance(text, str) and text.strip()
        }

    def save(self, drafts: dict[str | None, str]) -> None:
        if self.path is None:
            return
        kept = {(NEW_CHAT if key is None else key): text for key, text in drafts.items() if text.strip()}
        data = orjson.dumps({"version": VERSION, "drafts": kept}, option=orjson.OPT_SORT_KEYS)
        if data == self._last:
            return
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            durable.atomic_write(self.path, data)
            self._last = data
        except OSError as exc:  # the drafts stay in the window; the next change tries again
            log.warning("could not save unsent drafts to %s: %s", self.path, exc)

    def _set_aside(self, why: str) -> None:
        """A damaged file is renamed, not overwritten: what it still holds can be read by hand."""
        assert self.path is not None
        aside = self.path.with_name(f"{FILE_NAME}.unreadable")
        log.warning("setting aside %s (%s) as %s", self.path, why, aside.name)
        try:
            self.path.replace(aside)
        except OSError as exc:
            log.warning("could not set aside %s: %s", self.path, exc)
