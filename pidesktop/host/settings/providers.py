"""Provider rows, their display order, the default model and their API keys (spec 004, 4.3).

A provider's API key lives in the encrypted secret store under
``provider:<id>:api_key``; rows and results only ever say ``hasKey``. The one
exception is ``providers.credentials``, which the agent runtime calls to reach
the provider.

Display order is ``kv(app, providers.order)``: saved ids first, then the
rest in creation order; ids that no longer exist are skipped. The default
model is ``kv(app, defaultModel)``; the built-in ``offline`` provider always
exists and never has a row.
"""

from __future__ import annotations

import logging
import os
import re
import unicodedata
from typing import Any
from urllib.parse import urlsplit

import apsw
import orjson

from pidesktop.bus import topics
from pidesktop.bus.errors import ErrorCode, HostError
from pidesktop.formats.index.sql_rows import one_row
from pidesktop.host import kv
from pidesktop.host.commands import command
from pidesktop.host.context import HostContext
from pidesktop.host.params import Params, invalid
from pidesktop.host.settings import secrets

log = logging.getLogger("pidesktop.host.settings.providers")

NS = "app"
ORDER_KEY = "providers.order"
DEFAULT_KEY = "defaultModel"
OFFLINE_PROVIDER = "offline"
OFFLINE_MODEL = "offline-demo"
NAME_MAX = 80
URL_MAX = 2048
API_KEY_MAX = 8192
CONFIG_MAX_BYTES = 64 * 1024
MODEL_ID_MAX = 200

# Provider ids go into secret refs (``provider:<id>:api_key``) and model
# selections, so they keep to a small alphabet without ':'.
_ID_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")

_COLUMNS = (
    "p.id, p.name, p.vendor_key, p.type, p.protocol, p.api_style, p.auth_kind, p.base_url, "
    "p.enabled, m.secret_ref IS NOT NULL, p.default_model_id, p.config_json, p.owner_plugin_id, "
    "p.created_at, p.updated_at"
)
_SELECT = f"SELECT {_COLUMNS} FROM providers p LEFT JOIN secrets_meta m ON m.secret_ref = p.secret_ref"


def secret_ref_for(provider_id: str) -> str:
    return f"provider:{provider_id}:api_key"


def nested(p: Params, name: str) -> Params:
    """Params over the object ``name``, so errors name ``name.field``."""
    obj = p.obj(name)
    return Params(p.method, {f"{name}.{key}": value for key, value in obj.items()})


def require(conn: apsw.Connection, provider_id: str) -> None:
    if conn.execute("SELECT 1 FROM providers WHERE id = ?", (provider_id,)).fetchone() is None:
        raise not_found(provider_id)


def not_found(provider_id: str) -> HostError:
    return HostError(ErrorCode.NOT_FOUND, f"There is no provider with id {provider_id!r}.")


def display_order(conn: apsw.Connection) -> list[str]:
    """Every provider id in display order."""
    by_creation = [r[0] for r in conn.execute("SELECT id FROM providers ORDER BY created_at, rowid")]
    existing = set(by_creation)
    saved = kv.get(conn, NS, ORDER_KEY, [])
    ordered: list[str] = []
    for pid in saved if isinstance(saved, list) else []:
        if isinstance(pid, str) and pid in existing and pid not in ordered:
            ordered.append(pid)
    placed = set(ordered)
    return ordered + [pid for pid in by_creation if pid not in placed]


def read(conn: apsw.Connection, provider_id: str) -> dict[str, Any]:
    row = conn.execute(_SELECT + " WHERE p.id = ?", (provider_id,)).fetchone()
    if row is None:
        raise not_found(provider_id)
    return _to_provider(row)


def read_all(conn: apsw.Connection) -> list[dict[str, Any]]:
    rows = {r[0]: _to_provider(r) for r in conn.execute(_SELECT)}
    return [rows[pid] for pid in display_order(conn)]


def default_model(conn: apsw.Connection) -> dict[str, Any]:
    """``{providerId, modelId}``; offline when nothing valid is stored."""
    stored = kv.get(conn, NS, DEFAULT_KEY)
    if isinstance(stored, dict):
        pid, mid = stored.get("providerId"), stored.get("modelId")
        if isinstance(pid, str) and pid != OFFLINE_PROVIDER and isinstance(mid, (str, type(None))):
            if conn.execute("SELECT 1 FROM providers WHERE id = ?", (pid,)).fetchone():
                return {"providerId": pid, "modelId": mid}
    return {"providerId": OFFLINE_PROVIDER, "modelId": OFFLINE_MODEL}


