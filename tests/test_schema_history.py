"""Schema history: old databases walk to v27 with every row, and end up a fresh v27 schema (spec 004, section 7)."""

from __future__ import annotations

import sys
from contextlib import contextmanager

import apsw
import orjson
import pytest

from pidesktop.bus.errors import ErrorCode, HostError
from pidesktop.formats.index import migration_steps, migrations
from pidesktop.formats.index.migration_steps import StepRefused
from pidesktop.formats.index.schema import SCHEMA_VERSION
from tests.support.hosts import InProcessHost
from tests.support.schema_history import build, dump, fresh_v27_schema, schema_differences, schema_of

WALKED = [7, 8, 10, 14, 15, 22, 26]


@pytest.fixture
def db(data_root):
    data_root.mkdir(parents=True, exist_ok=True)
    return data_root / "pi.sqlite"


@contextmanager
def connect(path):
    """A plain connection (autocommit, foreign keys off), closed afterwards."""
    conn = apsw.Connection(str(path))
    try:
        yield conn
    finally:
        conn.close()


def rows(conn, sql, *args):
    return conn.execute(sql, args).fetchall()


def assert_fresh_v27(conn):
    assert schema_differences(schema_of(conn), fresh_v27_schema()) == []


def test_the_steps_chain_from_every_version_to_v27():
    for version in range(7, SCHEMA_VERSION):
        steps = migrations.chain(version)
        assert steps[-1].to_version == SCHEMA_VERSION
        assert all(a.to_version == b.from_version for a, b in zip(steps, steps[1:]))
    assert [s.from_version for s in migrations.chain(8)][:2] == [8, 11]  # v8/9/10 go straight to v11
    assert migrations.chain(9)[0].apply is migrations.chain(10)[0].apply is migration_steps.guarded_to_v11


@pytest.mark.parametrize("version", range(7, SCHEMA_VERSION + 1))
def test_each_builder_version_is_the_v27_ddl_with_later_steps_taken_out(db, version):
    built = build(db, version, populate=False)
    with connect(db) as conn:
        assert conn.execute("PRAGMA user_version").fetchone()[0] == version
        names = {name for (name,) in conn.execute("SELECT name FROM sqlite_master")}
        sessions = {name for (name,) in conn.execute("SELECT name FROM pragma_table_info('sessions')")}
    assert ("turn_queue" in names) == (version >= 15)
    assert ("plan_approvals" in names) == (version >= 8)
    assert ("idx_sessions_updated_id" in names) == (version >= 22)
    assert ("idx_sessions_updated" in names) == (version < 22)
    assert ("fast_mode" in sessions) == (version >= 27)
    assert ("deleted_at" in sessions) == (version >= 14)
    assert built.counts["sessions"] == 0
    if version == SCHEMA_VERSION:
        with connect(db) as conn:
            assert_fresh_v27(conn)


@pytest.mark.parametrize("version", range(7, SCHEMA_VERSION))
def test_every_version_walks_to_a_fresh_v27_schema(db, version):
    build(db, version)
    migrations.migrate(db)
    with connect(db) as conn:
        assert_fresh_v27(conn)
        assert rows(conn, "PRAGMA integrity_check") == [("ok",)]
        assert rows(conn, "PRAGMA foreign_key_check") == []


