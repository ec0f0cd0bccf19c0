"""The migration engine: backups, one transaction, fail closed, v1-6 archive, newer refused, the open path."""

import hashlib
import os
import stat

import apsw
import pytest

from pidesktop.bus import HostError
from pidesktop.formats.index import migration_steps, migrations
from pidesktop.formats.index.db import open_database, open_migrated
from pidesktop.formats.index.migrations import Step
from pidesktop.locks import WRITER_LOCK, FileLock
from pidesktop.paths import prepare_data_root
from pidesktop.storage import schema as cold
from tests.support.hosts import InProcessHost
from tests.support.migration_support import build, write_transcripts


def digest(path):
    return hashlib.sha256(path.read_bytes()).hexdigest()


def version_of(path):
    conn = apsw.Connection(f"file:{path}?mode=ro&immutable=1", flags=apsw.SQLITE_OPEN_READONLY | apsw.SQLITE_OPEN_URI)
    try:
        return conn.execute("PRAGMA user_version").fetchone()[0]
    finally:
        conn.close()


def rows(path, sql):
    conn = apsw.Connection(str(path))
    try:
        return conn.execute(sql).fetchall()
    finally:
        conn.close()


@pytest.fixture
def db(location):
    return prepare_data_root(location) / "pi.sqlite"


@pytest.fixture
def v14(db):
    return build(db, 14, sessions=4, messages=200)


def test_a_v14_database_walks_to_v27_with_an_exact_checked_backup(v14):
    before = digest(v14)
    report = migrations.migrate(v14)
    assert (report.from_version, report.to_version, report.archived) == (14, 27, None)
    backup = v14.with_name("pi.sqlite.v14.bak")
    assert report.backups == [backup]
    assert digest(backup) == before
    assert stat.S_IMODE(backup.stat().st_mode) == 0o600
    assert version_of(backup) == 14 and version_of(v14) == 27
    assert rows(v14, "SELECT count(*), min(fast_mode), min(title_source) FROM sessions") == [(4, 0, "legacy")]
    assert rows(v14, "SELECT count(*) FROM messages")[0][0] == 200
    assert rows(v14, "PRAGMA integrity_check") == [("ok",)]
    assert not list(v14.parent.glob(".pi.sqlite.*.tmp"))
    assert migrations.needs_migration(v14) is None
    again = migrations.migrate(v14)  # nothing to do: no second backup
    assert (again.from_version, again.to_version, again.backups) == (27, 27, [])


def test_the_walked_schema_equals_a_fresh_v27_one(v14, tmp_path):
    migrations.migrate(v14)
    fresh = tmp_path / "fresh.sqlite"
    open_database(fresh).close()
    assert migrations._shape(apsw.Connection(str(v14))) == migrations._shape(apsw.Connection(str(fresh)))


def test_every_supported_version_reaches_v27_in_one_call(tmp_path):
    for version in range(7, 27):
        path = tmp_path / f"v{version}" / "pi.sqlite"
        path.parent.mkdir()
        build(path, version, sessions=2, messages=10)
        report = migrations.migrate(path)
        assert (report.from_version, report.to_version) == (version, 27)
        assert version_of(path) == 27
        assert [p.name for p in report.backups] == [f"pi.sqlite.v{version}.bak"]


def test_an_identical_backup_is_kept_and_a_different_one_never_overwritten(db, tmp_path):
    build(db, 20, sessions=2, messages=10)
    original = db.read_bytes()
    existing = db.with_name("pi.sqlite.v20.bak")
    existing.write_bytes(original)  # a previous, interrupted attempt left the same copy
    report = migrations.migrate(db)
    assert report.backups == [existing]
    assert sorted(p.name for p in migrations.list_backups(db)) == ["pi.sqlite.v20.bak"]

    other = tmp_path / "other" / "pi.sqlite"
    other.parent.mkdir()
    build(other, 20, sessions=3, messages=30, seed=1)
    stranger = other.with_name("pi.sqlite.v20.bak")
    stranger.write_bytes(original)  # someone else's v20 copy: kept as it is
    report = migrations.migrate(other)
    assert report.backups == [other.with_name("pi.sqlite.v20.2.bak")]
    assert stranger.read_bytes() == original
    assert [p.name for p in migrations.list_backups(other)] == ["pi.sqlite.v20.bak", "pi.sqlite.v20.2.bak"]


