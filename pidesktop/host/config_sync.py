"""``sync.*``: settings sync through S3 (spec 004, section 1.3).

The connection lives in ``kv(configSyncS3, config)``; the access key, the secret
and the vault key (derived once from the passphrase) live in the encrypted
secret store. One run: read what syncs here, stamp what changed since the base
(and keep it in ``pending.bin``), fetch the newest revision, merge per key
against the base, publish a new revision when the merge differs from it, write
the merge back here, and make it the new base. Offline, the changes stay in
``pending.bin`` and the run says so; nothing stored here is changed.

A run talks to S3 on the host thread: it is short (a few small objects), and it
keeps every database write on the thread that owns the database. boto3 is imported
when a sync command first runs, not when the host starts.
"""

from __future__ import annotations

import logging
import secrets as random
from typing import TYPE_CHECKING, Any

from pidesktop.bus import topics
from pidesktop.bus.errors import ErrorCode, HostError
from pidesktop.host import kv, sync_items
from pidesktop.host import secrets as secret_store
from pidesktop.host.commands import command
from pidesktop.host.context import HostContext
from pidesktop.host.params import Params, invalid
from pidesktop.storage import vault
from pidesktop.storage.sync_merge import Conflict, Entry, Snapshot, merge, stamp_changes

if TYPE_CHECKING:
    from pidesktop.storage import s3
    from pidesktop.storage.sync_remote import LocalState, Remote

log = logging.getLogger("pidesktop.host.sync")

NS, KEY = "configSyncS3", "config"
ACCESS_REF, SECRET_REF, VAULT_REF = "configSyncS3/accessKey", "configSyncS3/secretKey", "configSyncS3/vaultKey"
OWNER = "configSync"
PUBLISH_ATTEMPTS = 5  # fetch-merge-publish rounds when other machines publish the same revision first
# What makes a connection: changing any of these (or the mode) starts a fresh state id.
_CONNECTION_FIELDS = ("endpoint", "region", "bucket", "prefix", "syncKeys")


def _config(ctx: HostContext) -> dict[str, Any]:
    stored = kv.get(ctx.conn, NS, KEY, {})
    return stored if isinstance(stored, dict) else {}


def _location(config: dict[str, Any]) -> s3.S3Location:
    from pidesktop.storage import s3

    return s3.S3Location(
        bucket=str(config.get("bucket", "")),
        endpoint=config.get("endpoint") or None,
        region=config.get("region") or None,
        prefix=str(config.get("prefix", "")),
    )


def _problem(problem: s3.S3Problem) -> HostError:
    return HostError(ErrorCode.STORAGE_UNAVAILABLE, problem.sentence, {"reason": problem.code})


def _not_configured() -> HostError:
    return HostError(
        ErrorCode.CONFLICT, "Settings sync is not set up: fill in Settings > Sync first.", {"reason": "not_configured"}
    )


def _read_connection(p: Params) -> tuple[dict[str, Any], s3.S3Credentials | None, str | None]:
    from pidesktop.storage import s3

    endpoint = p.text("endpoint", required=False, default="") or ""
    if endpoint and not endpoint.startswith(("http://", "https://")):
        raise invalid(f"{p.method}: endpoint must start with http:// or https://; got {endpoint!r}.", "endpoint")
    bucket = p.text("bucket")
    if not bucket.strip():
        raise invalid(f"{p.method}: bucket is empty; type the bucket's name.", "bucket")
    connection = {
        "endpoint": endpoint,
        "region": p.text("region", required=False, default="") or "",
        "bucket": bucket.strip(),
        "prefix": (p.text("prefix", required=False, default="") or "").strip("/"),
        "syncKeys": p.boolean("syncKeys", default=False),
    }
    access, secret = p.text("accessKey", required=False), p.text("secretKey", required=False)
    credentials = s3.S3Credentials(access, secret) if access and secret else None
    return connection, credentials, p.text("passphrase", required=False)


def _stored_credentials(ctx: HostContext) -> s3.S3Credentials | None:
    from pidesktop.storage import s3

    access, secret = secret_store.get(ctx, ACCESS_REF), secret_store.get(ctx, SECRET_REF)
    return s3.S3Credentials(access, secret) if access and secret else None


@command("sync.test", emits=[])
def sync_test(ctx: HostContext, p: Params) -> dict[str, Any]:
    """Test a connection without saving it: the bucket answers and accepts a small object."""
    from pidesktop.storage import s3

    connection, credentials, _ = _read_connection(p)
    location = _location(connection)
    try:
        s3.check(s3.connect(location, credentials or _stored_credentials(ctx)), location)
    except s3.S3Problem as problem:
        raise _problem(problem) from None
    return {"ok": True, "where": location.describe()}


