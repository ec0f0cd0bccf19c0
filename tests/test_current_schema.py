"""The start's quick look at the database's version agrees with the whole answer, and never writes the file."""

import hashlib

import apsw
import pytest

from pidesktop.app import _database_needs_update
from pidesktop.formats.index.db import open_database
from pidesktop.formats.index.schema import DB_NAME, SCHEMA_VERSION
from pidesktop.paths import prepare_data_root
from pidesktop.storage import current_schema, schema


def whole_answer(location) -> bool:
    """Whether the start updates (or refuses) the database first, from ``storage.schema``'s whole answer."""
    state = schema.schema_state(location)
    version, supported = state["version"], state["supported"]
    return bool(state["needsMigration"]) or (version is not None and version > supported)


def write_version(path, version: int) -> None:
    conn = apsw.Connection(str(path))
    conn.execute("CREATE TABLE t (x)")
    conn.execute(f"PRAGMA user_version = {version}")
    conn.close()


def digest(path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_a_current_or_missing_database_is_current_without_the_whole_answer(location):
    prepare_data_root(location)
    assert current_schema.is_current(location)  # no database yet: the host makes one
    db = location.data_root / DB_NAME
    open_database(db).close()
    before = digest(db)
    assert current_schema.is_current(location)
    assert digest(db) == before  # read-only
    assert _database_needs_update(location) is False
    assert whole_answer(location) is False


@pytest.mark.parametrize("version, updated_first", [(14, True), (SCHEMA_VERSION + 1, True), (0, False)])
def test_any_other_version_goes_on_to_the_whole_answer(location, version, updated_first):
    """An older one is migrated and a newer one refused before the window; one without a version is left for the
    host's open to refuse, as before."""
    prepare_data_root(location)
    write_version(location.data_root / DB_NAME, version)
    assert not current_schema.is_current(location)
    assert _database_needs_update(location) is updated_first
    assert whole_answer(location) is updated_first


def test_a_file_that_is_not_sqlite_is_not_called_current(location):
    prepare_data_root(location)
    (location.data_root / DB_NAME).write_bytes(b"not a database at all, " * 100)
    assert not current_schema.is_current(location)
    assert _database_needs_update(location) is whole_answer(location)
