"""Content-addressed attachment blobs under ``attachments/`` (spec 004, block vocabulary).

A blob is named by the SHA-256 of its bytes, with no extension, so the same
bytes attached twice are stored once and a ref never names changed content.
Bytes arrive through a temporary ``.incoming-<uuid>`` file that is hashed while
it is written in 1 MiB chunks, fsync-ed, then renamed to its digest: a crash
leaves either a complete blob or a temporary file the boot pass removes. No
file is ever read into memory whole.
"""

from __future__ import annotations

import base64
import hashlib
import mimetypes
import os
import re
import stat
import uuid
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

from pidesktop.bus.errors import ErrorCode, HostError
from pidesktop.durable import FILE_MODE, fsync_dir, write_all
from pidesktop.host.commands import command
from pidesktop.host.context import HostContext
from pidesktop.host.params import Params, invalid
from pidesktop.paths import ensure_private_dir

CHUNK = 1 << 20
MAX_BYTES = 2 << 30
READ_DEFAULT = 1 << 20
READ_MAX = 4 << 20
NAME_MAX_CHARS = 1024
TEMP_PREFIX = ".incoming-"
PASTED_TEXT_NAME = "Pasted text.txt"
_REF = re.compile(r"attachments/[0-9a-f]{64}")
_SNIFF_BYTES = 16


class _ReadFailed(Exception):
    """The source could not be read; the blob store itself is fine."""

    def __init__(self, error: OSError):
        super().__init__(error)
        self.error = error


class _TooLarge(Exception):
    """The source grew past the limit while it was copied."""


@dataclass(frozen=True)
class Stored:
    sha256: str
    size: int
    head: bytes


def directory(ctx: HostContext) -> Path:
    return ctx.data_root / "attachments"


# -- storing -------------------------------------------------------------------------
def store(folder: Path, chunks: Iterable[bytes | memoryview]) -> Stored:
    """Write ``chunks`` to ``folder/<sha256>`` via a temporary file; an existing blob is kept as it is."""
    ensure_private_dir(folder)
    temp = folder / f"{TEMP_PREFIX}{uuid.uuid4().hex}"
    fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0), FILE_MODE)
    try:
        try:
            stored = _copy(fd, chunks)
            os.fsync(fd)
        finally:
            os.close(fd)
        target = folder / stored.sha256
        if target.exists():
            temp.unlink()  # same bytes are already stored; the blob on disk stays untouched
        else:
            os.rename(temp, target)
            fsync_dir(folder)
    except BaseException:
        temp.unlink(missing_ok=True)
        raise
    return stored


def _copy(fd: int, chunks: Iterable[bytes | memoryview]) -> Stored:
    digest = hashlib.sha256()
    size = 0
    head = b""
    for chunk in chunks:
        size += len(chunk)
        if size > MAX_BYTES:
            raise _TooLarge
        if len(head) < _SNIFF_BYTES:
            head += bytes(chunk[: _SNIFF_BYTES - len(head)])
        digest.update(chunk)
        write_all(fd, cast(bytes, chunk))  # it writes any buffer (through a memoryview); its annotation says bytes
    return Stored(digest.hexdigest(), size, head)


def _file_chunks(fd: int) -> Iterator[memoryview]:
    """The file's bytes in chunks of at most ``CHUNK``, reusing one buffer (each view is valid until the next)."""
    buffer = bytearray(CHUNK)
    view = memoryview(buffer)
    with open(fd, "rb", buffering=0, closefd=False) as source:
        while True:
            try:
                count = source.readinto(buffer)
            except OSError as exc:
                raise _ReadFailed(exc) from exc
            if not count:
                return
            yield view[:count]


def _bytes_chunks(data: bytes) -> Iterator[memoryview]:
    view = memoryview(data)
    for start in range(0, len(data), CHUNK):
        yield view[start : start + CHUNK]


# -- describing ----------------------------------------------------------------------
_IMAGE_SIGNATURES = (
    (b"\x89PNG\r\n\x1a\n", "image/png"),
    (b"\xff\xd8\xff", "image/jpeg"),
    (b"GIF87a", "image/gif"),
    (b"GIF89a", "image/gif"),
)


def sniff_image(head: bytes) -> str | None:
    """The image MIME type the first bytes announce (PNG, JPEG, GIF, WebP), else None."""
    for signature, mime in _IMAGE_SIGNATURES:
        if head.startswith(signature):
            return mime
    if head[:4] == b"RIFF" and head[8:12] == b"WEBP":
        return "image/webp"
    return None


def block(stored: Stored, name: str, *, mime: str | None = None) -> dict[str, Any]:
    """The attachment block a message stores, plus ``sha256`` for the caller.

    A given ``mime`` (pasted text) is taken as it is; otherwise the bytes are
    sniffed for an image and the name decides the type of any other file.
    """
    image = None if mime else sniff_image(stored.head)
    if image is not None:
        kind, mime = "image", image
    else:
        kind = "file"
        mime = mime or mimetypes.guess_type(name)[0] or "application/octet-stream"
    return {
        "type": "attachment",
        "kind": kind,
        "name": name,
        "ref": f"attachments/{stored.sha256}",
        "mimeType": mime,
        "size": stored.size,
        "sha256": stored.sha256,
    }


def _name_param(p: Params, default: str) -> str:
    return p.text("name", required=False, default=default, strip=True, nonempty=True, max_chars=NAME_MAX_CHARS)


