"""Secondary indexes are derived: an upgrade or a start never refuses a good database over them (spec 004, s7)."""

import logging

import apsw
import pytest

from pidesktop.bus import HostError
from pidesktop.formats.index import migrations
from pidesktop.formats.index.db import open_database
from pidesktop.paths import prepare_data_root
from tests.support.schema_history import build

V27_INDEXES = {
    name for name, (kind, _table, _sql) in migrations.migration_steps.v27_objects().items() if kind == "index"
}


@pytest.fixture
def db(location):
    return prepare_data_root(location) / "pi.sqlite"


def indexes(path):
    conn = apsw.Connection(str(path))
    try:
        return {name for (name,) in conn.execute("SELECT name FROM sqlite_master WHERE type = 'index'")}
    finally:
        conn.close()


def run(path, *statements):
    conn = apsw.Connection(str(path))
    try:
        for sql in statements:
            conn.execute(sql)
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    finally:
        conn.close()


def written_elsewhere(path):
    """Drop two named indexes and give one the name another implementation might have used."""
    run(
        path,
        "DROP INDEX idx_session_todo_one_in_progress",
        "DROP INDEX idx_sessions_project",
        "DROP INDEX idx_turns_session",
        "CREATE INDEX turns_by_session ON turns(session_id, started_at DESC)",
    )


@pytest.mark.parametrize("version", [22, 26])
def test_an_upgrade_creates_missing_indexes_and_drops_unknown_ones_with_a_log_line(db, version, caplog):
    built = build(db, version)
    written_elsewhere(db)
    caplog.set_level(logging.INFO, logger="pidesktop.host")
    report = migrations.migrate(db)
    assert (report.from_version, report.to_version) == (version, 27)
    found = indexes(db)
    assert V27_INDEXES <= found
    assert "turns_by_session" not in found
    assert "idx_session_todo_one_in_progress" in caplog.text
    assert "turns_by_session" in caplog.text
    conn = apsw.Connection(str(db))
    try:
        assert conn.execute("SELECT count(*) FROM sessions").fetchone()[0] == built.counts["sessions"]
    finally:
        conn.close()


def test_broken_data_an_index_needs_is_still_refused_and_nothing_changes(db):
    build(db, 26)
    run(
        db,
        "DROP INDEX idx_session_todo_one_in_progress",
        "INSERT INTO sessions(id, title, created_at, updated_at) VALUES ('dup', 't', 1, 1)",
        "INSERT INTO session_todo(session_id, position, content, status, updated_at) "
        "VALUES ('dup', 0, 'a', 'in_progress', 1), ('dup', 1, 'b', 'in_progress', 1)",
    )
    with pytest.raises(HostError) as info:
        migrations.migrate(db)
    assert info.value.code == "SCHEMA_INCOMPATIBLE"
    assert "idx_session_todo_one_in_progress" in info.value.message
    assert migrations.probe(db)[0] == 26


def test_a_missing_table_is_still_refused(db):
    build(db, 26)
    run(db, "DROP TABLE session_todo")
    with pytest.raises(HostError) as info:
        migrations.migrate(db)
    assert "session_todo" in info.value.message
    assert migrations.probe(db)[0] == 26


def test_a_v27_database_gets_its_missing_indexes_back_at_every_start(db, caplog):
    open_database(db).close()
    written_elsewhere(db)
    caplog.set_level(logging.INFO, logger="pidesktop.host")
    open_database(db).close()
    found = indexes(db)
    assert V27_INDEXES <= found and "turns_by_session" not in found
    assert "idx_sessions_project" in caplog.text
    caplog.clear()
    open_database(db).close()  # nothing to repair: nothing is said about indexes
    assert "index" not in caplog.text


def test_at_start_rows_that_break_a_missing_unique_index_refuse_and_change_nothing(db):
    open_database(db).close()
    run(
        db,
        "DROP INDEX idx_session_todo_one_in_progress",
        "INSERT INTO sessions(id, title, created_at, updated_at) VALUES ('dup', 't', 1, 1)",
        "INSERT INTO session_todo(session_id, position, content, status, updated_at) "
        "VALUES ('dup', 0, 'a', 'in_progress', 1), ('dup', 1, 'b', 'in_progress', 1)",
    )
    with pytest.raises(HostError) as info:
        open_database(db)
    assert info.value.code == "SCHEMA_INCOMPATIBLE"
    assert info.value.data["where"] == "idx_session_todo_one_in_progress"
    assert "idx_session_todo_one_in_progress" not in indexes(db)


def bytes_of(path):
    return {p.name: p.read_bytes() for p in path.parent.iterdir() if p.name.startswith(path.name)}


def test_a_missing_column_is_still_refused(db):
    build(db, 26)
    run(db, "ALTER TABLE projects DROP COLUMN worktree_setup_command")
    with pytest.raises(HostError) as info:
        migrations.migrate(db)
    assert info.value.code == "SCHEMA_INCOMPATIBLE"
    assert "projects lacks column worktree_setup_command" in info.value.message
    assert info.value.data["where"] == "projects.worktree_setup_command"
    assert migrations.probe(db)[0] == 26


@pytest.mark.parametrize(
    ("damage", "where"),
    [
        ("DROP TABLE session_todo", "session_todo"),
        ("ALTER TABLE projects DROP COLUMN worktree_setup_command", "projects.worktree_setup_command"),
    ],
)
def test_at_start_a_missing_table_or_column_refuses_and_changes_nothing(db, damage, where):
    open_database(db).close()
    run(db, damage, "DROP INDEX idx_sessions_project")  # a missing index alone would be put back
    before = bytes_of(db)
    with pytest.raises(HostError) as info:
        open_database(db)
    assert info.value.code == "SCHEMA_INCOMPATIBLE"
    assert info.value.data["where"] == where
    assert "Nothing was changed" in info.value.message
    assert bytes_of(db) == before
    assert "idx_sessions_project" not in indexes(db)
