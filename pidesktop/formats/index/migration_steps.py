"""The schema steps from v7 to v27 (spec 004, section 7), one function each.

Each function is registered by ``@step(from_version, to_version)`` right
above it (as sqlite-utils' migrations are), gets the open connection inside
its step's transaction and changes only what its version changed;
``migrations`` runs the registered steps (``STEPS``, in order of the version
they start from), sets ``user_version`` after each and keeps the backups. Versions whose change
the spec does not describe (v12, v13) are version-only, and so is v26 (its
change is in the transcript format). v18 (``turn_queue.priority``) and v21
(the ``session_todo`` checklist) are described in spec 004 section 4.

Every definition comes from the v27 DDL (``schema/v27.sql``): a table as it
was at an older version is the v27 statement with the later columns taken
out (``table_sql_at``), and every index, trigger and table a step creates is
the v27 statement itself. A step that adds a column rebuilds the table (the
twelve-step procedure of https://www.sqlite.org/lang_altertable.html) instead
of ``ALTER TABLE ADD COLUMN``: the column lands where v27 lists it and the
stored ``CREATE TABLE`` text is the v27 text, so a walked database equals a
fresh v27 one object for object (``sqlite_master`` text included).

The connection that runs the steps must have ``PRAGMA foreign_keys`` OFF
(SQLite's default, and it cannot change inside a transaction): with it ON,
dropping the old copy of ``sessions`` would cascade-delete every message.
``rebuild`` refuses to run otherwise. Foreign keys are checked once, over the
whole database, after the last step (``migrations._check_result``): a rebuild
copies every row with its key, so a check after each one would read every
message ten times over for nothing the final check does not catch.

Values the guarded v8-v11 step cannot map fail closed with ``StepRefused``,
which names the value and where it was (table, row id, key).
"""

from __future__ import annotations

import functools
import re
import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import apsw
import orjson

from pidesktop.formats.index.schema import ddl
from pidesktop.formats.index.sql_rows import all_rows, one_row


class StepRefused(Exception):
    """A stored value a step cannot carry over; the step's transaction rolls back.

    ``where`` names the place (``sessions.mode (id 's1')``,
    ``kv(app, settings).defaultCommandShell``, ...), ``value`` the stored
    value, ``reason`` what is wrong with it.
    """

    def __init__(self, where: str, value: object, reason: str) -> None:
        self.where, self.value, self.reason = where, value, reason
        super().__init__(f"{where}: {value!r} {reason}")


# -- the registry ---------------------------------------------------------------

StepFunction = Callable[[apsw.Connection], None]


@dataclass(frozen=True)
class Step:
    from_version: int
    to_version: int
    apply: StepFunction  # runs inside the step's transaction
    backup: bool = False  # destructive: its own pi.sqlite.v<from_version>.bak before it runs


# Every step ``@step`` registered, ordered by the version it starts from (at most one step from each).
STEPS: list[Step] = []


def step(from_version: int, to_version: int, *, backup: bool = False) -> Callable[[StepFunction], StepFunction]:
    """Register the function below as the step from ``from_version`` to ``to_version``.

    Decorators stack: one function may be the step from several versions.
    """

    def register(function: StepFunction) -> StepFunction:
        if to_version <= from_version:
            raise ValueError(f"a migration step must go up, not v{from_version} -> v{to_version}")
        if any(known.from_version == from_version for known in STEPS):
            raise ValueError(f"two migration steps start at v{from_version}")
        STEPS.append(Step(from_version, to_version, function, backup))
        STEPS.sort(key=lambda known: known.from_version)
        return function

    return register


# -- the history: what each version added (spec 004, sections 4 and 7) --------

BASE_VERSION = 7  # the v7 reset (D119): every object not listed below is from v7

# Objects (tables, indexes) by the version that created them.
OBJECT_VERSIONS: dict[str, int] = {
    "plan_approvals": 8,
    "idx_plan_approvals_session": 8,
    "idx_plan_approvals_pending": 8,
    "idx_plan_approvals_one_pending_session": 8,
    "idx_plan_approvals_execution_queue": 11,
    "idx_plan_approvals_execution_id": 11,
    "idx_sessions_deleted": 14,
    "session_import_origins": 14,
    "idx_session_import_origins_plugin": 14,
    "turn_queue": 15,
    "idx_turn_queue_session": 15,
    "idx_turn_queue_idempotency": 15,
    "session_collaboration_links": 16,
    "session_collaboration_messages": 16,
    "idx_session_collaboration_turn": 16,
    "idx_session_collaboration_receipt": 16,
    "idx_providers_owner": 17,
    "session_todo": 21,
    "idx_session_todo_one_in_progress": 21,
    "idx_sessions_updated_id": 22,
    "worktrees": 24,
    "idx_worktrees_project": 24,
}

