"""Layouts: incremental growth, invalidation, stale offsets and the disk cache."""

from __future__ import annotations

import logging
import os

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pidesktop.formats.transcript.records import encode_record
from pidesktop.host.transcripts import Layout, TranscriptStore, layout_cache

SID = "s1"
CREATED = "2026-07-26T09:00:00.000Z"


def message(record_id: str, text: str) -> dict:
    return {"type": "message", "id": record_id, "role": "user", "blocks": [{"type": "text", "text": text}]}


@pytest.fixture
def sessions(tmp_path):
    return tmp_path / "sessions"


def fill(store: TranscriptStore, count: int, text: str = "hello there") -> None:
    store.create(SID, CREATED)
    for i in range(count):
        store.append(SID, message(f"m{i}", f"{text} {i}"))


def test_growth_is_scanned_from_the_cached_prefix_only(sessions):
    writer = TranscriptStore(sessions)
    fill(writer, 300)
    reader = TranscriptStore(sessions)
    assert reader.message_count(SID) == 300
    line = encode_record(message("m300", "new"))
    writer.append(SID, message("m300", "new"))
    before = reader.bytes_read
    assert reader.message_count(SID) == 301
    # One byte to check the old prefix still ends a line, then only the new line.
    assert reader.bytes_read - before == 1 + len(line)


def test_growth_since_the_disk_cache_is_scanned_from_its_prefix(sessions):
    writer = TranscriptStore(sessions)
    fill(writer, 300)
    writer.flush_layouts()
    writer.append(SID, message("m300", "new"))
    line = encode_record(message("m300", "new"))
    reader = TranscriptStore(sessions)
    assert reader.message_count(SID) == 301
    assert reader.bytes_read == 1 + len(line)


def test_a_window_costs_its_page_not_the_history(sessions):
    store = TranscriptStore(sessions)
    fill(store, 2000, text="x" * 200)
    store.append(SID, {"type": "compaction", "id": "cp1", "summary": "s"})
    assert store.message_count(SID) == 2000
    layout = store.layout(SID)
    page = sum(layout.message_lengths[-10:]) + sum(layout.compaction_lengths)
    before = store.bytes_read
    window = store.window(SID, limit=10)
    assert [p for p, _ in window.messages] == list(range(1990, 2000))
    # The page, the compaction line, and one byte before each separately read run.
    assert store.bytes_read - before <= page + 2
    assert store.path(SID).stat().st_size > 100 * page


def test_a_replaced_file_invalidates_the_cached_layout(sessions):
    first = TranscriptStore(sessions)
    fill(first, 20)
    old = first.layout(SID)
    TranscriptStore(sessions).rewrite(SID, [message("z1", "replaced"), message("z2", "content")])
    window = first.window(SID, limit=10)
    assert window.messages == [(0, message("z1", "replaced")), (1, message("z2", "content"))]
    assert first.layout(SID).ino != old.ino
    assert first.find(SID, "m3") is None


def test_a_rewrite_drops_both_layers_after_the_rename(sessions):
    store = TranscriptStore(sessions)
    fill(store, 10)
    store.flush_layouts()
    store.rewrite(SID, [message("m9", "kept")])
    assert not store.layout_path(SID).exists()
    assert store.window(SID).messages == [(0, message("m9", "kept"))]


def test_a_refused_rewrite_keeps_everything(sessions):
    store = TranscriptStore(sessions)
    fill(store, 10)
    store.flush_layouts()
    content = store.path(SID).read_bytes()
    with pytest.raises(ValueError):
        store.rewrite(SID, [message("m1", "ok"), {"type": "message", "id": "m2"}])
    assert store.path(SID).read_bytes() == content
    assert store.layout_path(SID).exists()


