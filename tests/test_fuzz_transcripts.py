"""Hostile transcript files: every window is the matching slice of the full read.

The generator writes a transcript line by line from a menu of hostile lines:
the writer's own shape, older key orders, a nested ``type``/``id`` inside a
value, repeated top-level keys, escaped ids, ids that are not strings,
unknown line types, extra session headers, lines that are not JSON, invalid
UTF-8 (in the text and in the id), raw binary, blank and whitespace lines,
CRLF line ends, duplicate ids, a torn last line, and now and then one line of
1 to 5 MB. Next to it may lie a layout cache (``<id>.jsonl.layout``) that is
garbage, damaged, valid but for another file (other inode), valid but not
fitting (prefix longer than the file, or not ending a line), or a genuine but
stale cache of an earlier, shorter state of the same file.

The oracle is ``read_all`` of a copy of the file in a folder of its own (no
cache; a full scan of the bytes). Properties, for a fresh store and for a
store that already holds a layout when the file grows under it:

- nothing raises but the documented ``MessageNotFound`` (an ``around`` id the
  file does not hold);
- ``window`` with newest / ``before`` / ``start`` / ``around`` and any limit
  returns exactly the oracle's messages in the range the selection rules of
  ``transcripts.windows`` give (positions, records, hidden duplicates left
  out), the same total, flags and compactions;
- ``find`` gives the oracle's record for an id, ``message_count`` its total,
  and the store's own ``read_all`` equals the oracle, as does its
  ``stream_messages`` with batches of any size.
"""

from __future__ import annotations

import os
import shutil
import uuid
from pathlib import Path

import orjson
import pytest
from hypothesis import given
from hypothesis import strategies as st

from pidesktop.host.transcripts import MessageNotFound, TranscriptStore, layout_cache
from tests.support.fuzz_budget import fuzz_settings

pytestmark = pytest.mark.slow  # property tests over hostile transcript files

SID = "s1"
IDS = ["a", "b", "c", "d", "e", "é", 'q"uote']
MB = 1 << 20


def _dump(value) -> bytes:
    return orjson.dumps(value)


def message_line(mid, text="hi", role="user") -> bytes:
    return _dump({"type": "message", "id": mid, "role": role, "blocks": [{"type": "text", "text": text}]})


ids = st.sampled_from(IDS)
texts = st.text(max_size=20)


@st.composite
def hostile_line(draw) -> bytes:
    """One line's bytes, without its line end."""
    kind = draw(st.integers(0, 21))
    mid = draw(ids)
    if kind <= 5:  # the common case: the writer's shape
        return message_line(mid, draw(texts), draw(st.sampled_from(["user", "assistant"])))
    if kind == 6:  # an older key order: type and id after the payload
        return _dump({"role": "user", "blocks": [{"type": "text", "text": draw(texts)}], "type": "message", "id": mid})
    if kind == 7:  # a nested type/id inside a value before the top-level ones
        return _dump(
            {
                "meta": {"type": "compaction", "id": "nested"},
                "blocks": [{"type": "message", "id": "x"}],
                "type": "message",
                "id": mid,
                "role": "user",
            }
        )
    if kind == 8:  # only nested types: no top-level type at all
        return _dump({"blocks": [{"type": "message", "id": mid}], "id": mid})
    if kind == 9:  # repeated top-level keys: the scan keeps the first, a parse the last
        other = draw(ids)
        return b'{"type":"message","id":' + _dump(mid) + b',"role":"user","blocks":[],"id":' + _dump(other) + b"}"
    if kind == 10:
        return b'{"type":"message","id":"' + mid.encode().replace(b'"', b'\\"') + b'\\u00e9","role":"user","blocks":[]}'
    if kind == 11:  # an id or a type that is not a string
        return draw(
            st.sampled_from(
                [
                    b'{"type":"message","id":5,"role":"user","blocks":[]}',
                    b'{"type":7,"id":"a","role":"user","blocks":[]}',
                    b'{"type":"message","id":null,"role":"user","blocks":[]}',
                ]
            )
        )
    if kind == 12:
        return _dump(
            {
                "type": "compaction",
                "id": draw(st.sampled_from(["c1", "c2"])),
                "throughMessageId": mid,
                "summary": draw(texts),
            }
        )
    if kind == 13:  # unknown line types
        return _dump({"type": draw(st.sampled_from(["tool_event", "label", "", "MESSAGE"])), "id": mid})
    if kind == 14:  # a session header in the middle
        return _dump({"type": "session", "schema": 2, "sessionId": SID, "createdAt": "2026-01-01T00:00:00.000Z"})
    if kind == 15:  # a message readers would skip: no role / no blocks
        return draw(
            st.sampled_from(
                [
                    _dump({"type": "message", "id": mid}),
                    _dump({"type": "message", "id": mid, "role": "user", "blocks": "no"}),
                ]
            )
        )
    if kind == 16:  # invalid UTF-8 in the text, or in the id itself
        return draw(
            st.sampled_from(
                [
                    b'{"type":"message","id":"' + mid.encode().replace(b'"', b'\\"') + b'","role":"user","blocks":'
                    b'[{"type":"text","text":"\xff\xfe\xc3"}]}',
                    b'{"type":"message","id":"\xff'
                    + mid.encode().replace(b'"', b'\\"')
                    + b'","role":"user","blocks":[]}',
                ]
            )
        )
    if kind == 17:  # not JSON
        return draw(st.sampled_from([b"not json", b"{", b'{"type":"message","id":"a"', b"[]", b"null", b"}{"]))
    if kind == 18:  # raw binary (it may hold its own newlines: more lines)
        return draw(st.binary(max_size=40))
    if kind == 19:  # blank and whitespace-only lines
        return draw(st.sampled_from([b"", b" ", b"\t", b"\r"]))
    if kind == 20:  # leading whitespace before the object
        return b"  " + message_line(mid, draw(texts))
    return message_line(mid, draw(texts), "assistant")  # kind 21