# Columns added to a table that already existed, by version.
COLUMN_VERSIONS: dict[tuple[str, str], int] = {
    ("plan_approvals", "kind"): 11,
    ("plan_approvals", "artifact_relative_path"): 11,
    ("plan_approvals", "artifact_sha256"): 11,
    ("plan_approvals", "artifact_size_bytes"): 11,
    ("plan_approvals", "version"): 11,
    ("plan_approvals", "execution_id"): 11,
    ("plan_approvals", "execution_state"): 11,
    ("sessions", "deleted_at"): 14,
    ("turn_queue", "session_message_id"): 16,
    ("providers", "owner_plugin_id"): 17,
    ("turn_queue", "priority"): 18,
    ("turn_queue", "user_message_id"): 20,
    ("turn_queue", "voice_origin_json"): 20,
    ("sessions", "todo_revision"): 21,
    ("sessions", "todo_updated_at"): 21,
    ("sessions", "title_source"): 23,
    ("projects", "worktree_setup_command"): 24,
    ("models", "discovery_state"): 25,
    ("sessions", "fast_mode"): 27,
}

THINKING_OMIT_VERSION = 19  # sessions.thinking_level CHECK gains 'omit'

# The session-list index v22 replaced (the spec names it, not its columns).
OLD_SESSIONS_INDEX = ("idx_sessions_updated", "CREATE INDEX idx_sessions_updated ON sessions(updated_at DESC)")

MODES = ("plan", "goal", "agent")
LEGACY_MODES = {"chat": "plan"}

# The command-shell catalog by platform (spec 004 names the setting and the
# rule, not the ids; these are the Pi Desktop catalog's stable ids).
COMMAND_SHELLS = {
    "windows": ("windows-powershell", "windows-pwsh", "cmd", "git-bash"),
    "posix": ("bash",),
}


def platform_shells(platform: str | None = None) -> tuple[str, ...]:
    """The ``defaultCommandShell`` ids valid on ``platform`` (default: this one)."""
    platform = sys.platform if platform is None else platform
    return COMMAND_SHELLS["windows" if platform.startswith("win") else "posix"]


@functools.cache
def v27_objects() -> dict[str, tuple[str, str, str]]:
    """name -> (type, tbl_name, sql) of every object a fresh v27 DDL creates, in creation order."""
    conn = apsw.Connection(":memory:")
    try:
        conn.execute(ddl())
        rows = all_rows(
            conn.execute("SELECT name, type, tbl_name, sql FROM sqlite_master WHERE sql IS NOT NULL ORDER BY rowid")
        )
    finally:
        conn.close()
    return {name: (kind, table, sql) for name, kind, table, sql in rows}


def introduced(name: str) -> int:
    return OBJECT_VERSIONS.get(name, BASE_VERSION)


def table_sql_at(table: str, version: int) -> str:
    """The ``CREATE TABLE`` text of ``table`` at ``version``: v27's, without the later columns."""
    sql = v27_objects()[table][2]
    for (name, column), added in COLUMN_VERSIONS.items():
        if name == table and added > version:
            sql = drop_column(sql, column)
    if table == "sessions" and version < THINKING_OMIT_VERSION:
        sql = _replace_once(sql, "'max', 'omit'", "'max'")
    return sql


def objects_at(version: int) -> list[tuple[str, str, str]]:
    """(type, name, sql) of every object of a ``version`` database, in creation order."""
    out = []
    for name, (kind, _table, sql) in v27_objects().items():
        if introduced(name) > version or _is_shadow(name):
            continue
        if kind == "table" and not sql.startswith("CREATE VIRTUAL"):
            sql = table_sql_at(name, version)
        out.append((kind, name, sql))
        if name == "sessions" and version < 22:
            out.append(("index", *OLD_SESSIONS_INDEX))
    return out


