"""The real-window tests' display: keys sent to it reach openbox's bindings from the first one on."""

import pytest

from tests.support.realwindow import XDisplay, missing_tools

pytestmark = pytest.mark.realwindow


def test_the_first_key_sent_does_not_make_openbox_reload_its_key_bindings(tmp_path):
    """The first key xdotool sends switches the server's keyboard to its XTEST device, which changes the
    keyboard map; openbox then ungrabs and grabs its bindings again, and an Alt+F4 arriving in between went
    to the window instead (the title-bar test's rare failure). The display makes that switch before openbox
    starts."""
    reason = missing_tools()
    if reason:
        pytest.skip(reason)
    display = XDisplay(tmp_path / "x").start()
    try:
        for key in ("alt+F4", "ctrl+q", "Return"):
            display.key(key)
        display.run("xdotool", "getactivewindow", check=False)  # a round trip after the keys
    finally:
        display.close()  # openbox has written all it will
    log = (tmp_path / "x" / "openbox.log").read_text(errors="replace")
    assert "Openbox-Debug" in log  # it logs what it does (--debug), so the absence below means something
    assert "Keyboard map changed" not in log