def test_a_stale_offset_makes_the_read_rescan_and_still_return_correct_data(sessions, caplog):
    store = TranscriptStore(sessions)
    store.create(SID, CREATED)
    for i in range(6):
        store.append(SID, message(f"m{i}", ("short" if i % 2 else "a much longer text " * 3) + str(i)))
    store.flush_layouts()
    path = store.path(SID)
    inode = path.stat().st_ino
    # Swap two lines of different lengths in place: same inode, same size,
    # but every cached offset from the first of them on now points mid-line.
    lines = path.read_bytes().split(b"\n")
    lines[1], lines[2] = lines[2], lines[1]
    with open(path, "r+b") as f:
        f.write(b"\n".join(lines))
    assert path.stat().st_ino == inode
    expected = TranscriptStore(sessions).read_all(SID).messages
    assert [r["id"] for _, r in expected] == ["m1", "m0", "m2", "m3", "m4", "m5"]

    with caplog.at_level(logging.INFO, logger="pidesktop.host.transcripts"):
        window = store.window(SID, limit=6)
    assert window.messages == expected
    assert any("stale" in record.getMessage() for record in caplog.records)
    assert store.find(SID, "m0") == (1, expected[1][1])
    # A fresh store would have trusted the disk cache: it was dropped and rebuilt too.
    assert TranscriptStore(sessions).window(SID, limit=6).messages == expected


def test_a_stale_offset_found_by_find_rescans(sessions):
    store = TranscriptStore(sessions)
    fill(store, 5)
    path = store.path(SID)
    data = path.read_bytes().replace(b"hello there 1", b"hello  here 1")
    data = data.replace(b'"id":"m3"', b'"id":"m7"')
    with open(path, "r+b") as f:
        f.write(data)
    assert store.find(SID, "m3") is None
    assert store.find(SID, "m7") == (3, message("m7", "hello there 3"))


# -- the disk cache -----------------------------------------------------------------


def test_the_cache_file_format(sessions):
    store = TranscriptStore(sessions)
    fill(store, 3)
    store.flush_layouts()
    data = store.layout_path(SID).read_bytes()
    header, checksum, body = data.split(b"\n", 2)
    assert header == b"pidesktop-layout v3"
    assert len(checksum) == 32
    head, _, payload = body.partition(b"\n")
    assert orjson.loads(head)["id_bytes"] == {"message": len(b"m0m1m2"), "compaction": 0}
    assert orjson.loads(head)["no_id"] == {"message": [], "compaction": []}
    first = store.layout(SID).message_offsets[0]
    assert payload[:8] == first.to_bytes(8, "little")  # the first offset, a little-endian int64
    assert payload.endswith(b"m0m1m2")  # the ids, packed end to end
    fields = layout_cache.decode_fields(data)
    stat = store.path(SID).stat()
    assert (fields["dev"], fields["ino"], fields["prefix_len"]) == (stat.st_dev, stat.st_ino, stat.st_size)
    assert fields["message_count"] == 3 and list(fields["message_ids"]) == ["m0", "m1", "m2"]
    assert list(fields["message_ids"].ends) == [2, 4, 6]
    assert layout_cache.decode(data) == store.layout(SID)


def test_a_valid_cache_spares_the_scan(sessions):
    store = TranscriptStore(sessions)
    fill(store, 500)
    store.flush_layouts()
    reader = TranscriptStore(sessions)
    assert reader.message_count(SID) == 500
    assert reader.bytes_read == 1  # only the newline before the cached prefix end


def test_the_cache_is_saved_as_it_grows_and_when_evicted(sessions):
    from pidesktop.host.transcripts.store import SAVE_AFTER_ENTRIES

    store = TranscriptStore(sessions)
    fill(store, SAVE_AFTER_ENTRIES + 5)
    saved = layout_cache.decode(store.layout_path(SID).read_bytes())
    assert saved.total == SAVE_AFTER_ENTRIES
    store.evict(SID)
    assert layout_cache.decode(store.layout_path(SID).read_bytes()) == TranscriptStore(sessions).layout(SID)


def _craft(store: TranscriptStore, change) -> bytes:
    """A cache with a valid checksum whose content ``change`` has tampered with."""
    fields = layout_cache.fields_of(store.layout(SID))
    change(fields)
    return layout_cache.encode_fields(fields)


