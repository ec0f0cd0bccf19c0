"""The ids of a layout's lines, packed: their UTF-8 bytes end to end and where each one ends.

A million ids kept as Python strings cost about 90 MB, an object per id; packed
they cost their bytes plus 8 per id (about 45 MB for the app's 36-character
ids). An id becomes a string only when it is asked for. A line without an id
(``None``) is an empty entry whose position is remembered apart.
"""

from __future__ import annotations

from array import array
from collections.abc import Iterable, Iterator
from itertools import chain, islice, repeat
from operator import sub
from typing import overload

# Lossless for every string the line scan produces, lone surrogates from JSON escapes included.
_CODEC, _ERRORS = "utf-8", "surrogatepass"
# Ids decoded at a time when going through many. Each chunk is sliced in C without a
# bytecode boundary, so the host thread keeps the GIL through it: 4,096 ids take about
# 1 ms (65,536 held it ~20 ms, a stall the window felt while scrolling a 100k chat).
_DECODE_CHUNK = 1 << 12


def encode_id(record_id: str) -> bytes:
    return record_id.encode(_CODEC, _ERRORS)


class IdColumn:
    __slots__ = ("_data", "_ends", "_missing")

    def __init__(self, ids: Iterable[str | None] = ()) -> None:
        self._data = bytearray()
        self._ends: array[int] = array("q")
        self._missing: set[int] = set()
        for record_id in ids:
            self.append(record_id)

    @classmethod
    def packed(cls, data: bytearray, ends: array[int], missing: set[int]) -> IdColumn:
        """A column over already packed parts (the disk cache's), taken as they are."""
        column = cls()
        column._data, column._ends, column._missing = data, ends, missing
        return column

    @property
    def data(self) -> bytearray:
        return self._data

    @property
    def ends(self) -> array[int]:
        return self._ends

    @property
    def missing(self) -> set[int]:
        return self._missing

    def append(self, record_id: str | None) -> None:
        if record_id is None:
            self._missing.add(len(self._ends))
        else:
            self._data += encode_id(record_id)
        self._ends.append(len(self._data))

    def append_encoded(self, raw: bytes) -> None:
        """Append an id given as the bytes :func:`encode_id` makes of it (the scan's ASCII ids as they are)."""
        self._data += raw
        self._ends.append(len(self._data))

    def __len__(self) -> int:
        return len(self._ends)

    @overload
    def __getitem__(self, index: int) -> str | None: ...

    @overload
    def __getitem__(self, index: slice) -> list[str | None]: ...

    def __getitem__(self, index: int | slice) -> str | None | list[str | None]:
        if isinstance(index, slice):
            return [self._at(position) for position in range(*index.indices(len(self._ends)))]
        if index < 0:
            index += len(self._ends)
        if not 0 <= index < len(self._ends):
            raise IndexError("id position out of range")
        return self._at(index)

    def _at(self, index: int) -> str | None:
        if index in self._missing:
            return None
        start = self._ends[index - 1] if index else 0
        return self._data[start : self._ends[index]].decode(_CODEC, _ERRORS)

    def __iter__(self) -> Iterator[str | None]:
        return self.iter_from(0)

    def iter_from(self, start: int) -> Iterator[str | None]:
        """The ids from position ``start`` on, in order."""
        count = len(self._ends)
        return chain.from_iterable(
            self._between(first, min(first + _DECODE_CHUNK, count)) for first in range(start, count, _DECODE_CHUNK)
        )

    def between(self, start: int, stop: int) -> list[str | None]:
        """The ids at positions ``[start, stop)`` (within the column), sliced in C."""
        return list(self._between(start, stop)) if start < stop else []

    def _between(self, start: int, stop: int) -> Iterator[str | None]:
        ends = self._ends
        base = ends[start - 1] if start else 0
        chunk = self._data[base : ends[stop - 1]]
        if self._missing or not chunk.isascii():
            return (self._at(position) for position in range(start, stop))
        # String and byte offsets agree: one decode, then every id sliced in C (no Python step per id).
        text = chunk.decode("ascii")
        tail = ends[start:stop]
        starts = map(sub, chain((base,), islice(tail, len(tail) - 1)), repeat(base))
        return map(text.__getitem__, map(slice, starts, map(sub, tail, repeat(base))))

    def __contains__(self, record_id: object) -> bool:
        return any(record_id == candidate for candidate in self)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, IdColumn):
            return (self._data, self._ends, self._missing) == (other._data, other._ends, other._missing)
        if isinstance(other, list):
            return list(self) == other
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"IdColumn({list(self)!r})"

    def repeated_before(self, start: int) -> set[int]:
        """Positions from ``start`` on whose id (or lack of one) a later position repeats.

        Few lines ever repeat an id, so the ids are first compared by hash (an
        int64 array, then a set of ints while it lasts: about 70 MB at a
        million lines, where a set of the ids as strings took about 120 MB).
        Only ids whose hash repeats are then compared as strings.
        """
        hashes = self._hashes(start)
        if len(set(hashes)) == len(hashes):
            return set()
        ordered = sorted(hashes)
        clashing = {a for a, b in zip(ordered, islice(ordered, 1, None)) if a == b}
        del ordered
        later: set[str | None] = set()
        hidden: set[int] = set()
        for position in range(len(self._ends) - 1, start - 1, -1):
            if hashes[position - start] not in clashing:
                continue
            record_id = self._at(position)
            if record_id in later:
                hidden.add(position)
            else:
                later.add(record_id)
        return hidden

    def _hashes(self, start: int) -> array[int]:
        return array("q", map(hash, self.iter_from(start)))
