"""Cutting lines out of a transcript in large blocks gives what a plain line-by-line filter gives.

The oracle reads the file line by line with ``json`` and keeps every complete
line but the old header and the lines asked for; the store's
``rewrite_dropping`` must write exactly those bytes after the new header, and
its moved layout must equal a fresh scan of the new file.
"""

from __future__ import annotations

import json
import os

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pidesktop.formats.transcript.records import encode_record
from pidesktop.host.transcripts import TranscriptStore
from pidesktop.host.transcripts.cut import kept_ranges
from pidesktop.host.transcripts.layout import scan_bytes

IDS = ["a", "b", "c", "d", "e", "f"]

line_kinds = st.one_of(
    st.tuples(st.just("message"), st.sampled_from(IDS), st.text(max_size=30)),  # ids repeat: hidden copies
    st.tuples(st.just("compaction"), st.sampled_from(["k1", "k2", "k3"]), st.text(max_size=10)),
    st.tuples(st.just("revision_live"), st.sampled_from(IDS), st.just("")),  # another kind: always kept
    st.tuples(st.just("garbage"), st.just(""), st.text(max_size=10)),  # not JSON: kept byte for byte
)


def encode(kind: str, record_id: str, text: str) -> bytes:
    if kind == "message":
        return encode_record(
            {"type": "message", "id": record_id, "role": "user", "blocks": [{"type": "text", "text": text}]}
        )
    if kind == "compaction":
        return encode_record({"type": "compaction", "id": record_id, "summary": text})
    if kind == "revision_live":
        return encode_record({"type": "revision_live", "rootUserId": record_id})
    return ("not json " + text.replace("\n", " ") + "\n").encode()


def oracle(data: bytes, header_line: bytes, messages: set[str], compactions: set[str]) -> bytes:
    out = [header_line]
    lines = data.split(b"\n")
    complete = lines[:-1]  # what follows the last newline is torn
    for number, raw in enumerate(complete):
        try:
            record = json.loads(raw)
        except ValueError:
            record = None
        kind = record.get("type") if isinstance(record, dict) else None
        if number == 0 and kind == "session":
            continue
        if kind == "message" and record.get("id") in messages:
            continue
        if kind == "compaction" and record.get("id") in compactions:
            continue
        out.append(raw + b"\n")
    return b"".join(out)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    lines=st.lists(line_kinds, max_size=25),
    with_header=st.booleans(),
    torn=st.text(max_size=8),
    messages=st.sets(st.sampled_from(IDS)),
    compactions=st.sets(st.sampled_from(["k1", "k2", "k3"])),
    warm=st.booleans(),
)
def test_cutting_by_layout_matches_a_line_by_line_filter(
    tmp_path_factory, lines, with_header, torn, messages, compactions, warm
):
    root = tmp_path_factory.mktemp("cut")
    store = TranscriptStore(root)
    path = store.path("s")
    old_header = encode_record({"type": "session", "version": 3, "id": "s"}) if with_header else b""
    data = old_header + b"".join(encode(*line) for line in lines) + ("{" + torn).encode() * bool(torn)
    path.write_bytes(data)
    if warm:
        store.layout("s")  # a remembered layout, as after reading a page
    new_header = {"version": 3, "id": "s", "rewriteId": "r2"}

    store.rewrite_dropping("s", messages, compactions, new_header)

    written = path.read_bytes()
    assert written == oracle(data, encode_record({**new_header, "type": "session"}), messages, compactions)
    stat = os.stat(path)
    fresh = scan_bytes(written, stat, lambda *_: None)
    moved = store.layout("s")
    for field in (
        "prefix_len",
        "message_offsets",
        "message_lengths",
        "message_ids",
        "compaction_offsets",
        "compaction_lengths",
        "compaction_ids",
    ):
        assert getattr(moved, field) == getattr(fresh, field), field
    assert not [p for p in root.iterdir() if p.name.endswith(".tmp")]


@given(cuts=st.lists(st.tuples(st.integers(0, 200), st.integers(1, 20)), max_size=10))
def test_kept_ranges_cover_exactly_what_no_cut_covers(cuts):
    # non-overlapping sorted cuts, as a layout's lines are
    spans, position = [], 5
    for gap, length in cuts:
        start = position + gap
        spans.append((start, start + length))
        position = start + length
    end = position + 7
    kept = kept_ranges(5, end, spans)
    covered = {i for a, b in kept for i in range(a, b)}
    cut = {i for a, b in spans for i in range(a, b)}
    assert covered == set(range(5, end)) - cut
    assert all(a < b for a, b in kept) and kept == sorted(kept)


def test_a_shift_sqlite_refuses_changes_nothing_and_says_so():
    import apsw

    from pidesktop.host.sessions.message_index import _shift_down

    conn = apsw.Connection(":memory:")
    conn.execute(
        "CREATE TABLE messages(mid INTEGER PRIMARY KEY, session_id TEXT, seq INTEGER, UNIQUE(session_id, seq))"
    )
    conn.execute("INSERT INTO messages(session_id, seq) VALUES ('s', 1), ('s', 2), ('s', 4), ('s', 5)")
    with conn:
        assert _shift_down(conn, "s", 3, 1)  # slot 3 is free: 4 and 5 move down
        assert not _shift_down(conn, "s", 1, 1)  # 2 onto 1 collides: refused inside its savepoint
    assert [seq for (seq,) in conn.execute("SELECT seq FROM messages ORDER BY seq")] == [1, 2, 3, 4]
