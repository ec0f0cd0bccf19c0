"""What settings sync carries, read from and written back to this data root.

Every synced thing is one key in a flat snapshot, so the merge works per key:

- ``setting/<name>``: one field of the app settings (``kv(app, settings)``), so
  two machines changing different settings never conflict;
- ``kv/<ns>/<key>``: the provider order and default model, the
  person's model prices, project memory (by project path), project groups with
  their memory and instructions,
  and MCP servers (kv ns ``mcpServers``, once the app stores them there);
- ``provider/<id>`` and ``model/<provider>/<model>``: the providers and models
  tables, without their secret references;
- ``provider-key/<id>``: a provider's API key, only when "sync keys too" is on;
- ``automation/<id>``: a scheduled task. ``armedOn`` names the one machine it
  runs on (``armedOnName``: that computer's name from Settings > Sync): arming it
  here takes it over, and every other machine keeps it switched off and says
  which computer it runs on (``host/automations/armed.py``), so an automation
  never runs twice.

Rows a plugin declared (``owner_plugin_id``) belong to that plugin's machine and
are left out. Local-only bookkeeping (times of the last run, sessions) stays.
"""

from __future__ import annotations

from typing import Any

import apsw
import orjson

from pidesktop.formats.index.sql_rows import all_rows
from pidesktop.host import kv
from pidesktop.host.automations import armed
from pidesktop.host.context import HostContext
from pidesktop.host.settings import secrets
from pidesktop.host.settings.providers import DEFAULT_KEY, ORDER_KEY, secret_ref_for

# Whole kv namespaces that sync, and single keys of the shared "app" namespace.
SYNCED_NAMESPACES = (
    "modelPrice",
    "projectMemory",
    "projectGroups",
    "projectGroupMemory",
    "projectGroupInstructions",
    "mcpServers",
)
SYNCED_APP_KEYS = (ORDER_KEY, DEFAULT_KEY)

_PROVIDER_FIELDS = (
    "name",
    "vendor_key",
    "type",
    "protocol",
    "api_style",
    "auth_kind",
    "base_url",
    "enabled",
    "default_model_id",
    "config_json",
    "created_at",
)
_MODEL_FIELDS = (
    "display_name",
    "source",
    "capabilities_json",
    "context_window",
    "max_output_tokens",
    "deprecated",
    "discovery_state",
)
_TASK_FIELDS = ("title", "prompt", "cadence", "config_json", "created_at")


def gather(ctx: HostContext, machine: str, sync_keys: bool, machine_name: str = "") -> dict[str, Any]:
    """Every synced value of this data root, by key; ``machine_name`` names this computer on the tasks armed here."""
    conn = ctx.conn
    values: dict[str, Any] = {}
    stored = kv.get(conn, "app", "settings", {})
    for name, value in (stored if isinstance(stored, dict) else {}).items():
        values[f"setting/{name}"] = value
    for key in SYNCED_APP_KEYS:
        value = kv.get(conn, "app", key)
        if value is not None:
            values[f"kv/app/{key}"] = value
    marks = ",".join("?" * len(SYNCED_NAMESPACES))
    for ns, key, raw in all_rows(
        conn.execute(f"SELECT ns, key, value_json FROM kv WHERE ns IN ({marks})", SYNCED_NAMESPACES)
    ):
        values[f"kv/{ns}/{key}"] = orjson.loads(raw)
    columns = ", ".join(_PROVIDER_FIELDS)
    for row in all_rows(conn.execute(f"SELECT id, {columns} FROM providers WHERE owner_plugin_id IS NULL")):
        values[f"provider/{row[0]}"] = dict(zip(_PROVIDER_FIELDS, row[1:], strict=True))
        if sync_keys:
            secret = secrets.get(ctx, secret_ref_for(str(row[0])))
            if secret is not None:
                values[f"provider-key/{row[0]}"] = secret
    columns = ", ".join(_MODEL_FIELDS)
    query = (
        f"SELECT m.provider_id, m.model_id, {', '.join('m.' + c for c in _MODEL_FIELDS)} FROM models m "
        "JOIN providers p ON p.id = m.provider_id WHERE p.owner_plugin_id IS NULL"
    )
    for row in all_rows(conn.execute(query)):
        values[f"model/{row[0]}/{row[1]}"] = dict(zip(_MODEL_FIELDS, row[2:], strict=True))
    columns = ", ".join(_TASK_FIELDS)
    elsewhere = armed.all_entries(conn)
    for row in all_rows(conn.execute(f"SELECT id, enabled, {columns} FROM scheduled_tasks")):
        task = dict(zip(_TASK_FIELDS, row[2:], strict=True))
        other = elsewhere.get(str(row[0]))
        if row[1]:
            task["armedOn"], task["armedOnName"] = machine, machine_name
        elif other is not None:  # switched off here because it runs there: still armed there
            task["armedOn"], task["armedOnName"] = other["machine"], other["name"]
        else:
            task["armedOn"], task["armedOnName"] = None, None
        values[f"automation/{row[0]}"] = task
    return values


