"""``data.snapshotS3``: an encrypted, incremental snapshot of the data root into the Settings > Sync bucket.

The host thread only reads the saved connection, its credentials and the saved vault
key (the one the sync passphrase made); everything that talks to S3 runs as a data job
on its own thread, so other commands are answered meanwhile. Without a typed passphrase
the backup is sealed with that saved key, and a bucket without backups gets a backup
header made from the sync vault's parameters: the sync passphrase then opens the
backups on any machine (``pidesktop data restore s3``, or the start-up page's
"Restore from S3").
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pidesktop.bus.errors import ErrorCode, HostError
from pidesktop.host import kv
from pidesktop.host import secrets as secret_store
from pidesktop.host.commands import command
from pidesktop.host.context import HostContext
from pidesktop.host.data_commands import JobProgress, jobs_of
from pidesktop.host.params import Params
from pidesktop.storage import vault
from pidesktop.storage.sync_settings import ACCESS_REF, KEY, NS, SECRET_REF, VAULT_REF, location_of

if TYPE_CHECKING:
    from pidesktop.storage.s3 import S3Credentials, S3Location
    from pidesktop.storage.snapshot_format import Repository

KIND = "snapshot"  # one snapshot at a time, to a folder or to S3


def not_configured() -> HostError:
    sentence = "Back up to S3 uses the connection in Settings > Sync: fill it in and save it first."
    return HostError(ErrorCode.CONFLICT, sentence, {"reason": "not_configured", "sentence": sentence})


def saved_target(ctx: HostContext) -> tuple[S3Location, S3Credentials, vault.VaultKey | None]:
    """The saved bucket, its key pair and the saved vault key (host thread: database and secret store)."""
    from pidesktop.storage.s3 import S3Credentials

    config = kv.get(ctx.conn, NS, KEY, {})
    if not isinstance(config, dict) or not config.get("bucket"):
        raise not_configured()
    access, secret = secret_store.get(ctx, ACCESS_REF), secret_store.get(ctx, SECRET_REF)
    if not access or not secret:
        raise not_configured()
    stored = secret_store.get(ctx, VAULT_REF)
    return location_of(config), S3Credentials(access, secret), vault.VaultKey(bytes.fromhex(stored)) if stored else None


def back_up(
    root: Path,
    target: tuple[S3Location, S3Credentials, vault.VaultKey | None],
    passphrase: str | None,
    *,
    keep: int | None = None,
    include_secrets: bool = False,
    progress: Callable[[int, int], None] | None = None,
) -> dict[str, Any]:
    """One snapshot of ``root`` into the saved bucket (any thread; S3 and the vault only). Failures are
    ``HostError``s whose ``data.sentence`` says what to do."""
    from pidesktop.storage import s3, snapshot_backup

    location = target[0]
    try:
        repo = _repository(target, passphrase)
        summary = snapshot_backup.backup(repo, root, include_secrets=include_secrets, keep=keep, progress=progress)
    except s3.S3Problem as problem:
        raise failure(ErrorCode.STORAGE_UNAVAILABLE, problem.sentence, problem.code) from None
    except vault.WrongPassphrase as exc:
        raise failure(ErrorCode.CONFLICT, f"{exc} Nothing was backed up.", "wrong_passphrase") from None
    except vault.VaultError as exc:
        raise failure(ErrorCode.STORAGE_UNAVAILABLE, str(exc), "damaged") from None
    return {
        "where": location.describe(),
        "snapshot": summary.snapshot_id,
        "files": summary.files,
        "bytes": summary.bytes,
        "bytesUploaded": summary.bytes_uploaded,
        "chunksNew": summary.chunks_new,
        "chunksReused": summary.chunks_reused,
        "snapshotsPruned": summary.snapshots_pruned,
    }


def _repository(target: tuple[S3Location, S3Credentials, vault.VaultKey | None], passphrase: str | None) -> Repository:
    from pidesktop.storage import s3
    from pidesktop.storage.blobstore import S3Store
    from pidesktop.storage.snapshot_format import open_repository, open_repository_with_key
    from pidesktop.storage.sync_remote import Remote

    location, credentials, key = target
    client = s3.connect(location, credentials)
    store = S3Store(client, location)
    if passphrase:
        return open_repository(store, passphrase, create=True)
    if key is None:
        raise failure(ErrorCode.CONFLICT, "Type the backup passphrase.", "passphrase_needed")
    return open_repository_with_key(store, key, Remote(client, location).params())


def failure(code: str, sentence: str, reason: str) -> HostError:
    return HostError(code, sentence, {"reason": reason, "sentence": sentence})


@command("data.snapshotS3")
def snapshot_s3(ctx: HostContext, p: Params) -> dict[str, Any]:
    """A snapshot into the Settings > Sync bucket, as a data job of kind ``snapshot``."""
    passphrase = p.text("passphrase", required=False) or None
    keep = p.integer("keep", required=False, default=0, minimum=0)
    include_secrets = p.boolean("secrets", default=False)
    target = saved_target(ctx)
    if passphrase is None and target[2] is None:
        sentence = "Type the backup passphrase: Settings > Sync keeps none on this computer."
        raise HostError(
            ErrorCode.INVALID_PARAMS,
            sentence,
            {"field": "passphrase", "reason": "passphrase_needed", "sentence": sentence},
        )
    root = ctx.data_root

    def work(progress: JobProgress) -> dict[str, Any]:
        progress(KIND, 0, 1)
        return back_up(
            root,
            target,
            passphrase,
            keep=keep or None,
            include_secrets=include_secrets,
            progress=lambda done, total: progress(KIND, done, total),
        )

    return jobs_of(ctx).start(KIND, work)
