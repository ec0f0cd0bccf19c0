"""NDJSON logs under the data root's ``logs/`` folder, one file per component and category, rotated by size.

Spec 004, section 2: ``logs/app/<category>``, ``logs/host/<category>``,
``logs/agent/<category>``. A record goes by its logger's name, whichever
process wrote it (each entry names that process in ``process``):

- ``pidesktop.host.<category>...`` to ``logs/host/<category>.ndjson``, and the
  storage layer and the command bus to ``logs/host/storage`` and ``logs/host/bus``;
- ``pidesktop.agent.<category>...`` to ``logs/agent/<category>.ndjson``;
- the window (``pidesktop.ui.<category>``) and everything else
  (``pidesktop.<module>``) to ``logs/app/<category>.ndjson``;
- a component's own logger (``pidesktop.host``) to its ``general`` file.

Files are opened when something is first written to them. Earlier builds
wrote one file per process kind (``logs/<side>/<side>.ndjson``); those are
moved once into ``logs/<side>/previous/`` so they are not mistaken for a
category (``logs/layout.json`` records that the move was done).
Nothing is ever written to stdout, which the stdio host reserves for protocol
lines.
"""

from __future__ import annotations

import json
import logging
import os
import re
import threading
import time
from pathlib import Path
from typing import TYPE_CHECKING

from pidesktop import small_json
from pidesktop.paths import ensure_private_dir

if TYPE_CHECKING:
    import logging.handlers

MAX_BYTES = 5 * 1024 * 1024
BACKUPS = 3
COMPONENTS = ("app", "host", "agent")
LAYOUT, LAYOUT_VERSION = "layout.json", 2
_HOST_PACKAGES = {"storage": "storage", "bus": "bus"}  # packages of the host's side that are not ``host.*``
_SAFE = re.compile(r"[^a-z0-9_]+")

log = logging.getLogger("pidesktop.logs")


def route(name: str) -> tuple[str, str]:
    """``(component, category)`` of the logger ``name``."""
    parts = name.split(".")
    if parts[0] != "pidesktop" or len(parts) == 1:
        return "app", "general"
    head = parts[1]
    if head in ("host", "agent"):
        return head, _safe(parts[2]) if len(parts) > 2 else "general"
    if head in _HOST_PACKAGES:
        return "host", _HOST_PACKAGES[head]
    if head == "ui":
        return "app", _safe(parts[2]) if len(parts) > 2 else "ui"
    return "app", _safe(head)


def _safe(category: str) -> str:
    return _SAFE.sub("_", category.lower()).strip("_") or "general"


class NdjsonFormatter(logging.Formatter):
    def __init__(self, process: str = "") -> None:
        super().__init__()
        self.process = process

    def format(self, record: logging.LogRecord) -> str:
        entry = {
            "ts": time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(record.created)) + f".{int(record.msecs):03d}Z",
            "level": record.levelname.lower(),
            "logger": record.name,
            "msg": record.getMessage(),
        }
        if self.process:
            entry["process"] = self.process
        fields = getattr(record, "fields", None)
        if isinstance(fields, dict):
            entry.update(fields)
        if record.exc_info:
            entry["exception"] = self.formatException(record.exc_info)
        # The standard json (small_json says why): a start logs before anything else on its thread needs orjson.
        return json.dumps(entry, default=str, ensure_ascii=False, separators=(",", ":"))


def configure(data_root: Path, side: str, level: int = logging.INFO) -> logging.Handler:
    """Send the ``pidesktop`` loggers to ``data_root/logs/<component>/<category>.ndjson``.

    ``side`` names this process (``app``, ``host``, ``agent``...). Configuring
    the same data root again replaces its handler, so nothing is written twice.
    """
    folder = data_root / "logs"
    ensure_private_dir(folder)
    _move_previous(folder)
    handler = CategoryFiles(folder, side)
    logger = logging.getLogger("pidesktop")
    for old in [h for h in logger.handlers if isinstance(h, CategoryFiles) and h.folder == folder]:
        logger.removeHandler(old)
        old.close()
    logger.addHandler(handler)
    logger.setLevel(level)
    logger.propagate = False
    return handler


class CategoryFiles(logging.Handler):
    """One rotating NDJSON file per (component, category), opened on first use."""

    def __init__(self, folder: Path, side: str) -> None:
        super().__init__()
        self.folder = folder
        self.side = side
        self.setFormatter(NdjsonFormatter(side))
        self._files: dict[tuple[str, str], logging.handlers.RotatingFileHandler] = {}
        self._open_lock = threading.Lock()

    def file_for(self, name: str) -> logging.handlers.RotatingFileHandler:
        # Imported with the first file: logging.handlers brings socket, pickle and queue (about 3 ms) that a
        # start which logs nothing before its first paint need not wait for.
        import logging.handlers

        key = route(name)
        with self._open_lock:
            found = self._files.get(key)
            if found is None:
                ensure_private_dir(self.folder / key[0])
                path = self.folder / key[0] / f"{key[1]}.ndjson"
                # A file name that is not UTF-8 reaches a message as lone surrogates, which UTF-8 cannot hold:
                # written as their JSON escape (\udcff) instead of losing the line to a traceback on stderr.
                found = logging.handlers.RotatingFileHandler(
                    path, maxBytes=MAX_BYTES, backupCount=BACKUPS, encoding="utf-8", errors="backslashreplace"
                )
                found.setFormatter(self.formatter)
                self._files[key] = found
            return found

    def emit(self, record: logging.LogRecord) -> None:
        try:
            target = self.file_for(record.name)
        except OSError:
            self.handleError(record)
            return
        target.emit(record)

    def close(self) -> None:
        with self._open_lock:
            for handler in self._files.values():
                handler.close()
            self._files.clear()
        super().close()


def _move_previous(folder: Path) -> None:
    """Once: the per-process files of earlier builds go into ``logs/<side>/previous/``."""
    marker = folder / LAYOUT
    if marker.exists():
        return
    for side in COMPONENTS:
        old = sorted((folder / side).glob(f"{side}.ndjson*")) if (folder / side).is_dir() else []
        if not old:
            continue
        try:
            ensure_private_dir(folder / side / "previous")
            for path in old:
                os.replace(path, folder / side / "previous" / path.name)
        except OSError as exc:  # they stay where they are, readable as before
            log.warning("could not move the earlier logs of %s: %s", side, exc)
    try:
        marker.write_bytes(small_json.dumps({"layout": LAYOUT_VERSION}))
    except OSError as exc:
        log.warning("could not write %s: %s", marker, exc)