def drop_column(sql: str, column: str) -> str:
    """``sql`` (a v27 ``CREATE TABLE``, one column per line) without ``column``.

    The column's lines are its first line, any comment-only lines just above
    it, and the lines that continue it (open parentheses, a ``CHECK`` on the
    next line). Taking out the last column takes the comma before it too.
    """
    lines = sql.split("\n")
    start = next((i for i, line in enumerate(lines) if re.match(rf"{re.escape(column)}\s", line)), None)
    if start is None:
        raise ValueError(f"no column {column} in {sql.splitlines()[0]}")
    first = start
    while first > 1 and lines[first - 1].lstrip().startswith("--"):
        first -= 1
    end, depth = start, _depth(lines[start])
    while depth > 0 or (end + 1 < len(lines) and lines[end + 1].lstrip().startswith("CHECK")):
        end += 1
        depth += _depth(lines[end])
    kept = lines[:first] + lines[end + 1 :]
    if end + 1 < len(lines) and lines[end + 1].lstrip().startswith(")"):
        previous = first - 1
        while kept[previous].lstrip().startswith("--"):
            previous -= 1
        kept[previous] = re.sub(r",(\s*(--.*)?)$", r"\1", kept[previous])
    return "\n".join(kept)


def _depth(line: str) -> int:
    code = re.sub(r"'[^']*'", "''", line).split("--", 1)[0]
    return code.count("(") - code.count(")")


def _replace_once(text: str, old: str, new: str) -> str:
    if text.count(old) != 1:
        raise ValueError(f"expected {old!r} once")
    return text.replace(old, new)


def _is_shadow(name: str) -> bool:
    return name.startswith("messages_fts_")  # FTS5 creates these with its table


# -- building blocks ------------------------------------------------------------


def create_objects(conn: apsw.Connection, version: int) -> None:
    """Create every table and index ``version`` introduced, as v27 (or ``version``) defines it."""
    for _kind, name, sql in objects_at(version):
        if introduced(name) == version:
            conn.execute(sql)


def rebuild(conn: apsw.Connection, table: str, version: int) -> None:
    """Recreate ``table`` as it is at ``version``, keeping every row, rowid, index and trigger.

    SQLite's twelve-step rebuild, in the order that keeps the new table's
    stored text exactly the v27 text: the old table is renamed aside with
    ``legacy_alter_table`` on (so the other tables' ``REFERENCES`` clauses
    still name ``table``), the new one is created, filled, the old one
    dropped, and the indexes and triggers recreated from their own text.
    Columns the old table lacks take their defaults.
    """
    if one_row(conn.execute("PRAGMA foreign_keys"))[0]:
        raise RuntimeError("a table rebuild needs PRAGMA foreign_keys OFF on the migrating connection")
    new_sql = table_sql_at(table, version)
    attached = all_rows(
        conn.execute(
            "SELECT sql FROM sqlite_master WHERE tbl_name = ? AND type IN ('index', 'trigger') "
            "AND sql IS NOT NULL ORDER BY rowid",
            (table,),
        )
    )
    old_columns = _columns(conn, table)
    aside = f"_old_{table}"
    legacy = one_row(conn.execute("PRAGMA legacy_alter_table"))[0]
    conn.execute("PRAGMA legacy_alter_table = ON")
    try:
        conn.execute(f'ALTER TABLE "{table}" RENAME TO "{aside}"')
        conn.execute(new_sql)
        new_columns = _columns(conn, table)
        lost = [column for column in old_columns if column not in new_columns]
        if lost:
            raise StepRefused(table, lost, f"are columns the v{version} table does not have")
        names = ", ".join(f'"{column}"' for column in old_columns)
        if _keeps_rowid(conn, table):
            conn.execute(f'INSERT INTO "{table}" (rowid, {names}) SELECT rowid, {names} FROM "{aside}"')
        else:
            conn.execute(f'INSERT INTO "{table}" ({names}) SELECT {names} FROM "{aside}"')
        conn.execute(f'DROP TABLE "{aside}"')
        for (sql,) in attached:
            conn.execute(sql)
    finally:
        conn.execute(f"PRAGMA legacy_alter_table = {int(legacy)}")


def _columns(conn: apsw.Connection, table: str) -> list[str]:
    return [name for (name,) in conn.execute("SELECT name FROM pragma_table_info(?)", (table,))]


def _keeps_rowid(conn: apsw.Connection, table: str) -> bool:
    """True for a rowid table whose rowid is not already a column (INTEGER PRIMARY KEY)."""
    (without,) = one_row(conn.execute("SELECT wr FROM pragma_table_list WHERE schema = 'main' AND name = ?", (table,)))
    if without:
        return False
    keys = all_rows(conn.execute("SELECT type FROM pragma_table_info(?) WHERE pk > 0", (table,)))
    return not (len(keys) == 1 and keys[0][0].upper() == "INTEGER")


