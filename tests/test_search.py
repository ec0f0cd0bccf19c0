"""search.sessions / search.query: literal text, Unicode case, CJK, counts, snippets, paging."""

import apsw
from hypothesis import example, given, settings
from hypothesis import strategies as st

from pidesktop.host.search.commands import matching_snippet, snippet, uses_fts


def seed(host, title, texts, project=None):
    params = {"title": title} | ({"projectPath": project} if project else {})
    sid = host.call("session.create", params)["session"]["id"]
    for i, text in enumerate(texts):
        role = "user" if i % 2 == 0 else "assistant"
        host.call(
            "session.appendMessage",
            {
                "sessionId": sid,
                "message": {"id": f"{sid}-{i}", "role": role, "blocks": [{"type": "text", "text": text}]},
            },
        )
    return sid


def by_session(host, query, **params):
    return {r["sessionId"]: r for r in host.call("search.sessions", {"query": query, **params})["results"]}


def test_counts_every_matching_message_per_session(host):
    a = seed(host, "Alpha", ["the parser streams", "parser again", "nothing here", "PARSER upper"])
    b = seed(host, "Beta", ["one parser"])
    found = by_session(host, "parser")
    assert found[a]["matchCount"] == 3 and found[b]["matchCount"] == 1
    assert found[a]["snippets"][0]["highlights"]


def test_cjk_substrings_long_and_short(host):
    sid = seed(host, "旅", ["我们明天去京都旅行，然后去大阪", "東京タワーに行きました"])
    assert by_session(host, "京都旅")[sid]["matchCount"] == 1  # trigram path
    assert by_session(host, "大阪")[sid]["matchCount"] == 1  # two characters: predicate path
    assert by_session(host, "タワー")[sid]["matchCount"] == 1
    snip = by_session(host, "大阪")[sid]["snippets"][0]
    a, b = snip["highlights"][0]
    assert snip["text"][a:b] == "大阪"


def test_like_wildcards_quotes_and_backslashes_are_literal(host):
    sid = seed(host, "Lit", ["100% sure", "snake_case name", 'say "hi"', r"C:\path\to", "it's"])
    seed(host, "Other", ["1000 sure", "snakeXcase", "say hi"])
    for query in ("100%", "0% s", "e_c", 'y "h', "\\path", "it's", "%", "_"):
        found = by_session(host, query)
        assert list(found) == [sid], query


def test_unicode_case_insensitive_matches(host):
    sid = seed(host, "Case", ["Été à Paris", "STRASSE und Straße", "ΣΊΣΥΦΟΣ"])
    assert by_session(host, "été")[sid]["matchCount"] == 1
    assert by_session(host, "ÉTÉ")[sid]["matchCount"] == 1
    assert by_session(host, "straße")[sid]["matchCount"] == 1
    assert by_session(host, "σίσυφος")[sid]["matchCount"] == 1


def test_title_and_project_matches_are_reported_separately(host):
    titled = seed(host, "Kyoto trip", ["nothing relevant"])
    in_project = seed(host, "x", ["nothing"], project="/home/me/kyoto-site")
    body = seed(host, "y", ["went to kyoto"])
    found = by_session(host, "kyoto")
    assert found[titled]["titleMatch"] and found[titled]["matchCount"] == 0
    assert found[in_project]["projectMatch"] and not found[in_project]["titleMatch"]
    assert found[body]["matchCount"] == 1 and not found[body]["titleMatch"]


def test_trashed_sessions_are_excluded(host, location):
    gone = seed(host, "gone", ["secret word"])
    kept = seed(host, "kept", ["secret word"])
    host.stop()
    conn = apsw.Connection(str(location.data_root / "pi.sqlite"))
    conn.execute("UPDATE sessions SET deleted_at = 1 WHERE id = ?", (gone,))
    conn.close()
    from tests.support.hosts import InProcessHost

    again = InProcessHost(location)
    try:
        assert list(by_session(again, "secret")) == [kept]
    finally:
        again.stop()


def test_paging_by_session_with_counts_computed_first(host):
    ids = [seed(host, f"s{i}", ["needle"] * (i + 1)) for i in range(5)]
    first = host.call("search.sessions", {"query": "needle", "limit": 2})
    second = host.call("search.sessions", {"query": "needle", "limit": 2, "cursor": first["nextCursor"]})
    third = host.call("search.sessions", {"query": "needle", "limit": 2, "cursor": second["nextCursor"]})
    got = [r["sessionId"] for page in (first, second, third) for r in page["results"]]
    assert got == list(reversed(ids)) and third["nextCursor"] is None
    assert first["totalSessions"] == 5
    assert [r["matchCount"] for r in first["results"]] == [5, 4]


def test_empty_or_bad_queries_are_refused(host):
    for params, field in (
        ({"query": "   "}, "query"),
        ({"query": 3}, "query"),
        ({"query": "ok", "cursor": "x"}, "cursor"),
    ):
        error = host.error("search.sessions", params)
        assert error.code == "INVALID_PARAMS" and field in error.message


@settings(max_examples=200, deadline=None)
@given(st.text(min_size=0, max_size=300), st.text(min_size=1, max_size=8))
def test_snippet_highlights_mark_the_query(text, query):
    result = snippet(text, query)
    for a, b in result["highlights"]:
        assert result["text"][a:b].lower() == query.lower() or query.lower() in result["text"][a:b].lower()
    if query.lower() in text.lower() and len(text.lower()) == len(text) and len(query.lower()) == len(query):
        assert result["highlights"], (text, query)


@settings(max_examples=300, deadline=None)
@given(
    st.text(alphabet=st.sampled_from("abAB aé\u0130\u212a…"), max_size=400),
    st.text(alphabet=st.sampled_from("abAB a\u0130\u212a"), min_size=1, max_size=4),
)
@example("ab" + "c" * 99 + "AB" + "c" * 10, "ab")  # the second match starts inside the snippet, ends outside
@example("c" * 50 + "ab" + "c" * 99 + "ab" + "c" * 10, "aB")  # the same after a cut start
def test_the_page_snippet_is_the_snippet_of_any_matching_text(text, query):
    """The search page's snippet (a shortcut for text whose lowercase keeps its length) is ``snippet`` exactly,
    with repeated and overlapping matches, matches cut at the end, and text that lowercases longer."""
    needle = query.lower()
    found = matching_snippet(text, query, needle)
    if needle in text.lower() or needle in text:
        assert found == snippet(text, query)
    else:
        assert found is None


def test_fts_routing():
    assert uses_fts("parser") and uses_fts("京都旅") and uses_fts("100%")
    assert not uses_fts("ab") and not uses_fts("Été") and not uses_fts("straße")