@pytest.mark.parametrize("version", WALKED)
def test_a_walk_keeps_every_row_and_maps_legacy_values(db, version):
    built = build(db, version)
    with connect(db) as conn:
        before = dump(conn)
    report = migrations.migrate(db)
    assert (report.from_version, report.to_version) == (version, SCHEMA_VERSION)
    assert report.backups and all(path.is_file() for path in report.backups)
    assert report.backups[0].name == f"pi.sqlite.v{version}.bak"
    with connect(report.backups[0]) as backup:
        assert backup.execute("PRAGMA user_version").fetchone()[0] == version
        assert dump(backup) == before

    with connect(db) as conn:
        assert_fresh_v27(conn)
        for table, count in built.counts.items():
            assert conn.execute(f'SELECT count(*) FROM "{table}"').fetchone()[0] == count, table

        # Sessions: every one kept, chat became plan, nothing else moved.
        got = dict(rows(conn, "SELECT id, mode FROM sessions"))
        assert got == built.sessions
        assert set(got.values()) <= {"plan", "goal", "agent"}
        for session_id, title_source, fast, thinking, deleted in rows(
            conn, "SELECT id, title_source, fast_mode, thinking_level, deleted_at FROM sessions"
        ):
            assert (title_source, fast, thinking, deleted) == ("legacy", 0, "medium", None), session_id

        # Messages: every row with its text, found by the trigram index.
        assert dict(rows(conn, "SELECT id, text FROM messages")) == built.messages
        for query, message_id in built.searches.items():
            found = rows(
                conn,
                "SELECT m.id FROM messages_fts JOIN messages m ON m.mid = messages_fts.rowid "
                "WHERE messages_fts MATCH ?",
                f'"{query}"',
            )
            assert found == [(message_id,)], query
        assert rows(conn, "INSERT INTO messages_fts(messages_fts) VALUES ('integrity-check')") == []

        # App settings: defaultMode mapped, the legacy key gone, the rest as stored.
        (value,) = conn.execute("SELECT value_json FROM kv WHERE ns = 'app' AND key = 'settings'").fetchone()
        expected = {k: v for k, v in built.settings.items() if k != "planApprovalPermissionMode"}
        expected["defaultMode"] = "plan"
        assert orjson.loads(value) == expected
        assert rows(conn, "SELECT value_json FROM kv WHERE ns = 'plugin:example'") == [('{"mode": "chat"}',)]

        # Scheduled tasks: the top-level mode mapped, nested modes untouched.
        configs = {
            task_id: orjson.loads(config)
            for task_id, config in rows(conn, "SELECT id, config_json FROM scheduled_tasks")
        }
        assert configs["task-chat"] == {**built.tasks["task-chat"], "mode": "plan"}
        assert configs["task-chat"]["extension"] == {"mode": "chat"}
        assert configs["task-agent"] == built.tasks["task-agent"]
        assert configs["task-nomode"] == built.tasks["task-nomode"]

        # Plan approvals: every row a plan, the v8 fields as they were.
        approvals = rows(
            conn, "SELECT request_id, kind, status, plan_json, title FROM plan_approvals ORDER BY request_id"
        )
        if version >= 8:
            assert [(r[0], r[1], r[2]) for r in approvals] == [
                ("pa-1", "plan", "approved"),
                ("pa-2", "plan", "pending"),
            ]
            assert approvals[0][3:] == ("# Plan\n\n1. Do it\n", "The plan")
        else:
            assert approvals == []
        queue = rows(
            conn, "SELECT id, content, priority, user_message_id, session_message_id FROM turn_queue ORDER BY position"
        )
        if version >= 15:
            assert queue == [
                ("q-1", "queued prompt", None, None, None),
                ("q-2", "second queued prompt", None, None, None),
            ]
        models = dict(rows(conn, "SELECT model_id, discovery_state FROM models"))
        assert models == {"m-disc": "published", "m-user": None, "echo": None}
        assert rows(conn, "SELECT id, owner_plugin_id FROM providers ORDER BY id") == [
            ("custom-1", None),
            ("offline", None),
        ]
        assert rows(conn, "SELECT id, path, worktree_setup_command FROM projects") == [
            (1, "/home/user/project-one", "make setup" if version >= 24 else None)
        ]
        assert rows(conn, "SELECT count(*) FROM turns WHERE status = 'completed'") == [(len(built.sessions),)]
        assert rows(conn, "PRAGMA foreign_key_check") == []

    for session_id, data in built.transcripts.items():
        assert (db.parent / "sessions" / f"{session_id}.jsonl").read_bytes() == data


def test_a_pre_v7_database_is_archived_and_replaced_by_a_fresh_one(db):
    build(db, 5)
    original = db.read_bytes()
    report = migrations.migrate(db)
    assert report.archived is not None and report.archived.read_bytes() == original
    with connect(db) as conn:
        assert_fresh_v27(conn)
        assert rows(conn, "SELECT count(*) FROM sessions") == [(0,)]


def test_a_v8_data_root_opens_in_a_real_host_with_its_conversations(location, db):
    built = build(db, 8)
    host = InProcessHost(location)
    try:
        listed = host.call("session.list", {"includeScheduled": True})
        sessions = {s["id"]: s for s in listed["sessions"]}
        assert set(sessions) == set(built.sessions)
        # a chat an old automation's run made is still that run's: out of the default list (spec 004, 4.11)
        scheduled = {sid for sid, s in sessions.items() if s["scheduledRun"]}
        assert (
            scheduled
            and {s["id"] for s in host.call("session.list", {})["sessions"]} == set(built.sessions) - scheduled
        )
        got = host.call("session.get", {"sessionId": "s-chat"})
        assert [m["id"] for m in got["messages"]] == ["s-chat-u", "s-chat-a", "s-chat-t"]
        hits = host.call("search.query", {"query": "kiwi0x"})["results"]
        assert [h["messageId"] for h in hits] == ["s-chat-u"]
        assert host.call("settings.get", {})["settings"]["defaultMode"] == "plan"
    finally:
        host.stop()
    assert (db.parent / "pi.sqlite.v8.bak").is_file()


# -- the guarded v8 -> v11 step fails closed -------------------------------------------


