"""The SSE decoder: WHATWG line and field rules, and identical events under any split of the bytes."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pidesktop.agent.sse import SSEDecoder, SSEEvent
from tests.support.sse_server import FIXTURE_NAMES, fixture_bytes, with_endings


def decode(*pieces: bytes) -> list[SSEEvent]:
    decoder = SSEDecoder()
    events = []
    for piece in pieces:
        events += decoder.feed(piece)
    return events + decoder.close()


def split_at(data: bytes, cuts: list[int]) -> list[bytes]:
    bounds = [0, *sorted(set(cuts)), len(data)]
    return [data[a:b] for a, b in zip(bounds, bounds[1:])]


def test_fields_events_and_ids():
    events = decode(b"event: ping\nid: 7\ndata: one\ndata:  two\n\ndata:three\n\n")
    assert events == [SSEEvent("ping", "one\n two", "7"), SSEEvent(None, "three", "7")]


def test_comments_retry_and_unknown_fields_are_ignored():
    assert decode(b": keep-alive\n\n:\nretry: 100\nfoo: bar\ndata: x\n\n") == [SSEEvent(None, "x", None)]


def test_blank_lines_without_data_dispatch_nothing_and_reset_the_event_type():
    assert decode(b"event: a\n\n\n\ndata: x\n\n") == [SSEEvent(None, "x", None)]


def test_a_field_without_colon_has_an_empty_value():
    assert decode(b"data\n\ndata:\n\n") == [SSEEvent(None, "", None), SSEEvent(None, "", None)]


def test_cr_lf_and_crlf_all_end_lines():
    assert decode(b"data: a\rdata: b\r\ndata: c\n\r\n") == [SSEEvent(None, "a\nb\nc", None)]


def test_crlf_split_between_pieces_is_one_line_end():
    assert decode(b"data: a\r", b"\ndata: b\r", b"\n\r", b"\n") == [SSEEvent(None, "a\nb", None)]


def test_cr_at_a_piece_end_dispatches_without_waiting_for_more():
    decoder = SSEDecoder()
    assert decoder.feed(b"data: a\r\r") == [SSEEvent(None, "a", None)]


def test_multibyte_characters_split_across_pieces():
    data = "data: héllo 🌍 ✓\n\n".encode()
    assert decode(*[data[i : i + 1] for i in range(len(data))]) == [SSEEvent(None, "héllo 🌍 ✓", None)]


def test_invalid_utf8_becomes_replacement_characters():
    assert decode(b"data: \xff\xfe ok\n\n") == [SSEEvent(None, "\ufffd\ufffd ok", None)]


def test_one_leading_bom_is_dropped_even_when_split():
    assert decode(b"\xef", b"\xbb", b"\xbfdata: x\n\n") == [SSEEvent(None, "x", None)]
    # Only at stream start: a second BOM is part of the field name, which is then unknown.
    assert decode(b"\xef\xbb\xbf\xef\xbb\xbfdata: x\n\n") == []


def test_close_flushes_a_last_event_without_its_blank_line():
    assert decode(b"data: a\n\ndata: [DONE]") == [SSEEvent(None, "a", None), SSEEvent(None, "[DONE]", None)]
    assert decode(b"data: a\n") == [SSEEvent(None, "a", None)]
    assert decode(b"event: x\n: comment") == []


# --- any split gives the same events ---------------------------------------------------------------


def cut_points(size: int):
    return st.lists(st.integers(0, size), max_size=40) | st.just(list(range(size)))


@pytest.mark.parametrize("ending", [b"\n", b"\r\n", b"\r"], ids=["lf", "crlf", "cr"])
@pytest.mark.parametrize("name", FIXTURE_NAMES)
@settings(max_examples=40, deadline=None)
@given(data=st.data())
def test_recorded_streams_decode_the_same_under_any_split(name, ending, data):
    raw = with_endings(fixture_bytes(name), ending)
    whole = decode(raw)
    assert whole[-1].data == "[DONE]"
    assert len(whole) == raw.count(b"data: ")
    assert decode(*split_at(raw, data.draw(cut_points(len(raw))))) == whole


_ENDINGS = ["\n", "\r\n", "\r"]
_FIELD_TEXT = st.text(st.characters(blacklist_characters="\r\n\0", blacklist_categories=("Cs",)), max_size=12)


@st.composite
def sse_streams(draw):
    """``(bytes, expected events)``: mixed line endings, comments, ids, non-ASCII data, maybe a BOM."""
    lines: list[str] = []
    expected: list[SSEEvent] = []
    last_id = None
    for _ in range(draw(st.integers(0, 5))):
        if draw(st.booleans()):
            lines.append(":" + draw(_FIELD_TEXT))
        event = draw(st.none() | _FIELD_TEXT)
        if event is not None:
            lines.append(f"event: {event}")
        event_id = draw(st.none() | _FIELD_TEXT)
        if event_id is not None:
            lines.append(f"id: {event_id}")
            last_id = event_id
        values = draw(st.lists(_FIELD_TEXT, min_size=1, max_size=3))
        for value in values:
            bare = not value.startswith(" ") and draw(st.booleans())
            lines.append(f"data:{value}" if bare else f"data: {value}")
        lines.append("")
        expected.append(SSEEvent(event or None, "\n".join(values), last_id))
    tail = draw(st.sampled_from(["complete", "no blank line", "no line end"]))
    if expected and tail != "complete":
        lines.pop()
    text, previous = "", ""
    for number, line in enumerate(lines):
        ending = draw(st.sampled_from(_ENDINGS))
        if previous == "\r" and ending == "\n":
            ending = "\r"  # "\r" then "\n" would merge into one CRLF line end
        if number == len(lines) - 1 and tail == "no line end" and expected:
            ending = ""
        text += line + ending
        previous = ending
    bom = "\ufeff" if draw(st.booleans()) else ""
    return (bom + text).encode(), expected


@settings(max_examples=150, deadline=None)
@given(stream=sse_streams(), data=st.data())
def test_generated_streams_decode_as_written_under_any_split(stream, data):
    raw, expected = stream
    assert decode(raw) == expected
    assert decode(*split_at(raw, data.draw(cut_points(len(raw))))) == expected
