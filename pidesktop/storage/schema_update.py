"""Bringing an older database up to date before any host opens it: what it needs, the update, its report.

Qt-free: the start-up windows (``pidesktop.ui.startup``) show this with a progress bar; without a screen,
``migrate_on_stderr`` runs the same update with its progress and refusal on stderr. The update itself is
``storage.schema.migrate`` (a ``pi.sqlite.v<n>.bak`` copy first, then one transaction).
"""

from __future__ import annotations

import logging
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any, TextIO

from pidesktop import paths
from pidesktop.bus.errors import HostError
from pidesktop.storage import recovery
from pidesktop.storage.errors import StorageJobError

log = logging.getLogger("pidesktop.storage.schema_update")

BYTE_PHASES = frozenset({"backup"})  # their counts are bytes; the others count steps


def _cold_schema() -> ModuleType:
    """``storage.schema``, the migration that runs before any host opens the data folder."""
    from pidesktop.storage import schema

    return schema


@dataclass(frozen=True)
class SchemaCheck:
    """What the data folder's database needs before a host opens it."""

    version: int | None
    supported: int | None
    needs_migration: bool = False
    newer: bool = False
    archive: bool = False  # v1-v6: set aside as pi.sqlite.v6.bak, a new database replaces it
    reason: str = ""  # the refusal's words, for a newer database
    backups: tuple[str, ...] = ()


@dataclass
class MigrationDone:
    """What a finished migration did, for the main window's note."""

    from_version: int
    to_version: int
    backups: list[str] = field(default_factory=list)
    archived: str | None = None


def backup_paths(items: Any) -> list[str]:
    """Backup paths from a report or a state: paths, or objects/dicts with a ``path``."""
    found = []
    for item in items or ():
        if isinstance(item, dict):
            item = item.get("path") or item.get("name")
        if item:
            found.append(str(item))
    return found


def schema_check(location: paths.StorageLocation) -> SchemaCheck | None:
    """The database's state (``storage.schema.schema_state``); None when it needs nothing (or is not there)."""
    try:
        state = _cold_schema().schema_state(location)
    except Exception as exc:
        log.warning("cannot read the schema state of %s: %s", location.data_root, exc)
        return None
    version, supported = state.get("version"), state.get("supported")
    backups = tuple(backup_paths(state.get("backups")))
    if version is not None and supported is not None and version > supported:
        return SchemaCheck(version, supported, newer=True, reason=state.get("problem") or "", backups=backups)
    if state.get("needsMigration"):
        return SchemaCheck(
            version, supported, needs_migration=True, archive=bool(state.get("archive")), backups=backups
        )
    return None  # current, fresh, or a problem the host reports when it opens the folder


def migrate(location: paths.StorageLocation, progress: Callable[[str, int, int], None]) -> MigrationDone:
    """``storage.schema.migrate`` with its progress as ``(phase, done, total)`` (bytes or steps)."""

    def forward(
        phase: str, bytes_done: int, bytes_total: int, steps_done: int, steps_total: int, _current: str = ""
    ) -> None:
        if steps_total or not bytes_total:
            progress(phase, steps_done, steps_total)
        else:
            progress(phase, bytes_done, bytes_total)

    report = _cold_schema().migrate(location, forward)
    return MigrationDone(
        report["fromVersion"], report["toVersion"], backup_paths(report.get("backups")), report.get("archived") or None
    )


def backups_after_failure(location: paths.StorageLocation, exc: BaseException | None = None) -> list[str]:
    """The copy a failed migration kept: named by its error, else those beside the database now."""
    named = getattr(exc, "data", {}).get("backup") if exc is not None else None
    if named:
        return [str(named)]
    try:
        state = _cold_schema().schema_state(location)
    except Exception:
        return []
    return backup_paths(state.get("backups"))


def plain_reason(exc: BaseException) -> str:
    """A failed update's words on a terminal: the engine names the step, which value was wrong and where."""
    if isinstance(exc, HostError):
        return exc.message
    if isinstance(exc, StorageJobError):
        return str(exc)
    if isinstance(exc, OSError):
        where = f" ({exc.filename})" if exc.filename else ""
        return f"The file system refused: {exc.strerror or exc}{where}."
    log.error("the database update failed", exc_info=exc)
    return str(exc) or type(exc).__name__


def main_backup(backups: list[str], version: int | None) -> str | None:
    """The exact copy taken before the migration (the newest ``pi.sqlite.v<from>[.<n>].bak``), else the last."""
    prefix = f"pi.sqlite.v{version}."
    mine = [b for b in backups if Path(b).name.startswith(prefix)]
    chosen = mine or backups
    return chosen[-1] if chosen else None


class StderrSteps:
    """A migration's progress on a terminal: one line per phase, then at most one every ``interval`` s."""

    def __init__(self, stream: TextIO | None = None, interval: float = 0.5):
        self.stream = stream or sys.stderr
        self.interval = interval
        self._phase = ""
        self._last = 0.0

    def __call__(self, phase: str, done: int, total: int) -> None:
        now = time.monotonic()
        if phase == self._phase and (total <= 1 or (now - self._last < self.interval and done < total)):
            return  # a phase without finer steps is one line
        self._phase, self._last = phase, now
        if phase in BYTE_PHASES and total > 0:
            count = f" {100 * done // total}%"
        else:
            count = f" {done}/{total}" if total > 1 else ""
        print(f"pidesktop: updating the database: {phase}{count}", file=self.stream, flush=True)


def migrate_on_stderr(location: paths.StorageLocation, stream: TextIO | None = None) -> MigrationDone | None:
    """Without a screen: the same migration, progress on stderr; ``recovery.RecoveryError`` when it cannot be
    done (a newer database, a failed step: the message names the backup)."""
    needed = schema_check(location)
    if needed is None:
        return None
    if needed.newer:
        raise recovery.RecoveryError(
            needed.reason
            or f"The database in {location.data_root} is version {needed.version}; this pidesktop "
            f"opens versions up to {needed.supported}. Nothing was changed. Update pidesktop, or start it with "
            f"another data folder (--data-dir)."
        )
    stream = stream or sys.stderr
    print(
        f"pidesktop: updating your data from version {needed.version} to {needed.supported} ({location.data_root})",
        file=stream,
        flush=True,
    )
    try:
        done = migrate(location, StderrSteps(stream))
    except Exception as exc:
        raise recovery.RecoveryError(failure_words(exc, location, needed)) from exc
    backup = main_backup(done.backups, done.from_version)
    print(
        f"pidesktop: updated the database from version {done.from_version} to {done.to_version}"
        + (f"; the old one is kept at {backup}" if backup else "")
        + (f"; the old one was set aside as {done.archived}" if done.archived else ""),
        file=stream,
        flush=True,
    )
    return done


def failure_words(exc: BaseException, location: paths.StorageLocation, needed: SchemaCheck) -> str:
    backup = main_backup(backups_after_failure(location, exc), needed.version)
    where = f" A copy of the database as it was is kept at {backup}." if backup else ""
    return (
        f"Updating the database in {location.data_root} from version {needed.version} failed: "
        f"{plain_reason(exc)} Nothing was changed; it is still at version {needed.version}.{where}"
    )
