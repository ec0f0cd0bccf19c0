"""Three-way merge of synced settings, key by key, against the last shared base.

A snapshot maps a key to an ``Entry``: the value and when it was set (ms). A key
missing from a snapshot is deleted there. A key only one side changed takes
that side; a key both sides changed to different values is a conflict, won by
the newer change and listed so the person can see what was replaced.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

Snapshot = dict[str, "Entry"]


@dataclass(frozen=True)
class Entry:
    value: Any
    at: int

    def to_json(self) -> dict[str, Any]:
        return {"value": self.value, "at": self.at}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Entry:
        return cls(data.get("value"), int(data.get("at", 0)))


@dataclass(frozen=True)
class Conflict:
    """Both sides changed ``key``; ``kept`` says whose change won (``local`` or ``remote``)."""

    key: str
    kept: str
    local: Any
    remote: Any

    def to_json(self) -> dict[str, Any]:
        return {"key": self.key, "kept": self.kept, "local": self.local, "remote": self.remote}


def _value(snapshot: Snapshot, key: str) -> Any:
    entry = snapshot.get(key)
    return None if entry is None else entry.value


def merge(base: Snapshot, local: Snapshot, remote: Snapshot) -> tuple[Snapshot, list[Conflict]]:
    """The merged snapshot and the same-key conflicts (newest wins; a tie keeps the remote side)."""
    merged: Snapshot = {}
    conflicts: list[Conflict] = []
    for key in sorted(set(base) | set(local) | set(remote)):
        was = (key in base, _value(base, key))
        mine = (key in local, _value(local, key))
        theirs = (key in remote, _value(remote, key))
        if mine == theirs or mine == was:
            chosen = remote.get(key)
        elif theirs == was:
            chosen = local.get(key)
        else:
            local_at = local[key].at if key in local else 0
            remote_at = remote[key].at if key in remote else 0
            kept = "local" if local_at > remote_at else "remote"
            chosen = local.get(key) if kept == "local" else remote.get(key)
            conflicts.append(Conflict(key, kept, mine[1], theirs[1]))
        if chosen is not None:
            merged[key] = chosen
    return merged, conflicts


def stamp_changes(base: Snapshot, current: dict[str, Any], pending: Snapshot, now: int) -> Snapshot:
    """``current`` values as a snapshot: a value equal to the base keeps the base's time, one already pending
    keeps its pending time, and a new change is stamped ``now`` (so offline edits keep when they were made)."""
    stamped: Snapshot = {}
    for key, value in current.items():
        if key in base and base[key].value == value:
            stamped[key] = base[key]
        elif key in pending and pending[key].value == value:
            stamped[key] = pending[key]
        else:
            stamped[key] = Entry(value, now)
    return stamped


def changed(base: Snapshot, local: Snapshot) -> Snapshot:
    """The entries of ``local`` that differ from ``base`` (deletions are in neither: ``removed`` lists them)."""
    return {key: entry for key, entry in local.items() if key not in base or base[key].value != entry.value}


def removed(base: Snapshot, local: Snapshot) -> list[str]:
    return sorted(set(base) - set(local))


def to_json(snapshot: Snapshot) -> dict[str, Any]:
    return {key: entry.to_json() for key, entry in sorted(snapshot.items())}


def from_json(data: Any) -> Snapshot:
    if not isinstance(data, dict):
        return {}
    return {str(key): Entry.from_json(value) for key, value in data.items() if isinstance(value, dict)}
