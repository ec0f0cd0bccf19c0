"""The ownership marker a move leaves in its destination: ``.pidesktop-move.json``.

It is written right after the destination is created and before any data is
copied, so a destination that holds anything of ours also says which job and
which source it belongs to. Only a folder whose marker names the same source
(and this installation) may be reused by a retry; any other non-empty folder
is refused.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import orjson

from pidesktop import paths
from pidesktop.clock import now_ms
from pidesktop.storage.fsutil import read_json, write_json_atomic

MARKER = ".pidesktop-move.json"


def write(destination: Path, job_id: str, source_data_root: Path) -> None:
    write_json_atomic(
        destination / MARKER,
        {
            "version": 1,
            "jobId": job_id,
            "anchor": str(paths.anchor_dir()),
            "sourceDataRoot": str(source_data_root),
            "createdAt": now_ms(),
        },
    )


def read(destination: Path) -> dict[str, Any] | None:
    try:
        value = read_json(destination / MARKER)
    except (OSError, ValueError, orjson.JSONDecodeError):
        return None
    return value if isinstance(value, dict) else None


def matching_job(destination: Path, source_data_root: Path) -> str | None:
    """The job id of a retryable earlier attempt from ``source_data_root``, else None."""
    value = read(destination)
    if not value or value.get("version") != 1:
        return None
    if value.get("anchor") != str(paths.anchor_dir()) or value.get("sourceDataRoot") != str(source_data_root):
        return None
    job = value.get("jobId")
    return job if isinstance(job, str) and job else None


def only_marker_debris(destination: Path) -> bool:
    """True when the folder holds nothing but a (possibly half-written) marker: a crash while creating it."""
    try:
        names = set(os.listdir(destination))
    except FileNotFoundError:
        return True
    return names <= {MARKER, f".{MARKER}.tmp"}