def test_a_refused_value_rolls_everything_back_and_says_what_where_and_the_backup(db):
    build(db, 8, sessions=2, messages=10)
    conn = apsw.Connection(str(db))
    conn.execute("UPDATE sessions SET mode = 'chatty' WHERE id = 's1'")
    conn.close()
    with pytest.raises(HostError) as info:
        migrations.migrate(db)
    error = info.value
    backup = db.with_name("pi.sqlite.v8.bak")
    assert error.code == "SCHEMA_INCOMPATIBLE"
    assert error.data["schemaVersion"] == 8
    assert error.data["failedStep"] == "v8->v11"
    assert error.data["backup"] == str(backup)
    assert error.data["value"] == "chatty" and "sessions" in error.data["where"]
    assert "'chatty'" in error.message and str(backup) in error.message and "still v8" in error.message
    assert version_of(db) == 8 and backup.exists() and version_of(backup) == 8
    assert rows(db, "SELECT mode FROM sessions WHERE id = 's1'") == [("chatty",)]


def test_a_failure_in_a_late_step_leaves_the_old_version_not_an_intermediate_one(db, monkeypatch):
    build(db, 14, sessions=2, messages=10)

    def broken(conn):
        conn.execute("CREATE TABLE half_done(x)")
        raise ValueError("disk says no")

    steps = [s if s.from_version != 24 else Step(24, 25, broken, backup=True) for s in migrations.STEPS]
    monkeypatch.setattr(migrations, "STEPS", steps)
    with pytest.raises(HostError) as info:
        migrations.migrate(db)
    assert info.value.data["failedStep"] == "v24->v25" and info.value.data["reason"] == "disk says no"
    assert version_of(db) == 14
    assert rows(db, "SELECT name FROM sqlite_master WHERE name IN ('half_done', 'turn_queue')") == []
    assert [p.name for p in migrations.list_backups(db)] == ["pi.sqlite.v14.bak"]
    monkeypatch.undo()
    assert migrations.migrate(db).to_version == 27  # the next open finishes


def test_a_step_that_forgets_part_of_v27_fails_the_check(db, monkeypatch):
    build(db, 26, sessions=2, messages=10)
    monkeypatch.setattr(migrations, "STEPS", [Step(26, 27, migration_steps.version_only)])
    with pytest.raises(HostError) as info:
        migrations.migrate(db)
    assert info.value.data["failedStep"] == "v26->v27"
    assert info.value.data["where"] == "sessions.fast_mode"
    assert version_of(db) == 26


def test_a_step_that_leaves_a_dangling_reference_fails_the_final_foreign_key_check(db, monkeypatch):
    build(db, 26, sessions=2, messages=10)

    def orphans_messages(conn):
        migration_steps.v26_to_v27(conn)  # the real rebuild, then a row its messages point at goes
        conn.execute("DELETE FROM sessions WHERE rowid = (SELECT min(rowid) FROM sessions)")

    monkeypatch.setattr(migrations, "STEPS", [Step(26, 27, orphans_messages)])
    with pytest.raises(HostError) as info:
        migrations.migrate(db)
    assert "points at a missing sessions row" in info.value.data["reason"]
    assert version_of(db) == 26 and rows(db, "SELECT count(*) FROM sessions") == [(2,)]


def test_a_step_may_not_commit(db, monkeypatch):
    build(db, 26, sessions=1, messages=2)

    def commits(conn):
        conn.execute("COMMIT")

    monkeypatch.setattr(migrations, "STEPS", [Step(26, 27, commits)])
    with pytest.raises(HostError) as info:
        migrations.migrate(db)
    assert "must not commit" in info.value.data["reason"]


def test_a_missing_step_refuses_before_touching_anything(db, monkeypatch):
    build(db, 20, sessions=1, messages=2)
    before = digest(db)
    monkeypatch.setattr(migrations, "STEPS", [s for s in migrations.STEPS if s.from_version != 22])
    with pytest.raises(HostError) as info:
        migrations.migrate(db)
    assert info.value.code == "SCHEMA_INCOMPATIBLE" and info.value.data["schemaVersion"] == 20
    assert digest(db) == before
    assert sorted(p.name for p in db.parent.iterdir() if p.name.startswith("pi.sqlite")) == ["pi.sqlite"]


@pytest.mark.parametrize("version", [1, 6])
def test_v1_to_v6_is_archived_as_v6_bak_and_a_fresh_database_starts(db, version):
    conn = apsw.Connection(str(db))
    conn.execute("PRAGMA journal_mode = WAL")
    conn.execute(
        f"CREATE TABLE old_settings(x); INSERT INTO old_settings VALUES ('keep'); PRAGMA user_version = {version};"
    )
    report_conn, report = open_migrated(db)  # the connection stays open: the -wal is live
    report_conn.close()
    conn.close()
    archive = db.with_name("pi.sqlite.v6.bak")
    assert report.archived == archive and (report.from_version, report.to_version) == (version, 27)
    assert rows(archive, "SELECT x FROM old_settings") == [("keep",)]
    assert version_of(db) == 27
    assert rows(db, "SELECT count(*) FROM sqlite_master WHERE name = 'old_settings'") == [(0,)]
    assert stat.S_IMODE(archive.stat().st_mode) == 0o600
    assert migrations.needs_migration(db) is None


