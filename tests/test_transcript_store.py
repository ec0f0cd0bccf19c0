"""TranscriptStore against a simple model of the file, under random histories.

The model keeps one entry per physical message line (its id and the record a
reader should get back, or None for a line no reader can use), and the
compaction records. After every operation all the ways of reading the
transcript must agree with the model and with each other.
"""

from __future__ import annotations

import logging
import os
import tempfile
from pathlib import Path

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pidesktop.formats.transcript.records import encode_record
from pidesktop.host.transcripts import InvalidRecord, MessageNotFound, TranscriptChanged, TranscriptStore, Window

SID = "s1"
CREATED = "2026-07-26T09:00:00.000Z"

texts = st.text(
    alphabet=st.characters(exclude_categories=("Cs",)) | st.sampled_from(['"', "\\", "{", "}", "\n"]), max_size=30
)


def message(record_id: str, text: str, role: str = "user") -> dict:
    return {"type": "message", "id": record_id, "role": role, "blocks": [{"type": "text", "text": text}]}


def tool_message(record_id: str, text: str) -> dict:
    # A tool result nests records whose "type" must not confuse the scan.
    return {
        "type": "message",
        "id": record_id,
        "role": "tool",
        "toolName": "Write",
        "blocks": [
            {
                "type": "tool_call",
                "callId": "c1",
                "args": {"t": text},
                "result": {"type": "compaction", "id": "x"},
                "status": "ok",
            }
        ],
    }


def compaction(record_id: str, summary: str) -> dict:
    return {"type": "compaction", "id": record_id, "summary": summary, "firstKeptMessageId": "m0", "tokensBefore": 1}


class Model:
    def __init__(self) -> None:
        self.lines: list[tuple[str | None, dict | None]] = []  # physical message lines
        self.compactions: list[dict] = []
        self.torn: tuple[bytes, int, tuple[str, dict]] | None = None  # (full line, cut, its effect)
        self.counter = 0

    def new_id(self, prefix: str = "m") -> str:
        self.counter += 1
        return f"{prefix}{self.counter}"

    def visible(self) -> list[tuple[int, dict]]:
        last = {record_id: position for position, (record_id, _) in enumerate(self.lines)}
        return [(p, rec) for p, (rid, rec) in enumerate(self.lines) if rec is not None and last[rid] == p]

    def apply(self, kind: str, record: dict | None, record_id: str | None = None) -> None:
        if kind == "message":
            self.lines.append((record_id if record is None else record["id"], record))
        elif kind == "compaction":
            self.compactions.append(record)


def raw_append(path: Path, data: bytes) -> None:
    with open(path, "ab") as f:
        f.write(data)


