"""The main window in a test: started on a host client, and what its open chat has stored."""

from __future__ import annotations


def started_window(qtbot, qloop, client, theme=None, runner=None, prefs=None, size=(1100, 760)):
    """A main window on ``client``, shown (at ``size``; None keeps its own) and started: its list is in."""
    from pidesktop.ui.kit import theme as themes
    from pidesktop.ui.window.main_window import MainWindow

    win = MainWindow(client, theme or themes.LIGHT, runner, prefs)
    qtbot.addWidget(win)
    if size is not None:
        win.resize(*size)
    win.show()
    qloop.run_until_complete(win.start())
    return win


def stored_messages(win, session_id: str | None = None) -> list[dict]:
    """The messages the host holds for ``session_id`` (the window's open chat by default)."""
    return win.client.call_blocking("session.get", {"sessionId": session_id or win.current_session_id})["messages"]


def transcript_shows_page(win, session_id: str | None = None) -> bool:
    """Whether the transcript holds ``session_id``'s (the open chat's) whole loaded page.

    Under load an open lays out and shows the newest rows first and puts the older ones of the page
    above them a few ticks later: rows being there is not yet the page."""
    model = win.transcript_model
    if model.session_id != (session_id or win.current_session_id) or not model.rows:
        return False
    indexes = [row["index"] for row in model.rows if row["index"] is not None]
    return indexes == list(range(model.start, model.end))
