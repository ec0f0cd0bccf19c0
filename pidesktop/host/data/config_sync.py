"""``sync.*``: settings sync through S3 (spec 004, section 1.3).

The connection lives in ``kv(configSyncS3, config)``; the access key, the secret
and the vault key (derived once from the passphrase) live in the encrypted
secret store. One run: read what syncs here, stamp what changed since the base
(and keep it in ``pending.bin``), fetch the newest revision, merge per key
against the base, publish a new revision when the merge differs from it, write
the merge back here, and make it the new base. Offline, the changes stay in
``pending.bin`` and the run says so; nothing stored here is changed.

Every command that talks to S3 (``sync.test``, ``sync.configure``, ``sync.history``,
``sync.run``) is a data job of kind ``sync``: the host thread does the short reads
first, the job's thread talks to S3, and what is to be saved is handed back to the
host thread, so every database write stays on the thread that owns the database
while other commands are answered. boto3 is imported when a sync command first
runs, not when the host starts.
"""

from __future__ import annotations

import logging
import platform
import secrets as random
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from pidesktop.bus import topics
from pidesktop.bus.errors import ErrorCode, HostError
from pidesktop.host import kv
from pidesktop.host.commands import command
from pidesktop.host.context import HostContext, Post
from pidesktop.host.data import daily_backup, sync_items
from pidesktop.host.data.commands import JobProgress, jobs_of
from pidesktop.host.host_thread import on_host_thread
from pidesktop.host.params import Params, invalid
from pidesktop.host.settings import secrets as secret_store
from pidesktop.storage import vault
from pidesktop.storage.sync_merge import Conflict, Entry, Snapshot, merge, stamp_changes
from pidesktop.storage.sync_settings import ACCESS_REF, KEY, NS, SECRET_REF, VAULT_REF, location_of

if TYPE_CHECKING:
    from pidesktop.storage import s3
    from pidesktop.storage.sync_remote import LocalState, Remote

log = logging.getLogger("pidesktop.host.sync")

OWNER = "configSync"
SYNC_KIND = "sync"
MACHINE_NAME_MAX = 60  # this computer's name, as other computers show it beside an automation armed here
PUBLISH_ATTEMPTS = 5  # fetch-merge-publish rounds when other machines publish the same revision first
# What makes a connection: changing any of these (or the mode) starts a fresh state id.
_CONNECTION_FIELDS = ("endpoint", "region", "bucket", "prefix", "syncKeys")


def _config(ctx: HostContext) -> dict[str, Any]:
    stored = kv.get(ctx.conn, NS, KEY, {})
    return stored if isinstance(stored, dict) else {}


def _location(config: dict[str, Any]) -> s3.S3Location:
    return location_of(config)


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


def _needs_post(ctx: HostContext) -> Post:
    if ctx.post is None:
        raise HostError(ErrorCode.STORAGE_UNAVAILABLE, "Syncing needs the host's own thread; this host has none.")
    return ctx.post


@command("sync.test", emits=[topics.DATA_PROGRESS, topics.DATA_FINISHED])
def sync_test(ctx: HostContext, p: Params) -> dict[str, Any]:
    """Test a connection without saving it (a job): the bucket answers and accepts a small object."""
    connection, credentials, _ = _read_connection(p)
    credentials = credentials or _stored_credentials(ctx)
    location = _location(connection)

    def work(progress: JobProgress) -> dict[str, Any]:
        from pidesktop.storage import s3

        progress(SYNC_KIND, 0, 1)
        try:
            s3.check(s3.connect(location, credentials), location)
        except s3.S3Problem as problem:
            raise _problem(problem) from None
        return {"ok": True, "where": location.describe()}

    return jobs_of(ctx).start(SYNC_KIND, work)