class Harness:
    """Drives the store (and a second, independent store on the same folder) and the model together."""

    def __init__(self, root: Path, data) -> None:
        self.dir = root / "sessions"
        self.store = TranscriptStore(self.dir)
        self.other = TranscriptStore(self.dir)
        self.model = Model()
        self.data = data
        self.store.create(SID, CREATED)
        self.path = self.store.path(SID)

    def draw(self, strategy):
        return self.data.draw(strategy)

    def pick_store(self) -> TranscriptStore:
        return self.store if self.draw(st.booleans()) else self.other

    # -- operations ------------------------------------------------------------

    def op_append_message(self):
        make = self.draw(st.sampled_from([message, tool_message]))
        record = make(self.model.new_id(), self.draw(texts))
        self._append(record)

    def op_append_compaction(self):
        self._append(compaction(self.model.new_id("cp"), self.draw(texts)))

    def op_append_duplicate(self):
        if not self.model.lines:
            return
        record_id = self.draw(
            st.sampled_from([rid for rid, _ in self.model.lines if rid and rid.startswith("m")] or ["m0"])
        )
        self._append(message(record_id, "again " + self.draw(texts), role="assistant"))

    def op_append_unknown_type(self):
        store = self.pick_store()
        self._before_append()
        assert store.append(SID, {"type": "note", "text": self.draw(texts)}) is None

    def _append(self, record: dict) -> None:
        store = self.pick_store()
        self._before_append()
        appended = store.append_line(SID, record)
        self.model.apply(record["type"], record)
        if record["type"] == "message":
            assert appended.position == len(self.model.lines) - 1
        else:
            assert appended.position is None
        data = store.path(SID).read_bytes()  # the span is the new line, at the file's end
        assert appended.end == len(data) and orjson.loads(data[appended.start : appended.end])["id"] == record["id"]

    def _before_append(self):
        """What an append does to a torn last line: cuts it off, or mends it when only its newline is missing.

        Readers never show an unterminated line; the writer that meets one
        decides, so a complete record missing just its newline gets the newline.
        """
        if self.model.torn is not None:
            line, cut, record = self.model.torn
            if cut == len(line) - 1:
                self.model.apply("message", record)
        self.model.torn = None

    def op_raw_line(self):
        self._complete_torn()
        choice = self.draw(
            st.sampled_from(["unknown", "garbage", "bad_json_message", "bad_utf8", "no_type", "bad_record"])
        )
        if choice == "unknown":
            raw_append(self.path, b'{"type":"future-kind","id":"m1","blocks":[]}\n')
        elif choice == "garbage":
            raw_append(self.path, b"this is not json {\n")
        elif choice == "no_type":
            raw_append(self.path, b'{"id":"m1","role":"user","blocks":[]}\n')
        elif choice == "bad_json_message":
            record_id = self.model.new_id("bad")
            raw_append(self.path, b'{"type":"message","id":"' + record_id.encode() + b'","role":"user","blocks":[}\n')
            self.model.apply("message", None, record_id)
        elif choice == "bad_record":
            record_id = self.model.new_id("bad")
            raw_append(self.path, orjson.dumps({"type": "message", "id": record_id, "role": 5, "blocks": []}) + b"\n")
            self.model.apply("message", None, record_id)
        else:
            line = encode_record(message(self.model.new_id(), "caf\u00e9 " + self.draw(texts)))
            line = line.replace("\u00e9".encode(), b"\xff")
            raw_append(self.path, line)
            self.model.apply("message", orjson.loads(line.decode("utf-8", "replace")))

    def op_write_torn_tail(self):
        self._complete_torn()
        record = message(self.model.new_id(), self.draw(texts))
        line = encode_record(record)
        # Cut anywhere, and often just before the newline: the one cut that leaves a complete record.
        cut = self.draw(st.one_of(st.just(len(line) - 1), st.integers(min_value=1, max_value=len(line) - 1)))
        raw_append(self.path, line[:cut])
        self.model.torn = (line, cut, record)

    def op_complete_torn_tail(self):
        self._complete_torn()

    def _complete_torn(self):
        if self.model.torn is None:
            return
        line, cut, record = self.model.torn
        raw_append(self.path, line[cut:])
        self.model.torn = None
        self.model.apply("message", record)

    def op_rewrite(self):
        kept = [rec for _, rec in self.model.visible() if self.draw(st.booleans())]
        comps = list(self.model.compactions[-2:])
        records = kept + comps
        self.pick_store().rewrite(SID, records)
        self.model = _reset(self.model, kept, comps)

    def op_corrupt_layout_cache(self):
        cache = self.store.layout_path(SID)
        how = self.draw(st.sampled_from(["random", "flip", "truncate"]))
        if how == "random" or not cache.exists():
            cache.write_bytes(self.draw(st.binary(max_size=200)))
            return
        data = bytearray(cache.read_bytes())
        if not data:
            return
        at = self.draw(st.integers(min_value=0, max_value=len(data) - 1))
        if how == "flip":
            data[at] ^= 1 << self.draw(st.integers(min_value=0, max_value=7))
        else:
            del data[at:]
        cache.write_bytes(bytes(data))

    def op_forget_memory(self):
        choice = self.draw(st.sampled_from(["evict_saving", "evict_dropping", "new_store", "flush"]))
        if choice == "evict_saving":
            self.store.evict(SID)
        elif choice == "evict_dropping":
            self.store.evict(SID, save=False)
        elif choice == "flush":
            self.store.flush_layouts()
        else:
            self.store = TranscriptStore(self.dir)

    OPERATIONS = [
        "op_append_message",
        "op_append_message",
        "op_append_compaction",
        "op_append_duplicate",
        "op_append_unknown_type",
        "op_raw_line",
        "op_write_torn_tail",
        "op_complete_torn_tail",
        "op_rewrite",
        "op_corrupt_layout_cache",
        "op_forget_memory",
    ]

    # -- checks ----------------------------------------------------------------

    def check(self):
        expected = self.model.visible()
        total = len(self.model.lines)
        for store in (self.store, self.other, TranscriptStore(self.dir)):  # warm, warm elsewhere, from disk
            transcript = store.read_all(SID)
            assert transcript.messages == expected
            assert transcript.compactions == self.model.compactions
            assert transcript.total == total
            assert transcript.header["sessionId"] == SID
            assert store.message_count(SID) == total
        self.check_windows(expected, total)
        self.check_layout_matches_a_fresh_scan()

    def check_windows(self, expected, total):
        store = self.store
        # Backwards from the newest line, as a chat view scrolls up.
        limit = self.draw(st.integers(min_value=1, max_value=6))
        pages, before = [], None
        while True:
            window = store.window(SID, before=before, limit=limit)
            self._check_window(window, total)
            pages = window.messages + pages
            if not window.has_more_before:
                break
            before = window.start
        assert pages == expected
        # Forwards from a start position.
        limit = self.draw(st.integers(min_value=1, max_value=6))
        pages, start = [], 0
        while True:
            window = store.window(SID, start=start, limit=limit)
            self._check_window(window, total)
            assert window.start == start
            pages += window.messages
            if not window.has_more_after:
                break
            start = window.end
        assert pages == expected
        # Whole history at once, and a random cut.
        assert store.window(SID).messages == expected
        cut = self.draw(st.integers(min_value=0, max_value=total + 3))
        head = store.window(SID, before=cut)
        tail = store.window(SID, start=min(cut, total))
        assert head.messages + tail.messages == expected
        # Around a random visible message, and find().
        if expected:
            position, record = self.draw(st.sampled_from(expected))
            limit = self.draw(st.integers(min_value=1, max_value=7))
            window = store.window(SID, around=record["id"], limit=limit)
            self._check_window(window, total)
            assert window.start <= position < window.end
            assert window.end - window.start == min(limit, total)
            assert window.messages == [(p, r) for p, r in expected if window.start <= p < window.end]
            assert store.find(SID, record["id"]) == (position, record)

    def _check_window(self, window: Window, total: int):
        assert window.total == total
        assert 0 <= window.start <= window.end <= total
        assert window.has_more_before == (window.start > 0)
        assert window.has_more_after == (window.end < total)
        assert window.compactions == self.model.compactions
        assert all(window.start <= p < window.end for p, _ in window.messages)

    def check_layout_matches_a_fresh_scan(self):
        cache = self.store.layout_path(SID)
        current = self.store.layout(SID)
        aside = cache.with_name(cache.name + ".aside")
        if cache.exists():
            os.replace(cache, aside)
        try:
            fresh = TranscriptStore(self.dir).layout(SID)
        finally:
            if aside.exists():
                os.replace(aside, cache)
        assert current == fresh
        assert self.other.layout(SID) == fresh


