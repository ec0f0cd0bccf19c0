"""search.query: a page is the newest matches, read a chunk at a time; ``total`` counts every match."""

from pidesktop.formats.index.db import open_database
from pidesktop.formats.transcript.records import encode_record, session_header
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
        rows, total = search.matching_messages(conn, "needle", ["big"], 5)
    finally:
        conn.close()
    assert [row[1] for row in rows] == [f"big-{i}" for i in range(999, 994, -1)] and total == 1000
    assert len(texts_read) <= 2 * search.PAGE_CHUNK  # a chunk's worth, not the thousand hits
