"""Unsent text survives a quit and a crash: each chat's draft and the new chat's come back where they were."""

from __future__ import annotations

import orjson
from hypothesis import given
from hypothesis import strategies as st

from pidesktop.agent.runner import TurnRunner
from pidesktop.ui.chat.saved_drafts import FILE_NAME, SavedDrafts
from pidesktop.ui.kit.prefs import Preferences
from tests.support.windows import started_window


def _window(qtbot, qloop, host_client, ui_root):
    runner = TurnRunner(host_client, offline_delay=0.0)
    return started_window(qtbot, qloop, host_client, runner=runner, prefs=Preferences(ui_root))


def _type(qtbot, win, text: str) -> None:
    win.composer.edit.setFocus()
    qtbot.keyClicks(win.composer.edit, text)


def test_each_chat_s_unsent_text_comes_back_after_a_quit(keep_running, qtbot, qloop, host_client, tmp_path):
    first = host_client.call_blocking("session.create", {})["session"]["id"]
    second = host_client.call_blocking("session.create", {})["session"]["id"]
    win = _window(qtbot, qloop, host_client, tmp_path / "ui")
    win.sidebar.select(first)
    qtbot.waitUntil(lambda: win.current_session_id == first)
    _type(qtbot, win, "half a thought")
    win.sidebar.select(second)
    qtbot.waitUntil(lambda: win.current_session_id == second)
    _type(qtbot, win, "an edit in the other chat")
    win.sidebar.select_none()
    win.chats.switch_to(None)
    _type(qtbot, win, "a new idea")
    win.close()

    again = _window(qtbot, qloop, host_client, tmp_path / "ui")
    assert again.current_session_id is None
    assert again.composer.edit.toPlainText() == "a new idea"
    again.sidebar.select(first)
    qtbot.waitUntil(lambda: again.current_session_id == first)
    assert again.composer.edit.toPlainText() == "half a thought"
    again.sidebar.select(second)
    qtbot.waitUntil(lambda: again.current_session_id == second)
    assert again.composer.edit.toPlainText() == "an edit in the other chat"
    again.close()


def test_typed_text_reaches_its_file_without_a_quit(keep_running, qtbot, qloop, host_client, tmp_path):
    """A crash loses at most the last second of typing: the file follows the box while the window is open."""
    win = _window(qtbot, qloop, host_client, tmp_path / "ui")
    _type(qtbot, win, "kept before any crash")
    path = tmp_path / "ui" / FILE_NAME
    qtbot.waitUntil(lambda: path.exists() and b"kept before any crash" in path.read_bytes(), timeout=10_000)
    assert SavedDrafts(tmp_path / "ui").load() == {None: "kept before any crash"}
    win.close()


def test_a_sent_prompt_is_no_draft_any_more(keep_running, qtbot, qloop, host_client, tmp_path):
    win = _window(qtbot, qloop, host_client, tmp_path / "ui")
    _type(qtbot, win, "sent at once")
    qloop.run_until_complete(win.chats.send_prompt(*win.composer.take_draft()))
    qtbot.waitUntil(lambda: win.current_session_id is not None)
    win.close()
    assert SavedDrafts(tmp_path / "ui").load() == {}
    again = _window(qtbot, qloop, host_client, tmp_path / "ui")
    assert again.composer.edit.toPlainText() == ""
    again.close()


def test_text_typed_while_the_window_builds_follows_the_saved_draft(keep_running, qtbot, qloop, host_client, tmp_path):
    SavedDrafts(tmp_path / "ui").save({None: "from last time"})
    win = _window(qtbot, qloop, host_client, tmp_path / "ui")
    assert win.composer.edit.toPlainText() == "from last time"
    win.close()


def test_a_damaged_drafts_file_is_set_aside_not_overwritten(keep_running, qtbot, qloop, host_client, tmp_path):
    folder = tmp_path / "ui"
    folder.mkdir()
    (folder / FILE_NAME).write_bytes(b'{"version": 1, "drafts": {"x": "cut sho')
    win = _window(qtbot, qloop, host_client, folder)
    assert win.composer.edit.toPlainText() == ""
    assert (folder / f"{FILE_NAME}.unreadable").read_bytes().endswith(b"cut sho")
    win.close()


keys = st.one_of(st.none(), st.text(min_size=1, max_size=40))


@given(st.dictionaries(keys, st.text(max_size=200), max_size=8))
def test_saved_drafts_round_trip_every_text_that_holds_more_than_spaces(tmp_path_factory, drafts):
    folder = tmp_path_factory.mktemp("drafts")
    SavedDrafts(folder).save(drafts)
    loaded = SavedDrafts(folder).load()
    assert loaded == {key: text for key, text in drafts.items() if text.strip()}
    assert orjson.loads((folder / FILE_NAME).read_bytes())["version"] == 1