def _reset(old: Model, kept: list[dict], comps: list[dict]) -> Model:
    model = Model()
    model.counter = old.counter
    model.lines = [(rec["id"], rec) for rec in kept]
    model.compactions = comps
    return model


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(st.data())
def test_every_way_of_reading_agrees_under_random_histories(data):
    logging.getLogger("pidesktop.host.transcripts").setLevel(logging.ERROR)  # bad lines are expected here
    try:
        with tempfile.TemporaryDirectory() as root:
            harness = Harness(Path(root), data)
            harness.check()
            for _ in range(data.draw(st.integers(min_value=1, max_value=25))):
                getattr(harness, data.draw(st.sampled_from(Harness.OPERATIONS)))()
                harness.check()
    finally:
        logging.getLogger("pidesktop.host.transcripts").setLevel(logging.NOTSET)


# -- reading rules --------------------------------------------------------------


@pytest.fixture
def store(tmp_path) -> TranscriptStore:
    store = TranscriptStore(tmp_path / "sessions")
    store.create(SID, CREATED)
    return store


def test_file_format(store):
    store.append(SID, {"id": "m1", "role": "user", "blocks": [], "type": "message"})
    store.append(SID, {"summary": "s", "id": "cp1", "type": "compaction"})
    lines = store.path(SID).read_bytes().split(b"\n")
    assert lines[0] == b'{"type":"session","schema":2,"sessionId":"s1","createdAt":"2026-07-26T09:00:00.000Z"}'
    assert lines[1] == b'{"type":"message","id":"m1","role":"user","blocks":[]}'
    assert lines[2] == b'{"type":"compaction","summary":"s","id":"cp1"}'
    assert lines[3] == b""


