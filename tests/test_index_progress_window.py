"""The window that follows a start's rebuild of the chat index from the host's ``index.progress`` events."""

from __future__ import annotations

from pidesktop.ui.kit import theme as themes
from pidesktop.ui.startup.index_progress_window import IndexProgressWindow
from tests.support.windows import started_window


def event(done: int, chats: int, last: bool = False) -> dict:
    return {
        "phase": "restore",
        "bytesDone": done,
        "bytesTotal": 4_000_000,
        "chatsDone": chats,
        "chatsTotal": 3,
        "sessionId": "" if done == 0 else "chat0",
        "done": last,
    }


def test_the_window_shows_the_rebuild_and_closes_with_its_last_event(qtbot, shot):
    window = IndexProgressWindow(themes.LIGHT)
    qtbot.addWidget(window)
    window.handle_event("session.changed", {"sessionId": "x"})  # not its topic: nothing happens
    assert not window.isVisible()
    window.handle_event("index.progress", event(0, 0))
    assert window.isVisible() and window.bar.value() == 0
    assert window.headline.text() == "Restoring your chats from their files…"
    window.handle_event("index.progress", event(1_500_000, 1))
    assert window.bar.value() == 375 and window.detail.text().startswith("1 of 3 chats")
    qtbot.waitExposed(window)
    shot(window, "index-progress")
    window.handle_event("index.progress", event(4_000_000, 3, last=True))
    assert not window.isVisible() and window.bar.value() == 1000


def test_the_main_window_opens_the_progress_window_at_the_first_event(qtbot, qloop, loop_hosts):
    win = started_window(qtbot, qloop, loop_hosts.start())
    win._on_event("index.progress", event(0, 0))
    progress = win._index_progress
    assert progress is not None and progress.isVisible() and progress.parent() is win
    win._on_event("index.progress", event(4_000_000, 3, last=True))
    assert not progress.isVisible()
    win.close()
