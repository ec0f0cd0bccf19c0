"""The on-disk copy of a layout: ``sessions/<id>.jsonl.layout``.

Format (version 2)::

    pidesktop-layout v2\n
    <blake2b-128 of the body, hex>\n
    <body: a JSON header line, then the payload>

The header holds the file identity (``dev``, ``ino``), ``prefix_len``, the
message and compaction counts and the byte length of each id chunk. The
payload holds the offsets and lengths of both kinds as little-endian int64
arrays, then the ids as JSON arrays of at most ``ID_CHUNK`` entries.

Why binary, and why chunks: the host thread shares Python's GIL with the UI
thread. Decoding a 100k-line cache as one JSON document held the GIL for about
25 ms in a single call, a visible freeze of the window; arrays are copied, and
each id chunk is a short call, so the UI thread gets its turn in between.

The cache is disposable: it is written without fsync, and anything doubtful
about it (unknown header, bad checksum, another file's identity, offsets that
do not fit the file) makes the loader return None so the caller rescans. It
never makes a transcript unreadable, and failing to read or write it is only
logged.
"""

from __future__ import annotations

import hashlib
import logging
import operator
import os
import sys
from array import array
from pathlib import Path
from typing import Any

import orjson

from pidesktop.durable import atomic_write_pieces
from pidesktop.host.transcripts.files import ReadCounter
from pidesktop.host.transcripts.layout import Layout, ends_at_line_boundary

log = logging.getLogger("pidesktop.host.transcripts")

HEADER = b"pidesktop-layout v2"
ID_CHUNK = 4096
_KINDS = ("message", "compaction")
_INT = {int}
_ID_TYPES = {str, type(None)}
_ARRAYS = tuple(f"{kind}_{part}" for kind in _KINDS for part in ("offsets", "lengths"))


def _checksum(body: bytes | memoryview) -> bytes:
    return hashlib.blake2b(body, digest_size=16).hexdigest().encode("ascii")


def fields_of(layout: Layout, copy: bool = True) -> dict[str, Any]:
    """What the cache stores of a layout (``copy=False``: the layout's own lists, for reading only)."""
    fields: dict[str, Any] = {"dev": layout.dev, "ino": layout.ino, "prefix_len": layout.prefix_len}
    for kind in _KINDS:
        for part in ("offsets", "lengths", "ids"):
            values = getattr(layout, f"{kind}_{part}")
            fields[f"{kind}_{part}"] = list(values) if copy else values
        fields[f"{kind}_count"] = len(fields[f"{kind}_offsets"])
    return fields


def encode(layout: Layout) -> bytes:
    return b"".join(encode_pieces(fields_of(layout, copy=False)))


def encode_fields(fields: dict[str, Any]) -> bytes:
    return b"".join(encode_pieces(fields))


def encode_pieces(fields: dict[str, Any]) -> list[bytes | array[int]]:
    """The cache's bytes in pieces, for writing one after the other: a million lines make about 50 MB, and
    joining them would hold them twice."""
    chunks = {
        kind: [orjson.dumps(ids[i : i + ID_CHUNK]) for i in range(0, len(ids), ID_CHUNK)]
        for kind in _KINDS
        for ids in [fields[f"{kind}_ids"]]
    }
    header = {key: fields[key] for key in ("dev", "ino", "prefix_len", "message_count", "compaction_count")}
    header["id_chunks"] = {kind: [len(chunk) for chunk in chunks[kind]] for kind in _KINDS}
    body: list[bytes | array[int]] = [orjson.dumps(header) + b"\n"]
    body += [_int64s(fields[name]) for name in _ARRAYS] + [c for kind in _KINDS for c in chunks[kind]]
    checksum = hashlib.blake2b(digest_size=16)  # the same digest as _checksum() of the joined body
    for piece in body:
        checksum.update(piece)
    return [HEADER + b"\n" + checksum.hexdigest().encode("ascii") + b"\n", *body]


def _int64s(values: list[int]) -> array[int]:
    """Little-endian int64s, as a buffer the join reads (no bytes copy of it)."""
    packed = array("q", values)
    if sys.byteorder != "little":
        packed.byteswap()
    return packed


