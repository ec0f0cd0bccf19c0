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
    Step(7, 8, migration_steps.v7_to_v8),
    # v8, v9 and v10 take the same guarded path straight to v11 (spec 004 section 7).
    Step(8, 11, migration_steps.guarded_to_v11, backup=True),
    Step(9, 11, migration_steps.guarded_to_v11, backup=True),
    Step(10, 11, migration_steps.guarded_to_v11, backup=True),
    Step(11, 12, migration_steps.version_only),
    Step(12, 13, migration_steps.version_only),
    Step(13, 14, migration_steps.v13_to_v14, backup=True),
    Step(14, 15, migration_steps.v14_to_v15, backup=True),
    Step(15, 16, migration_steps.v15_to_v16, backup=True),
    Step(16, 17, migration_steps.v16_to_v17, backup=True),
    Step(17, 18, migration_steps.v17_to_v18),
    Step(18, 19, migration_steps.v18_to_v19),
    Step(19, 20, migration_steps.v19_to_v20, backup=True),
    Step(20, 21, migration_steps.v20_to_v21),
    Step(21, 22, migration_steps.v21_to_v22, backup=True),
    Step(22, 23, migration_steps.v22_to_v23, backup=True),
    Step(23, 24, migration_steps.v23_to_v24, backup=True),
    Step(24, 25, migration_steps.v24_to_v25, backup=True),
    Step(25, 26, migration_steps.version_only, backup=True),
    Step(26, 27, migration_steps.v26_to_v27, backup=True),
]
