"""Schema history: every ``pi.sqlite`` from v1 to v27 opens (spec 004, section 7).

One ordered list of steps, each ``(from_version, to_version, function)``; see
``migrate`` for how they run. Filled in step by step; the API is fixed:

- ``STEPS``: the ordered list of ``Step``.
- ``needs_migration(path) -> int | None``: the version of an existing
  database that must be migrated before the host opens it; None when it is
  fresh or current. A newer version raises ``HostError(SCHEMA_INCOMPATIBLE)``
  and leaves the file byte-identical.
- ``migrate(path, progress=None) -> MigrationReport``: walk ``path`` to
  ``SCHEMA_VERSION`` in one call; ``progress(phase, done, total)`` as it goes.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import apsw

from . import migration_steps


@dataclass(frozen=True)
class Step:
    from_version: int
    to_version: int
    apply: Callable[[apsw.Connection], None]  # runs inside the step's transaction
    backup: bool = False  # destructive: its own pi.sqlite.v<from_version>.bak before it runs


@dataclass
class MigrationReport:
    from_version: int
    to_version: int
    backups: list[Path] = field(default_factory=list)  # every .bak this migration wrote
    archived: Path | None = None  # v1-6: where the old file went (nothing carried over)


Progress = Callable[[str, int, int], None]

STEPS: list[Step] = [
    Step(25, 26, migration_steps.version_only),
]