def _to_provider(row: tuple[Any, ...]) -> dict[str, Any]:
    (
        pid,
        name,
        vendor,
        ptype,
        protocol,
        api_style,
        auth_kind,
        base_url,
        enabled,
        has_key,
        default_model_id,
        config_json,
        owner,
        created,
        updated,
    ) = row
    try:
        config = orjson.loads(config_json)
    except orjson.JSONDecodeError:
        config = {}
    return {
        "id": pid,
        "name": name,
        "vendorKey": vendor,
        "type": ptype,
        "protocol": protocol,
        "apiStyle": api_style,
        "authKind": auth_kind,
        "baseUrl": base_url,
        "enabled": bool(enabled),
        "hasKey": bool(has_key),
        "defaultModelId": default_model_id,
        "config": config if isinstance(config, dict) else {},
        "ownerPluginId": owner,
        "createdAt": created,
        "updatedAt": updated,
    }


def _owner(conn: apsw.Connection, provider_id: str) -> tuple[bool, str | None]:
    """(exists, owner_plugin_id)."""
    row = conn.execute("SELECT owner_plugin_id FROM providers WHERE id = ?", (provider_id,)).fetchone()
    return (row is not None, row[0] if row else None)


def _refuse_plugin_row(provider_id: str, owner: str | None, action: str) -> None:
    if owner is not None:
        raise HostError(
            ErrorCode.PERMISSION_DENIED,
            f"Provider {provider_id!r} belongs to the plugin {owner!r}; it cannot be {action} here. "
            f"Change it in the plugin instead.",
            {"ownerPluginId": owner},
        )


# -- validation ---------------------------------------------------------------------------------


def validate_base_url(raw: str, field: str = "provider.baseUrl", subject: str = "The base URL") -> str:
    """The trimmed URL, or ``INVALID_PARAMS`` with a plain sentence about ``subject`` and ``data.field``."""
    url = raw.strip()
    example = "like http://localhost:11434/v1"
    try:
        parts = urlsplit(url)
        host = parts.hostname
        parts.port  # noqa: B018 - raises ValueError for a malformed port
    except ValueError:
        raise invalid(f"{subject} is not a valid web address; it should look {example}.", field) from None
    if parts.scheme not in ("http", "https"):
        raise invalid(f"{subject} must start with http:// or https://, {example}.", field)
    if not host:
        raise invalid(f"{subject} must name a server after http:// or https://, {example}.", field)
    if parts.username is not None or parts.password is not None:
        # Credentials in the URL would end up in SQLite; they belong in apiKey.
        raise invalid(
            f"{subject} must not contain a user name or password; give the key as the API key instead.", field
        )
    if any(ch.isspace() for ch in url):
        raise invalid(f"{subject} must not contain spaces.", field)
    if len(url) > URL_MAX:
        raise invalid(f"{subject} must be at most {URL_MAX} characters long.", field)
    return url


def _validate_name(raw: str) -> str:
    name = raw.strip()
    if not name:
        raise invalid("The name must not be empty.", "provider.name")
    if len(name) > NAME_MAX:
        raise invalid(f"The name must be at most {NAME_MAX} characters long; it has {len(name)}.", "provider.name")
    return name


def _validate_api_key(p: Params) -> tuple[bool, str | None]:
    """(given, value): absent -> (False, None); null -> (True, None); a key -> (True, key)."""
    if "apiKey" not in p.raw:
        return False, None
    if p.raw["apiKey"] is None:
        return True, None
    # Messages here never quote the value.
    value = p.text("apiKey", strip=True, max_chars=API_KEY_MAX)
    if not value:
        raise invalid("The API key must not be empty; to remove the stored key, send null instead.", "apiKey")
    if any(unicodedata.category(ch) == "Cc" for ch in value):
        raise invalid("The API key must not contain line breaks or other control characters.", "apiKey")
    return True, value


def _validate_config(q: Params) -> dict[str, Any] | None:
    config = q.obj("provider.config", required=False)
    if config is not None and len(orjson.dumps(config)) > CONFIG_MAX_BYTES:
        raise invalid(
            f"The provider's settings (config) must be at most {CONFIG_MAX_BYTES // 1024} KiB.", "provider.config"
        )
    return config


def _new_id(name: str) -> str:
    ascii_name = unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode()
    slug = re.sub(r"[^a-z0-9]+", "-", ascii_name.lower()).strip("-")[:32].strip("-") or "provider"
    return f"{slug}-{os.urandom(3).hex()}"


