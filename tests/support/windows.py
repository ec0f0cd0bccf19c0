"""The main window in a test: started on a host client, and what its open chat has stored."""

from __future__ import annotations


def started_window(qtbot, qloop, client, theme=None, runner=None, prefs=None, size=(1100, 760)):
    """A main window on ``client``, shown (at ``size``; None keeps its own) and started: its list is in."""
    from pidesktop.ui import theme as themes
    from pidesktop.ui.main_window import MainWindow

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
