"""small_json writes what orjson wrote for the start's small files, and each reads the other's."""

from __future__ import annotations

import orjson
import pytest
from hypothesis import given
from hypothesis import strategies as st

from pidesktop import small_json

# What those files hold: text (any, the data folder's path included), whole numbers, flags, lists and objects.
# Floats are left out of the byte comparison only: the two libraries spell some differently (1e16 / 1e+16).
scalars = st.none() | st.booleans() | st.integers(-(2**63), 2**63 - 1) | st.text()


def nested(leaves):
    return st.recursive(
        leaves, lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4)
    )


values = nested(scalars)
with_floats = nested(scalars | st.floats(allow_nan=False, allow_infinity=False))


@given(values)
def test_the_bytes_are_the_ones_orjson_wrote(value):
    assert small_json.dumps(value) == orjson.dumps(value)
    assert small_json.dumps(value, indent=True) == orjson.dumps(value, option=orjson.OPT_INDENT_2)


@given(with_floats)
def test_each_reads_what_the_other_wrote(value):
    assert small_json.loads(orjson.dumps(value)) == value
    assert orjson.loads(small_json.dumps(value)) == value
    assert orjson.loads(small_json.dumps(value, indent=True)) == value


@given(nested(scalars | st.floats()))
def test_nan_and_infinities_are_null_as_orjson_writes_them(value):
    assert orjson.loads(small_json.dumps(value)) == orjson.loads(orjson.dumps(value))
    assert orjson.loads(small_json.dumps(value, indent=True)) == orjson.loads(orjson.dumps(value))


@pytest.mark.parametrize(
    "damaged", [b"", b"{", b'{"root": "/x"', b"\xff\xfe{}", b'{"a": "\xc3"}', b"nul\x00l", b"[1,]"]
)
def test_damaged_bytes_raise_its_decode_error(damaged):
    with pytest.raises(small_json.DecodeError):
        small_json.loads(damaged)


def test_what_json_cannot_hold_is_a_type_error_as_with_orjson():
    for value in ({"path": "/data/\udcff"}, {1: object()}):
        with pytest.raises(TypeError):
            orjson.dumps(value)
        with pytest.raises(TypeError):
            small_json.dumps(value)