def test_create_refuses_an_existing_transcript(store):
    with pytest.raises(FileExistsError):
        store.create(SID, CREATED)


def test_append_creates_a_missing_transcript_with_a_header(tmp_path):
    store = TranscriptStore(tmp_path / "sessions")
    assert store.append("new", message("m1", "hi")) == 0
    header = store.read_all("new").header
    assert header["sessionId"] == "new" and header["schema"] == 2
    assert header["createdAt"].endswith("Z") and len(header["createdAt"]) == 24


def test_append_refuses_records_readers_would_skip(store):
    for bad in (
        {"id": "m1"},
        {"type": "message", "id": 1, "role": "user", "blocks": []},
        {"type": "compaction"},
        {"type": "session"},
    ):
        with pytest.raises(InvalidRecord):
            store.append(SID, bad)
    assert store.message_count(SID) == 0


def test_invalid_utf8_is_read_with_replacement_characters(store):
    raw_append(
        store.path(SID), b'{"type":"message","id":"m1","role":"user","blocks":[{"type":"text","text":"a\xffb"}]}\n'
    )
    expected = [(0, message("m1", "a\ufffdb"))]
    assert store.read_all(SID).messages == expected
    assert store.window(SID, limit=5).messages == expected


def test_invalid_json_lines_are_skipped_with_a_warning(store, caplog):
    store.append(SID, message("m1", "one"))
    raw_append(store.path(SID), b'{"type":"message","id":"m2","role":"user","blocks":[\n')
    raw_append(store.path(SID), b"not json at all\n")
    store.append(SID, message("m3", "three"))
    with caplog.at_level(logging.WARNING, logger="pidesktop.host.transcripts"):
        transcript = store.read_all(SID)
    assert transcript.messages == [(0, message("m1", "one")), (2, message("m3", "three"))]
    warnings = [r for r in caplog.records if r.name == "pidesktop.host.transcripts" and r.levelno == logging.WARNING]
    assert len(warnings) == 2  # the broken message and the garbage line
    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="pidesktop.host.transcripts"):
        window = store.window(SID, limit=10)
    assert window.messages == transcript.messages and window.total == 3
    assert any("not valid JSON" in r.getMessage() for r in caplog.records)


def test_invalid_records_are_skipped_with_a_warning(store, caplog):
    raw_append(store.path(SID), b'{"type":"message","id":"m1","role":"user","blocks":"nope"}\n')
    raw_append(store.path(SID), b'{"type":"compaction","id":3}\n')
    with caplog.at_level(logging.WARNING, logger="pidesktop.host.transcripts"):
        transcript = store.read_all(SID)
    assert transcript.messages == [] and transcript.compactions == [] and transcript.total == 1
    assert len([r for r in caplog.records if r.levelno == logging.WARNING]) == 2