@command("sync.configure", emits=[])
def sync_configure(ctx: HostContext, p: Params) -> dict[str, Any]:
    """Check and save the connection, the credentials and the passphrase's vault key.

    The passphrase is checked against the vault parameters already in the bucket
    (a wrong one is refused and nothing is saved); in an empty bucket it makes them.
    """
    from pidesktop.storage import s3
    from pidesktop.storage.sync_remote import Remote

    connection, credentials, passphrase = _read_connection(p)
    credentials = credentials or _stored_credentials(ctx)
    before = _config(ctx)
    location = _location(connection)
    try:
        client = s3.connect(location, credentials)
        s3.check(client, location)
        remote = Remote(client, location)
        if passphrase:
            key = remote.unlock(passphrase)
        else:
            key = _stored_key(ctx, remote)
    except s3.S3Problem as problem:
        raise _problem(problem) from None
    except vault.WrongPassphrase as exc:
        raise invalid(f"{exc}", "passphrase") from None
    except vault.VaultError as exc:
        raise HostError(ErrorCode.STORAGE_UNAVAILABLE, str(exc), {"reason": "damaged"}) from None
    assert credentials is not None  # connect() refused missing credentials
    secret_store.put(ctx, ACCESS_REF, credentials.access_key, owner_kind=OWNER, owner_id=KEY, kind="s3_access_key")
    secret_store.put(ctx, SECRET_REF, credentials.secret_key, owner_kind=OWNER, owner_id=KEY, kind="s3_secret_key")
    secret_store.put(ctx, VAULT_REF, key.material().hex(), owner_kind=OWNER, owner_id=KEY, kind="vault_key")
    fresh = any(before.get(field) != connection[field] for field in _CONNECTION_FIELDS) or "stateId" not in before
    config = {
        **before,
        **connection,
        "stateId": random.token_hex(16) if fresh else before["stateId"],
        "machineId": before.get("machineId") or random.token_hex(8),
    }
    with ctx.conn:
        kv.put(ctx.conn, NS, KEY, config, ctx.clock())
    return _status(ctx)


def _stored_key(ctx: HostContext, remote: Remote) -> vault.VaultKey:
    """The saved vault key, checked against the bucket's key parameters."""
    stored = secret_store.get(ctx, VAULT_REF)
    params = remote.params()
    if not stored:
        raise vault.WrongPassphrase("Type the sync passphrase: this computer has none saved yet.")
    key = vault.VaultKey(bytes.fromhex(stored))
    if params is not None:
        vault.confirm(key, params)
    return key


def _status(ctx: HostContext) -> dict[str, Any]:
    config = _config(ctx)
    if not config.get("bucket"):
        return {"configured": False}
    result: dict[str, Any] = {
        "configured": True,
        "endpoint": config.get("endpoint", ""),
        "region": config.get("region", ""),
        "bucket": config["bucket"],
        "prefix": config.get("prefix", ""),
        "syncKeys": bool(config.get("syncKeys")),
        "stateId": config.get("stateId"),
        "machineId": config.get("machineId"),
        "hasCredentials": secret_store.exists(ctx, ACCESS_REF) and secret_store.exists(ctx, SECRET_REF),
        "lastRun": config.get("lastRun"),
    }
    stored = secret_store.get(ctx, VAULT_REF)
    if stored:
        state = _local_state(ctx, config, vault.VaultKey(bytes.fromhex(stored)))
        revision, _ = state.base()
        result["revision"] = revision
        result["pending"] = sorted(state.pending())
    return result


def _local_state(ctx: HostContext, config: dict[str, Any], key: vault.VaultKey) -> LocalState:
    from pidesktop.storage.sync_remote import LocalState

    return LocalState(ctx.data_root / "config-sync" / "s3" / str(config["stateId"]), key)


@command("sync.status", emits=[])
def sync_status(ctx: HostContext, p: Params) -> dict[str, Any]:
    """The saved connection (never a secret), the base revision, pending keys; ``history`` also lists the
    revisions kept in the bucket (a request to S3)."""
    from pidesktop.storage import s3

    result = _status(ctx)
    if p.boolean("history", default=False) and result["configured"]:
        remote, key = _open(ctx)
        try:
            _confirm(remote, key)
            result["history"] = [entry.to_json() for entry in reversed(remote.history(key))]
        except s3.S3Problem as problem:
            raise _problem(problem) from None
    return result


def _open(ctx: HostContext) -> tuple[Remote, vault.VaultKey]:
    """The bucket and the saved vault key; nothing is asked of S3 yet."""
    from pidesktop.storage import s3
    from pidesktop.storage.sync_remote import Remote

    config = _config(ctx)
    if not config.get("bucket") or not config.get("stateId"):
        raise _not_configured()
    stored = secret_store.get(ctx, VAULT_REF)
    if not stored:
        raise HostError(
            ErrorCode.CONFLICT, "Type the sync passphrase in Settings > Sync first.", {"reason": "wrong_passphrase"}
        )
    location = _location(config)
    try:
        return Remote(s3.connect(location, _stored_credentials(ctx)), location), vault.VaultKey(bytes.fromhex(stored))
    except s3.S3Problem as problem:
        raise _problem(problem) from None