@command("sync.configure", emits=[topics.DATA_PROGRESS, topics.DATA_FINISHED])
def sync_configure(ctx: HostContext, p: Params) -> dict[str, Any]:
    """Check and save the connection, the credentials and the passphrase's vault key (a job).

    The passphrase is checked against the vault parameters already in the bucket
    (a wrong one is refused and nothing is saved); in an empty bucket it makes them.
    The checks talk to S3 on the job's thread; the saving is handed back to the host thread.
    """
    post = _needs_post(ctx)
    connection, credentials, passphrase = _read_connection(p)
    name = p.text("machineName", required=False, default="", strip=True, max_chars=MACHINE_NAME_MAX)
    credentials = credentials or _stored_credentials(ctx)
    stored = secret_store.get(ctx, VAULT_REF)
    location = _location(connection)

    def work(progress: JobProgress) -> dict[str, Any]:
        from pidesktop.storage import s3
        from pidesktop.storage.sync_remote import Remote

        progress(SYNC_KIND, 0, 1)
        try:
            client = s3.connect(location, credentials)
            s3.check(client, location)
            remote = Remote(client, location)
            key = remote.unlock(passphrase) if passphrase else _stored_key(stored, remote)
        except s3.S3Problem as problem:
            raise _problem(problem) from None
        except vault.WrongPassphrase as exc:
            raise invalid(f"{exc}", "passphrase") from None
        except vault.VaultError as exc:
            raise HostError(ErrorCode.STORAGE_UNAVAILABLE, str(exc), {"reason": "damaged"}) from None
        assert credentials is not None  # connect() refused missing credentials
        return on_host_thread(post, lambda: _save_connection(ctx, connection, credentials, key, name))

    return jobs_of(ctx).start(SYNC_KIND, work)


def _save_connection(
    ctx: HostContext, connection: dict[str, Any], credentials: s3.S3Credentials, key: vault.VaultKey, name: str
) -> dict[str, Any]:
    """Keep the checked connection, its key pair and the vault key (host thread); the ``sync.status`` result."""
    before = _config(ctx)
    secret_store.put(ctx, ACCESS_REF, credentials.access_key, owner_kind=OWNER, owner_id=KEY, kind="s3_access_key")
    secret_store.put(ctx, SECRET_REF, credentials.secret_key, owner_kind=OWNER, owner_id=KEY, kind="s3_secret_key")
    secret_store.put(ctx, VAULT_REF, key.material().hex(), owner_kind=OWNER, owner_id=KEY, kind="vault_key")
    fresh = any(before.get(field) != connection[field] for field in _CONNECTION_FIELDS) or "stateId" not in before
    config = {
        **before,
        **connection,
        "stateId": random.token_hex(16) if fresh else before["stateId"],
        "machineId": before.get("machineId") or random.token_hex(8),
        "machineName": name or before.get("machineName") or platform.node() or "another computer",
    }
    with ctx.conn:
        kv.put(ctx.conn, NS, KEY, config, ctx.clock())
    return _status(ctx)


def _stored_key(stored: str | None, remote: Remote) -> vault.VaultKey:
    """The saved vault key (hex), checked against the bucket's key parameters."""
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
        "machineName": config.get("machineName", ""),
        "hasCredentials": secret_store.exists(ctx, ACCESS_REF) and secret_store.exists(ctx, SECRET_REF),
        "lastRun": config.get("lastRun"),
        "dailyBackup": daily_backup.state(ctx),
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
    """The saved connection (never a secret), the base revision, pending keys: this computer's side only."""
    return _status(ctx)


@command("sync.history", emits=[topics.DATA_PROGRESS, topics.DATA_FINISHED])
def sync_history(ctx: HostContext, p: Params) -> dict[str, Any]:
    """The revisions kept in the bucket, newest first (a job: it asks S3)."""
    open_remote, key = _open(ctx)

    def work(progress: JobProgress) -> dict[str, Any]:
        from pidesktop.storage import s3

        progress(SYNC_KIND, 0, 1)
        try:
            remote = open_remote()
            _confirm(remote, key)
            return {"history": [entry.to_json() for entry in reversed(remote.history(key))]}
        except s3.S3Problem as problem:
            raise _problem(problem) from None

    return jobs_of(ctx).start(SYNC_KIND, work)


def _open(ctx: HostContext) -> tuple[Callable[[], Remote], vault.VaultKey]:
    """How to reach the bucket (the client is made on the job's thread), and the saved vault key."""
    config = _config(ctx)
    if not config.get("bucket") or not config.get("stateId"):
        raise _not_configured()
    stored = secret_store.get(ctx, VAULT_REF)
    if not stored:
        raise HostError(
            ErrorCode.CONFLICT, "Type the sync passphrase in Settings > Sync first.", {"reason": "wrong_passphrase"}
        )
    location, credentials = _location(config), _stored_credentials(ctx)

    def remote() -> Remote:
        from pidesktop.storage import s3
        from pidesktop.storage.sync_remote import Remote

        return Remote(s3.connect(location, credentials), location)

    return remote, vault.VaultKey(bytes.fromhex(stored))


