"""The ``display`` fixture: a private X server with a window manager for the real-window tests.

Skipped, saying why, where Xvfb, openbox or xdotool is missing or Qt's xcb
platform cannot open a window.
"""

import pytest

from tests.support.realwindow import XDisplay, missing_tools


@pytest.fixture
def display(tmp_path):
    reason = missing_tools()
    if reason:
        pytest.skip(reason)
    screen = XDisplay(tmp_path / "x")
    try:
        screen.start()
        problem = screen.xcb_problem()
        if problem:
            pytest.skip(f"Qt's xcb platform cannot open a window here: {problem}")
        yield screen
    finally:
        screen.close()
