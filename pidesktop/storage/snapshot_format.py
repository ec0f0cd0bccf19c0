"""The layout of a backup store, and opening one with a passphrase.

```
backup.json            in the clear: format, version, the vault's scrypt parameters and key check
chunks/<id>            one sealed chunk of file content; <id> is the chunk's keyed hash
snapshots/<id>         one sealed manifest: every file of the data root with its chunk ids
```

Files are cut into fixed-size chunks at fixed offsets (4 MiB; 1 MiB for transcripts,
256 KiB for the database), so an unchanged file names the same chunks again (nothing to
upload) and a grown append-only transcript only adds the chunks from its old last,
partial one onwards. A snapshot exists once its
manifest is stored, which is the last thing a backup writes.
"""

from __future__ import annotations

import secrets
import time
from dataclasses import dataclass
from typing import Any

import orjson

from pidesktop.storage import vault
from pidesktop.storage.blobstore import BlobStore, MissingObject
from pidesktop.storage.errors import Failed, Refused

FORMAT = "pidesktop-backup"
VERSION = 1
HEADER = "backup.json"
CHUNKS = "chunks"
SNAPSHOTS = "snapshots"
CHUNK_BYTES = 4 << 20  # attachments and other files written once: fewer, larger objects upload faster
# The database changes a few pages here and there on every write: smaller chunks keep its share of an
# incremental backup small (restore only concatenates chunks, so sizes may differ between files).
DB_CHUNK_BYTES = 256 << 10
# A transcript grows at its end: its last, partial chunk is stored again after each new message.
TRANSCRIPT_CHUNK_BYTES = 1 << 20


def chunk_bytes_for(relative: str) -> int:
    """The chunk size for the file at ``relative`` (``/``-separated, under the data root)."""
    if relative == "pi.sqlite":
        return DB_CHUNK_BYTES
    if relative.startswith("sessions/"):
        return TRANSCRIPT_CHUNK_BYTES
    return CHUNK_BYTES


def chunk_name(chunk_id: str) -> str:
    return f"{CHUNKS}/{chunk_id}"


def chunk_aad(chunk_id: str) -> bytes:
    return f"chunk/{chunk_id}".encode()


def snapshot_name(snapshot_id: str) -> str:
    return f"{SNAPSHOTS}/{snapshot_id}"


def snapshot_aad(snapshot_id: str) -> bytes:
    return f"snapshot/{snapshot_id}".encode()


def new_snapshot_id(now: float | None = None) -> str:
    """Sortable by time, to the millisecond: ``20261202T053300.123Z-1a2b3c``."""
    moment = time.time() if now is None else now
    stamp = time.strftime("%Y%m%dT%H%M%S", time.gmtime(moment))
    return f"{stamp}.{int(moment * 1000) % 1000:03d}Z-{secrets.token_hex(3)}"


@dataclass(frozen=True)
class FileEntry:
    path: str  # relative to the data root, ``/``-separated
    size: int
    mode: int
    sha256: str
    chunks: list[str]
    mtime_ns: int = 0  # with ``size``, lets the next backup name the same chunks without reading the file


@dataclass(frozen=True)
class Manifest:
    snapshot_id: str
    created_ms: int
    schema_version: int
    files: list[FileEntry]

    @property
    def total_bytes(self) -> int:
        return sum(entry.size for entry in self.files)

    def to_bytes(self) -> bytes:
        return orjson.dumps(
            {
                "version": VERSION,
                "id": self.snapshot_id,
                "created": self.created_ms,
                "schemaVersion": self.schema_version,
                "files": [
                    {
                        "path": f.path,
                        "size": f.size,
                        "mode": f.mode,
                        "sha256": f.sha256,
                        "chunks": f.chunks,
                        "mtimeNs": f.mtime_ns,
                    }
                    for f in self.files
                ],
            }
        )

    @classmethod
    def from_bytes(cls, data: bytes) -> Manifest:
        raw: dict[str, Any] = orjson.loads(data)
        return cls(
            snapshot_id=str(raw["id"]),
            created_ms=int(raw["created"]),
            schema_version=int(raw["schemaVersion"]),
            files=[
                FileEntry(
                    str(f["path"]),
                    int(f["size"]),
                    int(f["mode"]),
                    str(f["sha256"]),
                    list(f["chunks"]),
                    int(f.get("mtimeNs", 0)),
                )
                for f in raw["files"]
            ],
        )


