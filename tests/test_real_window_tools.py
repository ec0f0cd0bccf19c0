"""The real app in a real window edits a file for an Agent chat, shows the diff, and Revert restores it.

A loopback OpenAI-compatible server (``tests/sse_server.py``) is the model: it calls ``edit`` on a file in
the chat's project, then answers. The data folder is seeded through ``pidesktop host --stdio`` (a provider
pointing at that server, the project, a chat in it allowed to edit files), then ``python -m pidesktop`` runs
in Xvfb with openbox and is driven with xdotool: Ctrl+K opens the chat, the prompt is typed, the tool row is
clicked open and the diff read off the screen (its added and removed line colours), and the Files changed
window (Ctrl+Shift+E, then Tab and Space) reverts the change. Screenshots are saved under the test's
tmp_path, or in $PIDESKTOP_SHOTS.
"""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

import pytest

from pidesktop.ui.chat.tool_rows import diff_colours
from pidesktop.ui.kit import theme as themes
from tests.support.hosts import StdioHost
from tests.support.realwindow import App, Shot, wait_for
from tests.support.sse_server import Script
from tests.test_plan_approval import text_body, tool_call_body

pytestmark = pytest.mark.realwindow

BEFORE = "def greet(name):\n    return 'hi ' + name\n"
AFTER = "def greet(name):\n    return f'Hello, {name}!'\n"
PROMPT = "Make the greeting friendlier"


def seed(data: Path, project: Path, base_url: str, theme: str, permission_mode: str = "accept-edits") -> None:
    host = StdioHost(data)
    try:
        provider = host.call(
            "providers.upsert", {"provider": {"name": "Loopback", "baseUrl": base_url, "defaultModelId": "m"}}
        )["provider"]
        host.call("providers.setDefault", {"providerId": provider["id"]})
        host.call("settings.set", {"patch": {"theme": theme}})
        session = host.call(
            "session.create",
            {"title": "Greeting work", "projectPath": str(project), "providerId": provider["id"], "modelId": "m"},
        )["session"]
        host.call("session.update", {"sessionId": session["id"], "permissionMode": permission_mode})
    finally:
        assert host.close() == 0


def open_by_search(display, app, window: str, shots: Path, prefix: str) -> Shot:
    """Open the seeded chat with Ctrl+K and its title, Enter; the screenshot once its title shows.

    The search answers as you type: until its hit is listed, Enter opens nothing, so that is tried again."""
    empty = display.settled_screenshot(shots / f"{prefix}-00-start.png")
    header = (int(empty.width * 0.22), 0, int(empty.width * 0.6), int(empty.height * 0.1))  # the title's place

    def attempt() -> bool:
        display.key("ctrl+k")
        wait_for(lambda: len(display.visible_windows(app.process.pid)) > 1, 10, "the search window")
        display.type("Greeting")
        time.sleep(1.0)
        display.key("Return")
        if display.visible_windows(app.process.pid) != [window]:
            display.key("Escape")
        wait_for(lambda: display.visible_windows(app.process.pid) == [window], 10, "the search window to close")
        time.sleep(0.5)
        shot = display.screenshot(shots / f"{prefix}-01-chat.png")
        return len(shot.changed(empty, header)) > 50  # the chat’s title in the header

    wait_for(attempt, 60, "the chat to open from the search", every=0.5)
    return display.screenshot(shots / f"{prefix}-01-chat.png")


def colour_count(shot: Shot, colour: str) -> int:
    """How many pixels of the screen have exactly ``colour`` (#RRGGBB)."""
    wanted = bytes.fromhex(colour.lstrip("#"))
    return sum(1 for i in range(0, len(shot.rgb), 3) if shot.rgb[i : i + 3] == wanted)