@st.composite
def transcript_bytes(draw, allow_header=True) -> bytes:
    parts = []
    if allow_header and draw(st.integers(0, 5)) > 0:
        parts.append(
            _dump({"type": "session", "schema": 2, "sessionId": SID, "createdAt": "2026-01-01T00:00:00.000Z"}) + b"\n"
        )
    count = draw(st.sampled_from([0, 1, 2, 5, 9, 16, 25, 40]))  # not left to list sizes, which favour short
    for line in draw(st.lists(hostile_line(), min_size=count, max_size=count)):
        parts.append(line + draw(st.sampled_from([b"\n", b"\n", b"\n", b"\r\n"])))
    if draw(st.integers(0, 30)) == 17:  # now and then, one huge line of 1 to 5 MB
        size = draw(st.sampled_from([1 * MB, 2 * MB, 5 * MB]))
        at = draw(st.integers(0, len(parts)))
        parts.insert(at, message_line(draw(ids), "h" * size) + b"\n")
    data = b"".join(parts)
    tail = draw(st.integers(0, 3))
    if tail == 1:  # torn: the last line lost its end, or half of it
        data = data[: len(data) - draw(st.integers(1, max(1, min(len(data), 60))))] if data else data
    elif tail == 2:
        data += message_line(draw(ids))[: draw(st.integers(1, 40))]
    return data


CACHES = [
    "none",
    "garbage",
    "header only",
    "damaged",
    "other inode",
    "prefix past end",
    "prefix mid line",
    "stale prefix",
    "longer file",
    "rewritten in place",
]


# -- the oracle and the expected windows ---------------------------------------------------------------
def oracle(data: bytes, folder: Path):
    """``read_all`` of a copy of ``data`` in a folder of its own: a full scan, no cache involved."""
    folder.mkdir()
    (folder / f"{SID}.jsonl").write_bytes(data)
    return TranscriptStore(folder).read_all(SID)


