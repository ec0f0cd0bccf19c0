"""The v27 database: exactly the spec's tables, indexes and triggers; pragmas; a newer version refused."""

import hashlib
import re

import apsw
import pytest

from pidesktop.bus import HostError
from pidesktop.formats.index.db import open_database
from pidesktop.host.core import Host
from pidesktop.paths import prepare_data_root
from tests.support.repo import FIXTURES

TABLES = {
    "kv",
    "projects",
    "providers",
    "models",
    "sessions",
    "session_import_origins",
    "turns",
    "plan_approvals",
    "turn_queue",
    "session_todo",
    "session_collaboration_links",
    "session_collaboration_messages",
    "messages",
    "messages_fts",
    "message_revisions",
    "artifacts",
    "scheduled_tasks",
    "task_runs",
    "secrets_meta",
    "audit_log",
    "notifications",
    "worktrees",
}
INDEXES = {
    "idx_providers_owner",
    "idx_sessions_updated_id",
    "idx_sessions_project",
    "idx_sessions_deleted",
    "idx_session_import_origins_plugin",
    "idx_turns_session",
    "idx_turns_ended_at",
    "idx_plan_approvals_session",
    "idx_plan_approvals_pending",
    "idx_plan_approvals_one_pending_session",
    "idx_plan_approvals_execution_queue",
    "idx_plan_approvals_execution_id",
    "idx_turn_queue_session",
    "idx_turn_queue_idempotency",
    "idx_session_collaboration_turn",
    "idx_session_collaboration_receipt",
    "idx_message_revisions_root",
    "idx_artifacts_time",
    "idx_task_runs",
    "idx_audit_ts",
    "idx_audit_session",
    "idx_notifications_created",
    "idx_notifications_unread",
    # named by the spec's prose, designed here
    "idx_session_todo_one_in_progress",
    "idx_worktrees_project",
}
TRIGGERS = {"messages_ai", "messages_ad", "messages_au"}
FTS_SHADOW = {"messages_fts_data", "messages_fts_idx", "messages_fts_docsize", "messages_fts_config"}


def schema_names(conn, kind):
    return {
        name
        for (name,) in conn.execute(
            "SELECT name FROM sqlite_master WHERE type = ? AND name NOT LIKE 'sqlite_%'", (kind,)
        )
    }


def readonly(data_root):
    return apsw.Connection(str(data_root / "pi.sqlite"), flags=apsw.SQLITE_OPEN_READONLY)


def test_fresh_database_has_exactly_the_v27_objects(host):
    conn = readonly(host.location.data_root)
    assert schema_names(conn, "table") == TABLES | FTS_SHADOW
    # autoindexes of UNIQUE constraints are excluded by the LIKE above
    assert schema_names(conn, "index") == INDEXES
    assert schema_names(conn, "trigger") == TRIGGERS
    assert conn.execute("PRAGMA user_version").fetchone()[0] == 27


def test_names_match_the_specification_text():
    spec = next((FIXTURES / "spec").glob("004_*.txt"))
    text = spec.read_text(encoding="utf-8")
    tables = set(re.findall(r"CREATE (?:VIRTUAL )?TABLE (\w+)", text))
    indexes = set(re.findall(r"CREATE (?:UNIQUE )?INDEX (\w+)", text))
    triggers = set(re.findall(r"CREATE TRIGGER (\w+)", text))
    assert tables == TABLES - {"worktrees"}, "worktrees is named in prose only"
    assert indexes == INDEXES - {"idx_session_todo_one_in_progress", "idx_worktrees_project"}
    assert triggers == TRIGGERS


def test_v21_v24_v27_columns_exist(host):
    conn = readonly(host.location.data_root)

    def columns(table):
        return {row[1] for row in conn.execute(f"PRAGMA table_info({table})")}

    assert {"todo_revision", "todo_updated_at", "title_source", "fast_mode"} <= columns("sessions")
    assert "worktree_setup_command" in columns("projects")
    assert "discovery_state" in columns("models")
    assert "owner_plugin_id" in columns("providers")
    assert {"session_message_id", "priority", "user_message_id", "voice_origin_json"} <= columns("turn_queue")


def test_pragmas_are_in_effect_on_the_host_connection(location):
    host = Host.open(location, emit=lambda topic, payload: None)
    try:
        result = {
            pragma: host.ctx.conn.execute(f"PRAGMA {pragma}").fetchone()[0]
            for pragma in (
                "journal_mode",
                "synchronous",
                "foreign_keys",
                "busy_timeout",
                "temp_store",
                "cache_size",
                "trusted_schema",
                "auto_vacuum",
            )
        }
    finally:
        host.close()
    assert result == {
        "journal_mode": "wal",
        "synchronous": 1,
        "foreign_keys": 1,
        "busy_timeout": 5000,
        "temp_store": 2,
        "cache_size": -16000,
        "trusted_schema": 1,
        "auto_vacuum": 2,
    }


def test_reopen_is_a_plain_open(location):
    root = prepare_data_root(location)
    conn = open_database(root / "pi.sqlite")
    cookie = conn.execute("PRAGMA schema_version").fetchone()[0]
    conn.execute("INSERT INTO kv(ns, key, value_json, updated_at) VALUES ('app', 'probe', '1', 1)")
    conn.close()
    again = open_database(root / "pi.sqlite")
    assert again.execute("PRAGMA schema_version").fetchone()[0] == cookie
    assert again.execute("SELECT value_json FROM kv WHERE key = 'probe'").fetchone()[0] == "1"
    again.close()


@pytest.mark.parametrize("version", [28, 99])
def test_newer_schema_versions_are_refused_byte_identical(location, version):
    """Older versions are migrated (tests/test_migrations.py); a newer one is refused and never written."""
    root = prepare_data_root(location)
    db = root / "pi.sqlite"
    conn = apsw.Connection(str(db))
    conn.execute("CREATE TABLE future(x); INSERT INTO future VALUES ('keep me');")
    conn.execute(f"PRAGMA user_version = {version}")
    conn.close()
    before = hashlib.sha256(db.read_bytes()).hexdigest()
    with pytest.raises(HostError) as info:
        open_database(db)
    assert info.value.code == "SCHEMA_INCOMPATIBLE"
    assert info.value.data["schemaVersion"] == version
    assert f"v{version}" in info.value.message
    assert hashlib.sha256(db.read_bytes()).hexdigest() == before
    assert sorted(p.name for p in root.iterdir() if p.name.startswith("pi.sqlite")) == ["pi.sqlite"]


def test_fts_trigram_finds_cjk_and_ascii_substrings(location):
    root = prepare_data_root(location)
    conn = open_database(root / "pi.sqlite")
    conn.execute("INSERT INTO sessions(id, created_at, updated_at) VALUES ('s', 1, 1)")
    conn.execute(
        "INSERT INTO messages(id, session_id, seq, role, text, created_at) VALUES "
        "('m1', 's', 1, 'user', '我们明天去京都旅行', 1), ('m2', 's', 2, 'assistant', 'Streaming parser', 1)"
    )

    def hits(q):
        sql = "SELECT m.id FROM messages_fts f JOIN messages m ON m.mid = f.rowid WHERE messages_fts MATCH ?"
        return {r[0] for r in conn.execute(sql, (q,))}

    assert hits('"京都旅"') == {"m1"}
    assert hits('"ming par"') == {"m2"}
    conn.execute("DELETE FROM sessions WHERE id = 's'")
    assert hits('"京都旅"') == set()
    conn.close()