# -- commands -----------------------------------------------------------------------------------


@command("providers.list", emits=[])
def providers_list(ctx: HostContext, p: Params) -> dict[str, Any]:
    default = default_model(ctx.conn)
    return {
        "providers": read_all(ctx.conn),
        "defaultProviderId": default["providerId"],
        "defaultModelId": default["modelId"],
    }


@command("providers.upsert", emits=[topics.PROVIDERS_CHANGED])
def providers_upsert(ctx: HostContext, p: Params) -> dict[str, Any]:
    q = nested(p, "provider")
    given_id = q.text("provider.id", required=False, strip=True)
    if given_id is not None and (not _ID_RE.match(given_id) or given_id == OFFLINE_PROVIDER):
        raise invalid(
            f"A provider id must be 1 to 64 letters, digits, '.', '_' or '-', and not "
            f"{OFFLINE_PROVIDER!r}; got {given_id!r}.",
            "provider.id",
        )
    name = _validate_name(q.text("provider.name"))
    base_url = validate_base_url(q.text("provider.baseUrl"))
    vendor = q.text("provider.vendorKey", required=False, strip=True, nonempty=True, max_chars=64)
    enabled = q.boolean("provider.enabled", default=None)
    model_given = "provider.defaultModelId" in q.raw
    default_model_id = q.text(
        "provider.defaultModelId", required=False, strip=True, nonempty=True, max_chars=MODEL_ID_MAX
    )
    config = _validate_config(q)
    key_given, api_key = _validate_api_key(p)

    provider_id = given_id or _new_id(name)
    exists, owner = _owner(ctx.conn, provider_id)
    while exists and not given_id:  # a generated id that happens to be taken: draw again
        provider_id = _new_id(name)
        exists, owner = _owner(ctx.conn, provider_id)
    _refuse_plugin_row(provider_id, owner, "edited")
    now = ctx.clock()
    ref = secret_ref_for(provider_id)
    with ctx.conn:
        if exists:
            old_url = one_row(ctx.conn.execute("SELECT base_url FROM providers WHERE id = ?", (provider_id,)))[0]
            ctx.conn.execute(
                "UPDATE providers SET name = ?, base_url = ?, vendor_key = coalesce(?, vendor_key), "
                "enabled = coalesce(?, enabled), default_model_id = CASE WHEN ? THEN ? ELSE default_model_id END, "
                "config_json = coalesce(?, config_json), updated_at = ? WHERE id = ?",
                (
                    name,
                    base_url,
                    vendor,
                    None if enabled is None else int(enabled),
                    model_given,
                    default_model_id,
                    None if config is None else orjson.dumps(config).decode(),
                    now,
                    provider_id,
                ),
            )
            if old_url != base_url:
                # A new endpoint has not been asked yet: "missing at the old one" no longer holds.
                ctx.conn.execute(
                    "UPDATE models SET discovery_state = NULL WHERE provider_id = ? AND discovery_state = 'unlisted'",
                    (provider_id,),
                )
        else:
            ctx.conn.execute(
                "INSERT INTO providers(id, name, vendor_key, base_url, enabled, default_model_id, config_json, "
                "created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    provider_id,
                    name,
                    vendor or "custom",
                    base_url,
                    1 if enabled is None else int(enabled),
                    default_model_id,
                    orjson.dumps(config or {}).decode(),
                    now,
                    now,
                ),
            )
        # The secret goes last, so a failure to write it rolls the row change back.
        if key_given and api_key is not None:
            ctx.conn.execute("UPDATE providers SET secret_ref = ? WHERE id = ?", (ref, provider_id))
            secrets.put(ctx, ref, api_key, owner_kind="provider", owner_id=provider_id, kind="api_key")
        elif key_given:
            ctx.conn.execute("UPDATE providers SET secret_ref = NULL WHERE id = ?", (provider_id,))
            secrets.delete(ctx, ref)
    provider = read(ctx.conn, provider_id)
    reason = "updated" if exists else "created"
    log.info("provider %s %s", provider_id, reason)
    ctx.emit(topics.PROVIDERS_CHANGED, {"reason": reason, "providerId": provider_id})
    return {"provider": provider}