def _exists(conn: apsw.Connection, name: str) -> bool:
    return conn.execute("SELECT 1 FROM sqlite_master WHERE name = ?", (name,)).fetchone() is not None


# -- the steps ----------------------------------------------------------------


@step(11, 12)
@step(12, 13)
@step(25, 26, backup=True)  # v26 changed the transcript format only
def version_only(conn: apsw.Connection) -> None:
    """A step that changes nothing but the version number."""


@step(7, 8)
def v7_to_v8(conn: apsw.Connection) -> None:
    """v8: Plan mode's approvals table and its three indexes (the v8 shape).

    Legacy ``chat`` values stay as they are here: the guarded step that
    follows maps and validates them after its own v8 backup.
    """
    create_objects(conn, 8)


# v8, v9 and v10 take the same guarded path straight to v11 (spec 004 section 7).
@step(8, 11, backup=True)
@step(9, 11, backup=True)
@step(10, 11, backup=True)
def guarded_to_v11(conn: apsw.Connection) -> None:
    """v8, v9 and v10 to v11, in one transaction (spec 004, section 7).

    Maps ``chat`` to ``plan`` in ``sessions.mode``, the app settings'
    top-level ``defaultMode`` and each scheduled task's top-level
    ``config_json.mode`` (nested modes are left alone), drops the legacy
    ``planApprovalPermissionMode`` setting, validates every mode as
    plan | goal | agent and ``defaultCommandShell`` against this platform's
    catalog, and brings ``plan_approvals`` to its v11 shape: the artifact and
    execution fields and indexes, and ``kind`` (existing rows are plans) when
    ``pragma_table_info`` says it is absent. A table that already has every
    v11 column is not rebuilt.
    """
    _map_session_modes(conn)
    _map_app_settings(conn)
    _map_task_modes(conn)
    _upgrade_plan_approvals(conn)


def _mode(where: str, value: Any) -> str:
    mapped = LEGACY_MODES.get(value, value) if isinstance(value, str) else value
    if mapped not in MODES:
        raise StepRefused(where, value, "is not a mode (plan, goal, agent, or legacy chat)")
    return mapped


def _map_session_modes(conn: apsw.Connection) -> None:
    for session_id, mode in conn.execute("SELECT id, mode FROM sessions ORDER BY rowid").fetchall():
        mapped = _mode(f"sessions.mode (id {session_id!r})", mode)
        if mapped != mode:
            conn.execute("UPDATE sessions SET mode = ? WHERE id = ?", (mapped, session_id))


def _map_app_settings(conn: apsw.Connection) -> None:
    where = "kv(app, settings)"
    row = conn.execute("SELECT value_json FROM kv WHERE ns = 'app' AND key = 'settings'").fetchone()
    if row is None:
        return
    settings = _json_object(where, row[0])
    changed = dict(settings)
    if "defaultMode" in settings:
        changed["defaultMode"] = _mode(f"{where}.defaultMode", settings["defaultMode"])
    changed.pop("planApprovalPermissionMode", None)
    if "defaultCommandShell" in settings:
        shell = settings["defaultCommandShell"]
        shells = platform_shells()
        if not isinstance(shell, str) or shell not in shells:
            raise StepRefused(
                f"{where}.defaultCommandShell",
                shell,
                "is not a command shell of this platform (" + ", ".join(shells) + ")",
            )
    if changed != settings or list(changed) != list(settings):
        conn.execute(
            "UPDATE kv SET value_json = ? WHERE ns = 'app' AND key = 'settings'", (orjson.dumps(changed).decode(),)
        )


def _map_task_modes(conn: apsw.Connection) -> None:
    for task_id, config_json in conn.execute("SELECT id, config_json FROM scheduled_tasks ORDER BY rowid").fetchall():
        where = f"scheduled_tasks.config_json (id {task_id!r})"
        config = _json_object(where, config_json)
        if "mode" not in config:
            continue
        mapped = _mode(f"{where}.mode", config["mode"])
        if mapped != config["mode"]:
            config["mode"] = mapped
            conn.execute(
                "UPDATE scheduled_tasks SET config_json = ? WHERE id = ?", (orjson.dumps(config).decode(), task_id)
            )


def _json_object(where: str, text: Any) -> dict[str, Any]:
    try:
        value = orjson.loads(text) if isinstance(text, (str, bytes)) else None
    except orjson.JSONDecodeError as exc:
        raise StepRefused(where, text, f"is not valid JSON ({exc})") from exc
    if not isinstance(value, dict):
        raise StepRefused(where, text, "is not a JSON object")
    return value


