"""Old ``pi.sqlite`` files for the schema-history tests, at any version from v1 to v27.

``build(path, version, populate=True)`` creates ``path`` as that version's
database: v7 and later from the v27 DDL with every later step taken back out
(``migration_steps.objects_at``: later tables, indexes and columns removed,
the pre-v19 thinking-level CHECK, the pre-v22 session-list index); v1-v6 as a
small unrelated schema with ``user_version`` set (those files are archived,
never migrated). With ``populate`` it is filled the way that version's
pidesktop would have filled it, and the conversations get their transcript
files under ``sessions/`` beside the database, so a host opens it for real.

The returned ``Built`` says what went in: the session ids with the mode each
must have after the migration, every message id with its text, a query that finds
exactly one message, the transcript bytes, and the row count of every table.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from pathlib import Path

import apsw
import orjson

from pidesktop.formats.index.migration_steps import objects_at, platform_shells
from pidesktop.host.sessions import message_index
from pidesktop.host.transcripts import TranscriptStore

T0 = 1_700_000_000_000  # a fixed "now" (ms), so rows are reproducible
SHELL = platform_shells(sys.platform)[0]


@dataclass
class Built:
    version: int
    sessions: dict[str, str] = field(default_factory=dict)  # id -> mode after the migration
    stored_modes: dict[str, str] = field(default_factory=dict)  # id -> mode as stored
    messages: dict[str, str | None] = field(default_factory=dict)  # id -> indexed text (None: tool row)
    searches: dict[str, str] = field(default_factory=dict)  # query only one message's text has -> its id
    transcripts: dict[str, bytes] = field(default_factory=dict)  # session id -> file bytes
    counts: dict[str, int] = field(default_factory=dict)  # table -> rows
    settings: dict = field(default_factory=dict)  # kv(app, settings) as stored
    tasks: dict[str, dict] = field(default_factory=dict)  # task id -> config as stored
    approvals: list[str] = field(default_factory=list)
    queue: list[str] = field(default_factory=list)


def build(path: Path, version: int, populate: bool = True) -> Built:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    built = Built(version)
    conn = apsw.Connection(str(path))
    try:
        if version < 7:
            _build_pre_v7(conn, version, populate)
        else:
            conn.execute("PRAGMA auto_vacuum = INCREMENTAL")
            conn.execute("PRAGMA journal_mode = WAL")
            with conn:
                for _kind, _name, sql in objects_at(version):
                    conn.execute(sql)
                conn.execute(f"PRAGMA user_version = {version}")
            if populate:
                conn.execute("PRAGMA foreign_keys = ON")
                with conn:
                    _populate(conn, path.parent / "sessions", version, built)
        built.counts = {
            table: conn.execute(f'SELECT count(*) FROM "{table}"').fetchone()[0]
            for (table,) in conn.execute(
                "SELECT name FROM sqlite_master WHERE type = 'table' "
                "AND name NOT LIKE 'messages_fts%' AND name NOT LIKE 'sqlite_%'"
            )
        }
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    finally:
        conn.close()
    return built


def _build_pre_v7(conn: apsw.Connection, version: int, populate: bool) -> None:
    with conn:
        conn.execute("CREATE TABLE settings (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
        conn.execute("CREATE TABLE conversations (id TEXT PRIMARY KEY, title TEXT, body TEXT)")
        if populate:
            conn.execute("INSERT INTO settings VALUES ('theme', 'dark')")
            conn.execute(f"INSERT INTO conversations VALUES ('c1', 'old chat', 'hello from v{version}')")
        conn.execute(f"PRAGMA user_version = {version}")


def _columns(conn: apsw.Connection, table: str) -> set[str]:
    return {name for (name,) in conn.execute("SELECT name FROM pragma_table_info(?)", (table,))}


def _insert(conn: apsw.Connection, table: str, row: dict) -> None:
    """Insert the columns of ``row`` the table has at this version."""
    have = _columns(conn, table)
    assert have, f"no table {table}"
    row = {key: value for key, value in row.items() if key in have}
    names = ", ".join(row)
    marks = ", ".join("?" for _ in row)
    conn.execute(f"INSERT INTO {table} ({names}) VALUES ({marks})", tuple(row.values()))


def _has(conn: apsw.Connection, table: str) -> bool:
    return bool(_columns(conn, table))


def _session_modes(version: int) -> dict[str, str]:
    """Stored mode per session: v7 knew chat | agent, v8-v10 added plan | goal, v11 dropped chat."""
    if version == 7:
        return {"s-chat": "chat", "s-agent": "agent", "s-chat-2": "chat"}
    if version <= 10:
        return {"s-chat": "chat", "s-agent": "agent", "s-plan": "plan", "s-goal": "goal"}
    return {"s-plan": "plan", "s-agent": "agent", "s-goal": "goal"}


def _populate(conn: apsw.Connection, sessions_dir: Path, version: int, built: Built) -> None:
    store = TranscriptStore(sessions_dir)
    legacy = version <= 10

    _insert(
        conn,
        "projects",
        {
            "id": 1,
            "path": "/home/user/project-one",
            "name": "project-one",
            "pinned": 1,
            "created_at": T0,
            "last_opened_at": T0 + 5,
            "worktree_setup_command": "make setup",
        },
    )
    _insert(
        conn,
        "providers",
        {
            "id": "offline",
            "name": "Offline",
            "vendor_key": "builtin",
            "type": "offline",
            "protocol": "offline",
            "created_at": T0,
            "updated_at": T0,
        },
    )
    _insert(
        conn,
        "providers",
        {
            "id": "custom-1",
            "name": "My endpoint",
            "base_url": "http://localhost:9/v1",
            "secret_ref": "sec-1",
            "default_model_id": "m-disc",
            "config_json": '{"timeoutMs": 30000}',
            "created_at": T0,
            "updated_at": T0 + 1,
            "owner_plugin_id": None,
        },
    )
    _insert(
        conn,
        "models",
        {
            "provider_id": "custom-1",
            "model_id": "m-disc",
            "display_name": "Discovered",
            "source": "discovered",
            "capabilities_json": '["tools"]',
            "context_window": 128000,
            "discovery_state": "published",
            "updated_at": T0,
        },
    )
    _insert(
        conn,
        "models",
        {
            "provider_id": "custom-1",
            "model_id": "m-user",
            "display_name": "Typed in",
            "source": "user",
            "updated_at": T0,
        },
    )
    _insert(
        conn,
        "models",
        {"provider_id": "offline", "model_id": "echo", "display_name": "Echo", "source": "bundled", "updated_at": T0},
    )
    _insert(
        conn,
        "secrets_meta",
        {"secret_ref": "sec-1", "owner_id": "custom-1", "backend": "file_fallback", "updated_at": T0},
    )

    settings = {
        "theme": "dark",
        "largePasteThreshold": 800,
        "defaultCommandShell": SHELL,
        "defaultMode": "chat" if legacy else "plan",
        "language": "en",
    }
    if legacy:
        settings["planApprovalPermissionMode"] = "ask"
    built.settings = settings
    _insert(
        conn, "kv", {"ns": "app", "key": "settings", "value_json": orjson.dumps(settings).decode(), "updated_at": T0}
    )
    _insert(conn, "kv", {"ns": "plugin:example", "key": "state", "value_json": '{"mode": "chat"}', "updated_at": T0})

    modes = _session_modes(version)
    built.stored_modes = dict(modes)
    for number, (session_id, mode) in enumerate(modes.items()):
        built.sessions[session_id] = "plan" if mode == "chat" else mode
        created = T0 + 1000 * number
        _insert(
            conn,
            "sessions",
            {
                "id": session_id,
                "title": f"Conversation {number}",
                "project_id": 1 if number == 0 else None,
                "provider_id": "custom-1",
                "model_id": "m-disc",
                "mode": mode,
                "thinking_level": "medium",
                "permission_mode": "ask" if number == 1 else "inherit",
                "pinned": int(number == 0),
                "created_at": created,
                "updated_at": created,
            },
        )
        turn_id = f"t-{session_id}"
        _insert(
            conn,
            "turns",
            {
                "id": turn_id,
                "session_id": session_id,
                "status": "completed",
                "provider_id": "custom-1",
                "model_id": "m-disc",
                "input_tokens": 12,
                "output_tokens": 34,
                "usage_json": '{"cached": 3}',
                "started_at": created,
                "ended_at": created + 500,
            },
        )
        store.create(session_id, message_index.rfc3339(created))
        word = f"kiwi{number}x"
        lines = [
            {
                "id": f"{session_id}-u",
                "role": "user",
                "blocks": [{"type": "text", "text": f"Please look at {word} and 你好世界{number}"}],
            },
            {
                "id": f"{session_id}-a",
                "role": "assistant",
                "blocks": [
                    {"type": "thinking", "text": "private reasoning"},
                    {"type": "text", "text": f"Answer number {number}: mango{number}q is ripe"},
                ],
                "meta": {"usage": {"input": 12, "output": 34}},
            },
            {
                "id": f"{session_id}-t",
                "role": "tool",
                "toolName": "bash",
                "blocks": [{"type": "tool_result", "text": "tool output stays in the file"}],
            },
        ]
        for offset, message in enumerate(lines):
            message["createdAt"] = message_index.rfc3339(created + offset + 1)
            store.append(session_id, {"type": "message", **message})
            message_index.insert(conn, session_id, message, turn_id if offset else None, created + offset + 1)
            built.messages[message["id"]] = message_index.extract_text(message)
        built.searches[word] = f"{session_id}-u"
        built.searches[f"你好世界{number}"] = f"{session_id}-u"
        built.searches[f"mango{number}q"] = f"{session_id}-a"
        built.transcripts[session_id] = store.path(session_id).read_bytes()

    first = next(iter(modes))
    _insert(
        conn,
        "message_revisions",
        {
            "id": "rev-1",
            "session_id": first,
            "root_user_id": f"{first}-u",
            "revision_index": 1,
            "is_active": 1,
            "message_count": 2,
            "created_at": T0,
        },
    )
    _insert(
        conn,
        "artifacts",
        {
            "session_id": first,
            "path": "/home/user/project-one/a.txt",
            "op": "write",
            "turn_id": f"t-{first}",
            "updated_at": T0,
        },
    )
    _insert(
        conn, "audit_log", {"ts": T0, "kind": "tool_execute", "session_id": first, "payload_json": '{"tool": "bash"}'}
    )
    _insert(
        conn,
        "notifications",
        {
            "id": "n-1",
            "kind": "task.completed",
            "session_id": first,
            "session_title": "Conversation 0",
            "turn_id": f"t-{first}",
            "created_at": T0,
        },
    )

    tasks = {
        "task-chat": {"mode": "chat" if legacy else "plan", "cron": "0 9 * * *", "extension": {"mode": "chat"}},
        "task-agent": {"mode": "agent", "notify": "always"},
        "task-nomode": {"model": "m-disc"},
    }
    built.tasks = tasks
    for number, (task_id, config) in enumerate(tasks.items()):
        _insert(
            conn,
            "scheduled_tasks",
            {
                "id": task_id,
                "title": f"Task {number}",
                "prompt": "do the thing",
                "cadence": "daily",
                "project_id": 1,
                "config_json": orjson.dumps(config).decode(),
                "created_at": T0,
                "updated_at": T0,
            },
        )
    _insert(
        conn,
        "task_runs",
        {
            "id": "run-1",
            "task_id": "task-agent",
            "session_id": "s-agent",
            "status": "completed",
            "started_at": T0,
            "ended_at": T0 + 10,
        },
    )

    if _has(conn, "plan_approvals"):
        plan_session = "s-plan" if "s-plan" in modes else first
        _insert(
            conn,
            "plan_approvals",
            {
                "request_id": "pa-1",
                "session_id": plan_session,
                "turn_id": f"t-{plan_session}",
                "tool_call_id": "call-1",
                "plan_json": "# Plan\n\n1. Do it\n",
                "title": "The plan",
                "question": "Go?",
                "status": "approved",
                "action": "approve",
                "target_permission_mode": "accept-edits",
                "created_at": T0,
                "updated_at": T0 + 1,
                "resolved_at": T0 + 1,
                "artifact_relative_path": ".pi/plan/p1.md",
                "artifact_sha256": "ab" * 32,
                "artifact_size_bytes": 21,
                "execution_id": "ex-1",
                "execution_state": "completed",
            },
        )
        _insert(
            conn,
            "plan_approvals",
            {
                "request_id": "pa-2",
                "session_id": "s-agent",
                "turn_id": "t-s-agent",
                "tool_call_id": "call-2",
                "plan_json": "# Other\n",
                "status": "pending",
                "created_at": T0 + 2,
                "updated_at": T0 + 2,
                "expires_at": T0 + 99,
            },
        )
        built.approvals = ["pa-1", "pa-2"]
    if _has(conn, "session_import_origins"):
        _insert(
            conn,
            "session_import_origins",
            {
                "plugin_id": "importer",
                "source_id": "codex",
                "external_id": "ext-1",
                "session_id": "s-agent",
                "source_label": "Codex",
                "created_at": T0,
            },
        )
    if _has(conn, "turn_queue"):
        _insert(
            conn,
            "turn_queue",
            {
                "id": "q-1",
                "session_id": "s-agent",
                "principal": "user",
                "idempotency_key": "k-1",
                "input_hash": "h1",
                "content": "queued prompt",
                "permission_mode": "ask",
                "position": 1,
                "created_at": T0,
            },
        )
        _insert(
            conn,
            "turn_queue",
            {
                "id": "q-2",
                "session_id": "s-agent",
                "principal": "user",
                "input_hash": "h2",
                "content": "second queued prompt",
                "attachments_json": "[]",
                "permission_mode": "ask",
                "position": 2,
                "created_at": T0 + 1,
            },
        )
        built.queue = ["q-1", "q-2"]
    if _has(conn, "session_collaboration_links"):
        _insert(
            conn,
            "session_collaboration_links",
            {"session_id": "s-goal", "created_by_session_id": "s-agent", "plugin_id": "collab", "created_at": T0},
        )
    if _has(conn, "session_todo"):
        _insert(
            conn,
            "session_todo",
            {
                "session_id": "s-agent",
                "position": 0,
                "content": "write the tests",
                "status": "in_progress",
                "updated_at": T0,
            },
        )
    if _has(conn, "worktrees"):
        _insert(
            conn,
            "worktrees",
            {
                "id": "wt-1",
                "project_id": 1,
                "session_id": "s-agent",
                "path": "/home/user/wt/one",
                "branch": "pi/one",
                "created_at": T0,
                "updated_at": T0,
            },
        )


# -- comparing schemas ------------------------------------------------------------


def schema_of(conn: apsw.Connection) -> dict:
    """Everything that makes up a schema, for an object-for-object comparison.

    ``sqlite_master`` rows (type, name, tbl_name, sql text), and per table its
    ``table_xinfo``, ``index_list`` and ``foreign_key_list``, per index its
    ``index_xinfo``, and ``user_version``. Root pages and row order are left
    out: they say where things are in the file, not what they are.
    """
    master = sorted(tuple(row) for row in conn.execute("SELECT type, name, tbl_name, sql FROM sqlite_master"))
    tables, indexes = {}, {}
    for kind, name, _table, _sql in master:
        if kind == "table":
            tables[name] = {
                "columns": [tuple(r) for r in conn.execute(f'PRAGMA table_xinfo("{name}")')],
                "indexes": sorted(tuple(r)[1:] for r in conn.execute(f'PRAGMA index_list("{name}")')),
                "foreign_keys": [tuple(r) for r in conn.execute(f'PRAGMA foreign_key_list("{name}")')],
            }
        elif kind == "index":
            indexes[name] = [tuple(r) for r in conn.execute(f'PRAGMA index_xinfo("{name}")')]
    version = conn.execute("PRAGMA user_version").fetchone()[0]
    return {"master": master, "tables": tables, "indexes": indexes, "user_version": version}


def fresh_v27_schema() -> dict:
    from pidesktop.formats.index.schema import ddl

    conn = apsw.Connection(":memory:")
    try:
        conn.execute(ddl())
        conn.execute("PRAGMA user_version = 27")
        return schema_of(conn)
    finally:
        conn.close()


def schema_differences(actual: dict, expected: dict) -> list[str]:
    """Readable differences between two ``schema_of`` results; empty when they are equal."""
    out = []
    a_master = {row[1]: row for row in actual["master"]}
    e_master = {row[1]: row for row in expected["master"]}
    for name in sorted(set(a_master) | set(e_master)):
        if a_master.get(name) != e_master.get(name):
            out.append(f"sqlite_master {name}: {a_master.get(name)!r} != {e_master.get(name)!r}")
    for group in ("tables", "indexes"):
        for name in sorted(set(actual[group]) | set(expected[group])):
            if actual[group].get(name) != expected[group].get(name):
                out.append(f"{group} {name}: {actual[group].get(name)!r} != {expected[group].get(name)!r}")
    if actual["user_version"] != expected["user_version"]:
        out.append(f"user_version {actual['user_version']} != {expected['user_version']}")
    return out


def dump(conn: apsw.Connection) -> dict[str, list[tuple]]:
    """Every row of every table (FTS shadow tables included), for "nothing changed" checks."""
    tables = [
        name
        for (name,) in conn.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND sql NOT LIKE 'CREATE VIRTUAL%' ORDER BY name"
        )
    ]
    return {name: sorted(conn.execute(f'SELECT * FROM "{name}"').fetchall(), key=repr) for name in tables}