def test_unknown_types_are_skipped(store):
    raw_append(store.path(SID), b'{"type":"note","id":"n1","text":"later versions"}\n')
    store.append(SID, message("m1", "hi"))
    assert store.read_all(SID).messages == [(0, message("m1", "hi"))]
    assert store.window(SID).messages == [(0, message("m1", "hi"))]


def test_a_torn_tail_is_never_returned_and_is_picked_up_once_complete(store):
    store.append(SID, message("m1", "one"))
    line = encode_record(message("m2", "two"))
    raw_append(store.path(SID), line[:20])
    assert store.read_all(SID).messages == [(0, message("m1", "one"))]
    assert store.window(SID).total == 1
    assert store.find(SID, "m2") is None
    raw_append(store.path(SID), line[20:])
    assert store.window(SID).messages == [(0, message("m1", "one")), (1, message("m2", "two"))]
    assert store.read_all(SID).total == 2


def test_append_cuts_off_a_torn_tail_instead_of_merging_into_it(store):
    store.append(SID, message("m1", "one"))
    raw_append(store.path(SID), encode_record(message("m2", "two"))[:25])
    assert store.append(SID, message("m3", "three")) == 1
    assert store.read_all(SID).messages == [(0, message("m1", "one")), (1, message("m3", "three"))]


def test_duplicates_keep_the_last_line_at_its_own_position(store):
    store.append(SID, message("m1", "first"))
    store.append(SID, message("m2", "other"))
    assert store.append(SID, message("m1", "edited")) == 2
    expected = [(1, message("m2", "other")), (2, message("m1", "edited"))]
    assert store.read_all(SID).messages == expected
    window = store.window(SID, limit=2)
    assert (window.start, window.end, window.total) == (1, 3, 3)
    assert window.messages == expected
    oldest = store.window(SID, before=1)
    assert oldest.messages == [] and oldest.has_more_after  # the hidden line keeps position 0
    assert store.find(SID, "m1") == (2, message("m1", "edited"))


def test_compactions_are_the_whole_chain_in_every_window(store):
    for i in range(10):
        store.append(SID, message(f"m{i}", str(i)))
        if i % 4 == 3:
            store.append(SID, compaction(f"cp{i}", f"summary {i}"))
    chain = [compaction("cp3", "summary 3"), compaction("cp7", "summary 7")]
    assert store.window(SID, limit=1).compactions == chain
    assert store.window(SID, start=0, limit=1).compactions == chain
    assert store.read_all(SID).compactions == chain


def test_read_all_of_a_missing_transcript_raises(tmp_path):
    with pytest.raises(FileNotFoundError):
        TranscriptStore(tmp_path).read_all("nope")


def test_a_missing_transcript_reads_as_an_empty_window(tmp_path):
    store = TranscriptStore(tmp_path / "sessions")
    assert store.window("nope", limit=50) == Window([], 0, 0, 0, False, False, [])
    assert store.message_count("nope") == 0
    assert store.find("nope", "m1") is None
    with pytest.raises(MessageNotFound):
        store.window("nope", around="m1", limit=5)


# -- window selection -------------------------------------------------------------


@pytest.fixture
def ten(store) -> TranscriptStore:
    for i in range(10):
        store.append(SID, message(f"m{i}", str(i)))
    return store


def positions(window: Window) -> list[int]:
    return [p for p, _ in window.messages]


def test_around_a_missing_id_raises(ten):
    with pytest.raises(MessageNotFound):
        ten.window(SID, around="nope", limit=5)


def test_around_is_centred_and_stays_full_at_the_edges(ten):
    assert positions(ten.window(SID, around="m5", limit=3)) == [4, 5, 6]
    assert positions(ten.window(SID, around="m0", limit=3)) == [0, 1, 2]
    assert positions(ten.window(SID, around="m9", limit=4)) == [6, 7, 8, 9]
    assert positions(ten.window(SID, around="m5")) == list(range(10))


