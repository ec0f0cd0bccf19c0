"""The on-disk copy of a layout: ``sessions/<id>.jsonl.layout``.

Format (version 1)::

    pidesktop-layout v1\\n
    <blake2b-128 of the body, hex>\\n
    <body: one orjson object>

The body holds the file identity (``dev``, ``ino``), ``prefix_len``, the
message and compaction counts, and per kind the offsets, lengths and ids.

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
from itertools import islice
import os
from pathlib import Path

import orjson

from .files import ReadCounter, atomic_write
from .layout import Layout, ends_at_line_boundary

log = logging.getLogger("pidesktop.host.transcripts")

HEADER = b"pidesktop-layout v1"
_KINDS = ("message", "compaction")
_INT = {int}
_ID_TYPES = {str, type(None)}


def _checksum(body: bytes) -> bytes:
    return hashlib.blake2b(body, digest_size=16).hexdigest().encode("ascii")


def encode(layout: Layout) -> bytes:
    body = orjson.dumps(
        {
            "dev": layout.dev,
            "ino": layout.ino,
            "prefix_len": layout.prefix_len,
            "message_count": len(layout.message_offsets),
            "message_offsets": layout.message_offsets,
            "message_lengths": layout.message_lengths,
            "message_ids": layout.message_ids,
            "compaction_count": len(layout.compaction_offsets),
            "compaction_offsets": layout.compaction_offsets,
            "compaction_lengths": layout.compaction_lengths,
            "compaction_ids": layout.compaction_ids,
        }
    )
    return HEADER + b"\n" + _checksum(body) + b"\n" + body


def decode(data: bytes) -> Layout | None:
    """The layout in ``data`` if it is intact and self-consistent, else None."""
    header, _, rest = data.partition(b"\n")
    checksum, _, body = rest.partition(b"\n")
    if header != HEADER or checksum != _checksum(body):
        return None
    try:
        fields = orjson.loads(body)
    except orjson.JSONDecodeError:
        return None
    if not isinstance(fields, dict):
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


def _consistent(layout: Layout, counts: tuple) -> bool:
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
        # Type checks through map() and set() keep a 100k-line cache cheap to validate.
        if not (set(map(type, offsets)) <= _INT and set(map(type, lengths)) <= _INT):
            return False
        if not set(map(type, ids)) <= _ID_TYPES:
            return False
        if count == 0:
            continue
        if offsets[0] < 0 or min(lengths) < 1 or offsets[-1] + lengths[-1] > layout.prefix_len:
            return False
        # Strictly increasing. Overlaps are left to the checks every read makes.
        if not all(map(operator.lt, offsets, islice(offsets, 1, None))):
            return False
    return True


def _is_int(value) -> bool:
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
        atomic_write(cache_path, encode(layout), durable=False)
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