def _confirm(remote: Remote, key: vault.VaultKey) -> None:
    """The saved key still opens the bucket's sync data (it was not set up again with another passphrase)."""
    params = remote.params()
    if params is None:
        return
    try:
        vault.confirm(key, params)
    except vault.WrongPassphrase as exc:
        raise HostError(ErrorCode.CONFLICT, str(exc), {"reason": "wrong_passphrase"}) from None


@command("sync.run", emits=[topics.DATA_PROGRESS, topics.DATA_FINISHED, topics.SYNC_APPLIED])
def sync_run(ctx: HostContext, p: Params) -> dict[str, Any]:
    """One sync, as a data job of kind ``sync``; with ``restore`` (a revision number) the bucket's state of that
    revision becomes the newest.

    Only the short database steps run on the host thread: reading what syncs and keeping it in
    ``pending.bin`` here, and writing the merge back when the job hands it over. The requests to S3 run on
    the job's thread, so other commands are answered meanwhile.
    """
    restore = p.integer("restore", required=False)
    post = _needs_post(ctx)
    config = _config(ctx)
    open_remote, key = _open(ctx)
    machine = str(config["machineId"])
    state = _local_state(ctx, config, key)
    _, base = state.base()
    now = ctx.clock()
    here = sync_items.gather(ctx, machine, bool(config.get("syncKeys")), str(config.get("machineName") or ""))
    local = stamp_changes(base, here, state.pending(), now)
    pending = {k: e for k, e in local.items() if k not in base or base[k] != e}
    pending.update({k: Entry(None, now) for k in base if k not in local})
    state.save_pending(pending)  # survives an offline run or a kill from here on

    def work(progress: JobProgress) -> dict[str, Any]:
        progress(SYNC_KIND, 0, 1)
        exchanged = _exchange_in_words(open_remote, key, base, local, restore, now, machine, pending)
        done = on_host_thread(post, lambda: _finish(ctx, config, state, base, local, exchanged, now, machine))
        progress(SYNC_KIND, 1, 1)
        return done

    return jobs_of(ctx).start(SYNC_KIND, work)


def _exchange_in_words(
    open_remote: Callable[[], Remote],
    key: vault.VaultKey,
    base: Snapshot,
    local: Snapshot,
    restore: int | None,
    now: int,
    machine: str,
    pending: Snapshot,
) -> tuple[int, Snapshot, list[Conflict]]:
    """``_exchange`` on the job's thread, its failures as ``HostError``s that say what waits here."""
    from pidesktop.storage import s3

    try:
        remote = open_remote()
        _confirm(remote, key)
        return _exchange(remote, key, base, local, restore, now, machine)
    except s3.S3Problem as problem:
        raise HostError(
            ErrorCode.STORAGE_UNAVAILABLE,
            f"{problem.sentence} Your {len(pending)} change(s) wait here and go with the next sync.",
            {"reason": problem.code, "pending": sorted(pending)},
        ) from None
    except vault.VaultError as exc:
        raise HostError(ErrorCode.STORAGE_UNAVAILABLE, str(exc), {"reason": "damaged"}) from None


def _finish(
    ctx: HostContext,
    config: dict[str, Any],
    state: LocalState,
    base: Snapshot,
    local: Snapshot,
    exchanged: tuple[int, Snapshot, list[Conflict]],
    now: int,
    machine: str,
) -> dict[str, Any]:
    """Write the merge here and make it the new base (host thread). A key changed here while the job talked
    to S3 keeps the newer change: it is not overwritten, and the next sync sends it."""
    revision, merged, conflicts = exchanged
    current = sync_items.gather(ctx, machine, bool(config.get("syncKeys")), str(config.get("machineName") or ""))
    meanwhile = {
        k
        for k in set(current) | set(local)
        if (k in current) != (k in local) or (k in current and current[k] != local[k].value)
    }
    pulled = [k for k in _changed(local, merged) if k not in meanwhile]
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
