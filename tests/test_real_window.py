"""The real app in a real window: focus, window manager and shutdown, which offscreen tests never see.

Each test starts Xvfb and openbox on a display of its own, runs
``python -m pidesktop --data-dir <tmp>`` in it (Qt's xcb platform) and drives it
with xdotool the way a person does: typing, Enter, Esc, Ctrl+N, Ctrl+K,
Ctrl+Shift+I, Ctrl+comma, Ctrl+Q, and the mouse for the hover-only Edit action.
What happened is read back from the data folder (the chats' JSONL transcripts)
and from screenshots, saved as PNGs under the test's tmp_path.

Select them with ``-m realwindow``; without Xvfb, openbox, xdotool, ImageMagick
or the libraries Qt's xcb plugin loads, they skip and say which is missing.
"""

from __future__ import annotations

import time
from pathlib import Path

import orjson
import pytest

from tests.support.realwindow import App, Shot, XDisplay, column_groups
from tests.support.waits import wait_for

pytestmark = pytest.mark.realwindow

FIRST = "Hello from a real window"
SECOND = "Second chat by keyboard"
EDITED = "Second chat edited and resent"
THIRD = "Back in the first chat"


@pytest.fixture
def app(display, tmp_path):
    running = App(display, tmp_path / "app")
    try:
        yield running
    finally:
        running.close()


# --- what the data folder says ----------------------------------------------------------------------


def transcripts(data: Path) -> dict[str, list[dict]]:
    """Each chat's messages by session id, read from its JSONL transcript."""
    chats = {}
    for path in (data / "sessions").glob("*.jsonl"):
        if path.name.endswith(".revisions.jsonl"):
            continue
        lines = []
        for line in path.read_bytes().splitlines():
            try:
                lines.append(orjson.loads(line))
            except orjson.JSONDecodeError:
                pass  # a line being written right now
        chats[path.stem] = [line for line in lines if line.get("type") == "message"]
    return chats


def text_of(message: dict) -> str:
    return "\n".join(block.get("text") or "" for block in message.get("blocks") or [] if block.get("type") == "text")


def prompts(messages: list[dict]) -> list[str]:
    return [text_of(message) for message in messages if message.get("role") == "user"]


def answered(data: Path, prompt: str) -> str | None:
    """The chat where ``prompt`` was sent and the offline demo answered it (it quotes the prompt)."""
    for session_id, messages in transcripts(data).items():
        for asked, reply in zip(messages, messages[1:]):
            if (
                asked.get("role") == "user"
                and text_of(asked) == prompt
                and reply.get("role") == "assistant"
                and f"\u201c{prompt}\u201d" in text_of(reply)
            ):
                return session_id
    return None


def wait_for_reply(app: App, prompt: str) -> str:
    return wait_for(lambda: answered(app.data, prompt), 45, f"the offline demo's reply to {prompt!r} on disk")


# --- what the screen says ---------------------------------------------------------------------------


def wait_for_screen(display: XDisplay, path: Path, what: str, check) -> Shot:
    """Screenshots until ``check(shot)`` holds (10 s at most); the last one stays at ``path``."""

    def shot_if_ok() -> Shot | None:
        shot = display.screenshot(path)
        return shot if check(shot) else None

    return wait_for(shot_if_ok, 10, what, every=0.2)


def user_bubble(before: Shot, after: Shot) -> tuple[int, int]:
    """A point inside the first prompt's bubble: the topmost change on the right of the transcript.

    The box starts below the chat header (about 76 px of 800), whose context meter also appears with the
    first reply."""
    box = (int(after.width * 0.55), int(after.height * 0.11), int(after.width * 0.97), int(after.height * 0.5))
    changed = after.changed(before, box)
    assert changed, f"no prompt appeared between {before.path.name} and {after.path.name}"
    top = min(y for _, y in changed)
    row = [x for x, y in changed if y <= top + 6]
    return max(row) - 12, top + 8  # near its right edge: prompts are right-aligned, their widths vary


def hover_actions(display: XDisplay, point: tuple[int, int], name: Path) -> list[tuple[int, int, int, int]]:
    """Hover ``point`` and return the boxes of the action buttons that appear under the message."""
    display.xdotool("mousemove", "0", "0")
    still = display.settled_screenshot(name.with_name(f"{name.name}-still.png"))
    display.xdotool("mousemove", str(point[0]), str(point[1]))

    def buttons(shot: Shot):
        changed = shot.changed(still, (0, 0, shot.width, shot.height))
        groups = column_groups([(x, y) for x, y in changed if y > point[1]])
        return groups if len(groups) >= 4 else None

    shot = wait_for_screen(
        display, name.with_name(f"{name.name}.png"), "the actions under the hovered prompt", lambda shot: buttons(shot)
    )
    return buttons(shot)


