"""The state database: schema shape and digest, pragmas, modes, refusals."""

from __future__ import annotations

import os
import stat
import threading

import apsw
import pytest

from pidesktop.workflows import db, paths, projects, schema
from pidesktop.workflows.errors import IncompatibleState, MissingState, OlderLiveState
from tests.support.workflows_support import open_store

SPEC_TABLES = {
    "schema_meta",
    "projects",
    "blobs",
    "resources",
    "leases",
    "events",
    "workflow_definitions",
    "runs",
    "run_bindings",
    "run_queue",
    "node_attempts",
    "workflow_updates",
    "session_segments",
    "session_entries",
    "session_events",
    "human_decisions",
    "human_decision_resolutions",
    "human_decision_submissions",
    "continuations",
    "controller_resources",
    "controller_finalizers",
    "controller_queue",
    "controller_workflows",
    "effects",
    "effect_attempts",
    "notifications",
    "turn_intents",
    "channels",
    "channel_cursors",
    "channel_inbox",
    "channel_messages",
    "channel_message_parts",
}


@pytest.fixture
def agent_dir(tmp_path, monkeypatch):
    monkeypatch.setenv(paths.ENV_AGENT_DIR, str(tmp_path / "agent"))
    return tmp_path / "agent"


def listing(folder):
    return sorted(p.name for p in folder.iterdir()) if folder.exists() else None


def raw(path):
    return apsw.Connection(str(path))


def test_default_path_honours_the_agent_dir(agent_dir, isolated_home, monkeypatch):
    assert paths.resolve() == agent_dir / "workflows" / "state.sqlite"
    monkeypatch.delenv(paths.ENV_AGENT_DIR)
    assert paths.resolve() == isolated_home / ".pi" / "agent" / "workflows" / "state.sqlite"


def test_a_new_database_has_every_spec_table_strict_with_explicit_keys(agent_dir):
    with db.open_writer() as store:
        conn = store.conn
        assert conn.execute("PRAGMA application_id").fetchone()[0] == 0x50495746
        assert conn.execute("PRAGMA user_version").fetchone()[0] == 1
        tables = {
            name: strict
            for name, strict in conn.execute(
                "SELECT name, strict FROM pragma_table_list WHERE schema = 'main' AND name NOT LIKE 'sqlite_%'"
            )
        }
        assert set(tables) == SPEC_TABLES
        assert all(tables.values()), "every table is STRICT"
        meta = dict(conn.execute("SELECT key, value FROM schema_meta"))
        assert meta["format"] == "pi-workflows-state" and meta["schema_version"] == "1"
        assert meta["ddl_sha256"] == schema.ddl_digest()
        fks = {
            t
            for t in SPEC_TABLES
            if conn.execute("SELECT count(*) FROM pragma_foreign_key_list(?)", (t,)).fetchone()[0]
        }
        assert {
            "runs",
            "run_queue",
            "node_attempts",
            "human_decision_resolutions",
            "continuations",
            "controller_workflows",
            "effects",
            "effect_attempts",
            "channel_messages",
        } <= fks
        partial = {
            name: sql
            for name, sql in conn.execute(
                "SELECT name, sql FROM sqlite_schema WHERE type = 'index' AND sql LIKE '%UNIQUE%'"
            )
        }
        assert "WHERE status = 'running'" in partial["node_attempts_one_active_per_run"]
        assert "WHERE status IN ('queued', 'running')" in partial["run_queue_one_reservation_per_session"]
        assert "WHERE submission_id IS NOT NULL" in partial["human_decision_resolutions_one_winner"]
        assert "(owner_scope, effect_type, idempotency_key)" in partial["effects_one_deterministic_key"]


def test_writers_set_the_spec_pragmas_and_bounds(agent_dir):
    with db.open_writer() as store:

        def value(pragma):
            return store.conn.execute(f"PRAGMA {pragma}").fetchone()[0]

        assert value("foreign_keys") == 1
        assert value("journal_mode") == "wal"
        assert value("synchronous") == 2  # FULL
        assert value("busy_timeout") == 5000
        assert value("wal_autocheckpoint") == 1000
        assert value("journal_size_limit") == 64 * 1024 * 1024


def test_readers_are_read_only_and_query_only(agent_dir):
    db.open_writer().close()
    with db.open_reader() as store:
        assert store.conn.execute("PRAGMA query_only").fetchone()[0] == 1
        with pytest.raises(apsw.Error):
            store.conn.execute("INSERT INTO schema_meta VALUES ('x', 'y')")


def test_modes_are_0700_for_the_folder_and_0600_for_the_file(agent_dir):
    db.open_writer().close()
    folder = agent_dir / "workflows"
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700
    assert stat.S_IMODE((folder / "state.sqlite").stat().st_mode) == 0o600
    # Modes the user set afterwards are the user's: a writer never changes them.
    os.chmod(folder / "state.sqlite", 0o644)
    os.chmod(folder, 0o755)
    db.open_writer().close()
    assert stat.S_IMODE((folder / "state.sqlite").stat().st_mode) == 0o644
    assert stat.S_IMODE(folder.stat().st_mode) == 0o755
    lock, registry = paths.host_files("/src/app")
    assert lock.parent == folder / "hosts" and lock.name.endswith(".lock") and not lock.parent.exists()


