"""NDJSON logs under the data root's ``logs/`` folder, rotated by size.

One file per side (``host``, ``app``, ``agent``): ``logs/<side>/<side>.ndjson``.
Nothing is ever written to stdout, which the stdio host reserves for protocol
lines.
"""

from __future__ import annotations

import logging
import logging.handlers
import time
from pathlib import Path

import orjson

from .paths import ensure_private_dir

MAX_BYTES = 5 * 1024 * 1024
BACKUPS = 3


class NdjsonFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        entry = {
            "ts": time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(record.created)) + f".{int(record.msecs):03d}Z",
            "level": record.levelname.lower(),
            "logger": record.name,
            "msg": record.getMessage(),
        }
        fields = getattr(record, "fields", None)
        if isinstance(fields, dict):
            entry.update(fields)
        if record.exc_info:
            entry["exception"] = self.formatException(record.exc_info)
        return orjson.dumps(entry, default=str).decode()


def configure(data_root: Path, side: str, level: int = logging.INFO) -> logging.Handler:
    """Send the ``pidesktop`` loggers to ``logs/<side>/<side>.ndjson``."""
    folder = data_root / "logs" / side
    ensure_private_dir(folder)
    handler = _SideFile(side, folder / f"{side}.ndjson")
    handler.setFormatter(NdjsonFormatter())
    logger = logging.getLogger("pidesktop")
    for old in [h for h in logger.handlers if isinstance(h, _SideFile) and h.side == side]:
        logger.removeHandler(old)
        old.close()
    logger.addHandler(handler)
    logger.setLevel(level)
    logger.propagate = False
    return handler


class _SideFile(logging.handlers.RotatingFileHandler):
    """The log file of one side, found again when that side is configured anew (a second host, say)."""

    def __init__(self, side: str, path: Path) -> None:
        super().__init__(path, maxBytes=MAX_BYTES, backupCount=BACKUPS, encoding="utf-8")
        self.side = side