def _order(key: str) -> int:
    """Providers before their models on insert; the reverse on delete."""
    return 0 if key.startswith("provider/") else 1 if key.startswith("model/") else 2


def apply(ctx: HostContext, machine: str, changes: dict[str, Any], deletions: list[str]) -> None:
    """Write merged values into this data root: ``changes`` set, ``deletions`` removed, in one transaction.

    Provider keys go to the secret store after the rows they belong to.
    """
    conn = ctx.conn
    now = ctx.clock()
    keys_to_store: list[tuple[str, str | None]] = []
    with conn:
        for key in sorted(deletions, key=_order, reverse=True):
            _delete(conn, key, now, keys_to_store)
        for key in sorted(changes, key=_order):
            _set(conn, key, changes[key], machine, now, keys_to_store)
    for provider_id, secret in keys_to_store:
        ref = secret_ref_for(provider_id)
        if secret is None:
            secrets.delete(ctx, ref)
            continue
        secrets.put(ctx, ref, secret, owner_id=provider_id)
        with conn:
            conn.execute("UPDATE providers SET secret_ref = ? WHERE id = ?", (ref, provider_id))


def _set(
    conn: apsw.Connection, key: str, value: Any, machine: str, now: int, keys: list[tuple[str, str | None]]
) -> None:
    kind, _, rest = key.partition("/")
    if kind == "setting":
        _set_setting(conn, rest, value, now)
    elif kind == "kv":
        ns, _, name = rest.partition("/")
        kv.put(conn, ns, name, value, now)
    elif kind == "provider":
        row = [value.get(field) for field in _PROVIDER_FIELDS]
        sets = ", ".join(f"{field} = excluded.{field}" for field in _PROVIDER_FIELDS)
        conn.execute(
            f"INSERT INTO providers(id, {', '.join(_PROVIDER_FIELDS)}, updated_at) "
            f"VALUES (?, {', '.join('?' * len(row))}, ?) ON CONFLICT(id) DO UPDATE SET {sets}, "
            "updated_at = excluded.updated_at",
            (rest, *row, now),
        )
    elif kind == "provider-key":
        keys.append((rest, str(value)))
    elif kind == "model":
        provider_id, _, model_id = rest.partition("/")
        row = [value.get(field) for field in _MODEL_FIELDS]
        sets = ", ".join(f"{field} = excluded.{field}" for field in _MODEL_FIELDS)
        conn.execute(
            f"INSERT INTO models(provider_id, model_id, {', '.join(_MODEL_FIELDS)}, updated_at) "
            f"VALUES (?, ?, {', '.join('?' * len(row))}, ?) ON CONFLICT(provider_id, model_id) DO UPDATE SET "
            f"{sets}, updated_at = excluded.updated_at",
            (provider_id, model_id, *row, now),
        )
    elif kind == "automation":
        row = [value.get(field) for field in _TASK_FIELDS]
        armed_here = value.get("armedOn") == machine
        elsewhere = None if armed_here or not value.get("armedOn") else str(value["armedOn"])
        armed.remember(conn, rest, elsewhere, str(value.get("armedOnName") or ""), now)
        sets = ", ".join(f"{field} = excluded.{field}" for field in _TASK_FIELDS)
        conn.execute(
            f"INSERT INTO scheduled_tasks(id, enabled, {', '.join(_TASK_FIELDS)}, updated_at) "
            f"VALUES (?, ?, {', '.join('?' * len(row))}, ?) ON CONFLICT(id) DO UPDATE SET enabled = excluded.enabled, "
            f"{sets}, updated_at = excluded.updated_at",
            (rest, int(armed_here), *row, now),
        )


def _delete(conn: apsw.Connection, key: str, now: int, keys: list[tuple[str, str | None]]) -> None:
    kind, _, rest = key.partition("/")
    if kind == "setting":
        _set_setting(conn, rest, None, now)
    elif kind == "kv":
        ns, _, name = rest.partition("/")
        kv.delete(conn, ns, name)
    elif kind == "provider":
        conn.execute("DELETE FROM providers WHERE id = ? AND owner_plugin_id IS NULL", (rest,))
    elif kind == "provider-key":
        keys.append((rest, None))
    elif kind == "model":
        provider_id, _, model_id = rest.partition("/")
        conn.execute("DELETE FROM models WHERE provider_id = ? AND model_id = ?", (provider_id, model_id))
    elif kind == "automation":
        conn.execute("DELETE FROM scheduled_tasks WHERE id = ?", (rest,))
        armed.remember(conn, rest, None, "", now)


def _set_setting(conn: apsw.Connection, name: str, value: Any, now: int) -> None:
    """One field of the ``kv(app, settings)`` blob; ``None`` removes it (as ``settings.set`` does)."""
    stored = kv.get(conn, "app", "settings", {})
    merged = dict(stored) if isinstance(stored, dict) else {}
    if value is None:
        merged.pop(name, None)
    else:
        merged[name] = value
    kv.put(conn, "app", "settings", merged, now)