class Repository:
    """A backup store opened with its vault key."""

    def __init__(self, store: BlobStore, key: vault.VaultKey) -> None:
        self.store = store
        self.key = key

    def snapshot_ids(self) -> list[str]:
        """Oldest first."""
        names = self.store.names(SNAPSHOTS)
        return sorted(name.split("/", 1)[1] for name in names if "/" in name and not name.rsplit("/", 1)[1][:1] == ".")

    def manifest(self, snapshot_id: str) -> Manifest:
        try:
            blob = self.store.get(snapshot_name(snapshot_id))
        except MissingObject as exc:
            raise Refused(f"There is no snapshot {snapshot_id!r} in {self.store.describe()}.") from exc
        return Manifest.from_bytes(self.key.open(blob, snapshot_aad(snapshot_id)))

    def save_manifest(self, manifest: Manifest) -> None:
        sealed = self.key.seal(manifest.to_bytes(), snapshot_aad(manifest.snapshot_id))
        self.store.put(snapshot_name(manifest.snapshot_id), sealed)

    def chunk_ids(self) -> set[str]:
        return {name.split("/", 1)[1] for name in self.store.names(CHUNKS)}

    def read_chunk(self, chunk_id: str) -> bytes:
        try:
            blob = self.store.get(chunk_name(chunk_id))
        except MissingObject as exc:
            raise Failed(f"The backup in {self.store.describe()} is missing a piece ({chunk_id[:12]}).") from exc
        return self.key.open(blob, chunk_aad(chunk_id))


def open_repository(store: BlobStore, passphrase: str, create: bool = False) -> Repository:
    """The repository in ``store``; ``create`` makes one when the store holds none.

    A wrong passphrase raises ``vault.WrongPassphrase`` before anything is written.
    """
    try:
        header: dict[str, Any] = orjson.loads(store.get(HEADER))
    except MissingObject:
        if not create:
            raise Refused(f"There is no pidesktop backup in {store.describe()}.") from None
        key, params = vault.create(passphrase)
        store.put(HEADER, orjson.dumps({"format": FORMAT, "version": VERSION, "vault": params.to_json()}))
        return Repository(store, key)
    except orjson.JSONDecodeError as exc:
        raise Failed(f"{store.describe()}/{HEADER} is not a readable backup header.") from exc
    if header.get("format") != FORMAT or int(header.get("version", 0)) > VERSION:
        raise Refused(f"{store.describe()} holds a backup this pidesktop cannot read (format {header.get('version')}).")
    return Repository(store, vault.unlock(passphrase, vault.VaultParams.from_json(header["vault"])))


def open_repository_with_key(store: BlobStore, key: vault.VaultKey, params: vault.VaultParams | None) -> Repository:
    """The repository in ``store`` opened with a key kept from an earlier unlock (the Settings > Sync one).

    A store without a backup gets one made with ``params`` (those the key was derived with), so the
    passphrase behind the key opens it anywhere. ``vault.WrongPassphrase`` when the store's backups were
    made with another passphrase; ``Refused`` when there is none yet and no ``params`` to make one with.
    """
    try:
        header: dict[str, Any] = orjson.loads(store.get(HEADER))
    except MissingObject:
        if params is None:
            raise Refused(f"There is no pidesktop backup in {store.describe()} yet: type a passphrase.") from None
        vault.confirm(key, params)
        store.put(HEADER, orjson.dumps({"format": FORMAT, "version": VERSION, "vault": params.to_json()}))
        return Repository(store, key)
    except orjson.JSONDecodeError as exc:
        raise Failed(f"{store.describe()}/{HEADER} is not a readable backup header.") from exc
    if header.get("format") != FORMAT or int(header.get("version", 0)) > VERSION:
        raise Refused(f"{store.describe()} holds a backup this pidesktop cannot read (format {header.get('version')}).")
    try:
        vault.confirm(key, vault.VaultParams.from_json(header["vault"]))
    except vault.WrongPassphrase as exc:
        raise vault.WrongPassphrase(
            f"The backups in {store.describe()} were made with another passphrase than the Settings > Sync one: "
            "type that passphrase."
        ) from exc
    return Repository(store, key)
