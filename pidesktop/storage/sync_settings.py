"""The S3 connection saved in Settings > Sync, and reading it from a data root without a host.

The connection lives in ``kv(configSyncS3, config)``; the access key, the secret and
the vault key (derived once from the sync passphrase) live in the encrypted secret
store. The host's ``sync.*`` and ``data.snapshotS3`` commands read them through the
host; ``pidesktop data backup|restore|snapshots s3`` read them here, read-only, so they
work beside a running app and need no S3 details on the command line.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import apsw
import orjson

from pidesktop.bus.errors import HostError
from pidesktop.formats import secret_files as secret_store
from pidesktop.formats.index.schema import DB_NAME
from pidesktop.storage import vault
from pidesktop.storage.errors import Failed
from pidesktop.storage.sqlite_ro import open_readonly

if TYPE_CHECKING:  # boto3 is imported when S3 is first used, not when the host starts
    from pidesktop.storage.s3 import S3Credentials, S3Location

NS, KEY = "configSyncS3", "config"
ACCESS_REF, SECRET_REF, VAULT_REF = "configSyncS3/accessKey", "configSyncS3/secretKey", "configSyncS3/vaultKey"


def location_of(config: dict[str, Any]) -> S3Location:
    """Where the saved connection points: its bucket and prefix hold both the sync data and the backups."""
    from pidesktop.storage.s3 import S3Location

    return S3Location(
        bucket=str(config.get("bucket", "")),
        endpoint=config.get("endpoint") or None,
        region=config.get("region") or None,
        prefix=str(config.get("prefix", "")),
    )


@dataclass(frozen=True)
class SavedSync:
    location: S3Location
    credentials: S3Credentials | None
    vault_key: vault.VaultKey | None


def read_saved(data_root: Path) -> SavedSync | None:
    """The connection saved in ``data_root``, or None when there is none (or no data folder there).

    Raises ``Failed`` with a sentence when the saved secrets cannot be read.
    """
    from pidesktop.storage.s3 import S3Credentials

    db = data_root / DB_NAME
    if not db.is_file():
        return None
    try:
        conn = open_readonly(db)
        try:
            row = conn.execute("SELECT value_json FROM kv WHERE ns = ? AND key = ?", (NS, KEY)).fetchone()
        finally:
            conn.close()
    except apsw.Error as exc:
        raise Failed(f"Could not read the saved Sync settings in {data_root}: {exc}.") from exc
    config = orjson.loads(row[0]) if row is not None else None
    if not isinstance(config, dict) or not config.get("bucket"):
        return None
    try:
        access, secret = secret_store.read(data_root, ACCESS_REF), secret_store.read(data_root, SECRET_REF)
        stored_key = secret_store.read(data_root, VAULT_REF)
    except HostError as exc:
        raise Failed(f"Could not read the S3 key saved in Settings > Sync: {exc.message}") from exc
    return SavedSync(
        location_of(config),
        S3Credentials(access, secret) if access and secret else None,
        vault.VaultKey(bytes.fromhex(stored_key)) if stored_key else None,
    )
