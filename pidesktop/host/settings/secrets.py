"""Encrypted secret storage: the ``file_fallback`` backend (spec 004, 4.12 and 10).

Each secret is one file under ``<data_root>/secrets/`` named by the SHA-256
hex of its ``secret_ref``, holding ``b"PDS1" + nonce(12) + AES-256-GCM
ciphertext``. The ``secret_ref`` is the associated data, so a file copied or
renamed to another ref does not decrypt. The key is ``secrets/.machine-key``
(32 random bytes, mode 0600), created once and kept beside the ciphertexts:
a same-user process that can read the data root can decrypt these secrets.

SQLite holds only bookkeeping (``secrets_meta``). A secret's value is never
written to the database, a log, an event, an exception or a result.
"""

from __future__ import annotations

import hashlib
import logging
import os
import tempfile
from pathlib import Path
from typing import Literal, overload

from cryptography.hazmat.primitives.ciphers.aead import AESGCM

from pidesktop.durable import FILE_MODE, atomic_write, fsync_dir, write_all
from pidesktop.formats.index.sql_rows import all_rows
from pidesktop.formats.secret_files import KEY_BYTES, KEY_FILE, MAGIC, NONCE_BYTES, read, read_machine_key, unavailable
from pidesktop.host.context import HostContext
from pidesktop.paths import ensure_private_dir

log = logging.getLogger("pidesktop.host.settings.secrets")

BACKEND = "file_fallback"


def secrets_dir(ctx: HostContext) -> Path:
    return ctx.data_root / "secrets"


def secret_path(ctx: HostContext, secret_ref: str) -> Path:
    return secrets_dir(ctx) / hashlib.sha256(secret_ref.encode("utf-8")).hexdigest()


def put(
    ctx: HostContext,
    secret_ref: str,
    value: str,
    owner_kind: str = "provider",
    owner_id: str | None = None,
    kind: str = "api_key",
) -> None:
    """Store (or replace) ``value`` under ``secret_ref``: the file first, then its bookkeeping row.

    A file without a row is an unreachable blob; a row without a file would
    claim a key that is not there, so the file is written first.
    """
    key = _machine_key(ctx, create=True)
    nonce = os.urandom(NONCE_BYTES)
    sealed = AESGCM(key).encrypt(nonce, value.encode("utf-8"), secret_ref.encode("utf-8"))
    path = secret_path(ctx, secret_ref)
    try:
        atomic_write(path, MAGIC + nonce + sealed)  # mkstemp files are 0600
        os.chmod(path, FILE_MODE)
    except OSError as exc:
        raise unavailable(f"Cannot write the secret file for {secret_ref!r}: {exc.strerror or exc}") from None
    with ctx.conn:
        ctx.conn.execute(
            "INSERT INTO secrets_meta(secret_ref, owner_kind, owner_id, kind, backend, updated_at) "
            "VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT(secret_ref) DO UPDATE SET owner_kind = excluded.owner_kind, "
            "owner_id = excluded.owner_id, kind = excluded.kind, backend = excluded.backend, "
            "updated_at = excluded.updated_at",
            (secret_ref, owner_kind, owner_id, kind, BACKEND, ctx.clock()),
        )
    log.info("stored secret %s (%s/%s)", secret_ref, owner_kind, owner_id)


def get(ctx: HostContext, secret_ref: str) -> str | None:
    """The stored value, or None when there is no file for ``secret_ref``.

    A file that does not decrypt (damaged, copied from another ref, or the
    machine key changed) is refused with ``STORAGE_UNAVAILABLE``.
    """
    return read(ctx.data_root, secret_ref)


def delete(ctx: HostContext, secret_ref: str) -> None:
    """Forget ``secret_ref``: its bookkeeping row, then its file. Missing either is fine."""
    with ctx.conn:
        ctx.conn.execute("DELETE FROM secrets_meta WHERE secret_ref = ?", (secret_ref,))
    path = secret_path(ctx, secret_ref)
    try:
        path.unlink()
    except FileNotFoundError:
        return
    except OSError as exc:
        raise unavailable(f"Cannot remove the secret file for {secret_ref!r}: {exc.strerror or exc}") from None
    fsync_dir(path.parent)
    log.info("deleted secret %s", secret_ref)


def exists(ctx: HostContext, secret_ref: str) -> bool:
    """True when both the bookkeeping row and the file are there."""
    row = ctx.conn.execute("SELECT 1 FROM secrets_meta WHERE secret_ref = ?", (secret_ref,)).fetchone()
    return row is not None and secret_path(ctx, secret_ref).is_file()


def refs_owned_by(ctx: HostContext, owner_kind: str, owner_id: str) -> list[str]:
    rows = all_rows(
        ctx.conn.execute(
            "SELECT secret_ref FROM secrets_meta WHERE owner_kind = ? AND owner_id = ?", (owner_kind, owner_id)
        )
    )
    return [r[0] for r in rows]


@overload
def _machine_key(ctx: HostContext, *, create: Literal[True]) -> bytes: ...
@overload
def _machine_key(ctx: HostContext, *, create: bool) -> bytes | None: ...
def _machine_key(ctx: HostContext, *, create: bool) -> bytes | None:
    """The 32-byte machine key; created once when ``create`` and it is not there yet."""
    folder = secrets_dir(ctx)
    key = read_machine_key(folder)
    if key is None and create:
        key = _create_machine_key(folder, folder / KEY_FILE)
    return key


def _create_machine_key(folder: Path, path: Path) -> bytes:
    """Write a fresh key to a private temp file, then publish it with an exclusive link.

    ``os.link`` fails if the name exists, so two writers cannot both win and a
    crash never leaves a short key under the final name.
    """
    try:
        ensure_private_dir(folder)
        fd, temp_name = tempfile.mkstemp(dir=folder, prefix=".machine-key.", suffix=".tmp")
    except OSError as exc:
        raise unavailable(f"Cannot create the machine key in {folder}: {exc.strerror or exc}") from None
    key = os.urandom(KEY_BYTES)
    try:
        try:
            os.fchmod(fd, FILE_MODE)
            write_all(fd, key)
            os.fsync(fd)
        finally:
            os.close(fd)
        try:
            os.link(temp_name, path)
        except FileExistsError:
            return path.read_bytes()  # someone else created it first: theirs is the key
    except OSError as exc:
        raise unavailable(f"Cannot create the machine key {path}: {exc.strerror or exc}") from None
    finally:
        Path(temp_name).unlink(missing_ok=True)
    fsync_dir(folder)
    log.info("created the machine key %s", path)
    return key
