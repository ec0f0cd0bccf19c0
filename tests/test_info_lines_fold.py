"""A restore reads a transcript's session_info and session_row lines in one pass over blocks of the file
(``info.fold_file``); whatever the block size and wherever lines fall, it folds exactly what the line by
line folds (``fold``, ``fold_rows``) give for the same bytes."""

from __future__ import annotations

import tempfile
from pathlib import Path

import orjson
from hypothesis import example, given, settings
from hypothesis import strategies as st

from pidesktop.host.transcripts import info

INFO_LINE = st.fixed_dictionaries(
    {"type": st.just("session_info")},
    optional={"title": st.text(max_size=12), "pinned": st.booleans(), "at": st.text(max_size=4)},
)
ROW_LINE = st.fixed_dictionaries(
    {
        "type": st.just("session_row"),
        "table": st.sampled_from(["turns", "plan_approvals"]),
        "key": st.sampled_from(["a", "b", "c"]),
        "row": st.dictionaries(st.sampled_from(["status", "n"]), st.integers(0, 9) | st.text(max_size=5), max_size=2),
    }
)
MESSAGE_LINE = st.fixed_dictionaries(
    {
        "type": st.just("message"),
        "id": st.text(max_size=6),
        # the marks inside a message: nested, and in its text, neither of which starts a line
        "meta": st.just({"nested": {"type": "session_info", "title": "not this"}}),
        "text": st.sampled_from(['{"type":"session_info","title":"nor this"}', "x" * 40, "", "\n"]),
    }
)
LINE = st.one_of(
    INFO_LINE.map(orjson.dumps),
    ROW_LINE.map(orjson.dumps),
    MESSAGE_LINE.map(orjson.dumps),
    st.just(b'{"type":"session_info",broken'),  # not JSON: skipped both ways
    st.just(b'{"type":"session_row","table":1}'),  # not a row: skipped both ways
    st.just(b""),
)


@settings(max_examples=150, deadline=None)
@given(lines=st.lists(LINE, max_size=25), block=st.integers(1, 64), newline_at_end=st.booleans())
@example(lines=[b'{"type":"session_info","title":"only"}'], block=3, newline_at_end=False)
def test_one_pass_over_blocks_folds_what_the_lines_fold(lines, block, newline_at_end):
    data = b"\n".join(lines) + (b"\n" if newline_at_end and lines else b"")
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "chat.jsonl"
        path.write_bytes(data)
        state, rows = info.fold_file(path, block=block)
    assert state == info.fold(data)
    assert rows == info.fold_rows(data)
