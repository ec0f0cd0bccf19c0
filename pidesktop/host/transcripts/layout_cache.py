"""The on-disk copy of a layout: ``sessions/<id>.jsonl.layout``.

Format (version 3)::

    pidesktop-layout v3\n
    <blake2b-128 of the body, hex>\n
    <body: a JSON header line, then the payload>

The header holds the file identity (``dev``, ``ino``), ``prefix_len``, the
message and compaction counts, the byte length of each kind's packed ids and
the positions of lines without an id. The payload holds, for messages then
compactions, the offsets, the lengths and the end of each id in the packed ids
as little-endian int64 arrays, then the packed ids (UTF-8, end to end): the
very shape the layout keeps in memory (:class:`IdColumn`), so loading makes no
object per line.

Why binary, and why pieces: the host thread shares Python's GIL with the UI
thread. Decoding a 100k-line cache as one JSON document held the GIL for about
25 ms in a single call, a visible freeze of the window; the arrays and ids are
copied and checked a piece at a time, each a short call, so the UI thread gets
its turn in between.

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
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import orjson

from pidesktop.durable import atomic_write_pieces
from pidesktop.host.transcripts.files import ReadCounter
from pidesktop.host.transcripts.id_column import IdColumn
from pidesktop.host.transcripts.layout import Layout, ends_at_line_boundary

log = logging.getLogger("pidesktop.host.transcripts")

HEADER = b"pidesktop-layout v3"
ID_CHUNK = 4096  # ids (and array items) checked or copied in one call
COPY_CHUNK = 1 << 20  # bytes of packed ids copied in one call
_KINDS = ("message", "compaction")
_ARRAYS = tuple(f"{kind}_{part}" for kind in _KINDS for part in ("offsets", "lengths", "id_ends"))


def _checksum(body: bytes | memoryview) -> bytes:
    return hashlib.blake2b(body, digest_size=16).hexdigest().encode("ascii")


def fields_of(layout: Layout, copy: bool = True) -> dict[str, Any]:
    """What the cache stores of a layout (``copy=False``: the layout's own arrays, for reading only;
    ``copy=True``: plain lists, to change at will)."""
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
    """The cache's bytes in pieces, for writing one after the other: a million lines make about 60 MB, and
    joining them would hold them twice."""
    ids = {kind: _column(fields[f"{kind}_ids"]) for kind in _KINDS}
    header = {key: fields[key] for key in ("dev", "ino", "prefix_len", "message_count", "compaction_count")}
    header["id_bytes"] = {kind: len(ids[kind].data) for kind in _KINDS}
    header["no_id"] = {kind: sorted(ids[kind].missing) for kind in _KINDS}
    arrays = {f"{kind}_id_ends": ids[kind].ends for kind in _KINDS}
    body: list[bytes | array[int]] = [orjson.dumps(header) + b"\n"]
    body += [_int64s(arrays[name] if name in arrays else fields[name]) for name in _ARRAYS]
    body += [bytes(ids[kind].data) for kind in _KINDS]
    checksum = hashlib.blake2b(digest_size=16)  # the same digest as _checksum() of the joined body
    for piece in body:
        checksum.update(piece)
    return [HEADER + b"\n" + checksum.hexdigest().encode("ascii") + b"\n", *body]


def _column(ids: IdColumn | list[str | None]) -> IdColumn:
    return ids if isinstance(ids, IdColumn) else IdColumn(ids)


def _int64s(values: Sequence[int]) -> array[int]:
    """Little-endian int64s, as a buffer the writer reads (the layout's own array when it can be)."""
    packed = values if isinstance(values, array) and values.typecode == "q" else array("q", values)
    if sys.byteorder != "little":
        packed = array("q", packed)
        packed.byteswap()
    return packed


def decode_fields(data: bytes) -> dict[str, Any] | None:
    """The stored fields if ``data`` is an intact cache of this version, else None (values unchecked)."""
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
        id_bytes = fields.pop("id_bytes")
        no_id = fields.pop("no_id")
        sizes = {kind: id_bytes[kind] for kind in _KINDS}
        missing = {kind: no_id[kind] for kind in _KINDS}
    except (orjson.JSONDecodeError, KeyError, TypeError, AttributeError):
        return None
    if not all(_is_int(n) and n >= 0 for n in [*counts.values(), *sizes.values()]):
        return None
    if not all(isinstance(positions, list) and all(map(_is_int, positions)) for positions in missing.values()):
        return None
    array_bytes = [8 * counts[name.split("_")[0]] for name in _ARRAYS]
    if len(payload) != sum(array_bytes) + sum(sizes.values()):
        return None
    position = 0
    arrays: dict[str, array[int]] = {}
    for name, size in zip(_ARRAYS, array_bytes):
        values = array("q")
        for start in range(position, position + size, 8 * ID_CHUNK):  # short calls: the GIL can change hands
            values.frombytes(payload[start : min(start + 8 * ID_CHUNK, position + size)])
        if sys.byteorder != "little":
            values.byteswap()
        arrays[name] = values
        position += size
    for kind in _KINDS:
        packed = bytearray()
        for start in range(position, position + sizes[kind], COPY_CHUNK):
            packed += payload[start : min(start + COPY_CHUNK, position + sizes[kind])]
        position += sizes[kind]
        fields[f"{kind}_offsets"] = arrays[f"{kind}_offsets"]
        fields[f"{kind}_lengths"] = arrays[f"{kind}_lengths"]
        fields[f"{kind}_ids"] = IdColumn.packed(packed, arrays[f"{kind}_id_ends"], set(missing[kind]))
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
    except KeyError:
        return None
    return layout if _consistent(layout) else None


def _consistent(layout: Layout) -> bool:
    if not all(_is_int(value) and value >= 0 for value in (layout.dev, layout.ino, layout.prefix_len)):
        return False
    for kind in _KINDS:
        offsets: array[int] = getattr(layout, f"{kind}_offsets")
        lengths: array[int] = getattr(layout, f"{kind}_lengths")
        ids: IdColumn = getattr(layout, f"{kind}_ids")
        count = len(offsets)
        if not _ids_consistent(ids, count):
            return False
        # Checked a chunk at a time: each check runs in C without letting go of the GIL,
        # so the window can take it between two.
        for start in range(0, count, ID_CHUNK):
            end = start + ID_CHUNK
            if min(lengths[start:end]) < 1:
                return False
            # Strictly increasing. Overlaps are left to the checks every read makes.
            if not all(map(operator.lt, offsets[start:end], offsets[start + 1 : end + 1])):
                return False
        if count and (offsets[0] < 0 or offsets[-1] + lengths[-1] > layout.prefix_len):
            return False
    return True


def _ids_consistent(ids: IdColumn, count: int) -> bool:
    """Ends that step through the packed bytes, ids that are text, lines without an id that are empty."""
    ends, data = ids.ends, ids.data
    if len(ends) != count or (ends[-1] if count else 0) != len(data):
        return False
    if not all(
        0 <= position < count and ends[position] == (ends[position - 1] if position else 0) for position in ids.missing
    ):
        return False
    for start in range(0, count, ID_CHUNK):
        end = min(start + ID_CHUNK, count)
        begin = ends[start - 1] if start else 0
        if begin > ends[start] or not all(map(operator.le, ends[start:end], ends[start + 1 : end + 1])):
            return False
        try:
            data[begin : ends[end - 1]].decode("utf-8", "surrogatepass")
        except UnicodeDecodeError:
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