def _resealed(store: TranscriptStore, change) -> bytes:
    """A cache whose body bytes ``change`` has altered, with the checksum made to match."""
    body = change(layout_cache.encode(store.layout(SID)).split(b"\n", 2)[2])
    return layout_cache.HEADER + b"\n" + layout_cache._checksum(body) + b"\n" + body


def _swap_first_id_ends(body: bytes) -> bytes:
    """The first two message id ends swapped (the third of six int64 arrays, after offsets and lengths)."""
    head_end = body.index(b"\n") + 1
    count = orjson.loads(body[:head_end])["message_count"]
    at = head_end + 2 * 8 * count
    return body[:at] + body[at + 8 : at + 16] + body[at : at + 8] + body[at + 16 :]


def plain(fields: dict | None) -> dict | None:
    """Decoded fields with their arrays and id columns as lists, to compare with the fields written."""
    if fields is None:
        return None
    return {key: list(value) if key.endswith(("offsets", "lengths", "ids")) else value for key, value in fields.items()}


BAD_CACHES = {
    "garbage": lambda store: b"\x00\xff garbage \n\n\n",
    "empty": lambda store: b"",
    "numeric header": lambda store: b"1\n2\n3\n",
    "old version": lambda store: layout_cache.encode(store.layout(SID)).replace(b"layout v3", b"layout v2", 1),
    "bad checksum": lambda store: layout_cache.encode(store.layout(SID))[:-3] + b"99]",
    "foreign identity": lambda store: _craft(store, lambda f: f.update(ino=f["ino"] + 1)),
    "prefix beyond the file": lambda store: _craft(store, lambda f: f.update(prefix_len=f["prefix_len"] + 10)),
    "prefix not at a newline": lambda store: _craft(store, lambda f: f.update(prefix_len=f["prefix_len"] - 2)),
    "count mismatch": lambda store: _craft(store, lambda f: f.update(message_count=3)),
    "offsets not increasing": lambda store: _craft(
        store, lambda f: f["message_offsets"].__setitem__(slice(0, 2), f["message_offsets"][1::-1])
    ),
    "offset out of range": lambda store: _craft(store, lambda f: f["message_offsets"].__setitem__(-1, 10**9)),
    "ids not UTF-8": lambda store: _resealed(store, lambda body: body[:-1] + b"\xff"),
    "a line without an id that has one": lambda store: _resealed(
        store, lambda body: body.replace(b'"no_id":{"message":[]', b'"no_id":{"message":[3]', 1)
    ),
    "a line without an id beyond the count": lambda store: _resealed(
        store, lambda body: body.replace(b'"no_id":{"message":[]', b'"no_id":{"message":[12]', 1)
    ),
    "lines without an id not a list": lambda store: _resealed(
        store, lambda body: body.replace(b'"no_id":{"message":[]', b'"no_id":{"message":{}', 1)
    ),
    "id ends going back": lambda store: _resealed(store, _swap_first_id_ends),
    "id count mismatch": lambda store: _craft(store, lambda f: f["message_ids"].pop()),
    "payload cut short": lambda store: _resealed(store, lambda body: body[:-5]),
    "missing field": lambda store: _resealed(store, lambda body: body.replace(b'"compaction_count":0,', b"", 1)),
    "not an object": lambda store: _resealed(store, lambda body: b"[]" + body[body.index(b"\n") :]),
}


@pytest.mark.parametrize("name", sorted(BAD_CACHES))
def test_a_bad_cache_is_ignored_and_rebuilt(sessions, name):
    store = TranscriptStore(sessions)
    fill(store, 12)
    expected = store.read_all(SID).messages
    store.layout_path(SID).write_bytes(BAD_CACHES[name](store))
    reader = TranscriptStore(sessions)
    assert reader.window(SID, limit=5).messages == expected[-5:]
    assert reader.read_all(SID).messages == expected
    assert layout_cache.decode(store.layout_path(SID).read_bytes()) == store.layout(SID)


