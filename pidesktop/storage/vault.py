"""The vault key: a passphrase turned into keys that encrypt and name what leaves this machine.

scrypt derives 64 bytes from the passphrase and a random salt; the first half is an
AES-256-GCM key, the second a key for naming content by its keyed hash (so a name
reveals nothing about the bytes without the passphrase). The parameters (salt, cost)
are not secret and are stored beside the data as ``VaultParams.to_json()``, with a
small sealed check value so a wrong passphrase is told apart from damaged data.

Sealed blob layout: 1 version byte, 12-byte random nonce, then ciphertext + 16-byte tag.
The associated data binds a blob to its role and name (a chunk cannot pass for a
manifest, or one snapshot's manifest for another's).
"""

from __future__ import annotations

import hashlib
import hmac
import os
from dataclasses import dataclass
from typing import Any

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.hazmat.primitives.kdf.scrypt import Scrypt

BLOB_VERSION = 1
NONCE_BYTES = 12
SALT_BYTES = 16
DEFAULT_COST = 2**15  # scrypt n: about 32 MiB and a tenth of a second, once per run
_CHECK_AAD = b"pidesktop-vault-check"
_CHECK_TEXT = b"pidesktop vault key"


class VaultError(Exception):
    """The vault could not open something; the message is a plain sentence."""


class WrongPassphrase(VaultError):
    """The passphrase does not match the one the data was sealed with."""


class DamagedData(VaultError):
    """A sealed blob failed authentication under the right key: it was changed or cut short."""


@dataclass(frozen=True)
class VaultParams:
    """scrypt's salt and cost, plus the sealed check value; safe to store in the clear."""

    salt: bytes
    n: int
    r: int
    p: int
    check: bytes = b""

    def to_json(self) -> dict[str, Any]:
        return {
            "kdf": "scrypt",
            "salt": self.salt.hex(),
            "n": self.n,
            "r": self.r,
            "p": self.p,
            "check": self.check.hex(),
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> VaultParams:
        try:
            if data.get("kdf") != "scrypt":
                raise ValueError(f"unknown key derivation {data.get('kdf')!r}")
            return cls(
                salt=bytes.fromhex(str(data["salt"])),
                n=int(data["n"]),
                r=int(data["r"]),
                p=int(data["p"]),
                check=bytes.fromhex(str(data.get("check", ""))),
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise DamagedData(f"The stored key parameters are unreadable ({exc}).") from exc


class VaultKey:
    """Seals and opens blobs, and names content by its keyed hash."""

    def __init__(self, material: bytes) -> None:
        if len(material) != 64:
            raise ValueError("vault key material must be 64 bytes")
        self._material = material
        self._aead = AESGCM(material[:32])
        self._name_key = material[32:]

    def material(self) -> bytes:
        """The 64 key bytes, for keeping in the encrypted secret store (settings sync unlocks without a prompt)."""
        return self._material

    def seal(self, plaintext: bytes, aad: bytes) -> bytes:
        nonce = os.urandom(NONCE_BYTES)
        return bytes([BLOB_VERSION]) + nonce + self._aead.encrypt(nonce, plaintext, aad)

    def open(self, blob: bytes, aad: bytes) -> bytes:
        """The plaintext of ``blob`` sealed with ``aad``, or ``DamagedData``."""
        if len(blob) < 1 + NONCE_BYTES + 16 or blob[0] != BLOB_VERSION:
            raise DamagedData("A stored object is cut short or in an unknown format.")
        nonce = blob[1 : 1 + NONCE_BYTES]
        try:
            return self._aead.decrypt(nonce, blob[1 + NONCE_BYTES :], aad)
        except InvalidTag as exc:
            raise DamagedData("A stored object failed its integrity check: it was changed or damaged.") from exc

    def content_id(self, data: bytes) -> str:
        """A name for ``data`` that is stable under this key and reveals nothing without it."""
        return hmac.new(self._name_key, data, hashlib.sha256).hexdigest()


def _derive(passphrase: str, salt: bytes, n: int, r: int, p: int) -> VaultKey:
    if not passphrase:
        raise WrongPassphrase("The passphrase is empty; type the passphrase the backup was made with.")
    kdf = Scrypt(salt=salt, length=64, n=n, r=r, p=p)
    return VaultKey(kdf.derive(passphrase.encode("utf-8")))


def create(passphrase: str, n: int = DEFAULT_COST, r: int = 8, p: int = 1) -> tuple[VaultKey, VaultParams]:
    """A new key from ``passphrase`` with a fresh random salt, and the parameters to store beside the data."""
    salt = os.urandom(SALT_BYTES)
    key = _derive(passphrase, salt, n, r, p)
    return key, VaultParams(salt, n, r, p, key.seal(_CHECK_TEXT, _CHECK_AAD))


def unlock(passphrase: str, params: VaultParams) -> VaultKey:
    """The key ``params`` were made with, or ``WrongPassphrase``."""
    key = _derive(passphrase, params.salt, params.n, params.r, params.p)
    try:
        if key.open(params.check, _CHECK_AAD) != _CHECK_TEXT:
            raise DamagedData("The stored key check is damaged.")
    except DamagedData as exc:
        raise WrongPassphrase("The passphrase is wrong: it is not the one this data was encrypted with.") from exc
    return key


def confirm(key: VaultKey, params: VaultParams) -> None:
    """Raise ``WrongPassphrase`` unless ``key`` (kept from an earlier unlock) is the one ``params`` were made with."""
    try:
        if key.open(params.check, _CHECK_AAD) != _CHECK_TEXT:
            raise DamagedData("The stored key check is damaged.")
    except DamagedData as exc:
        raise WrongPassphrase(
            "The sync data in the bucket was made with another passphrase: type that passphrase in Settings > Sync."
        ) from exc
