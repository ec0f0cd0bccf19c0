"""The Ctrl+K search dialog against a real host on the offscreen platform."""

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QWidget

from pidesktop.ui.kit import theme as themes
from pidesktop.ui.kit.tasks import spawn
from pidesktop.ui.search.search_dialog import HINT_TEXT, SearchDialog, no_match_text, snippet_segments, title_highlights
from tests.support.clock import TickingClock
from tests.support.hosts import InProcessHost
from tests.support.waits import spin_until


def seed_session(call, title: str, texts: list[str], project: str | None = None) -> str:
    params = ({"title": title} if title else {}) | ({"projectPath": project} if project else {})
    sid = call("session.create", params)["session"]["id"]
    for i, text in enumerate(texts):
        call(
            "session.appendMessage",
            {
                "sessionId": sid,
                "message": {
                    "id": f"{sid}-m{i}",
                    "role": "user" if i % 2 == 0 else "assistant",
                    "blocks": [{"type": "text", "text": text}],
                },
            },
        )
    return sid


@pytest.fixture
def chats(location):
    seed = InProcessHost(location, clock=TickingClock())  # distinct times: "newest first" is decided by time
    ids = {
        "kyoto": seed_session(
            seed.call,
            "Kyoto trip",
            ["Which Temple should we see first?", "The temple of the golden pavilion.", "Book the train"],
            "/home/me/travel",
        ),
        "groceries": seed_session(seed.call, "Groceries", ["buy milk and eggs"]),
        "work": seed_session(seed.call, "Work notes", ["temple run is a game, not a temple"]),
    }
    seed.stop()
    return ids


@pytest.fixture
def dialog(qtbot, host_client):
    window = QWidget()  # the dialog's parent, as the main window would be; it stays open
    qtbot.addWidget(window)
    window.show()
    found = SearchDialog.ask(host_client, themes.LIGHT, window)
    found.open()
    yield found
    found.close()
    window.close()


def search_for(qtbot, qloop, dialog, text: str) -> None:
    qtbot.keyClicks(dialog.field, text)
    spin_until(qloop, lambda: dialog.model.query == text)


def rows(dialog) -> list[dict]:
    model = dialog.model
    return [model.row_at(model.index(r)) for r in range(model.rowCount())]


def test_typing_lists_matching_chats_with_highlighted_snippets(chats, dialog, qtbot, qloop, qtmodeltester):
    assert dialog.empty_label.isVisible() and dialog.empty_label.text() == HINT_TEXT
    search_for(qtbot, qloop, dialog, "temple")
    found = rows(dialog)
    assert [r["sessionId"] for r in found] == [chats["work"], chats["kyoto"]]
    assert [dialog.model.index(r).data() for r in range(2)] == ["Work notes", "Kyoto trip"]
    assert [r["matchCount"] for r in found] == [1, 2]
    assert dialog.list.isVisible() and dialog.status_label.text() == "2 chats"
    for result in found:
        for snippet in result["snippets"]:
            marked = [piece for piece, hit in snippet_segments(snippet["text"], snippet["highlights"]) if hit]
            assert marked and all(piece.lower() == "temple" for piece in marked)
    assert len(found[0]["snippets"][0]["highlights"]) == 2  # both occurrences in one message
    assert dialog.list.currentIndex().row() == 0
    qtmodeltester.check(dialog.model)


def test_enter_on_a_result_chooses_it_and_closes(chats, dialog, qtbot, qloop):
    search_for(qtbot, qloop, dialog, "temple")
    qtbot.keyClick(dialog.field, Qt.Key.Key_Down)
    assert dialog.list.currentIndex().row() == 1
    qtbot.keyClick(dialog.field, Qt.Key.Key_Up)
    qtbot.keyClick(dialog.field, Qt.Key.Key_Down)
    expected = rows(dialog)[1]["snippets"][0]["messageId"]
    assert expected.startswith(chats["kyoto"])
    with qtbot.waitSignal(dialog.chosen) as chosen:
        qtbot.keyClick(dialog.field, Qt.Key.Key_Return)
    assert chosen.args == [chats["kyoto"], expected, "temple"]
    assert not dialog.isVisible()


def test_a_title_only_match_is_chosen_without_a_message(chats, dialog, qtbot, qloop):
    search_for(qtbot, qloop, dialog, "grocer")
    [result] = rows(dialog)
    assert result["titleMatch"] and result["matchCount"] == 0 and result["snippets"] == []
    assert title_highlights("Groceries", "grocer") == [[0, 6]]
    with qtbot.waitSignal(dialog.chosen) as chosen:
        qtbot.keyClick(dialog.field, Qt.Key.Key_Return)
    assert chosen.args == [chats["groceries"], "", "grocer"]


def test_enter_right_after_typing_opens_the_first_result_for_the_typed_text(chats, dialog, qtbot, qloop):
    search_for(qtbot, qloop, dialog, "temple")
    dialog.field.selectAll()
    qtbot.keyClicks(dialog.field, "milk")
    with qtbot.waitSignal(dialog.chosen, timeout=5000) as chosen:
        qtbot.keyClick(dialog.field, Qt.Key.Key_Return)  # the list still shows "temple"
        spin_until(qloop, lambda: not dialog.isVisible())
    assert chosen.args == [chats["groceries"], f"{chats['groceries']}-m0", "milk"]