def expected_range(kind: str, total: int, limit: int | None, anchor: int | None) -> tuple[int, int]:
    """The selection rules of ``transcripts.windows``, written out again."""
    count = total if limit is None else limit
    if kind == "newest":
        end = total
        return max(0, end - count), end
    if kind == "before":
        end = min(anchor, total)
        return max(0, end - count), end
    if kind == "start":
        first = min(anchor, total)
        return first, min(total, first + count)
    first = max(0, anchor - count // 2)  # around
    end = min(total, first + count)
    return max(0, end - count), end


def check_window(window, full, first: int, end: int) -> None:
    assert (window.start, window.end) == (first, end)
    assert window.messages == [(pos, rec) for pos, rec in full.messages if first <= pos < end]
    assert window.total == full.total
    assert window.has_more_before == (first > 0)
    assert window.has_more_after == (end < full.total)
    assert window.compactions == full.compactions


operations = st.lists(
    st.tuples(
        st.sampled_from(["newest", "before", "start", "around", "find", "count"]),
        st.one_of(st.none(), st.integers(1, 40)),
        st.integers(0, 45),
        st.sampled_from(IDS + ["missing", "c1"]),
    ),
    min_size=1,
    max_size=8,
)


def run_operations(store: TranscriptStore, full, ops) -> None:
    visible = {rec["id"]: (pos, rec) for pos, rec in full.messages}
    for kind, limit, number, mid in ops:
        if kind == "count":
            assert store.message_count(SID) == full.total
        elif kind == "find":
            assert store.find(SID, mid) == visible.get(mid)
        elif kind == "newest":
            check_window(store.window(SID, limit=limit), full, *expected_range(kind, full.total, limit, None))
        elif kind in ("before", "start"):
            window = store.window(SID, limit=limit, **{kind: number})
            check_window(window, full, *expected_range(kind, full.total, limit, number))
        else:
            try:
                window = store.window(SID, around=mid, limit=limit)
            except MessageNotFound:
                assert mid not in visible
                continue
            if mid in visible:
                check_window(window, full, *expected_range("around", full.total, limit, visible[mid][0]))
            else:  # the id's last line is unreadable: the window still matches the full read
                count = full.total if limit is None else limit
                assert window.end - window.start == min(count, full.total)
                check_window(window, full, window.start, window.end)
    mine = store.read_all(SID)
    assert (mine.header, mine.messages, mine.compactions, mine.total) == (
        full.header,
        full.messages,
        full.compactions,
        full.total,
    )
    store.read_records(SID)
    # A streamed read is the same messages a batch at a time, whatever the batch's size (one line a batch,
    # a few, or all of them).
    for block in (1, 64, 1 << 22):
        streamed = [item for batch in store.stream_messages(SID, block=block) for item in batch]
        assert streamed == full.messages


# -- caches next to the transcript -------------------------------------------------------------------
def place_cache(kind: str, folder: Path, data: bytes, scratch: Path, junk: bytes) -> bytes:
    """Write the transcript (maybe in two steps) and a cache of ``kind``; the bytes the file holds."""
    path = folder / f"{SID}.jsonl"
    cache = folder / f"{SID}.jsonl.layout"
    if kind == "stale prefix":
        # a genuine cache of an earlier state of this very file, which has grown since
        cut = data.rfind(b"\n", 0, max(0, len(data) // 2)) + 1
        path.write_bytes(data[:cut])
        TranscriptStore(folder).layout(SID)  # writes the cache of that state
        assert cache.exists()
        with open(path, "ab") as out:
            out.write(data[cut:])
        return data
    path.write_bytes(data)
    if kind == "none":
        return data
    if kind == "garbage":
        cache.write_bytes(junk)
        return data
    if kind == "header only":
        cache.write_bytes(layout_cache.HEADER + b"\n" + junk)
        return data
    if kind == "longer file":  # the cache of a longer state of this file: it was cut short since
        genuine = _genuine_layout(data + b"\n" + message_line("z") + b"\n" + junk.replace(b"\n", b"") + b"\n", scratch)
    elif kind == "rewritten in place":  # same inode and size, other bytes: lines moved under the cache
        genuine = _genuine_layout(
            message_line("z") + b"\n" + data[: max(0, len(data) - 1 - len(message_line("z")))] + b"\n", scratch
        )
    else:
        genuine = _genuine_layout(data, scratch)
    stat = os.stat(path)
    genuine.dev, genuine.ino = stat.st_dev, stat.st_ino
    if kind == "other inode":
        genuine.ino += 1
    elif kind == "prefix past end":
        genuine.prefix_len = len(data) + 1 + len(junk)
    elif kind == "prefix mid line" and genuine.prefix_len > 1:
        genuine.prefix_len -= 1
    encoded = layout_cache.encode(genuine)
    if kind == "damaged":
        flip = len(encoded) // 2 + (len(junk) % 7)
        encoded = encoded[:flip] + bytes([encoded[flip] ^ 0x55]) + encoded[flip + 1 :]
    cache.write_bytes(encoded)
    return data


def _genuine_layout(data: bytes, scratch: Path):
    scratch.mkdir()
    (scratch / f"{SID}.jsonl").write_bytes(data)
    return TranscriptStore(scratch).layout(SID)


@pytest.fixture
def workdir(tmp_path):
    return tmp_path


def fresh(workdir: Path) -> Path:
    folder = workdir / uuid.uuid4().hex
    folder.mkdir()
    return folder


@fuzz_settings(800)
@given(data=transcript_bytes(), cache=st.sampled_from(CACHES), junk=st.binary(max_size=64), ops=operations)
def test_windows_of_a_hostile_file_match_the_full_read(workdir, data, cache, junk, ops):
    case = fresh(workdir)
    try:
        sessions = case / "sessions"
        sessions.mkdir()
        written = place_cache(cache, sessions, data, case / "scratch", junk)
        full = oracle(written, case / "oracle")
        run_operations(TranscriptStore(sessions), full, ops)
    finally:
        shutil.rmtree(case)


@fuzz_settings(500)
@given(
    first=transcript_bytes(),
    growth=transcript_bytes(allow_header=False),
    cache=st.sampled_from(CACHES),
    junk=st.binary(max_size=64),
    before=operations,
    after=operations,
    reopen=st.booleans(),
)
def test_a_store_holding_a_layout_follows_the_file_as_it_grows(
    workdir, first, growth, cache, junk, before, after, reopen
):
    """Read (the store now holds a layout and maybe a saved cache), append, read again.

    The appended bytes may complete a torn last line or tear a new one. With
    ``reopen`` the second read is by a new store that starts from the cache
    the first one left on disk.
    """
    case = fresh(workdir)
    try:
        sessions = case / "sessions"
        sessions.mkdir()
        written = place_cache(cache, sessions, first, case / "scratch", junk)
        store = TranscriptStore(sessions)
        run_operations(store, oracle(written, case / "oracle-1"), before)
        store.flush_layouts()
        with open(sessions / f"{SID}.jsonl", "ab") as out:
            out.write(growth)
        if reopen:
            store = TranscriptStore(sessions)
        run_operations(store, oracle(written + growth, case / "oracle-2"), after)
    finally:
        shutil.rmtree(case)