def click_edit(display: XDisplay, point: tuple[int, int], name: Path) -> None:
    groups = hover_actions(display, point, name)
    left, top, right, bottom = groups[-3]  # Copy Edit Fork Delete, right-aligned, after an optional pager
    display.xdotool("mousemove", str((left + right) // 2), str((top + bottom) // 2))
    time.sleep(0.2)
    display.xdotool("click", "1")
    time.sleep(0.5)


# --- the scenario -----------------------------------------------------------------------------------


def test_a_first_session_by_keyboard_and_mouse_then_quit(display, app, tmp_path):
    shots = tmp_path / "shots"
    shots.mkdir()
    window = app.wait_for_window()
    app.focus()
    time.sleep(1.0)  # the window asks the host for its chats once shown
    display.screenshot(shots / "01-first-start.png")

    # A first message to the offline demo, typed at once: the composer has the keyboard at first start.
    display.type(FIRST)
    display.key("Return")
    first_chat = wait_for_reply(app, FIRST)
    answered_shot = display.settled_screenshot(shots / "02-first-reply.png")

    # The inbox opens over the right of the window and Esc closes it.
    panel = (
        int(answered_shot.width * 0.75),
        int(answered_shot.height * 0.12),
        answered_shot.width - 4,
        int(answered_shot.height * 0.8),
    )
    display.key("ctrl+shift+i")
    wait_for_screen(
        display, shots / "03-inbox.png", "the inbox panel", lambda shot: len(shot.changed(answered_shot, panel)) > 500
    )
    display.key("Escape")
    wait_for_screen(
        display,
        shots / "04-inbox-closed.png",
        "the inbox to close",
        lambda shot: len(shot.changed(answered_shot, panel)) < 50,
    )

    # Settings opens as its own window and Esc closes it, giving the keyboard back to the main window.
    display.key("ctrl+comma")
    settings = wait_for(
        lambda: [w for w in display.visible_windows(app.process.pid) if w != window], 10, "the Settings window"
    )
    assert display.window_name(settings[0]) == "Settings"
    display.screenshot(shots / "05-settings.png")
    display.key("Escape")
    wait_for(lambda: display.visible_windows(app.process.pid) == [window], 10, "the Settings window to close")
    wait_for(lambda: display.active_window() == window, 10, "the main window to be active again")

    # Ctrl+N: a new chat whose composer takes the typing at once.
    display.key("ctrl+n")
    empty_chat = display.settled_screenshot(shots / "06-new-chat.png")
    display.type(SECOND)
    display.key("Return")
    second_chat = wait_for_reply(app, SECOND)
    assert second_chat != first_chat
    second_shot = display.settled_screenshot(shots / "07-second-reply.png")

    # Edit and resend: hover the prompt, click Edit, replace the text, Enter.
    bubble = user_bubble(empty_chat, second_shot)
    click_edit(display, bubble, shots / "08-hover")
    display.screenshot(shots / "09-editing.png")
    display.key("ctrl+a")
    display.type(EDITED)
    display.key("Return")
    assert wait_for_reply(app, EDITED) == second_chat
    assert prompts(transcripts(app.data)[second_chat]) == [EDITED]  # replaced, not appended
    assert SECOND in (app.data / "sessions" / f"{second_chat}.revisions.jsonl").read_text()  # kept as a revision
    time.sleep(0.5)
    display.screenshot(shots / "10-edited.png")

    # Switch chats while editing: the edit stays with its chat; what is typed next is a new prompt there.
    click_edit(display, bubble, shots / "11-hover-again")
    display.screenshot(shots / "12-editing-again.png")
    display.key("ctrl+k")
    wait_for(
        lambda: any(display.window_name(w) == "Search chats" for w in display.visible_windows(app.process.pid)),
        10,
        "the search window",
    )
    display.type(FIRST)
    time.sleep(0.8)  # the hits arrive as one types
    display.screenshot(shots / "13-search.png")
    display.key("Return")
    wait_for(lambda: display.visible_windows(app.process.pid) == [window], 10, "the search window to close")
    time.sleep(0.7)
    display.screenshot(shots / "14-first-chat-again.png")
    display.type(THIRD)
    display.key("Return")
    assert wait_for_reply(app, THIRD) == first_chat
    chats = transcripts(app.data)
    assert prompts(chats[first_chat]) == [FIRST, THIRD]
    assert prompts(chats[second_chat]) == [EDITED]  # the edit left behind did not take the new prompt
    time.sleep(0.5)
    display.screenshot(shots / "15-third-reply.png")

    # Ctrl+Q: the whole shutdown runs and the app exits 0 with nothing on stderr.
    display.key("ctrl+q")
    status = app.wait(30)
    display.screenshot(shots / "16-after-quit.png")
    assert "Traceback" not in app.stderr, app.stderr
    assert "Exception ignored" not in app.stderr, app.stderr
    assert status == 0, app.stderr
    assert display.visible_windows(app.process.pid) == []


def test_closing_the_window_from_the_title_bar_exits_0(display, app, tmp_path):
    app.wait_for_window()
    app.focus()
    time.sleep(0.5)
    display.key("alt+F4")  # openbox closes the active window, as its title bar's close button does
    status = app.wait(30, again=lambda: display.key("alt+F4"))
    assert "Traceback" not in app.stderr, app.stderr
    assert status == 0, app.stderr
