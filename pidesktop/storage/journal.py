"""The pending-maintenance journal in the installation anchor.

A move writes this file before it creates anything at the destination and
removes it only when the job has ended (published, cancelled or failed). A
journal still present at the next launch therefore means the process died
mid-job; start-up resumes the job before any host opens a data root.

    {"version": 1, "kind": "move", "jobId": "...", "phase": "copy",
     "source": {"dataRoot": "...", "uiRoot": "...", "resolvedBy": "default",
                "selectedRoot": null},
     "destination": "...", "startedAt": 1700000000000, "updatedAt": 1700000000000}

``phase`` is informative (what the job was doing); a resumed job always
recopies and re-verifies unless the pointer was already published.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from pidesktop import paths
from pidesktop.clock import now_ms
from pidesktop.storage.errors import RecoveryError
from pidesktop.storage.fsutil import read_json, write_json_atomic

JOURNAL_FILE = "pending-maintenance.json"
VERSION = 1


@dataclass(frozen=True)
class PendingMove:
    job_id: str
    source_data_root: Path
    source_ui_root: Path
    resolved_by: str  # "default" or "pointer": how the source was chosen
    selected_root: Path | None  # the pointer's folder when resolved_by == "pointer"
    destination: Path
    phase: str
    started_at: int
    updated_at: int

    def at(self, phase: str) -> PendingMove:
        return replace(self, phase=phase, updated_at=now_ms())

    def to_json(self) -> dict[str, Any]:
        return {
            "version": VERSION,
            "kind": "move",
            "jobId": self.job_id,
            "phase": self.phase,
            "source": {
                "dataRoot": str(self.source_data_root),
                "uiRoot": str(self.source_ui_root),
                "resolvedBy": self.resolved_by,
                "selectedRoot": str(self.selected_root) if self.selected_root else None,
            },
            "destination": str(self.destination),
            "startedAt": self.started_at,
            "updatedAt": self.updated_at,
        }


def path() -> Path:
    return paths.anchor_dir() / JOURNAL_FILE


def read() -> PendingMove | None:
    """The pending job, or None. A damaged journal is a refusal: guessing could lose data."""
    where = path()
    try:
        raw = read_json(where)
        if raw is None:
            return None
        if raw.get("version") != VERSION or raw.get("kind") != "move":
            raise ValueError(f"unknown journal version or kind: {raw.get('version')!r}, {raw.get('kind')!r}")
        source = raw["source"]
        return PendingMove(
            job_id=str(raw["jobId"]),
            source_data_root=Path(source["dataRoot"]),
            source_ui_root=Path(source["uiRoot"]),
            resolved_by=str(source["resolvedBy"]),
            selected_root=Path(source["selectedRoot"]) if source.get("selectedRoot") else None,
            destination=Path(raw["destination"]),
            phase=str(raw["phase"]),
            started_at=int(raw["startedAt"]),
            updated_at=int(raw["updatedAt"]),
        )
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
        raise RecoveryError(
            f"The maintenance journal {where} is damaged ({exc}). The active data folder was not "
            f"changed; inspect the file, then remove it to start normally."
        ) from exc


def write(job: PendingMove) -> None:
    write_json_atomic(path(), job.to_json())


def clear() -> None:
    try:
        path().unlink()
    except FileNotFoundError:
        return
    paths.fsync_dir(path().parent)