def test_a_reader_never_creates_the_file(agent_dir):
    with pytest.raises(MissingState):
        db.open_reader()
    assert not agent_dir.exists()
    with pytest.raises(MissingState):
        db.open_writer(create=False)
    assert not agent_dir.exists()


def _refused_untouched(path, match):
    before = path.read_bytes()
    names = listing(path.parent)
    with pytest.raises(IncompatibleState, match=match) as info:
        db.open_writer(path)
    assert "clear the incompatible alpha state" in str(info.value)
    with pytest.raises(IncompatibleState):
        db.open_reader(path)
    assert path.read_bytes() == before
    assert listing(path.parent) == names
    return info.value


def test_an_added_column_is_refused_and_the_file_is_untouched(tmp_path):
    path = tmp_path / "state.sqlite"
    db.open_writer(path).close()
    conn = raw(path)
    conn.execute("ALTER TABLE runs ADD COLUMN extra TEXT")
    conn.close()
    error = _refused_untouched(path, "runs")
    assert any("unexpected column extra" in p for p in error.problems)


def test_a_changed_column_type_is_refused_and_the_file_is_untouched(tmp_path):
    path = tmp_path / "state.sqlite"
    db.open_writer(path).close()
    conn = raw(path)
    conn.execute("PRAGMA writable_schema = ON")
    conn.execute(
        "UPDATE sqlite_schema SET sql = replace(sql, 'pi_session_id TEXT NOT NULL', "
        "'pi_session_id BLOB NOT NULL') WHERE name = 'run_queue'"
    )
    conn.close()
    error = _refused_untouched(path, "run_queue")
    assert any("column pi_session_id differs" in p for p in error.problems)


def test_a_different_ddl_digest_is_refused(tmp_path):
    path = tmp_path / "state.sqlite"
    db.open_writer(path).close()
    conn = raw(path)
    conn.execute("UPDATE schema_meta SET value = 'x' WHERE key = 'ddl_sha256'")
    conn.close()
    _refused_untouched(path, "digest")


@pytest.mark.parametrize(
    "pragma,match", [("application_id = 1", "application id"), ("user_version = 2", "user version")]
)
def test_application_id_and_user_version_are_checked(tmp_path, pragma, match):
    path = tmp_path / "state.sqlite"
    db.open_writer(path).close()
    conn = raw(path)
    conn.execute(f"PRAGMA {pragma}")
    conn.close()
    _refused_untouched(path, match)


def test_foreign_files_are_refused_untouched(tmp_path):
    other = tmp_path / "other.sqlite"
    conn = raw(other)
    conn.execute("CREATE TABLE t (x)")
    conn.close()
    _refused_untouched(other, "application id")
    text = tmp_path / "notes.sqlite"
    text.write_text("not a database at all, just some text" * 5)
    _refused_untouched(text, "not a SQLite database")
    empty = tmp_path / "empty.sqlite"
    empty.write_bytes(b"")
    _refused_untouched(empty, "not a SQLite database")


@pytest.mark.parametrize(
    "older", ["runs/", "artifacts/", "decisions/", "project.sqlite", "channels.db", "state.sqlite-wal"]
)
def test_older_live_state_blocks_creation_and_is_left_alone(tmp_path, older):
    folder = tmp_path / "workflows"
    folder.mkdir()
    entry = folder / older.rstrip("/")
    if older.endswith("/"):
        entry.mkdir()
        (entry / "run-1.json").write_text("{}")
    else:
        entry.write_bytes(b"older bytes")
    names = listing(folder)
    with pytest.raises(OlderLiveState, match="does not import, reinterpret or delete") as info:
        db.open_writer(folder / "state.sqlite")
    assert entry.name in str(info.value)
    assert listing(folder) == names
    assert not (folder / "state.sqlite").exists()
    if not older.endswith("/"):
        assert entry.read_bytes() == b"older bytes"


def test_an_existing_database_opens_beside_unrelated_files(tmp_path):
    """Host files never count as older live state, and older live state is checked only on creation."""
    path = tmp_path / "state.sqlite"
    with db.open_writer(path) as store:
        project = projects.register(store, tmp_path / "project")
    hosts = tmp_path / "hosts"
    hosts.mkdir()
    (hosts / "0123abcd.lock").write_text("host-a")
    (hosts / "0123abcd.children.json").write_text("[]")
    assert paths.older_live_state(path) == []
    (tmp_path / "runs").mkdir()  # would refuse a new database here, but this one exists
    before = listing(tmp_path) + listing(hosts) + listing(tmp_path / "runs")
    with open_store(path) as store:
        assert projects.get(store.conn, project.project_id) == project  # the same database, not a new one
        assert schema.problems(store.conn) == []
    assert listing(tmp_path) + listing(hosts) + listing(tmp_path / "runs") == before
    assert (hosts / "0123abcd.lock").read_text() == "host-a"


def test_concurrent_creation_yields_one_database(tmp_path):
    path = tmp_path / "workflows" / "state.sqlite"
    errors = []

    def create():
        try:
            db.open_writer(path).close()
        except Exception as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=create) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    assert [p.name for p in path.parent.iterdir() if not p.name.startswith("state.sqlite")] == []
    with db.open_reader(path) as store:
        assert schema.problems(store.conn) == []
