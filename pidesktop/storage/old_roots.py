"""The list of old data roots kept as backups after a move: ``storage-backups.json``.

A move never deletes its source. It records the old folders here, in the
installation anchor, so that a separate, confirmed cleanup can delete them
later (see :mod:`cleanup`):

    {"version": 1, "backups": [
      {"id": "<job id>", "paths": ["/home/u/.pi-desktop", "/home/u/.config/pidesktop/ui"],
       "container": null, "movedTo": "/mnt/big/pidesktop", "movedAt": 1700000000000}]}

``paths`` are the old data and front-end folders; ``container`` is the old
selected folder that held them (when the source was itself a moved location),
removed only if nothing else is left in it.
"""

from __future__ import annotations

import logging
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

from pidesktop import paths as app_paths
from pidesktop.storage.errors import Refused
from pidesktop.storage.fsutil import read_json, write_json_atomic

log = logging.getLogger("pidesktop.storage")

BACKUPS_FILE = "storage-backups.json"


@dataclass(frozen=True)
class KeptRoot:
    id: str
    paths: tuple[Path, ...]
    container: Path | None
    moved_to: Path
    moved_at: int

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "paths": [str(p) for p in self.paths],
            "container": str(self.container) if self.container else None,
            "movedTo": str(self.moved_to),
            "movedAt": self.moved_at,
        }


def path() -> Path:
    return app_paths.anchor_dir() / BACKUPS_FILE


def entries() -> list[KeptRoot]:
    """The kept roots, oldest first. A damaged list is a refusal: it guards what may be deleted."""
    try:
        raw = read_json(path())
        if raw is None:
            return []
        return [
            KeptRoot(
                str(item["id"]),
                tuple(Path(p) for p in item["paths"]),
                Path(item["container"]) if item.get("container") else None,
                Path(item["movedTo"]),
                int(item["movedAt"]),
            )
            for item in raw["backups"]
        ]
    except (OSError, ValueError, KeyError, TypeError, orjson.JSONDecodeError) as exc:
        raise Refused(f"The list of kept data folders {path()} is damaged ({exc}); fix or remove it.") from exc


def add(entry: KeptRoot) -> None:
    """Record ``entry`` (once per job id). A damaged list is set aside, never allowed to undo a finished move."""
    try:
        current = entries()
    except Refused:
        aside = path().with_name(BACKUPS_FILE + ".damaged")
        log.warning("setting the damaged list %s aside as %s", path(), aside)
        os.replace(path(), aside)
        current = []
    if any(item.id == entry.id for item in current):
        return
    _save([*current, entry])


def remove(entry_id: str) -> None:
    _save([item for item in entries() if item.id != entry_id])


def _save(items: list[KeptRoot]) -> None:
    write_json_atomic(path(), {"version": 1, "backups": [item.to_json() for item in items]})
