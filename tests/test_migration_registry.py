"""Migration steps are registered by ``@step`` beside their functions; the order of the walk is the order of
the versions they start from, every version from v7 reaches the current schema, and a wrong registration is
refused when the module loads."""

from __future__ import annotations

import re

import pytest

from pidesktop.formats.index import migration_steps, migrations
from pidesktop.formats.index.schema import SCHEMA_VERSION

# The walk, written out: (from, to, function, backup first). A new schema version adds one line here.
EXPECTED = [
    (7, 8, "v7_to_v8", False),
    (8, 11, "guarded_to_v11", True),
    (9, 11, "guarded_to_v11", True),
    (10, 11, "guarded_to_v11", True),
    (11, 12, "version_only", False),
    (12, 13, "version_only", False),
    (13, 14, "v13_to_v14", True),
    (14, 15, "v14_to_v15", True),
    (15, 16, "v15_to_v16", True),
    (16, 17, "v16_to_v17", True),
    (17, 18, "v17_to_v18", False),
    (18, 19, "v18_to_v19", False),
    (19, 20, "v19_to_v20", True),
    (20, 21, "v20_to_v21", False),
    (21, 22, "v21_to_v22", True),
    (22, 23, "v22_to_v23", True),
    (23, 24, "v23_to_v24", True),
    (24, 25, "v24_to_v25", True),
    (25, 26, "version_only", True),
    (26, 27, "v26_to_v27", True),
]


def test_the_registered_steps_are_the_walk_in_order():
    registered = [(s.from_version, s.to_version, s.apply.__name__, s.backup) for s in migrations.STEPS]
    assert registered == EXPECTED
    assert migrations.STEPS == migration_steps.STEPS


def test_every_version_from_v7_walks_to_the_current_schema():
    for version in range(migrations.FIRST_MIGRATED, SCHEMA_VERSION):
        walk = migrations.chain(version)
        assert walk[0].from_version == version and walk[-1].to_version == SCHEMA_VERSION
        assert all(a.to_version == b.from_version for a, b in zip(walk, walk[1:]))


def test_every_step_function_is_registered():
    named = {name for name in vars(migration_steps) if re.fullmatch(r"v\d+_to_v\d+", name)}
    assert named and named <= {s.apply.__name__ for s in migration_steps.STEPS}


def test_a_second_step_from_one_version_or_a_step_down_is_refused():
    before = list(migration_steps.STEPS)
    with pytest.raises(ValueError, match="two migration steps start at v26"):
        migration_steps.step(26, 27)(migration_steps.version_only)
    with pytest.raises(ValueError, match="must go up"):
        migration_steps.step(40, 39)(migration_steps.version_only)
    assert migration_steps.STEPS == before
