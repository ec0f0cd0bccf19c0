"""An automation's chat in a real window: found again from its run history and from search.

Drives ``python -m pidesktop`` under Xvfb and openbox with xdotool (see ``tests/realwindow.py``):
Esc closes the Automations window; a new automation runs at once with "Save and run now" (the button
never sits disabled without a reason); "Open chat" in its run history brings the main window forward
with the run's chat; Ctrl+K with the "Automation runs" filter finds that chat again. What was opened is
read back from the data folder: the next prompt typed lands in the run's chat.
"""

from __future__ import annotations

import subprocess
import time

import pytest

from tests import test_real_window as real
from tests.support.realwindow import wait_for
from tests.test_real_window import prompts, transcripts, wait_for_reply

app = real.app  # the app in the private display (the display fixture is tests/support/x_display.py)

pytestmark = pytest.mark.realwindow

NAME = "Nightly digest"
PROMPT = "Summarise the nightly build"
FROM_HISTORY = "Asked from the run history"
FROM_SEARCH = "Asked after a search"


def named(display, app, name: str) -> list[str]:
    return [w for w in display.visible_windows(app.process.pid) if display.window_name(w) == name]


def stacking(display) -> list[str]:
    """Top-level windows bottom to top, as the window manager stacks them (decimal ids, like xdotool's)."""
    out = subprocess.run(
        ["xprop", "-root", "_NET_CLIENT_LIST_STACKING"], env=display.env(), capture_output=True, text=True
    ).stdout
    return [str(int(part.strip().rstrip(","), 16)) for part in out.split("#", 1)[-1].split(",") if part.strip()]


def test_an_automation_chat_is_found_again_from_its_history_and_search(display, app, tmp_path):
    shots = tmp_path / "shots"
    shots.mkdir()
    window = app.wait_for_window()
    app.focus()
    time.sleep(1.0)

    # Esc closes the Automations window and gives the keyboard back to the main window.
    display.key("ctrl+shift+a")
    wait_for(lambda: named(display, app, "Automations"), 10, "the Automations window")
    display.screenshot(shots / "01-automations.png")
    display.key("Escape")
    wait_for(lambda: not named(display, app, "Automations"), 10, "Esc to close the Automations window")
    wait_for(lambda: display.active_window() == window, 10, "the main window to be active again")

    # A new automation: name, prompt, then "Save and run now" (Alt+R) runs it at once.
    display.key("ctrl+shift+a")
    automations = wait_for(lambda: named(display, app, "Automations"), 10, "the Automations window")[0]
    time.sleep(0.8)  # its choices load
    display.type(NAME)
    display.key("Tab")
    display.type(PROMPT)
    display.screenshot(shots / "02-new-automation.png")
    display.key("alt+r")
    run_chat = wait_for_reply(app, PROMPT)
    time.sleep(0.8)
    display.screenshot(shots / "03-ran.png")

    # Its run history (Alt+U) opens the chat: the main window comes forward, above the Automations window.
    display.key("alt+u", "Down", "Return")
    wait_for(lambda: display.active_window() == window, 10, "the main window to come forward")
    wait_for(
        lambda: (
            (order := stacking(display))
            and window in order
            and automations in order
            and order.index(window) > order.index(automations)
        ),
        10,
        "the main window to be stacked above the Automations window",
    )
    time.sleep(0.5)
    display.screenshot(shots / "04-run-chat-open.png")
    display.type(FROM_HISTORY)
    display.key("Return")
    assert wait_for_reply(app, FROM_HISTORY) == run_chat

    # Ctrl+N leaves it; Ctrl+K with the "Automation runs" filter (Alt+A) finds it again.
    display.key("ctrl+n")
    time.sleep(0.5)
    display.key("ctrl+k")
    wait_for(lambda: named(display, app, "Search chats"), 10, "the search window")
    display.type("nightly build")
    time.sleep(0.8)
    display.key("alt+a")
    time.sleep(1.0)  # the hits arrive
    display.screenshot(shots / "05-search-runs.png")
    display.key("Return")
    wait_for(lambda: not named(display, app, "Search chats"), 10, "the search window to close")
    time.sleep(0.7)
    display.type(FROM_SEARCH)
    display.key("Return")
    assert wait_for_reply(app, FROM_SEARCH) == run_chat
    assert prompts(transcripts(app.data)[run_chat]) == [PROMPT, FROM_HISTORY, FROM_SEARCH]

    # The Automations window, brought forward again, still closes with Esc.
    display.key("ctrl+shift+a")
    wait_for(lambda: display.active_window() == automations, 10, "the Automations window to come forward")
    display.key("Escape")
    wait_for(lambda: not named(display, app, "Automations"), 10, "Esc to close the Automations window")

    display.key("ctrl+q")
    assert app.wait(30) == 0, app.stderr
    assert "Traceback" not in app.stderr, app.stderr
