"""The depth-aware top-level scan agrees with a full JSON parse."""

from __future__ import annotations

import json

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pidesktop.formats.transcript.lines import is_classified_as, scan_top_level

pytestmark = pytest.mark.slow  # property tests of the line scanner

# Text that stresses the scan: quotes, backslashes, braces and look-alike keys.
tricky_text = st.text(
    alphabet=st.one_of(
        st.characters(exclude_categories=("Cs",)),
        st.sampled_from(['"', "\\", "{", "}", "[", "]", ":", ",", "\n", "\t", "\x00", "é", "😀", "\u2028"]),
    ),
    max_size=12,
) | st.sampled_from(['"type":"compaction"', '{"type":"x"}', '\\"', "\\", "type", "id", '"id":"z"'])

keys = st.sampled_from(["type", "id", "t", "types", 'ty"pe', "type\\", "Type", "blocks", "result"]) | tricky_text

scalars = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**63), max_value=2**63 - 1)
    | st.floats(allow_nan=False, allow_infinity=False)
    | tricky_text
)
values = st.recursive(
    scalars,
    lambda children: st.lists(children, max_size=4) | st.dictionaries(keys, children, max_size=4),
    max_leaves=16,
)
any_object = st.dictionaries(keys, values, max_size=6)
# The writer's shape (type, then id) with arbitrary payload after it.
writer_object = st.builds(
    lambda kind, record_id, rest: {"type": kind, "id": record_id, **rest},
    st.sampled_from(["message", "compaction", "note"]) | tricky_text,
    tricky_text | values,
    any_object,
)
objects = any_object | writer_object


def expected(line: bytes):
    parsed = orjson.loads(line)
    kind, record_id = parsed.get("type"), parsed.get("id")
    return (kind if isinstance(kind, str) else None, record_id if isinstance(record_id, str) else None)


def serialisations(obj) -> list[bytes]:
    return [
        orjson.dumps(obj),
        json.dumps(obj, ensure_ascii=True).encode(),
        json.dumps(obj, ensure_ascii=False, separators=(" , ", " : ")).encode(),
        json.dumps(obj, indent=1).encode(),
    ]


@settings(max_examples=300, deadline=None)
@given(objects)
def test_scan_matches_a_full_parse(obj):
    for line in serialisations(obj):
        assert tuple(scan_top_level(line)) == expected(line), line


@settings(max_examples=200, deadline=None)
@given(objects, st.binary(max_size=20), st.binary(max_size=20))
def test_scan_respects_bounds_inside_a_larger_buffer(obj, before, after):
    line = orjson.dumps(obj)
    buf = before + line + after
    assert tuple(scan_top_level(buf, len(before), len(before) + len(line))) == expected(line)


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=200))
def test_scan_never_raises_on_arbitrary_bytes(data):
    kind, record_id = scan_top_level(data)
    assert kind is None or isinstance(kind, str)
    assert record_id is None or isinstance(record_id, str)


@settings(max_examples=200, deadline=None)
@given(objects, st.data())
def test_scan_never_raises_on_truncated_lines(obj, data):
    line = orjson.dumps(obj)
    cut = data.draw(st.integers(min_value=0, max_value=len(line)))
    scan_top_level(line[:cut])


@settings(max_examples=300, deadline=None)
@given(objects, st.sampled_from(["message", "compaction"]), tricky_text | st.none(), st.binary(max_size=20), st.data())
def test_is_classified_as_answers_like_the_scan(obj, kind, record_id, before, data):
    """The readers' per-line check agrees with scan_top_level on any line, asked the line's own
    classification or another one, in a larger buffer, with invalid UTF-8 in it."""
    for line in serialisations(obj) + [orjson.dumps(obj).replace("é".encode(), b"\xff")]:
        buf = before + line + b"\n"
        start, end = len(before), len(before) + len(line)
        own = scan_top_level(buf, start, end)
        asked = data.draw(st.sampled_from([(own.type or kind, own.id), (kind, record_id)]))
        assert is_classified_as(buf, start, end, *asked) == (own == asked), (line, asked)


