"""search.sessions pages: the count cap ("1,000+"), the walk for common phrases, paging, CJK."""

import itertools

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pidesktop.formats.transcript.records import encode_record, session_header
from pidesktop.host.search import commands as search
from pidesktop.host.search import walked_page
from tests.support.hosts import InProcessHost
from tests.test_search import seed

EXAMPLES = itertools.count()


def write_transcript(location, session_id, texts):
    folder = location.data_root / "sessions"
    folder.mkdir(parents=True, exist_ok=True)
    with open(folder / f"{session_id}.jsonl", "wb") as f:
        f.write(encode_record(session_header(session_id, "2026-07-26T09:00:00.000Z")))
        for i, text in enumerate(texts):
            f.write(
                encode_record(
                    {
                        "type": "message",
                        "id": f"{session_id}-{i}",
                        "role": "user" if i % 2 == 0 else "assistant",
                        "createdAt": f"2026-07-26T09:{i // 3600 % 60:02d}:{i % 60:02d}.000Z",
                        "blocks": [{"type": "text", "text": text}],
                    }
                )
            )


def pages(host, query, limit):
    """Every page of ``query``, following nextCursor to the end."""
    out, cursor = [], None
    while True:
        params = {"query": query, "limit": limit} | ({"cursor": cursor} if cursor else {})
        page = host.call("search.sessions", params)
        out.append(page)
        cursor = page["nextCursor"]
        if cursor is None:
            return out


def listing(replies):
    return [
        (r["sessionId"], r["matchCount"], r["matchCountCapped"], [s["messageId"] for s in r["snippets"]])
        for page in replies
        for r in page["results"]
    ]


def test_a_chat_counts_its_matches_up_to_the_cap(location):
    many = search.COUNT_CAP + 7
    write_transcript(location, "big", [f"row {i} has the needle in it" for i in range(many)] + ["no match here"])
    write_transcript(location, "small", ["needle one", "other", "needle two"])
    host = InProcessHost(location)
    try:
        found = {r["sessionId"]: r for r in host.call("search.sessions", {"query": "needle"})["results"]}
        assert found["big"]["matchCount"] == search.COUNT_CAP and found["big"]["matchCountCapped"]
        assert found["small"]["matchCount"] == 2 and not found["small"]["matchCountCapped"]
        # Snippets are the chat's newest matches, read for the page only.
        assert [s["messageId"] for s in found["big"]["snippets"]] == [
            f"big-{many - 1}",
            f"big-{many - 2}",
            f"big-{many - 3}",
        ]
        a, b = found["big"]["snippets"][0]["highlights"][0]
        assert found["big"]["snippets"][0]["text"][a:b] == "needle"
        reply = host.call("search.sessions", {"query": "needle"})
        assert reply["totalSessions"] == 2 and reply["totalSessionsExact"]
    finally:
        host.stop()


@pytest.fixture
def chats(host):
    """Nine chats, newest last: match counts 3, 0, 1, 4, 2, 0, 5, 1, 2; one named 'needle notes' without a match."""
    made = []
    for index, hits in enumerate((3, 0, 1, 4, 2, 0, 5, 1, 2)):
        texts = [f"a needle, number {i}" for i in range(hits)] + ["nothing to see"]
        made.append(seed(host, f"chat {index}", texts))
    made.append(seed(host, "Needle notes", ["plain words only"]))
    return made


def test_walked_pages_list_what_the_exact_listing_lists(host, chats, monkeypatch):
    exact = pages(host, "needle", 3)
    assert all(page["totalSessionsExact"] for page in exact)
    assert exact[0]["totalSessions"] == 8
    monkeypatch.setattr(search, "SPARSE_LIMIT", 2)  # 18 candidates: walk the chats instead
    walked = pages(host, "needle", 3)
    assert listing(walked) == listing(exact)
    titled = [r for page in walked for r in page["results"] if r["titleMatch"]]
    assert [(r["sessionId"], r["matchCount"]) for r in titled] == [(chats[-1], 0)]  # listed for its title alone
    # Not counted past the page while walking; exact once the walk reached the end.
    assert not walked[0]["totalSessionsExact"] and walked[0]["totalSessions"] == 3
    assert walked[-1]["totalSessionsExact"] and walked[-1]["totalSessions"] == 8


@pytest.mark.parametrize("probe", [1, 2, 17, 18, 19, 1000])
def test_the_walk_is_chosen_past_the_limit_whatever_the_probe(host, chats, monkeypatch, probe):
    """Candidates past the probe are counted in the index before their rows are read: the same 18 candidates
    are walked with a limit under 18 and listed exactly from 18 up, read in one go or probed first."""
    exact = listing(pages(host, "needle", 3))
    monkeypatch.setattr(search, "PROBE", probe)
    for sparse_limit, walks in ((2, True), (17, True), (18, False), (10_000, False)):
        monkeypatch.setattr(search, "SPARSE_LIMIT", sparse_limit)
        replies = pages(host, "needle", 3)
        assert listing(replies) == exact, (probe, sparse_limit)
        assert replies[0]["totalSessionsExact"] is not walks, (probe, sparse_limit)
        assert replies[0]["totalSessions"] == (3 if walks else 8), (probe, sparse_limit)


def test_paging_across_the_count_cap_keeps_every_chat_once(host, chats, monkeypatch):
    monkeypatch.setattr(search, "COUNT_CAP", 2)
    monkeypatch.setattr(search, "SPARSE_LIMIT", 2)
    walked = pages(host, "needle", 2)
    monkeypatch.setattr(search, "SPARSE_LIMIT", 10_000)
    exact = pages(host, "needle", 2)
    assert listing(walked) == listing(exact)
    ids = [r["sessionId"] for page in walked for r in page["results"]]
    assert len(ids) == len(set(ids)) == 8
    counts = {r["sessionId"]: (r["matchCount"], r["matchCountCapped"]) for page in exact for r in page["results"]}
    hits = dict(zip(chats, (3, 0, 1, 4, 2, 0, 5, 1, 2, 0)))
    assert counts == {sid: (min(n, 2), n > 2) for sid, n in hits.items() if n or sid == chats[-1]}