def _confirm(remote: Remote, key: vault.VaultKey) -> None:
    """The saved key still opens the bucket's sync data (it was not set up again with another passphrase)."""
    params = remote.params()
    if params is None:
        return
    try:
        vault.confirm(key, params)
    except vault.WrongPassphrase as exc:
        raise HostError(ErrorCode.CONFLICT, str(exc), {"reason": "wrong_passphrase"}) from None


@command("sync.run", emits=[topics.SYNC_APPLIED])
def sync_run(ctx: HostContext, p: Params) -> dict[str, Any]:
    """One sync; with ``restore`` (a revision number) the bucket's state of that revision becomes the newest."""
    from pidesktop.storage import s3

    restore = p.integer("restore", required=False)
    config = _config(ctx)
    remote, key = _open(ctx)
    machine = str(config["machineId"])
    state = _local_state(ctx, config, key)
    _, base = state.base()
    now = ctx.clock()
    local = stamp_changes(base, sync_items.gather(ctx, machine, bool(config.get("syncKeys"))), state.pending(), now)
    pending = {k: e for k, e in local.items() if k not in base or base[k] != e}
    pending.update({k: Entry(None, now) for k in base if k not in local})
    state.save_pending(pending)  # survives an offline run or a kill from here on
    try:
        _confirm(remote, key)
        revision, merged, conflicts = _exchange(remote, key, base, local, restore, now, machine)
    except s3.S3Problem as problem:
        raise HostError(
            ErrorCode.STORAGE_UNAVAILABLE,
            f"{problem.sentence} Your {len(pending)} change(s) wait here and go with the next sync.",
            {"reason": problem.code, "pending": sorted(pending)},
        ) from None
    except vault.VaultError as exc:
        raise HostError(ErrorCode.STORAGE_UNAVAILABLE, str(exc), {"reason": "damaged"}) from None
    pulled = _changed(local, merged)
    sync_items.apply(
        ctx, machine, {k: merged[k].value for k in pulled if k in merged}, [k for k in pulled if k not in merged]
    )
    state.save_base(revision, merged)
    state.save_pending({})
    last_run = {"at": now, "revision": revision, "conflicts": [c.to_json() for c in conflicts]}
    with ctx.conn:
        kv.put(ctx.conn, NS, KEY, {**_config(ctx), "lastRun": last_run}, now)
    if pulled:
        ctx.emit(topics.SYNC_APPLIED, {"revision": revision, "keys": pulled})
    log.info("settings sync: revision %s, %s pulled, %s conflict(s)", revision, len(pulled), len(conflicts))
    return {
        "revision": revision,
        "pushed": sorted(_changed(base, local)),
        "pulled": pulled,
        "conflicts": last_run["conflicts"],
    }


def _exchange(
    remote: Remote, key: vault.VaultKey, base: Snapshot, local: Snapshot, restore: int | None, now: int, machine: str
) -> tuple[int, Snapshot, list[Conflict]]:
    """Fetch the newest revision, merge, and publish the merge when it differs: the revision number, the merge
    and its conflicts. A machine that publishes the same number first makes this fetch and merge again."""
    from pidesktop.storage.sync_remote import Revision, RevisionTaken

    for _attempt in range(PUBLISH_ATTEMPTS):
        history = remote.latest(key)
        newest = history[-1].number if history else 0
        remote_snapshot = remote.revision(key, newest) if newest else {}
        conflicts: list[Conflict] = []
        if restore is not None:
            if restore not in {entry.number for entry in history}:
                raise invalid(f"sync.run: revision {restore} is not among the kept revisions.", "restore")
            merged = {k: Entry(e.value, now) for k, e in remote.revision(key, restore).items()}
        else:
            merged, conflicts = merge(base, local, remote_snapshot)
        if restore is None and _values(merged) == _values(remote_snapshot):
            return newest, merged, conflicts
        entry = Revision(newest + 1, now, machine, _changed(remote_snapshot, merged))
        try:
            remote.publish(key, merged, entry, history)
        except RevisionTaken:
            continue
        return entry.number, merged, conflicts
    raise HostError(
        ErrorCode.CONFLICT,
        "Other computers kept syncing at the same moment: sync again in a little while.",
        {"reason": "busy"},
    )


def _values(snapshot: Snapshot) -> dict[str, Any]:
    return {key: entry.value for key, entry in snapshot.items()}


def _changed(before: Snapshot, after: Snapshot) -> list[str]:
    """Keys whose value differs between the two snapshots (set, changed or removed)."""
    keys = set(before) | set(after)
    return sorted(
        k for k in keys if (k in before) != (k in after) or (k in before and before[k].value != after[k].value)
    )