def _settings(value):
    return "UPDATE kv SET value_json = ? WHERE ns = 'app' AND key = 'settings'", (value,)


def _task(task_id, value):
    return "UPDATE scheduled_tasks SET config_json = ? WHERE id = ?", (value, task_id)


OTHER_PLATFORM_SHELL = "bash" if sys.platform.startswith("win") else "windows-powershell"

REFUSALS = {
    "malformed settings": (_settings("{not json"), "kv(app, settings)", "{not json"),
    "settings not an object": (_settings('["chat"]'), "kv(app, settings)", '["chat"]'),
    "unknown default mode": (_settings('{"defaultMode": "chatty"}'), "kv(app, settings).defaultMode", "chatty"),
    "unknown shell": (_settings('{"defaultCommandShell": "fish"}'), "kv(app, settings).defaultCommandShell", "fish"),
    "wrong-platform shell": (
        _settings(f'{{"defaultCommandShell": "{OTHER_PLATFORM_SHELL}"}}'),
        "kv(app, settings).defaultCommandShell",
        OTHER_PLATFORM_SHELL,
    ),
    "malformed task config": (
        _task("task-agent", "{'mode': 'agent'"),
        "scheduled_tasks.config_json (id 'task-agent')",
        "{'mode': 'agent'",
    ),
    "unknown task mode": (
        _task("task-agent", '{"mode": "autopilot"}'),
        "scheduled_tasks.config_json (id 'task-agent').mode",
        "autopilot",
    ),
    "unknown session mode": (
        ("UPDATE sessions SET mode = 'assistant' WHERE id = 's-agent'", ()),
        "sessions.mode (id 's-agent')",
        "assistant",
    ),
}


@pytest.mark.parametrize("case", REFUSALS)
def test_a_value_the_guarded_step_cannot_map_fails_closed(db, case):
    (sql, args), where, value = REFUSALS[case]
    build(db, 8)
    with connect(db) as conn:
        conn.execute(sql, args)
        before_rows, before_schema = dump(conn), schema_of(conn)
    with pytest.raises(HostError) as info:
        migrations.migrate(db)
    assert info.value.code == ErrorCode.SCHEMA_INCOMPATIBLE
    assert info.value.data["where"] == where
    assert info.value.data["value"] == value
    assert info.value.data["failedStep"] == "v8->v11"
    with connect(db) as conn:
        assert conn.execute("PRAGMA user_version").fetchone()[0] == 8
        assert dump(conn) == before_rows
        assert schema_of(conn) == before_schema
    assert (db.parent / "pi.sqlite.v8.bak").is_file()


def test_the_step_function_names_the_value_and_where(db):
    build(db, 10)
    with connect(db) as conn:
        conn.execute("UPDATE sessions SET mode = 'chatbot' WHERE id = 's-goal'")
        conn.execute("BEGIN")
        with pytest.raises(StepRefused) as info:
            migration_steps.guarded_to_v11(conn)
        conn.execute("ROLLBACK")
    assert (info.value.where, info.value.value) == ("sessions.mode (id 's-goal')", "chatbot")


def test_a_v8_plan_approvals_table_already_in_the_current_shape_is_not_rebuilt(db):
    build(db, 8)
    with connect(db) as conn:
        with conn:  # as a v8 build that created the table from the current DDL would have it
            migration_steps.rebuild(conn, "plan_approvals", 11)
            conn.execute("UPDATE plan_approvals SET kind = 'goal' WHERE request_id = 'pa-2'")
        sql = conn.execute("SELECT sql FROM sqlite_master WHERE name = 'plan_approvals'").fetchone()
        (root,) = conn.execute("SELECT rootpage FROM sqlite_master WHERE name = 'plan_approvals'").fetchone()
    migrations.migrate(db)
    with connect(db) as conn:
        assert conn.execute("SELECT sql FROM sqlite_master WHERE name = 'plan_approvals'").fetchone() == sql
        assert conn.execute("SELECT rootpage FROM sqlite_master WHERE name = 'plan_approvals'").fetchone()[0] == root
        assert rows(conn, "SELECT request_id, kind FROM plan_approvals ORDER BY 1") == [
            ("pa-1", "plan"),
            ("pa-2", "goal"),
        ]
        assert_fresh_v27(conn)


def test_a_rebuild_refuses_to_run_with_foreign_keys_on(db):
    build(db, 26)
    with connect(db) as conn:
        conn.execute("PRAGMA foreign_keys = ON")
        conn.execute("BEGIN")
        with pytest.raises(RuntimeError, match="foreign_keys OFF"):
            migration_steps.v26_to_v27(conn)
        conn.execute("ROLLBACK")
        assert rows(conn, "SELECT count(*) FROM messages") == [(9,)]
