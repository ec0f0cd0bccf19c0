"""search.query: a page is the newest matches, read as far as the page needs; ``total`` counts the matches
up to 1,000 (``totalCapped`` says there are more)."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pidesktop.formats.index.db import open_database
from pidesktop.formats.transcript.records import encode_record, session_header
from pidesktop.host.search import chat_page
from pidesktop.host.search import commands as search
from tests.support.hosts import InProcessHost


def write_transcript(location, session_id, texts):
    """One message a second, in order (the page is newest first by time)."""
    folder = location.data_root / "sessions"
    folder.mkdir(parents=True, exist_ok=True)
    with open(folder / f"{session_id}.jsonl", "wb") as f:
        f.write(encode_record(session_header(session_id, "2026-07-26T09:00:00.000Z")))
        for i, text in enumerate(texts):
            stamp = f"2026-07-26T{9 + i // 3600:02d}:{i // 60 % 60:02d}:{i % 60:02d}.000Z"
            message = {"id": f"{session_id}-{i}", "role": "user" if i % 2 == 0 else "assistant", "createdAt": stamp}
            f.write(encode_record({"type": "message", **message, "blocks": [{"type": "text", "text": text}]}))


def ids(reply):
    return [r["messageId"] for r in reply["results"]]


def test_a_page_is_the_newest_matches_and_total_counts_them_all(location):
    many = 2 * search.PAGE_CHUNK + 13  # more matches than two chunks of text read
    texts = [f"row {i} has the needle" if i % 3 else f"row {i} has nothing" for i in range(3 * many // 2)]
    write_transcript(location, "big", texts)
    write_transcript(location, "other", ["a needle elsewhere", "none"])
    matching = [f"big-{i}" for i in range(len(texts)) if i % 3]
    host = InProcessHost(location)
    try:
        reply = host.call("search.query", {"query": "needle", "sessionId": "big", "limit": 50})
        assert ids(reply) == matching[::-1][:50]
        assert reply["total"] == len(matching)
        a, b = reply["results"][0]["snippet"]["highlights"][0]
        assert reply["results"][0]["snippet"]["text"][a:b] == "needle"
        # A page longer than a chunk of text read goes on with the next chunk, in order.
        longest = host.call("search.query", {"query": "needle", "sessionId": "big", "limit": 500})
        assert ids(longest) == matching[::-1] and longest["total"] == len(matching)
        # One chat's matches are a range of row ids: another chat's, before or after it, are not among them.
        other = host.call("search.query", {"query": "needle", "sessionId": "other", "limit": 5})
        assert ids(other) == ["other-0"] and other["total"] == 1
        everywhere = host.call("search.query", {"query": "needle", "limit": 500})
        assert set(ids(everywhere)) == set(matching) | {"other-0"} and everywhere["total"] == len(matching) + 1
    finally:
        host.stop()


def test_short_and_unicode_queries_page_and_count_the_same_way(location):
    write_transcript(location, "chat", [f"Straße {i} ok" if i % 2 else f"ok {i}" for i in range(30)])
    host = InProcessHost(location)
    try:
        short = host.call("search.query", {"query": "ok", "limit": 5})  # two characters: no index
        assert ids(short) == [f"chat-{i}" for i in range(29, 24, -1)] and short["total"] == 30
        folded = host.call("search.query", {"query": "STRASSE", "limit": 4})
        assert folded["results"] == [] and folded["total"] == 0  # "ß" is not "ss": a substring test
        exact = host.call("search.query", {"query": "straße", "limit": 4})
        assert ids(exact) == ["chat-29", "chat-27", "chat-25", "chat-23"] and exact["total"] == 15
    finally:
        host.stop()


def test_past_a_thousand_matches_the_total_says_so_instead_of_counting_them(location):
    write_transcript(location, "big", [f"row {i} has the needle" for i in range(1203)])
    write_transcript(location, "small", ["the needle", "no"])
    host = InProcessHost(location)
    try:
        for scope in ({"sessionId": "big"}, {}):
            reply = host.call("search.query", {"query": "needle", "limit": 3, **scope})
            assert ids(reply)[:1] == ["big-1202"] if scope else len(ids(reply)) == 3
            assert (reply["total"], reply["totalCapped"]) == (1000, True)
        short = host.call("search.query", {"query": "ne", "sessionId": "big", "limit": 2})  # no index
        assert ids(short) == ["big-1202", "big-1201"] and (short["total"], short["totalCapped"]) == (1000, True)
        small = host.call("search.query", {"query": "needle", "sessionId": "small"})
        assert ids(small) == ["small-0"] and (small["total"], small["totalCapped"]) == (1, False)
        host.call("session.delete", {"sessionId": "small"})
        assert host.call("search.query", {"query": "needle", "sessionId": "small"}) == {
            "results": [],
            "total": 0,
            "totalCapped": False,
        }
    finally:
        host.stop()


OTHER_MID = 1100  # another chat's match, among the row ids of the chat searched


@pytest.fixture(scope="module")
def chat_database(tmp_path_factory):
    """A database with the chat "c" (no messages yet) and the chat "other", whose one match is given a row id
    among those the test gives c's rows, open for the test to fill."""
    from pidesktop import paths

    location = paths.resolve(data_dir=tmp_path_factory.mktemp("page") / "data")
    write_transcript(location, "c", [])
    write_transcript(location, "other", ["a needle elsewhere"])
    InProcessHost(location).stop()
    conn = open_database(location.data_root / "pi.sqlite")
    with conn:
        conn.execute("DELETE FROM messages WHERE session_id = 'other'")
        conn.execute(
            "INSERT INTO messages (mid, id, session_id, seq, role, text, created_at) "
            "VALUES (?, 'other-0', 'other', 1, 'user', 'a needle elsewhere', 0)",
            (OTHER_MID,),
        )
    yield conn
    conn.close()