def test_a_second_pre_v7_archive_does_not_replace_the_first(db):
    first = db.with_name("pi.sqlite.v6.bak")
    first.write_bytes(b"an earlier archive")
    conn = apsw.Connection(str(db))
    conn.execute("CREATE TABLE t(x); PRAGMA user_version = 3;")
    conn.close()
    report = migrations.migrate(db)
    assert report.archived == db.with_name("pi.sqlite.v6.2.bak")
    assert first.read_bytes() == b"an earlier archive"


def test_a_file_that_is_not_sqlite_is_refused_untouched(db):
    db.write_bytes(b"these are not the pages you are looking for" * 100)
    before = digest(db)
    with pytest.raises(HostError) as info:
        open_database(db)
    assert info.value.code == "STORAGE_UNAVAILABLE" and info.value.data["reason"] == "notSqlite"
    assert digest(db) == before
    assert sorted(p.name for p in db.parent.iterdir() if p.name.startswith("pi.sqlite")) == ["pi.sqlite"]


def test_a_newer_version_with_a_live_wal_is_read_through_the_wal_and_refused(db):
    conn = apsw.Connection(str(db))
    conn.execute("PRAGMA journal_mode = WAL")
    conn.execute("CREATE TABLE t(x); PRAGMA user_version = 30;")  # still in the -wal while conn is open
    try:
        with pytest.raises(HostError) as info:
            migrations.needs_migration(db)
        assert info.value.data["schemaVersion"] == 30
    finally:
        conn.close()


def test_the_host_migrates_on_open_and_tells_the_handshake(location, db):
    build(db, 14, sessions=3, messages=30)
    write_transcripts(db)
    host = InProcessHost(location)
    try:
        hello = host.call("app.handshake", {"protocolVersion": 1})
        assert hello["migration"] == {
            "fromVersion": 14,
            "toVersion": 27,
            "backups": [str(db.with_name("pi.sqlite.v14.bak"))],
            "archived": None,
        }
        assert len(host.call("session.list")["sessions"]) == 3
    finally:
        host.stop()
    again = InProcessHost(location)
    try:
        assert "migration" not in again.call("app.handshake", {"protocolVersion": 1})
    finally:
        again.stop()


def test_a_refused_migration_answers_every_call_with_the_reason(location, db):
    build(db, 8, sessions=1, messages=2)
    conn = apsw.Connection(str(db))
    conn.execute("UPDATE sessions SET mode = 'bogus'")
    conn.close()
    host = InProcessHost(location)
    try:
        error = host.error("session.list")
        assert error.code == "SCHEMA_INCOMPATIBLE" and error.data["failedStep"] == "v8->v11"
    finally:
        host.stop()
    assert version_of(db) == 8


def test_the_cold_functions_report_and_migrate_without_a_host(location, db):
    assert cold.schema_state(location)["version"] is None
    build(db, 14, sessions=2, messages=10)
    state = cold.schema_state(location)
    assert state == {
        "version": 14,
        "needsMigration": True,
        "archive": False,
        "supported": 27,
        "backups": [],
        "problem": None,
    }
    seen = []
    result = cold.migrate(location, lambda *args: seen.append(args))
    assert result == {
        "fromVersion": 14,
        "toVersion": 27,
        "backups": [str(db.with_name("pi.sqlite.v14.bak"))],
        "archived": None,
    }
    phases = [args[0] for args in seen]
    assert phases[0] == "checkpoint" and phases[-1] == "done" and {"backup", "migrate", "check"} <= set(phases)
    assert all(len(args) == 6 for args in seen)
    assert cold.schema_state(location)["backups"] == [str(db.with_name("pi.sqlite.v14.bak"))]
    assert cold.schema_state(location)["needsMigration"] is False


def test_the_cold_migration_waits_for_no_one_and_refuses_when_a_host_holds_the_root(location, db):
    build(db, 14, sessions=1, messages=2)
    lock = FileLock(db.parent / WRITER_LOCK, "test host").acquire()
    try:
        with pytest.raises(cold.MigrationError) as info:
            cold.migrate(location)
        assert info.value.code == "STORAGE_UNAVAILABLE"
    finally:
        lock.release()
    assert version_of(db) == 14


def test_the_cold_state_reports_a_newer_database_as_a_problem(location, db):
    conn = apsw.Connection(str(db))
    conn.execute("CREATE TABLE t(x); PRAGMA user_version = 40;")
    conn.close()
    state = cold.schema_state(location)
    assert state["version"] == 40 and not state["needsMigration"] and "newer" in state["problem"]
    with pytest.raises(cold.MigrationError) as info:
        cold.migrate(location)
    assert info.value.code == "SCHEMA_INCOMPATIBLE" and info.value.data["schemaVersion"] == 40
    assert not os.path.exists(f"{db}-wal") and not os.path.exists(f"{db}-shm")
