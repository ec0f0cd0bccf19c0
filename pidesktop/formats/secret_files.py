"""The encrypted secret files under ``<data root>/secrets/`` (spec 004, 4.12 and 10), read without a host.

Each secret is one file named by the SHA-256 hex of its ``secret_ref``, holding ``b"PDS1" + nonce(12) +
AES-256-GCM ciphertext``, with the ``secret_ref`` as associated data; the key is ``secrets/.machine-key``.
The host writes them (``host/settings/secrets.py``); a command-line job beside it reads them here.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

from pidesktop.bus.errors import ErrorCode, HostError

MAGIC = b"PDS1"
NONCE_BYTES = 12
KEY_BYTES = 32
TAG_BYTES = 16
KEY_FILE = ".machine-key"


def read(data_root: Path, secret_ref: str) -> str | None:
    """``get`` without a host: what a command-line tool reads from a data root beside (or without) a host."""
    path = data_root / "secrets" / hashlib.sha256(secret_ref.encode("utf-8")).hexdigest()
    try:
        blob = path.read_bytes()
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise unavailable(f"Cannot read the secret file for {secret_ref!r}: {exc.strerror or exc}") from None
    if len(blob) < len(MAGIC) + NONCE_BYTES + TAG_BYTES or not blob.startswith(MAGIC):
        raise _undecryptable(secret_ref, "the file is not a pidesktop secret")
    key = read_machine_key(data_root / "secrets")
    if key is None:
        raise _undecryptable(secret_ref, f"the machine key {KEY_FILE} is missing")
    nonce = blob[len(MAGIC) : len(MAGIC) + NONCE_BYTES]
    try:
        plain = AESGCM(key).decrypt(nonce, blob[len(MAGIC) + NONCE_BYTES :], secret_ref.encode("utf-8"))
        return plain.decode("utf-8")
    except (InvalidTag, UnicodeDecodeError):
        raise _undecryptable(
            secret_ref, "the file is damaged, belongs to another entry, or was written with another machine key"
        ) from None


def read_machine_key(folder: Path) -> bytes | None:
    """The machine key in ``folder``, or None when there is none yet."""
    path = folder / KEY_FILE
    try:
        key = path.read_bytes()
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise unavailable(f"Cannot read the machine key {path}: {exc.strerror or exc}") from None
    if len(key) != KEY_BYTES:
        # Replacing it would make every stored secret undecryptable: refuse instead.
        raise unavailable(
            f"The machine key {path} is damaged ({len(key)} bytes, expected {KEY_BYTES}). "
            f"Restore it from a backup, or move it away to start over and enter the API keys again."
        )
    return key


def unavailable(message: str) -> HostError:
    return HostError(ErrorCode.STORAGE_UNAVAILABLE, message)


def _undecryptable(secret_ref: str, why: str) -> HostError:
    return HostError(
        ErrorCode.STORAGE_UNAVAILABLE,
        f"The stored secret {secret_ref!r} cannot be decrypted: {why}. Enter it again to replace it.",
        {"secretRef": secret_ref},
    )