# -- attachments.import -----------------------------------------------------------------
@command("attachments.import", emits=[])
def import_file(ctx: HostContext, p: Params) -> dict[str, Any]:
    path = p.text("path", nonempty=True)
    if not os.path.isabs(path):
        raise invalid(f"attachments.import: 'path' must be an absolute path, not {path!r}.", "path")
    if "\0" in path:
        raise invalid(f"attachments.import: 'path' must not contain a NUL character: {path!r}.", "path")
    name = _name_param(p, os.path.basename(path.rstrip(os.sep)) or path)
    fd = _open_source(path)
    try:
        stored = _store_source(ctx, path, fd)
    finally:
        os.close(fd)
    return {"attachment": block(stored, name)}


def _open_source(path: str) -> int:
    """An fd on the regular file at ``path``, or INVALID_PARAMS saying what is wrong with it."""
    where = f"attachments.import: 'path' {path!r}"
    try:
        info = os.stat(path)
    except FileNotFoundError:
        raise invalid(f"{where} does not exist.", "path") from None
    except OSError as exc:
        raise invalid(f"{where} cannot be read: {exc.strerror or exc}.", "path") from None
    _check_source(where, info)
    try:
        # O_NONBLOCK: a file swapped for a FIFO after the stat must not hang the host.
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    except OSError as exc:
        raise invalid(f"{where} cannot be read: {exc.strerror or exc}.", "path") from None
    try:
        _check_source(where, os.fstat(fd))
    except BaseException:
        os.close(fd)
        raise
    return fd


def _check_source(where: str, info: os.stat_result) -> None:
    if stat.S_ISDIR(info.st_mode):
        raise invalid(f"{where} is a directory, not a file.", "path")
    if not stat.S_ISREG(info.st_mode):
        raise invalid(f"{where} is not a regular file.", "path")
    if info.st_size > MAX_BYTES:
        raise invalid(f"{where} is larger than the 2 GiB attachment limit.", "path")


def _store_source(ctx: HostContext, path: str, fd: int) -> Stored:
    where = f"attachments.import: 'path' {path!r}"
    try:
        return store(directory(ctx), _file_chunks(fd))
    except _ReadFailed as exc:
        raise invalid(f"{where} could not be read: {exc.error.strerror or exc.error}.", "path") from None
    except _TooLarge:
        raise invalid(f"{where} is larger than the 2 GiB attachment limit.", "path") from None
    except OSError as exc:
        raise _storage_error(ctx, exc) from exc


def _storage_error(ctx: HostContext, exc: OSError) -> HostError:
    return HostError(
        ErrorCode.STORAGE_UNAVAILABLE, f"Could not store the attachment in {directory(ctx)}: {exc.strerror or exc}."
    )


# -- attachments.importText ----------------------------------------------------------------
@command("attachments.importText", emits=[])
def import_text(ctx: HostContext, p: Params) -> dict[str, Any]:
    text = p.text("text")
    if not text.strip():
        raise invalid("attachments.importText: field 'text' must not be empty.", "text")
    name = _name_param(p, PASTED_TEXT_NAME)
    data = text.encode("utf-8", errors="replace")  # a lone surrogate cannot be UTF-8
    try:
        stored = store(directory(ctx), _bytes_chunks(data))
    except _TooLarge:
        raise invalid(
            "attachments.importText: field 'text' is larger than the 2 GiB attachment limit.", "text"
        ) from None
    except OSError as exc:
        raise _storage_error(ctx, exc) from exc
    return {"attachment": block(stored, name, mime="text/plain")}


# -- attachments.read ----------------------------------------------------------------------
def ref_param(p: Params) -> str:
    ref = p.text("ref")
    if not _REF.fullmatch(ref):
        raise invalid(f"{p.method}: 'ref' must look like attachments/<64 lowercase hex digits>; got {ref!r}.", "ref")
    return ref


@command("attachments.read", emits=[])
def read(ctx: HostContext, p: Params) -> dict[str, Any]:
    ref = ref_param(p)
    offset = p.integer("offset", required=False, default=0, minimum=0)
    length = p.integer("length", required=False, default=READ_DEFAULT, minimum=1, maximum=READ_MAX)
    path = ctx.data_root / ref
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0))
    except (FileNotFoundError, NotADirectoryError):
        raise HostError(ErrorCode.NOT_FOUND, f"Attachment {ref} is not stored.") from None
    except OSError as exc:
        raise HostError(ErrorCode.STORAGE_UNAVAILABLE, f"Could not read {ref}: {exc.strerror or exc}.") from exc
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise HostError(ErrorCode.NOT_FOUND, f"Attachment {ref} is not stored (not a file).")
        size = info.st_size
        if offset > size:
            raise invalid(f"attachments.read: 'offset' {offset} is past the end of {ref} ({size} bytes).", "offset")
        data = _read_at(fd, offset, length)
    finally:
        os.close(fd)
    return {
        "data": base64.b64encode(data).decode("ascii"),
        "offset": offset,
        "size": size,
        "eof": offset + len(data) >= size,
    }


def _read_at(fd: int, offset: int, length: int) -> bytes:
    """Up to ``length`` bytes from ``offset``; short only at the end of the file."""
    with open(fd, "rb", buffering=0, closefd=False) as blob:
        blob.seek(offset)
        parts: list[bytes] = []
        got = 0
        while got < length:
            part = blob.read(length - got)
            if not part:
                break
            parts.append(part)
            got += len(part)
    return b"".join(parts)
