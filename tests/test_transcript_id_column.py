"""The packed ids of a layout: the same answers as a list of strings, in a fraction of the memory."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pidesktop.host.transcripts import id_column
from pidesktop.host.transcripts.id_column import IdColumn, encode_id

# Lone surrogates too: a JSON escape can produce one, and it must come back unchanged.
IDS = st.lists(
    st.one_of(st.none(), st.text(st.characters(exclude_categories=()), max_size=8), st.sampled_from(["a", "b", "c"]))
)


@settings(max_examples=300, deadline=None)
@given(IDS, st.sampled_from([2, 3, 1 << 16]))
def test_a_column_reads_back_what_was_appended(ids, chunk):
    original = id_column._DECODE_CHUNK
    id_column._DECODE_CHUNK = chunk  # ids decoded a few at a time, across chunk boundaries
    try:
        _reads_back(ids)
    finally:
        id_column._DECODE_CHUNK = original


def _reads_back(ids: list[str | None]) -> None:
    column = IdColumn(ids)
    assert len(column) == len(ids)
    assert list(column) == ids
    assert [column[i] for i in range(len(ids))] == ids
    assert [column[-i] for i in range(1, len(ids) + 1)] == [ids[-i] for i in range(1, len(ids) + 1)]
    assert column[1:4] == ids[1:4]
    for start in range(len(ids) + 1):
        assert list(column.iter_from(start)) == ids[start:]
        for stop in range(start, len(ids) + 1):
            assert column.between(start, stop) == ids[start:stop]
    assert column == ids and column == IdColumn(ids)
    for record_id in ids:
        assert record_id in column


@settings(max_examples=300, deadline=None)
@given(IDS, st.data())
def test_repeated_ids_are_found_by_hash_as_by_comparing_them(ids, data):
    start = data.draw(st.integers(min_value=0, max_value=len(ids)))
    expected = {p for p in range(start, len(ids)) if ids[p] in ids[p + 1 :]}
    assert IdColumn(ids).repeated_before(start) == expected


def test_the_scans_ascii_bytes_are_the_same_as_the_string():
    column = IdColumn(["x"])
    column.append_encoded(b"0194b3c2-7d1e")
    assert column == IdColumn(["x", "0194b3c2-7d1e"])
    assert encode_id("é") == "é".encode()


def test_positions_out_of_range_are_an_index_error():
    column = IdColumn(["a"])
    with pytest.raises(IndexError):
        column[1]
    with pytest.raises(IndexError):
        column[-2]


def test_a_million_ids_take_their_bytes_and_an_int64_each():
    column = IdColumn(f"0194b3c2-7d1e-7a8b-9c0d-{i:012d}" for i in range(1_000_000))
    assert len(column.data) == 36_000_000
    assert column.ends.itemsize == 8 and len(column.ends) == 1_000_000
    assert column[999_999] == "0194b3c2-7d1e-7a8b-9c0d-000000999999"
