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
from typing import TYPE_CHECKING, Any, TypeVar

from pidesktop.bus import topics
from pidesktop.bus.errors import ErrorCode, HostError
from pidesktop.host import kv
from pidesktop.host.commands import command
from pidesktop.host.context import HostContext
from pidesktop.host.data.commands import JobProgress, jobs_of
from pidesktop.host.params import Params
from pidesktop.host.settings import secrets as secret_store
from pidesktop.storage import vault
from pidesktop.storage.sync_settings import ACCESS_REF, KEY, NS, SECRET_REF, VAULT_REF, location_of

if TYPE_CHECKING:
    from pidesktop.storage.s3 import S3Credentials, S3Location
    from pidesktop.storage.snapshot_format import Repository

T = TypeVar("T")
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
    from pidesktop.storage import snapshot_backup

    location = target[0]

    def work() -> snapshot_backup.BackupSummary:
        repo = _repository(target, passphrase)
        assert repo is not None  # made when missing
        return snapshot_backup.backup(repo, root, include_secrets=include_secrets, keep=keep, progress=progress)

    summary = _in_words(work)
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


def _repository(
    target: tuple[S3Location, S3Credentials, vault.VaultKey | None], passphrase: str | None, create: bool = True
) -> Repository | None:
    """The backups in the saved bucket, opened with ``passphrase`` or the saved key; ``create`` starts them
    when there are none, else None says there are none."""
    from pidesktop.storage import s3
    from pidesktop.storage.blobstore import S3Store
    from pidesktop.storage.snapshot_format import HEADER, open_repository, open_repository_with_key
    from pidesktop.storage.sync_remote import Remote

    location, credentials, key = target
    client = s3.connect(location, credentials)
    store = S3Store(client, location)
    if not create and not store.exists(HEADER):
        return None
    if passphrase:
        return open_repository(store, passphrase, create=create)
    if key is None:
        raise failure(ErrorCode.CONFLICT, "Type the backup passphrase.", "passphrase_needed")
    return open_repository_with_key(store, key, Remote(client, location).params() if create else None)


def _in_words(work: Callable[[], T]) -> T:
    """``work``'s S3 and vault failures as ``HostError``s whose ``data.sentence`` says what to do."""
    from pidesktop.storage import s3

    try:
        return work()
    except s3.S3Problem as problem:
        raise failure(ErrorCode.STORAGE_UNAVAILABLE, problem.sentence, problem.code) from None
    except vault.WrongPassphrase as exc:
        raise failure(ErrorCode.CONFLICT, f"{exc} Nothing was changed.", "wrong_passphrase") from None
    except vault.VaultError as exc:
        raise failure(ErrorCode.STORAGE_UNAVAILABLE, str(exc), "damaged") from None


def failure(code: str, sentence: str, reason: str) -> HostError:
    return HostError(code, sentence, {"reason": reason, "sentence": sentence})


@command("data.snapshotS3", emits=[topics.DATA_PROGRESS, topics.DATA_FINISHED])
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


@command("data.snapshotsS3", emits=[topics.DATA_PROGRESS, topics.DATA_FINISHED])
def snapshots_s3(ctx: HostContext, p: Params) -> dict[str, Any]:
    """The snapshots in the saved bucket, newest first (a job of kind ``snapshotList``)."""
    passphrase = p.text("passphrase", required=False) or None
    target = saved_target(ctx)

    def work(progress: JobProgress) -> dict[str, Any]:
        progress("list", 0, 1)

        def listed() -> dict[str, Any]:
            repo = _repository(target, passphrase, create=False)
            ids = list(reversed(repo.snapshot_ids())) if repo is not None else []
            manifests = [repo.manifest(snapshot_id) for snapshot_id in ids] if repo is not None else []
            found = [
                {"snapshot": m.snapshot_id, "createdAt": m.created_ms, "files": len(m.files), "bytes": m.total_bytes}
                for m in manifests
            ]
            return {"where": target[0].describe(), "snapshots": found}

        return _in_words(listed)

    return jobs_of(ctx).start("snapshotList", work)


@command("data.restoreS3", emits=[topics.DATA_PROGRESS, topics.DATA_FINISHED])
def restore_s3(ctx: HostContext, p: Params) -> dict[str, Any]:
    """Rebuild a data folder from a snapshot in the saved bucket into a new or empty folder (a job of kind
    ``restore``); the data folder in use is not touched."""
    from pidesktop.storage import snapshot_restore
    from pidesktop.storage.errors import Refused

    raw = p.text("folder", nonempty=True)
    snapshot = p.text("snapshot", required=False) or None
    passphrase = p.text("passphrase", required=False) or None
    folder = Path(raw)
    try:
        snapshot_restore.check_target(folder)
    except Refused as exc:
        raise _bad_folder(str(exc)) from None
    if _overlaps(folder, ctx.data_root):
        raise _bad_folder(f"{folder} overlaps the data folder in use; choose a new folder elsewhere.")
    target = saved_target(ctx)

    def work(progress: JobProgress) -> dict[str, Any]:
        progress("restore", 0, 1)

        def restored() -> dict[str, Any]:
            repo = _repository(target, passphrase, create=False)
            if repo is None:
                raise failure(ErrorCode.CONFLICT, f"There are no backups in {target[0].describe()} yet.", "empty")
            manifest = snapshot_restore.restore(
                repo, folder, snapshot, progress=lambda done, total: progress("restore", done, total)
            )
            return {"folder": str(folder), "snapshot": manifest.snapshot_id, "files": len(manifest.files)}

        return _in_words(restored)

    return jobs_of(ctx).start("restore", work)


def _bad_folder(sentence: str) -> HostError:
    return HostError(ErrorCode.INVALID_PARAMS, sentence, {"field": "folder", "sentence": sentence})


def _overlaps(path: Path, root: Path) -> bool:
    a, b = path.resolve(), root.resolve()
    return a == b or a.is_relative_to(b) or b.is_relative_to(a)
