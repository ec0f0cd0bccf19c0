"""Settings sync on S3: sealed revisions, a sealed history index, and the local base and pending bundles.

Remote, under the location's prefix, every object is sealed with the vault key
except the key parameters, and names say nothing but revision numbers::

    config-sync/vault.json          scrypt salt and cost, and a sealed check value
    config-sync/history.bin         the newest 30 revisions: number, time, machine, keys changed
    config-sync/rev-00000042.bin    one full merged snapshot and its history entry; written once, never
                                    replaced (a conditional write), kept indefinitely

Local, in ``<data root>/config-sync/s3/<state-id>/`` (spec 004, 1.3): ``base.bin``
(the last snapshot both sides shared, and its revision) and ``pending.bin``
(changes made here that no revision holds yet), each sealed and replaced
through a temporary file and a rename, so a killed sync leaves the old file.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from botocore.exceptions import ClientError

from pidesktop.durable import atomic_write
from pidesktop.storage import s3, vault
from pidesktop.storage.s3 import S3Location
from pidesktop.storage.sync_merge import Snapshot, from_json, to_json

if TYPE_CHECKING:
    from mypy_boto3_s3 import S3Client
else:
    S3Client = Any

HISTORY_LIMIT = 30
FOLDER = "config-sync"
_AAD_REVISION = b"pidesktop-sync-revision:"
_AAD_HISTORY = b"pidesktop-sync-history"
_AAD_BASE = b"pidesktop-sync-base"
_AAD_PENDING = b"pidesktop-sync-pending"


@dataclass(frozen=True)
class Revision:
    number: int
    at: int
    machine: str
    keys: list[str]

    def to_json(self) -> dict[str, Any]:
        return {"revision": self.number, "at": self.at, "machine": self.machine, "keys": self.keys}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Revision:
        return cls(int(data["revision"]), int(data["at"]), str(data.get("machine", "")), list(data.get("keys", [])))


class RevisionTaken(Exception):
    """Another machine published the same revision number first: fetch, merge and try again."""


class Remote:
    """The sync objects at ``location``; every failure is an ``s3.S3Problem`` or a ``vault.VaultError``."""

    def __init__(self, client: S3Client, location: S3Location) -> None:
        self.client = client
        self.location = location

    def _key(self, name: str) -> str:
        return self.location.key(f"{FOLDER}/{name}")

    def _get(self, name: str) -> bytes | None:
        try:
            body = self.client.get_object(Bucket=self.location.bucket, Key=self._key(name))["Body"]
            data: bytes = body.read()
            return data
        except Exception as exc:
            problem = s3.explain(exc, self.location)
            if problem.code == s3.OBJECT_MISSING:
                return None
            raise problem from exc

    def _put(self, name: str, data: bytes, exclusive: bool = False) -> None:
        """Store ``data``; ``exclusive`` refuses to replace an object already there (``RevisionTaken``)."""
        key = self._key(name)
        try:
            if exclusive:
                self.client.put_object(Bucket=self.location.bucket, Key=key, Body=data, IfNoneMatch="*")
            else:
                self.client.put_object(Bucket=self.location.bucket, Key=key, Body=data)
        except ClientError as exc:
            code = str(exc.response.get("Error", {}).get("Code", ""))
            if code in {"PreconditionFailed", "ConditionalRequestConflict", "412"}:
                raise RevisionTaken(name) from exc
            if exclusive and code in {"NotImplemented", "501"}:  # a service without conditional writes
                self._put(name, data)
                return
            raise s3.explain(exc, self.location, writing=True) from exc
        except Exception as exc:
            raise s3.explain(exc, self.location, writing=True) from exc

    def unlock(self, passphrase: str) -> vault.VaultKey:
        """The vault key for ``passphrase``: made (and its parameters stored) on first use, else checked.

        A wrong passphrase raises ``vault.WrongPassphrase`` before anything is written.
        """
        stored = self._get("vault.json")
        if stored is not None:
            return vault.unlock(passphrase, vault.VaultParams.from_json(json.loads(stored)))
        key, params = vault.create(passphrase)
        self._put("vault.json", json.dumps(params.to_json()).encode())
        return key

    def params(self) -> vault.VaultParams | None:
        stored = self._get("vault.json")
        return None if stored is None else vault.VaultParams.from_json(json.loads(stored))

    def history(self, key: vault.VaultKey) -> list[Revision]:
        """The remembered revisions, oldest first (at most ``HISTORY_LIMIT``)."""
        blob = self._get("history.bin")
        if blob is None:
            return []
        return [Revision.from_json(item) for item in json.loads(key.open(blob, _AAD_HISTORY))]

    def revision(self, key: vault.VaultKey, number: int) -> Snapshot:
        found = self._revision(key, number)
        if found is None:
            raise s3.S3Problem(s3.OBJECT_MISSING, f"Revision {number} is missing from {self.location.describe()}.")
        return found[1]

    def _revision(self, key: vault.VaultKey, number: int) -> tuple[Revision, Snapshot] | None:
        blob = self._get(_revision_name(number))
        if blob is None:
            return None
        data = json.loads(key.open(blob, _AAD_REVISION + str(number).encode()))
        return Revision.from_json(data["entry"]), from_json(data["snapshot"])

    def latest(self, key: vault.VaultKey) -> list[Revision]:
        """The history, plus any newer revision it does not name yet (a sync killed, or beaten to the
        history, after storing its revision): the last entry is the newest revision there is."""
        history = self.history(key)
        number = history[-1].number if history else 0
        while (found := self._revision(key, number + 1)) is not None:
            history.append(found[0])
            number += 1
        return history

    def publish(self, key: vault.VaultKey, snapshot: Snapshot, entry: Revision, history: list[Revision]) -> None:
        """Store ``snapshot`` as revision ``entry.number``, then the history that names it.

        The revision goes first: a sync killed between the two leaves the history
        pointing at the previous revision, which is still whole. It is written only
        if no machine wrote that number first (``RevisionTaken`` otherwise).
        """
        aad = _AAD_REVISION + str(entry.number).encode()
        sealed = key.seal(json.dumps({"entry": entry.to_json(), "snapshot": to_json(snapshot)}).encode(), aad)
        self._put(_revision_name(entry.number), sealed, exclusive=True)
        kept = [*history, entry][-HISTORY_LIMIT:]
        self._put("history.bin", key.seal(json.dumps([item.to_json() for item in kept]).encode(), _AAD_HISTORY))


def _revision_name(number: int) -> str:
    return f"rev-{number:08d}.bin"


class LocalState:
    """``base.bin`` and ``pending.bin`` of one state id, sealed with the vault key."""

    def __init__(self, folder: Path, key: vault.VaultKey) -> None:
        self.folder = folder
        self.key = key

    def _read(self, name: str, aad: bytes) -> Any:
        try:
            blob = (self.folder / name).read_bytes()
        except FileNotFoundError:
            return None
        return json.loads(self.key.open(blob, aad))

    def _write(self, name: str, aad: bytes, value: Any) -> None:
        self.folder.mkdir(parents=True, exist_ok=True)
        atomic_write(self.folder / name, self.key.seal(json.dumps(value).encode(), aad))

    def base(self) -> tuple[int, Snapshot]:
        """The last shared revision number (0: none yet) and its snapshot."""
        data = self._read("base.bin", _AAD_BASE) or {}
        return int(data.get("revision", 0)), from_json(data.get("snapshot"))

    def save_base(self, revision: int, snapshot: Snapshot) -> None:
        self._write("base.bin", _AAD_BASE, {"revision": revision, "snapshot": to_json(snapshot)})

    def pending(self) -> Snapshot:
        return from_json(self._read("pending.bin", _AAD_PENDING))

    def save_pending(self, snapshot: Snapshot) -> None:
        self._write("pending.bin", _AAD_PENDING, to_json(snapshot))
