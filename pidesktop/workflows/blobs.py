"""Content-addressed values: canonical JSON and UTF-8 text, keyed by SHA-256.

A ``Blob`` is prepared (encoded and hashed) outside any write transaction.
``put`` runs inside one and verifies everything again before it writes:
digest, byte length, media type and that the bytes are valid for it. Repeated
content adopts the existing row only when the stored bytes are identical and
valid for the stored media type.
"""

from __future__ import annotations

import hashlib
import math
from dataclasses import dataclass
from typing import Any

import apsw
import orjson

from pidesktop.workflows.errors import BlobRejected, NotFound

JSON = "application/json"
TEXT = "text/plain;charset=utf-8"
MEDIA_TYPES = (JSON, TEXT)


@dataclass(frozen=True)
class Blob:
    digest: bytes
    media_type: str
    length: int
    content: bytes

    @property
    def hex(self) -> str:
        return self.digest.hex()


def canonical_json(value: Any) -> bytes:
    """Sorted keys, no insignificant whitespace, finite numbers only."""
    _check_json_value(value)
    try:
        return orjson.dumps(value, option=orjson.OPT_SORT_KEYS)
    except TypeError as exc:
        raise BlobRejected(f"value is not JSON: {exc}") from exc


def sha256(data: bytes) -> bytes:
    return hashlib.sha256(data).digest()


def of_json(value: Any) -> Blob:
    content = canonical_json(value)
    return Blob(sha256(content), JSON, len(content), content)


def of_text(text: str) -> Blob:
    if not isinstance(text, str):
        raise BlobRejected("text value must be a str")
    content = text.encode("utf-8")
    return Blob(sha256(content), TEXT, len(content), content)


def verify(blob: Blob) -> None:
    """Raise ``BlobRejected`` unless the blob's facts match its bytes."""
    if not isinstance(blob.content, bytes | bytearray | memoryview):
        raise BlobRejected("blob content must be bytes")
    content = bytes(blob.content)
    if not isinstance(blob.digest, bytes) or len(blob.digest) != 32:
        raise BlobRejected("blob digest must be 32 bytes")
    if blob.length != len(content):
        raise BlobRejected(f"blob length {blob.length} does not match its {len(content)} bytes")
    if sha256(content) != blob.digest:
        raise BlobRejected("blob digest does not match its bytes")
    _check_media(blob.media_type, content)


def put(conn: apsw.Connection, blob: Blob, now: int) -> bytes:
    """Insert ``blob`` (inside the caller's transaction) or adopt an identical row.

    Adoption compares everything the row records: length, bytes and media
    type. The key is the digest of the bytes alone, so the one difference
    adopted is JSON and text with the same bytes (canonical JSON is valid
    UTF-8 text; the row keeps the first writer's media type), and only after
    the stored bytes are checked against the stored media type. Anything
    else under the digest means the database was changed behind the store.
    """
    verify(blob)
    row = conn.execute("SELECT media_type, byte_length, content FROM blobs WHERE digest = ?", (blob.digest,)).fetchone()
    if row is None:
        conn.execute(
            "INSERT INTO blobs (digest, media_type, byte_length, content, created_at) VALUES (?, ?, ?, ?, ?)",
            (blob.digest, blob.media_type, blob.length, bytes(blob.content), now),
        )
        return blob.digest
    media_type, length, content = row[0], row[1], bytes(row[2])
    if length != blob.length or content != bytes(blob.content):
        raise BlobRejected(f"stored blob {blob.hex} has different bytes; the database may be damaged")
    if media_type != blob.media_type:
        try:
            if media_type not in MEDIA_TYPES:
                raise BlobRejected(f"unknown media type {media_type!r}")
            _check_media(media_type, content)
        except BlobRejected as exc:
            raise BlobRejected(
                f"stored blob {blob.hex} is recorded as {media_type!r}, which its bytes are not "
                f"({exc}); the database may be damaged"
            ) from None
    return blob.digest


def get(conn: apsw.Connection, digest: bytes) -> Blob:
    """Read and verify a blob."""
    row = conn.execute("SELECT media_type, byte_length, content FROM blobs WHERE digest = ?", (digest,)).fetchone()
    if row is None:
        raise NotFound(f"no blob {bytes(digest).hex()}")
    blob = Blob(bytes(digest), row[0], row[1], bytes(row[2]))
    verify(blob)
    return blob


def read_json(conn: apsw.Connection, digest: bytes | None) -> Any:
    if digest is None:
        return None
    return orjson.loads(get(conn, digest).content)


def read_text(conn: apsw.Connection, digest: bytes | None) -> str | None:
    if digest is None:
        return None
    return get(conn, digest).content.decode("utf-8")


def _check_media(media_type: str, content: bytes) -> None:
    if media_type == TEXT:
        try:
            content.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise BlobRejected("text blob is not valid UTF-8") from exc
    elif media_type == JSON:
        try:
            value = orjson.loads(content)
        except orjson.JSONDecodeError as exc:
            raise BlobRejected("JSON blob does not parse") from exc
        if canonical_json(value) != content:
            raise BlobRejected("JSON blob is not in canonical form")
    else:
        raise BlobRejected(f"unknown media type {media_type!r}")


def _check_json_value(value: Any) -> None:
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, float) and not math.isfinite(item):
            raise BlobRejected("JSON numbers must be finite")
        if isinstance(item, dict):
            for key, child in item.items():
                if not isinstance(key, str):
                    raise BlobRejected("JSON object keys must be strings")
                stack.append(child)
        elif isinstance(item, list | tuple):
            stack.extend(item)
        elif not (item is None or isinstance(item, str | int | float | bool)):
            raise BlobRejected(f"{type(item).__name__} is not a JSON value")