@command("providers.delete", emits=[topics.PROVIDERS_CHANGED])
def providers_delete(ctx: HostContext, p: Params) -> dict[str, Any]:
    provider_id = p.text("providerId")
    exists, owner = _owner(ctx.conn, provider_id)
    if not exists:
        raise not_found(provider_id)
    _refuse_plugin_row(provider_id, owner, "deleted")
    row_ref = one_row(ctx.conn.execute("SELECT secret_ref FROM providers WHERE id = ?", (provider_id,)))[0]
    refs = {secret_ref_for(provider_id), *secrets.refs_owned_by(ctx, "provider", provider_id)}
    if row_ref:
        refs.add(row_ref)
    with ctx.conn:
        ctx.conn.execute("DELETE FROM providers WHERE id = ?", (provider_id,))  # models cascade
        saved = kv.get(ctx.conn, NS, ORDER_KEY)
        if isinstance(saved, list) and provider_id in saved:
            kv.put(ctx.conn, NS, ORDER_KEY, [pid for pid in saved if pid != provider_id], ctx.clock())
        stored = kv.get(ctx.conn, NS, DEFAULT_KEY)
        if isinstance(stored, dict) and stored.get("providerId") == provider_id:
            kv.delete(ctx.conn, NS, DEFAULT_KEY)
        for ref in sorted(refs):
            secrets.delete(ctx, ref)
    log.info("provider %s deleted", provider_id)
    ctx.emit(topics.PROVIDERS_CHANGED, {"reason": "deleted", "providerId": provider_id})
    return {"deleted": True}


@command("providers.reorder", emits=[topics.PROVIDERS_CHANGED])
def providers_reorder(ctx: HostContext, p: Params) -> dict[str, Any]:
    order = p.array("order")
    existing = {r[0] for r in ctx.conn.execute("SELECT id FROM providers")}
    seen: set[str] = set()
    for i, pid in enumerate(order):
        if not isinstance(pid, str):
            raise invalid(f"{p.method}: 'order[{i}]' must be a provider id string.", f"order[{i}]")
        if pid not in existing:
            raise invalid(f"{p.method}: 'order[{i}]' is not a provider id: {pid!r}.", f"order[{i}]")
        if pid in seen:
            raise invalid(f"{p.method}: 'order[{i}]' repeats the provider id {pid!r}.", f"order[{i}]")
        seen.add(pid)
    with ctx.conn:
        kv.put(ctx.conn, NS, ORDER_KEY, list(order), ctx.clock())
    ctx.emit(topics.PROVIDERS_CHANGED, {"reason": "reordered", "providerId": None})
    return {"providers": read_all(ctx.conn)}


@command("providers.setDefault", emits=[topics.PROVIDERS_CHANGED])
def providers_set_default(ctx: HostContext, p: Params) -> dict[str, Any]:
    if "providerId" not in p.raw:
        raise invalid(
            f"{p.method}: missing required field 'providerId' (send null for the offline model).", "providerId"
        )
    provider_id = p.text("providerId", required=False)
    model_id = p.text("modelId", required=False, strip=True, nonempty=True, max_chars=MODEL_ID_MAX)
    if provider_id is None or provider_id == OFFLINE_PROVIDER:
        if model_id not in (None, OFFLINE_MODEL):
            raise invalid(
                f"{p.method}: the offline provider has only the model {OFFLINE_MODEL!r}; 'modelId' was {model_id!r}.",
                "modelId",
            )
        chosen = {"providerId": OFFLINE_PROVIDER, "modelId": OFFLINE_MODEL}
    else:
        row = ctx.conn.execute("SELECT default_model_id FROM providers WHERE id = ?", (provider_id,)).fetchone()
        if row is None:
            raise not_found(provider_id)
        chosen = {"providerId": provider_id, "modelId": model_id if model_id is not None else row[0]}
    with ctx.conn:
        kv.put(ctx.conn, NS, DEFAULT_KEY, chosen, ctx.clock())
    ctx.emit(topics.PROVIDERS_CHANGED, {"reason": "default", "providerId": chosen["providerId"]})
    return {"defaultProviderId": chosen["providerId"], "defaultModelId": chosen["modelId"]}


@command("providers.credentials", emits=[])
def providers_credentials(ctx: HostContext, p: Params) -> dict[str, Any]:
    """For the agent runtime only: the one result that carries key material. No event, no log of the key."""
    provider_id = p.text("providerId")
    row = ctx.conn.execute(
        "SELECT name, base_url, default_model_id, secret_ref FROM providers WHERE id = ?", (provider_id,)
    ).fetchone()
    if row is None:
        raise not_found(provider_id)
    name, base_url, default_model_id, ref = row
    api_key = secrets.get(ctx, ref) if ref else None
    return {
        "providerId": provider_id,
        "baseUrl": base_url,
        "apiKey": api_key,
        "defaultModelId": default_model_id,
        "name": name,
    }