def _upgrade_plan_approvals(conn: apsw.Connection) -> None:
    columns = set(_columns(conn, "plan_approvals"))
    if not columns:
        conn.execute(table_sql_at("plan_approvals", 11))
    elif not set(_columns_at("plan_approvals", 11)) <= columns:
        rebuild(conn, "plan_approvals", 11)  # copies kind only where the old table had it
    for name, (kind, table, sql) in v27_objects().items():
        if kind == "index" and table == "plan_approvals" and introduced(name) <= 11 and not _exists(conn, name):
            conn.execute(sql)


@functools.cache
def _columns_at(table: str, version: int) -> tuple[str, ...]:
    conn = apsw.Connection(":memory:")
    try:
        conn.execute(table_sql_at(table, version))
        return tuple(_columns(conn, table))
    finally:
        conn.close()


@step(13, 14, backup=True)
def v13_to_v14(conn: apsw.Connection) -> None:
    """v14: ``sessions.deleted_at`` (rebuild), its partial index, ``session_import_origins``."""
    rebuild(conn, "sessions", 14)
    create_objects(conn, 14)


@step(14, 15, backup=True)
def v14_to_v15(conn: apsw.Connection) -> None:
    """v15: the ``turn_queue`` table (its v15 columns) and its two indexes."""
    create_objects(conn, 15)


@step(15, 16, backup=True)
def v15_to_v16(conn: apsw.Connection) -> None:
    """v16: the collaboration link and delivery tables and indexes; ``turn_queue.session_message_id`` (rebuild)."""
    rebuild(conn, "turn_queue", 16)
    create_objects(conn, 16)


@step(16, 17, backup=True)
def v16_to_v17(conn: apsw.Connection) -> None:
    """v17: ``providers.owner_plugin_id`` (rebuild) and its partial index; every row keeps a NULL owner."""
    rebuild(conn, "providers", 17)
    create_objects(conn, 17)


@step(17, 18)
def v17_to_v18(conn: apsw.Connection) -> None:
    """v18: ``turn_queue.priority`` (rebuild), NULL until an entry is promoted."""
    rebuild(conn, "turn_queue", 18)


@step(18, 19)
def v18_to_v19(conn: apsw.Connection) -> None:
    """v19: ``sessions.thinking_level`` accepts ``omit`` (a CHECK change: rebuild)."""
    rebuild(conn, "sessions", 19)


@step(19, 20, backup=True)
def v19_to_v20(conn: apsw.Connection) -> None:
    """v20: ``turn_queue.user_message_id`` and ``voice_origin_json`` (rebuild), unset."""
    rebuild(conn, "turn_queue", 20)


@step(20, 21)
def v20_to_v21(conn: apsw.Connection) -> None:
    """v21: the ``session_todo`` checklist and its index; ``sessions.todo_revision``/``todo_updated_at`` (rebuild)."""
    rebuild(conn, "sessions", 21)
    create_objects(conn, 21)


@step(21, 22, backup=True)
def v21_to_v22(conn: apsw.Connection) -> None:
    """v22: ``idx_sessions_updated_id`` replaces ``idx_sessions_updated``."""
    conn.execute(f"DROP INDEX IF EXISTS {OLD_SESSIONS_INDEX[0]}")
    create_objects(conn, 22)


@step(22, 23, backup=True)
def v22_to_v23(conn: apsw.Connection) -> None:
    """v23: ``sessions.title_source`` (rebuild); every existing title is ``legacy``."""
    rebuild(conn, "sessions", 23)


@step(23, 24, backup=True)
def v23_to_v24(conn: apsw.Connection) -> None:
    """v24: ``projects.worktree_setup_command`` (rebuild) and the ``worktrees`` registry."""
    rebuild(conn, "projects", 24)
    create_objects(conn, 24)


@step(24, 25, backup=True)
def v24_to_v25(conn: apsw.Connection) -> None:
    """v25: ``models.discovery_state`` (rebuild); discovered rows are marked published, user rows stay unknown."""
    rebuild(conn, "models", 25)
    conn.execute("UPDATE models SET discovery_state = 'published' WHERE source = 'discovered'")


@step(26, 27, backup=True)
def v26_to_v27(conn: apsw.Connection) -> None:
    """v27: ``sessions.fast_mode`` (rebuild), 0 for every existing session."""
    rebuild(conn, "sessions", 27)