def test_before_beyond_total_is_treated_as_total(ten):
    window = ten.window(SID, before=1000, limit=3)
    assert (window.start, window.end, window.total) == (7, 10, 10)
    assert not window.has_more_after


def test_a_limit_bigger_than_total_returns_everything(ten):
    window = ten.window(SID, limit=1000)
    assert positions(window) == list(range(10))
    assert not window.has_more_before and not window.has_more_after
    assert positions(ten.window(SID, start=3, limit=1000)) == list(range(3, 10))


def test_start_past_the_end_is_an_empty_window(ten):
    window = ten.window(SID, start=50, limit=5)
    assert (window.start, window.end, window.messages, window.has_more_before) == (10, 10, [], True)


@pytest.mark.parametrize(
    "arguments",
    [
        {"limit": 0},
        {"limit": -1},
        {"before": -1},
        {"start": -2},
        {"before": 1, "start": 1},
        {"around": "m1", "start": 0},
        {"limit": True},
    ],
)
def test_bad_window_arguments_are_refused(ten, arguments):
    with pytest.raises(ValueError):
        ten.window(SID, **arguments)


@pytest.mark.parametrize("session_id", ["", "../x", "a/b", ".hidden", "a\\b", "a\0b"])
def test_session_ids_cannot_escape_the_folder(tmp_path, session_id):
    with pytest.raises(ValueError):
        TranscriptStore(tmp_path).path(session_id)


def test_rewrite_keeps_the_header_and_replaces_the_records(ten):
    ten.rewrite(SID, [message("m8", "8"), compaction("cp1", "s"), message("m9", "9")])
    transcript = ten.read_all(SID)
    assert transcript.header["createdAt"] == CREATED
    assert transcript.messages == [(0, message("m8", "8")), (1, message("m9", "9"))]
    assert transcript.compactions == [compaction("cp1", "s")]
    assert [name for name in os.listdir(ten.path(SID).parent) if name.endswith(".tmp")] == []


def test_rewrite_with_a_new_header(ten):
    ten.rewrite(SID, [], header={"schema": 2, "sessionId": SID, "createdAt": "2027-01-01T00:00:00.000Z"})
    assert ten.path(SID).read_bytes().startswith(b'{"type":"session","schema":2')
    assert ten.read_all(SID).header["createdAt"] == "2027-01-01T00:00:00.000Z"
    assert ten.window(SID).total == 0


def test_delete_removes_the_transcript_and_its_layout_cache(ten):
    ten.flush_layouts()
    assert ten.layout_path(SID).exists()
    ten.delete(SID)
    assert not ten.exists(SID) and not ten.layout_path(SID).exists()
    assert ten.window(SID).total == 0
    ten.delete(SID)  # deleting twice is fine


@pytest.mark.parametrize(
    "edit",
    [
        (b'"id":"m3"', b'"id":"m9"'),  # another id where the layout has m3
        (b'"message","id":"m3"', b'"massage","id":"m3"'),  # another kind of line
        (b'"}]}\n{"type":"message","id":"m4"', b'"}]} {"type":"message","id":"m4"'),  # a line end gone
    ],
)
def test_a_streamed_read_stops_when_a_line_no_longer_matches_the_layout(ten, edit):
    """Lines edited in place (same size, same inode) after the layout was taken: the streamed read raises
    TranscriptChanged rather than give another history, then reads the file as it now is."""
    before = [item for batch in ten.stream_messages(SID) for item in batch]
    assert [record["id"] for _, record in before] == [f"m{i}" for i in range(10)]
    data = ten.path(SID).read_bytes()
    old, new = edit
    assert len(old) == len(new) and data.count(old) == 1
    with open(ten.path(SID), "r+b") as out:
        out.seek(data.index(old))
        out.write(new)
    with pytest.raises(TranscriptChanged):
        list(ten.stream_messages(SID))
    after = [item for batch in ten.stream_messages(SID) for item in batch]
    assert after == ten.read_all(SID).messages
    assert after != before
