"""A cache cleanup asked for while pidesktop runs: done at the next start, before the host opens.

Cache cleanup is a confirmed cold operation (spec 004, section 2): the
running app holds the data folder's writer lock, so the dialog records the
request in the installation anchor and restarts; start-up empties the caches
before any host starts and keeps the report for the dialog to show.

    pending-cache-clean.json  {"version": 1, "dataRoot": "...", "requestedAt": ms}
    last-cache-clean.json     {"version": 1, "dataRoot": "...", "freedBytes": n, "removedFiles": n,
                               "failures": [...], "finishedAt": ms}
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

from pidesktop import paths, small_json
from pidesktop.clock import now_ms
from pidesktop.durable import atomic_write
from pidesktop.storage import cache

log = logging.getLogger("pidesktop.storage.cache_request")

REQUEST_FILE = "pending-cache-clean.json"
REPORT_FILE = "last-cache-clean.json"


def _anchor_file(name: str) -> Path:
    return paths.anchor_dir() / name


def request(location: paths.StorageLocation) -> None:
    """Record that the caches of ``location`` are to be emptied at the next start."""
    paths.ensure_private_dir(paths.anchor_dir())
    atomic_write(
        _anchor_file(REQUEST_FILE),
        small_json.dumps({"version": 1, "dataRoot": str(location.data_root), "requestedAt": now_ms()}),
    )


def request_path() -> Path:
    return _anchor_file(REQUEST_FILE)


def pending(location: paths.StorageLocation) -> bool:
    value = _read(REQUEST_FILE)
    return value is not None and value.get("dataRoot") == str(location.data_root)


def last_report() -> dict[str, Any] | None:
    return _read(REPORT_FILE)


def run_if_requested(location: paths.StorageLocation) -> dict[str, Any] | None:
    """Start-up: empty the caches when asked to (for this data folder), then forget the request."""
    value = _read(REQUEST_FILE)
    if value is None:
        return None
    _anchor_file(REQUEST_FILE).unlink(missing_ok=True)  # never loop on a failing request
    if value.get("dataRoot") != str(location.data_root):
        log.warning("ignoring a cache cleanup requested for another data folder: %s", value.get("dataRoot"))
        return None
    report = cache.clean(location)
    summary = {
        "version": 1,
        "dataRoot": str(location.data_root),
        "freedBytes": report.freed_bytes,
        "removedFiles": report.removed_files,
        "failures": list(report.failures),
        "finishedAt": now_ms(),
    }
    atomic_write(_anchor_file(REPORT_FILE), small_json.dumps(summary))
    log.info("cleaned caches at start-up", extra={"fields": {k: v for k, v in summary.items() if k != "failures"}})
    return summary


def _read(name: str) -> dict[str, Any] | None:
    try:
        value = small_json.loads(_anchor_file(name).read_bytes())
    except (FileNotFoundError, small_json.DecodeError, OSError):
        return None
    return value if isinstance(value, dict) else None