def test_a_walk_that_meets_few_matches_falls_back_to_the_exact_listing(host, monkeypatch):
    matching = seed(host, "old", ["the needle"])
    for index in range(6):  # newer chats without the word
        seed(host, f"newer {index}", ["nothing here"])
    monkeypatch.setattr(search, "SPARSE_LIMIT", 0)
    reply = host.call("search.sessions", {"query": "needle", "limit": 1})
    assert [r["sessionId"] for r in reply["results"]] == [matching]
    assert reply["totalSessionsExact"] and reply["totalSessions"] == 1 and reply["nextCursor"] is None


def test_cjk_phrases_match_as_substrings_on_every_path(host, monkeypatch):
    kyoto = seed(host, "旅行の計画", ["我们明天去京都旅行", "然后去京都旅馆", "東京タワー"])
    for sparse_limit in (10_000, 0):
        monkeypatch.setattr(search, "SPARSE_LIMIT", sparse_limit)
        for query, count in (("京都旅", 2), ("京都", 2), ("タワー", 1)):
            found = {r["sessionId"]: r for r in host.call("search.sessions", {"query": query})["results"]}
            assert found[kyoto]["matchCount"] == count, (query, sparse_limit)
            snip = found[kyoto]["snippets"][0]
            a, b = snip["highlights"][0]
            assert snip["text"][a:b] == query
        titled = host.call("search.sessions", {"query": "計画"})["results"]
        assert titled[0]["sessionId"] == kyoto and titled[0]["titleMatch"] and titled[0]["matchCount"] == 0


def test_a_title_whose_lowercase_is_ascii_matches_an_ascii_query(host):
    kelvin = seed(host, "\u212aelvin scale", ["nothing"])  # KELVIN SIGN lowercases to "k"
    ascii_only = seed(host, "KELVIN again", ["nothing"])
    seed(host, "Celsius", ["nothing"])
    found = {r["sessionId"]: r for r in host.call("search.sessions", {"query": "kelvin"})["results"]}
    assert set(found) == {kelvin, ascii_only} and all(r["titleMatch"] for r in found.values())


def test_a_cursor_from_elsewhere_is_refused(host):
    seed(host, "one", ["needle"])
    for cursor in ("o:3", "s:1:2", "s:x:0:id", "s:1:0:"):
        error = host.error("search.sessions", {"query": "needle", "cursor": cursor})
        assert error.code == "INVALID_PARAMS" and "cursor" in error.message


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    layout=st.lists(st.lists(st.booleans(), min_size=1, max_size=4), min_size=1, max_size=6),
    titled=st.lists(st.booleans(), min_size=6, max_size=6),
    limit=st.integers(1, 4),
)
def test_walked_and_exact_pages_agree_for_any_layout(host, monkeypatch, layout, titled, limit):
    """Chats of earlier examples stay in the host: they are chats without a match, between the new ones."""
    needle = f"qz{next(EXAMPLES)}x"
    for index, messages in enumerate(layout):
        title = f"{needle} title" if titled[index] else f"chat {index}"
        seed(host, title, [f"a {needle} here" if hit else "nothing" for hit in messages])
    monkeypatch.setattr(search, "SPARSE_LIMIT", 10**6)
    exact = pages(host, needle, limit)
    monkeypatch.setattr(search, "SPARSE_LIMIT", 0)
    walked = pages(host, needle, limit)
    assert listing(walked) == listing(exact)
    assert walked[-1]["totalSessions"] == exact[-1]["totalSessions"] == len(listing(exact))


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    writes=st.lists(st.tuples(st.integers(0, 4), st.booleans()), min_size=1, max_size=60),
    cap=st.integers(1, 12),
    gap=st.sampled_from([0, 1, 5, 2000]),
    limit=st.integers(1, 4),
)
def test_chats_written_in_turn_are_walked_as_they_are_listed(host, writes, cap, gap, limit):
    """Chats written in turn have row id ranges that overlap: a chat asked with others in one query over
    their joined ranges gets its own matches only, whether it is small enough for that or asked alone."""
    example = next(EXAMPLES)
    chats = [host.call("session.create", {"title": f"turns {example}.{n}"})["session"]["id"] for n in range(5)]
    word = f"kiwi{example}x"
    for index, (chat, hit) in enumerate(writes):
        host.call(
            "session.appendMessage",
            {
                "sessionId": chats[chat],
                "message": {
                    "id": f"{chats[chat]}-{index}",
                    "role": "user",
                    "blocks": [{"type": "text", "text": f"a {word} here" if hit else "plain"}],
                },
            },
        )
    saved = search.COUNT_CAP, search.SPARSE_LIMIT, walked_page.GAP
    try:
        search.COUNT_CAP, walked_page.GAP = cap, gap
        exact = pages(host, word, limit)
        search.SPARSE_LIMIT = 0  # every phrase is walked
        walked = pages(host, word, limit)
    finally:
        search.COUNT_CAP, search.SPARSE_LIMIT, walked_page.GAP = saved
    assert listing(walked) == listing(exact)
    counts = {r["sessionId"]: r["matchCount"] for page in exact for r in page["results"]}
    expected = {chats[c]: sum(1 for w, hit in writes if w == c and hit) for c in range(5)}
    assert counts == {sid: min(n, cap) for sid, n in expected.items() if n}