def test_no_matches_shows_the_empty_state(chats, dialog, qtbot, qloop):
    search_for(qtbot, qloop, dialog, "zanzibar")
    assert dialog.model.rowCount() == 0
    assert dialog.empty_label.isVisible() and dialog.empty_label.text() == no_match_text("zanzibar")
    assert dialog.empty_label.text() == "No chats match “zanzibar”"
    dialog.field.clear()
    spin_until(qloop, lambda: dialog.empty_label.text() == HINT_TEXT)


def test_typing_fast_searches_only_the_last_query(chats, dialog, qtbot, qloop):
    searched = []
    dialog.model.searched.connect(searched.append)
    qtbot.keyClicks(dialog.field, "temple")
    for _ in "temple":
        qtbot.keyClick(dialog.field, Qt.Key.Key_Backspace)
    qtbot.keyClicks(dialog.field, "milk")
    spin_until(qloop, lambda: searched)
    assert searched == ["milk"]
    assert [r["sessionId"] for r in rows(dialog)] == [chats["groceries"]]


def test_a_reply_for_an_older_query_is_ignored(chats, dialog, qtbot, qloop):
    searched = []
    dialog.model.searched.connect(searched.append)
    older = spawn(dialog.model.search("temple"))  # in flight when the text changes
    dialog.field.setText("milk")
    spin_until(qloop, lambda: searched)
    assert older.done() and searched == ["milk"]
    assert [r["sessionId"] for r in rows(dialog)] == [chats["groceries"]]


def test_more_results_load_when_the_keyboard_reaches_the_end(location, qtbot, qloop, qtmodeltester, loop_hosts):
    seed = InProcessHost(location, clock=TickingClock())  # distinct times: "newest first" is decided by time
    for n in range(25):
        seed_session(seed.call, f"Chat {n}", [f"a needle in haystack {n}"])
    seed.stop()
    found = SearchDialog.ask(loop_hosts.start(), themes.DARK, None)
    qtbot.addWidget(found)
    found.open()
    try:
        search_for(qtbot, qloop, found, "needle")
        assert found.model.rowCount() == 20 and found.model.canFetchMore()
        assert found.status_label.text() == "20 of 25 chats"
        for _ in range(20):
            qtbot.keyClick(found.field, Qt.Key.Key_Down)
        spin_until(qloop, lambda: found.model.rowCount() == 25)
        assert not found.model.canFetchMore() and found.status_label.text() == "25 chats"
        assert len({r["sessionId"] for r in rows(found)}) == 25
        qtmodeltester.check(found.model)
    finally:
        found.close()


def test_escape_closes(dialog, qtbot):
    assert dialog.isVisible()
    qtbot.keyClick(dialog.field, Qt.Key.Key_Escape)
    assert not dialog.isVisible()


def test_snippet_segments_merge_clamp_and_flatten_line_breaks():
    assert snippet_segments("ab\ncd", [[1, 4]]) == [("a", False), ("b c", True), ("d", False)]
    assert snippet_segments("abcdef", [[4, 9], [0, 2], [1, 3]]) == [("abc", True), ("d", False), ("ef", True)]
    assert snippet_segments("abc", []) == [("abc", False)]
    assert title_highlights("Straße", "SS") == []  # lowercasing keeps the length, no "ss" in it
    assert title_highlights("Temple, temple", "temple") == [[0, 6], [8, 14]]


@pytest.mark.parametrize("theme", [themes.LIGHT, themes.DARK], ids=["light", "dark"])
def test_paints_in_both_themes(chats, dialog, qtbot, qloop, theme, tmp_path):
    dialog.set_theme(theme)
    search_for(qtbot, qloop, dialog, "temple")
    assert dialog.grab().save(str(tmp_path / f"search-{theme.name}.png"))


# -- snippets read as text, not markdown -------------------------------------------------------------
def test_snippets_drop_markdown_markers_and_keep_the_hit_marked():
    from pidesktop.ui.search.search_dialog import plain_snippet, snippet_segments

    text = "…ready. **Links:** none; see [the notes](https://x.example/n) and `pip install` *now*"
    hit = text.index("Links")
    plain, marks = plain_snippet(text, [[hit, hit + 5]])
    assert plain == "…ready. Links: none; see the notes and pip install now"
    assert snippet_segments(plain, marks) == [
        ("…ready. ", False),
        ("Links", True),
        (": none; see the notes and pip install now", False),
    ]
    # markers cut by the snippet window, and what only looks like markup
    assert plain_snippet("an unclosed **bold tail", [])[0] == "an unclosed bold tail"
    assert plain_snippet("2 * 3 * 4, snake_case_name, a_b", [])[0] == "2 * 3 * 4, snake_case_name, a_b"
    assert plain_snippet("# Plan\n> quoted\n* item", [])[0] == "Plan\nquoted\nitem"


def test_search_results_paint_plain_snippets(qtbot, theme, shot):
    from pidesktop.ui.search.search_dialog import SearchDialog

    dialog = SearchDialog(None, theme)
    qtbot.addWidget(dialog)
    text = "**Status:** done. **Links:** none. The `deploy` step is *manual*."
    hit = text.index("deploy")
    dialog.model._apply(
        dialog.model._generation,
        "deploy",
        {
            "results": [
                {
                    "sessionId": "s1",
                    "title": "Release checklist",
                    "matchCount": 1,
                    "updatedAt": 0,
                    "snippets": [
                        {"messageId": "m1", "role": "assistant", "text": text, "highlights": [[hit, hit + 6]]}
                    ],
                }
            ],
            "nextCursor": None,
            "totalSessions": 1,
        },
    )
    dialog.resize(640, 300)
    dialog.show()
    shot(dialog, f"search-{theme.name}")