def test_is_classified_as_reads_escaped_and_replaced_ids_like_the_scan():
    assert is_classified_as(b'{"type":"message","id":"a\xffb"}', 0, 31, "message", "a\ufffdb")
    assert not is_classified_as(b'{"type":"message","id":"a\xffb"}', 0, 31, "message", "a\xffb")
    line = b'{"type":"message","id":"a\\"b"}'
    assert is_classified_as(line, 0, len(line), "message", 'a"b')
    assert not is_classified_as(line, 0, len(line), "message", "a")
    assert not is_classified_as(b'{"type":"message","id":"x"}', 0, 27, "compaction", "x")
    escaped = rb'{"type":"message","id":"\ud800"}'
    assert is_classified_as(escaped, 0, len(escaped), *scan_top_level(escaped))
    assert not is_classified_as(b'{"type":"message","id":"x"}', 0, 27, "message", "\ud800")  # no UnicodeError


def test_nested_types_do_not_count():
    line = b'{"type":"message","id":"x","role":"tool","blocks":[{"type":"tool_call","result":{"type":"compaction"}}]}'
    assert scan_top_level(line) == ("message", "x")


def test_type_after_the_payload_is_found():
    line = b'{"blocks":[{"type":"text","text":"a \\"type\\": \\"note\\" {"}],"id":"m9","role":"user","type":"message"}'
    assert scan_top_level(line) == ("message", "m9")


def test_escaped_keys_and_values_are_decoded():
    assert scan_top_level(b'{"t\\u0079pe":"mess\\u0061ge","\\u0069d":"a\\"b"}') == ("message", 'a"b')


def test_non_string_values_give_none():
    assert scan_top_level(b'{"type":{"type":"message"},"id":7}') == (None, None)


def test_invalid_utf8_in_a_value_is_replaced():
    assert scan_top_level(b'{"type":"message","id":"a\xffb"}') == ("message", "a\ufffdb")


def test_not_an_object():
    assert scan_top_level(b'["type","message"]') == (None, None)
    assert scan_top_level(b"") == (None, None)


@settings(max_examples=200, deadline=None)
@given(objects)
def test_scan_matches_a_parse_after_utf8_replacement(obj):
    # Turn every "é" into a lone invalid byte; readers parse such lines after U+FFFD replacement.
    line = orjson.dumps(obj).replace("é".encode(), b"\xff")
    assert tuple(scan_top_level(line)) == expected(line.decode("utf-8", "replace").encode())


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(objects, st.sampled_from(["orjson", "ascii", "spaced"])), max_size=8), st.binary(max_size=10))
def test_layout_scan_classifies_each_line_like_the_scan(items, torn):
    """The layout's fast per-line path must agree with scan_top_level on every line."""
    from pidesktop.host.transcripts.layout import scan_bytes

    lines = []
    for obj, style in items:
        if style == "orjson":
            lines.append(orjson.dumps(obj))
        elif style == "ascii":
            lines.append(json.dumps(obj, ensure_ascii=True).encode())
        else:
            lines.append(json.dumps(obj, separators=(", ", ": ")).encode())
    data = b"".join(line + b"\n" for line in lines) + torn.replace(b"\n", b"")
    others = []

    class Stat:
        st_dev, st_ino = 1, 2

    layout = scan_bytes(data, Stat, lambda kind, start, end: others.append((start, kind)))
    seen = {offset: ("message", i) for offset, i in zip(layout.message_offsets, layout.message_ids)}
    seen.update({offset: ("compaction", i) for offset, i in zip(layout.compaction_offsets, layout.compaction_ids)})
    seen.update({offset: (kind, None) for offset, kind in others})
    offset = 0
    for line in lines:
        kind, record_id = expected(line)
        if kind in ("message", "compaction"):
            assert seen.pop(offset) == (kind, record_id)
        else:
            assert seen.pop(offset) == (kind, None)
        offset += len(line) + 1
    assert seen == {} and layout.prefix_len == offset