@settings(max_examples=80, deadline=None)
@given(
    data=st.data(),
    size=st.integers(0, 300),
    limit=st.integers(1, 120),
)
def test_one_chat_s_page_is_its_last_matches_whatever_order_its_rows_were_written_in(chat_database, data, size, limit):
    """Rows written again (an edit, a chat indexed anew) have row ids out of the chat's order: the walk from
    the index's end must still place each match by its place in the chat."""
    conn = chat_database
    matches = data.draw(st.lists(st.booleans(), min_size=size, max_size=size))
    # Row ids: mostly in the chat's order, some of them moved (written again later or earlier).
    mids = [mid for mid in range(1000, 1001 + size) if mid != OTHER_MID][:size]
    for _ in range(data.draw(st.integers(0, max(0, size // 4)))):
        a, b = data.draw(st.integers(0, size - 1)), data.draw(st.integers(0, size - 1))
        mids[a], mids[b] = mids[b], mids[a]
    with conn:
        conn.execute("DELETE FROM messages WHERE session_id = 'c'")
        for seq, (mid, hit) in enumerate(zip(mids, matches), start=1):
            conn.execute(
                "INSERT INTO messages (mid, id, session_id, seq, role, text, created_at) "
                "VALUES (?, ?, 'c', ?, ?, ?, ?)",
                (mid, f"c-{seq}", seq, "user" if seq % 2 else "assistant", f"{seq} a needle" if hit else f"{seq} b", 0),
            )
    stray = data.draw(st.sampled_from([0, 64, chat_page.STRAY_CANDIDATES]))  # when the rest is read and sorted
    saved, chat_page.STRAY_CANDIDATES = chat_page.STRAY_CANDIDATES, stray
    try:
        page, counted = chat_page.newest_matches(conn, '"needle"', "needle", "c", limit, cap=50)
    finally:
        chat_page.STRAY_CANDIDATES = saved
    expected = [f"c-{seq}" for seq in range(size, 0, -1) if matches[seq - 1]]
    assert [row[1] for row in page] == expected[:limit]
    assert counted == min(len(expected), 51)


def test_a_page_reads_the_text_of_what_it_returns_not_of_every_hit(location):
    write_transcript(location, "big", [f"message {i} with the needle" for i in range(1000)])
    InProcessHost(location).stop()  # indexes the transcript
    database = location.data_root / "pi.sqlite"
    assert database.exists()
    conn = open_database(database)
    texts_read = []

    def count_texts(cursor, row):
        texts_read.extend(value for value in row if isinstance(value, str) and "needle" in value)
        return row

    try:
        conn.row_trace = count_texts
        rows, total = search.matching_messages(conn, "needle", None, 5)  # every chat: ordered by time
        first_texts, texts_read[:] = len(texts_read), []
        walked, counted = chat_page.newest_matches(conn, '"needle"', "needle", "big", 5, search.COUNT_CAP)
    finally:
        conn.close()
    assert [row[1] for row in rows] == [f"big-{i}" for i in range(999, 994, -1)] and total == 1000
    assert first_texts <= 2 * search.PAGE_CHUNK  # a chunk's worth, not the thousand hits
    assert walked == rows and counted == 1000 and len(texts_read) == 5  # the page's own, no more