def decode_fields(data: bytes) -> dict[str, Any] | None:
    """The stored fields if ``data`` is an intact cache of this version, else None (types unchecked)."""
    # Split by position over one memoryview: ``partition`` copied the megabytes after each
    # newline, three copies of a 100k-message cache, each holding the GIL for milliseconds.
    first = data.find(b"\n")
    second = data.find(b"\n", first + 1) if first >= 0 else -1
    if second < 0 or data[:first] != HEADER:
        return None
    whole = memoryview(data)
    body = whole[second + 1 :]
    if data[first + 1 : second] != _checksum(body):
        return None
    third = data.find(b"\n", second + 1)
    head = bytes(body) if third < 0 else data[second + 1 : third]
    payload = whole[len(data) :] if third < 0 else whole[third + 1 :]
    try:
        fields: dict[str, Any] = orjson.loads(head)  # any other JSON value fails the lookups below
        counts = {kind: fields[f"{kind}_count"] for kind in _KINDS}
        chunk_sizes = fields.pop("id_chunks")
        sizes = {kind: list(chunk_sizes[kind]) for kind in _KINDS}
    except (orjson.JSONDecodeError, KeyError, TypeError, AttributeError):
        return None
    if not all(_is_int(n) and n >= 0 for n in counts.values()):
        return None
    if not all(_is_int(n) and n >= 0 for chunk_sizes in sizes.values() for n in chunk_sizes):
        return None
    array_bytes = [8 * counts[name.split("_")[0]] for name in _ARRAYS]
    if len(payload) != sum(array_bytes) + sum(sum(chunk_sizes) for chunk_sizes in sizes.values()):
        return None
    view = memoryview(payload)
    position = 0
    for name, size in zip(_ARRAYS, array_bytes):
        values = array("q")
        values.frombytes(view[position : position + size])
        if sys.byteorder != "little":
            values.byteswap()
        numbers: list[int] = []
        for start in range(0, len(values), ID_CHUNK):  # 100,000 ints in one call held the GIL ~3 ms
            numbers.extend(values[start : start + ID_CHUNK].tolist())
        fields[name] = numbers
        position += size
    for kind in _KINDS:
        ids: list[Any] = []
        for size in sizes[kind]:  # one short call per chunk: the GIL can change hands between them
            try:
                chunk = orjson.loads(view[position : position + size])
            except orjson.JSONDecodeError:
                return None
            if not isinstance(chunk, list):
                return None
            ids.extend(chunk)
            position += size
        fields[f"{kind}_ids"] = ids
    return fields


def decode(data: bytes) -> Layout | None:
    """The layout in ``data`` if it is intact and self-consistent, else None."""
    fields = decode_fields(data)
    if fields is None:
        return None
    try:
        layout = Layout(
            dev=fields["dev"],
            ino=fields["ino"],
            prefix_len=fields["prefix_len"],
            message_offsets=fields["message_offsets"],
            message_lengths=fields["message_lengths"],
            message_ids=fields["message_ids"],
            compaction_offsets=fields["compaction_offsets"],
            compaction_lengths=fields["compaction_lengths"],
            compaction_ids=fields["compaction_ids"],
        )
        counts = (fields["message_count"], fields["compaction_count"])
    except KeyError:
        return None
    return layout if _consistent(layout, counts) else None


def _consistent(layout: Layout, counts: tuple[Any, Any]) -> bool:
    if not all(_is_int(value) and value >= 0 for value in (layout.dev, layout.ino, layout.prefix_len)):
        return False
    for kind, count in zip(_KINDS, counts):
        offsets = getattr(layout, f"{kind}_offsets")
        lengths = getattr(layout, f"{kind}_lengths")
        ids = getattr(layout, f"{kind}_ids")
        if not (_is_int(count) and isinstance(offsets, list) and isinstance(lengths, list) and isinstance(ids, list)):
            return False
        if not (len(offsets) == len(lengths) == len(ids) == count):
            return False
        # Type checks through map() and set() keep a 100k-line cache cheap to validate. Each runs in C
        # without letting go of the GIL, so a chunk at a time: the window can take it between two.
        for start in range(0, count, ID_CHUNK):
            end = start + ID_CHUNK
            chunk_offsets, chunk_lengths = offsets[start:end], lengths[start:end]
            if not (
                set(map(type, chunk_offsets)) <= _INT
                and set(map(type, chunk_lengths)) <= _INT
                and set(map(type, ids[start:end])) <= _ID_TYPES
            ):
                return False
            if min(chunk_lengths) < 1:
                return False
            # Strictly increasing. Overlaps are left to the checks every read makes.
            if not all(map(operator.lt, chunk_offsets, offsets[start + 1 : end + 1])):
                return False
        if count and (offsets[0] < 0 or offsets[-1] + lengths[-1] > layout.prefix_len):
            return False
    return True


def _is_int(value: object) -> bool:
    return type(value) is int


def load(cache_path: Path, fd: int, stat: os.stat_result, counter: ReadCounter) -> Layout | None:
    """The cached layout of the open transcript ``fd``, if the cache can be trusted."""
    try:
        data = cache_path.read_bytes()
    except FileNotFoundError:
        return None
    except OSError as error:
        log.warning("cannot read layout cache %s: %s", cache_path, error)
        return None
    layout = decode(data)
    if layout is None:
        log.info("ignoring an unusable layout cache %s", cache_path)
        return None
    if not layout.describes(stat) or not ends_at_line_boundary(fd, layout.prefix_len, counter):
        log.info("ignoring a layout cache that describes another file state: %s", cache_path)
        return None
    return layout


def save(cache_path: Path, layout: Layout) -> bool:
    """Write the cache atomically; False (logged) if that is not possible."""
    try:
        atomic_write_pieces(cache_path, encode_pieces(fields_of(layout, copy=False)), durable=False)
    except OSError as error:
        log.warning("cannot write layout cache %s: %s", cache_path, error)
        return False
    return True


def remove(cache_path: Path) -> None:
    try:
        cache_path.unlink()
    except FileNotFoundError:
        pass
    except OSError as error:
        log.warning("cannot remove layout cache %s: %s", cache_path, error)