def test_a_cache_that_cannot_be_read_or_written_is_only_logged(sessions, caplog):
    store = TranscriptStore(sessions)
    fill(store, 12)
    expected = store.read_all(SID).messages
    store.evict(SID, save=False)
    store.layout_path(SID).unlink(missing_ok=True)
    store.layout_path(SID).mkdir()  # neither readable nor replaceable as a file
    with caplog.at_level(logging.WARNING, logger="pidesktop.host.transcripts"):
        assert store.window(SID, limit=50).messages == expected
        store.append(SID, message("m12", "more"))
        store.flush_layouts()
    assert any("layout cache" in record.getMessage() for record in caplog.records)
    assert TranscriptStore(sessions).read_all(SID).messages[-1] == (12, message("m12", "more"))
    assert [name for name in os.listdir(sessions) if name.endswith(".tmp")] == []


def test_create_removes_a_leftover_cache(sessions):
    store = TranscriptStore(sessions)
    fill(store, 5)
    store.flush_layouts()
    store.path(SID).unlink()  # removed behind the store's back
    store.create(SID, CREATED)
    assert not store.layout_path(SID).exists()
    assert TranscriptStore(sessions).window(SID).total == 0


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(["a", "b", "c", "d", None]), max_size=40), st.data())
def test_hidden_lines_are_the_same_whether_or_not_ids_are_indexed(ids, data):
    layout = Layout(0, 0, message_offsets=list(range(len(ids))), message_lengths=[1] * len(ids), message_ids=ids)
    start = data.draw(st.integers(min_value=0, max_value=len(ids)))
    end = data.draw(st.integers(min_value=start, max_value=len(ids)))
    nearby = layout.hidden_between(start, end)  # without an index: looks at the later lines only
    assert {p for p in range(start, end) if layout.is_hidden(p)} == nearby  # builds the index
    assert layout.hidden_between(start, end) == nearby  # with the index
    assert nearby == {p for p in range(start, end) if ids[p] in ids[p + 1 :]}


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.integers(1, 5000), st.one_of(st.none(), st.text(max_size=12))), max_size=60))
def test_cache_fields_survive_the_round_trip_across_id_chunks(entries):
    from pidesktop.host.transcripts import layout_cache as cache

    offsets, position = [], 0
    for length, _id in entries:
        offsets.append(position)
        position += length
    fields = {
        "dev": 3,
        "ino": 9,
        "prefix_len": position,
        "message_offsets": offsets,
        "message_lengths": [e[0] for e in entries],
        "message_ids": [e[1] for e in entries],
        "message_count": len(entries),
        "compaction_offsets": [],
        "compaction_lengths": [],
        "compaction_ids": [],
        "compaction_count": 0,
    }
    original = cache.ID_CHUNK
    cache.ID_CHUNK = 7  # many chunks from a short list (ids written, offsets and lengths read back)
    try:
        data = cache.encode_fields(fields)
        assert plain(cache.decode_fields(data)) == fields
    finally:
        cache.ID_CHUNK = original
    assert plain(cache.decode_fields(data)) == fields


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 400), st.integers(0, 400), st.sampled_from([b"", b"\n", b"x", b"\n\n"]))
def test_a_cut_or_spliced_cache_reads_as_none_never_as_other_fields(cut, at, splice):
    """However the cache's bytes are cut or spliced (its three header lines included), it
    decodes to the fields it was written from or to nothing."""
    from pidesktop.host.transcripts import layout_cache as cache

    fields = {
        "dev": 1,
        "ino": 2,
        "prefix_len": 90,
        "message_offsets": [0, 30, 60],
        "message_lengths": [30, 30, 30],
        "message_ids": ["a", None, "c"],
        "message_count": 3,
        "compaction_offsets": [],
        "compaction_lengths": [],
        "compaction_ids": [],
        "compaction_count": 0,
    }
    data = cache.encode_fields(fields)
    assert plain(cache.decode_fields(data)) == fields
    at = min(at, len(data))
    damaged = (data[:at] + splice + data[at:])[: max(1, len(data) + len(splice) - cut)]
    assert plain(cache.decode_fields(damaged)) in (None, fields)