@pytest.mark.parametrize("theme_name", ["light", "dark"])
def test_an_agent_chat_edits_a_file_the_row_shows_the_diff_and_revert_restores_it(
    display,
    tmp_path,
    sse_server,
    theme_name,
    shots,
):
    project = tmp_path / "proj"
    project.mkdir()
    target = project / "greet.py"
    target.write_text(BEFORE)
    sse_server.serve_in_turn(
        "/v1/chat/completions",
        Script(
            chunks=[
                tool_call_body("edit", {"path": "greet.py", "oldText": "'hi ' + name", "newText": "f'Hello, {name}!'"})
            ]
        ),
        Script(chunks=[text_body("The greeting now says Hello.")]),
    )
    app_root = tmp_path / "app"
    seed(app_root / "data", project, sse_server.base_url, theme_name)
    app = App(display, app_root)
    try:
        window = app.wait_for_window()
        app.focus()
        x, y, width, height = display.geometry(window)

        # Ctrl+K finds the chat by its title; Enter opens it with the composer ready for typing.
        before = open_by_search(display, app, window, shots, f"tools-{theme_name}")
        display.type(PROMPT)
        display.key("Return")
        wait_for(lambda: target.read_text() == AFTER, 45, "the model's edit of greet.py")
        wait_for(lambda: len(sse_server.requests) >= 2, 45, "the model to be asked again with the result")
        time.sleep(1.0)  # the reply's last message reaches the transcript (asked for above, not yet on disk)
        replied = display.settled_screenshot(shots / f"tools-{theme_name}-02-replied.png")

        # The tool row is the topmost new line on the left of the transcript, under the prompt's bubble.
        column = (x + int(width * 0.25), y + int(height * 0.12), x + int(width * 0.6), y + int(height * 0.75))
        changed = replied.changed(before, column)
        assert changed, "nothing new appeared in the transcript"
        rows = sorted({py for _px, py in changed})
        added, removed = diff_colours(themes.LIGHT if theme_name == "light" else themes.DARK)
        assert colour_count(replied, added) == 0  # folded: no diff yet

        def unfold_and_look() -> Shot | None:
            for row_y in rows[::4]:
                row_x = min(px for px, py in changed if py == row_y)
                display.xdotool("mousemove", str(row_x + 4), str(row_y + 2))
                display.xdotool("click", "1")
                time.sleep(0.4)
                shot = display.screenshot(shots / f"tools-{theme_name}-03-diff.png")
                if colour_count(shot, added) > 200 and colour_count(shot, removed) > 200:
                    return shot
            return None

        diff_shot = unfold_and_look()
        assert diff_shot is not None, "clicking the tool row did not show a coloured diff"

        # Revert from the Files changed window, by keyboard alone.
        app.focus()
        display.key("ctrl+shift+e")
        panel = wait_for(
            lambda: [w for w in display.visible_windows(app.process.pid) if w != window], 10, "the Files changed window"
        )
        assert display.window_name(panel[0]) == "Files changed"
        display.screenshot(shots / f"tools-{theme_name}-04-files-changed.png")
        display.key("Tab", "space")  # the keyboard starts on Open; Tab goes on to Revert
        wait_for(lambda: target.read_text() == BEFORE, 20, "Revert to put greet.py back")
        assert target.read_bytes() == BEFORE.encode()
        time.sleep(0.5)
        display.screenshot(shots / f"tools-{theme_name}-05-reverted.png")
    finally:
        app.close()


def test_a_kill_9_while_a_card_waits_leaves_no_file_and_the_turn_interrupted(display, tmp_path, sse_server, shots):
    project = tmp_path / "proj"
    project.mkdir()
    target = project / "greet.py"
    target.write_text(BEFORE)
    sse_server.serve_in_turn(
        "/v1/chat/completions",
        Script(chunks=[tool_call_body("write", {"path": "greet.py", "content": "big\n" * 200_000})]),
        Script(chunks=[text_body("Not reached.")]),
    )
    app_root = tmp_path / "app"
    seed(app_root / "data", project, sse_server.base_url, "light", permission_mode="ask")
    app = App(display, app_root)
    try:
        window = app.wait_for_window()
        app.focus()
        before = open_by_search(display, app, window, shots, "kill-card")
        border = themes.LIGHT.warning  # the permission card's left edge
        display.type(PROMPT)
        display.key("Return")

        def card_shown() -> Shot | None:
            shot = display.screenshot(shots / "kill-card-02-card.png")
            return shot if colour_count(shot, border) > colour_count(before, border) + 150 else None

        wait_for(card_shown, 45, "the permission card for the write", every=0.3)
        assert any(app.data.joinpath("sessions").glob("*.inflight.json"))  # the round waits, checkpointed
        os.killpg(app.process.pid, signal.SIGKILL)
        app.process.wait(30)
    finally:
        app.close()
    assert target.read_text() == BEFORE
    assert sorted(path.name for path in project.iterdir()) == ["greet.py"]  # no temporary file left either
    host = StdioHost(app_root / "data")
    try:
        [session] = host.call("session.list")["sessions"]
        got = host.call("session.get", {"sessionId": session["id"]})
        assert got["session"]["lastTurn"]["status"] == "aborted"
        [call] = [b for m in got["messages"] for b in m["blocks"] if b["type"] == "tool_call"]
        assert call["name"] == "write" and call["status"] == "aborted" and "result" not in call
        assert host.call("audit.list", {"sessionId": session["id"]})["entries"] == []  # nothing ran
    finally:
        assert host.close() == 0
