"""A day of use in a real window: edit, stop, regenerate, switch chats, F2 and Delete, and a send that cannot go.

Like ``test_real_window.py``: Xvfb + openbox, the app as ``python -m pidesktop``
driven by xdotool keys and clicks, what happened read back from the data
folder (transcripts, the app's log, the host after the app quit) and from
screenshots under the test's tmp_path. The answers come from a loopback
OpenAI-compatible server (``tests/sse_server.py``) the data folder is told
about before the app starts.
"""

from __future__ import annotations

import time
from pathlib import Path

import orjson
import pytest

from tests.support.hosts import StdioHost
from tests.support.realwindow import App, Shot, XDisplay, wait_for
from tests.support.sse_server import Script, ScriptedServer, chunk, sse_body
from tests.test_real_window import click_edit, hover_actions, prompts, text_of, transcripts, user_bubble

pytestmark = pytest.mark.realwindow

COMPLETIONS = "/v1/chat/completions"


@pytest.fixture
def server():
    running = ScriptedServer().start()
    try:
        yield running
    finally:
        running.stop()


def quick(text: str) -> Script:
    return Script(chunks=[sse_body(chunk(text), chunk(finish="stop"))])


def slow(words: int = 80, every: float = 0.4) -> Script:
    """A reply that takes ``words * every`` seconds: long enough to be stopped."""
    pieces = [sse_body(chunk(f"word{number} "), done=False) for number in range(words)]
    return Script(chunks=[*pieces, sse_body(chunk(finish="stop"))], delay=every)


def seed(data: Path, *calls: tuple[str, dict]) -> list[dict]:
    """Host commands run on the data folder before the app starts (the app's own host holds it after)."""
    host = StdioHost(data)
    try:
        return [host.call(method, params) for method, params in calls]
    finally:
        assert host.close() == 0


def seed_provider(data: Path, **provider) -> None:
    [made] = seed(data, ("providers.upsert", {"provider": provider}))
    seed(data, ("providers.setDefault", {"providerId": made["provider"]["id"]}))


def started(display: XDisplay, root: Path) -> App:
    app = App(display, root)
    app.wait_for_window()
    app.focus()
    time.sleep(1.0)  # the window asks the host for its chats once shown
    return app


def replies(data: Path, session_id: str) -> list[dict]:
    return [m for m in transcripts(data).get(session_id, []) if m.get("role") == "assistant"]


def chat_with(data: Path, prompt: str) -> str | None:
    return next((sid for sid, messages in transcripts(data).items() if prompt in prompts(messages)), None)


def finished_reply(data: Path, session_id: str, text: str) -> bool:
    return any(
        text in text_of(m) and (m.get("meta") or {}).get("status") != "streaming" for m in replies(data, session_id)
    )


def sidebar_rows(shot: Shot, window: tuple[int, int, int, int]) -> list[int]:
    """The screen y of each chat row's text in the sidebar: bands of dark pixels below the buttons."""
    x, y, _width, height = window
    left, right = x + 20, x + 160
    dark = []
    for row in range(y + 70, y + min(height, 500)):
        start = (row * shot.width + left) * 3
        line = shot.rgb[start : start + (right - left) * 3]
        if any(sum(line[i : i + 3]) < 250 for i in range(0, len(line), 3)):
            dark.append(row)
    bands: list[list[int]] = []
    for row in dark:
        if bands and row - bands[-1][-1] <= 2:
            bands[-1].append(row)
        else:
            bands.append([row])
    return [(band[0] + band[-1]) // 2 for band in bands]


def ink(shot: Shot, box: tuple[int, int, int, int]) -> int:
    """How many pixels in ``box`` (left, top, right, bottom) are drawn in something darker than the page."""
    left, top, right, bottom = box
    count = 0
    for y in range(top, bottom):
        start = (y * shot.width + left) * 3
        line = shot.rgb[start : start + (right - left) * 3]
        count += sum(1 for i in range(0, len(line), 3) if sum(line[i : i + 3]) < 600)
    return count


def click_at(display: XDisplay, x: int, y: int) -> None:
    display.xdotool("mousemove", str(x), str(y))
    time.sleep(0.2)
    display.xdotool("click", "1")
    time.sleep(0.6)


def dialogs(display: XDisplay, app: App) -> list[str]:
    return [display.window_name(w) for w in display.visible_windows(app.process.pid) if w != app.window]


def test_edit_stop_regenerate_switch_and_the_sidebar_keys(display, server, tmp_path):
    shots = tmp_path / "shots"
    shots.mkdir()
    root = tmp_path / "app"
    seed_provider(root / "data", name="Loopback", baseUrl=server.base_url, defaultModelId="test-model")
    server.serve_in_turn(
        COMPLETIONS,
        quick("Short answer."),
        quick("Regenerated answer."),
        quick("Answer after regenerate."),
        slow(),
        quick("Plain answer."),
    )
    app = started(display, root)
    try:
        data = app.data
        empty = display.settled_screenshot(shots / "01-empty.png")
        display.type("A short")
        display.key("Return")
        chat = wait_for(lambda: chat_with(data, "A short"), 30, "the first prompt on disk")
        wait_for(lambda: finished_reply(data, chat, "Short answer."), 30, "the first reply on disk")
        answered = display.settled_screenshot(shots / "02-answered.png")
        bubble = user_bubble(empty, answered)

        # Item 10: Regenerate with the mouse, then type at once: the words land in the composer and go out.
        reply_box = (int(answered.width * 0.22), bubble[1] + 20, int(answered.width * 0.6), int(answered.height * 0.8))
        reply_points = answered.changed(empty, reply_box)
        assert reply_points, "no reply under the prompt"
        top = min(y for _, y in reply_points)
        reply_point = (min(x for x, y in reply_points if y <= top + 6) + 4, top + 4)
        hovered = hover_actions(display, reply_point, shots / "03-hover-reply")
        buttons = [group for group in hovered if group[1] < reply_point[1] + 80]  # not the composer's caret
        left, btop, right, bottom = buttons[2]  # Copy Edit Regenerate Fork Delete, from the left
        click_at(display, (left + right) // 2, (btop + bottom) // 2)
        display.type("after regenerate")
        display.key("Return")
        wait_for(
            lambda: finished_reply(data, chat, "Answer after regenerate."), 30, "the prompt typed after Regenerate"
        )
        assert prompts(transcripts(data)[chat]) == ["A short", "after regenerate"]
        time.sleep(0.5)
        display.screenshot(shots / "04-after-regenerate.png")

        # Item 1: edit the first prompt, resend, stop the reply: the pager is there at once and stays.
        click_edit(display, bubble, shots / "05-hover")
        display.key("ctrl+a")
        display.type("B long")
        display.key("Return")
        wait_for(lambda: len([r for r in server.requests if r.path == COMPLETIONS]) >= 4, 30, "the edited request")
        time.sleep(1.5)
        display.screenshot(shots / "06-streaming.png")
        display.key("Escape")

        def stopped() -> bool:
            return any((m.get("meta") or {}).get("status") == "aborted" for m in replies(data, chat))

        wait_for(stopped, 30, "the stopped reply on disk")
        root_line = transcripts(data)[chat][0]
        assert text_of(root_line) == "B long"
        meta = root_line["meta"]
        assert meta["revisionCount"] >= 2 and meta["activeRevision"] == meta["revisionCount"], meta
        time.sleep(0.5)
        copy = hover_actions(display, bubble, shots / "07-pager-after-stop")[-4]  # Copy Edit Fork Delete
        display.xdotool("mousemove", "0", "0")
        still = display.settled_screenshot(shots / "08-pager-always-shown.png")
        pager = (copy[0] - 110, copy[1] - 3, copy[0] - 8, copy[3] + 3)  # "‹ 3 / 3 ›" left of the actions
        assert ink(still, pager) > 20, "no revision pager in front of the prompt's actions"
        # Qt takes a move back to where the pointer last was in the window for no move: go elsewhere first
        display.xdotool("mousemove", str(bubble[0] - 300), str(bubble[1] + 400))
        time.sleep(0.3)

        # Item 11: an edit left behind for another chat is still there on coming back; Enter replaces.
        click_edit(display, bubble, shots / "09-hover-again")
        display.key("ctrl+a")
        display.type("C edited")
        display.key("ctrl+n")
        time.sleep(0.7)
        display.type("Other chat")
        display.key("Return")
        other = wait_for(lambda: chat_with(data, "Other chat"), 30, "the other chat on disk")
        wait_for(lambda: finished_reply(data, other, "Plain answer."), 30, "the other chat's reply")
        display.key("ctrl+k")
        wait_for(lambda: "Search chats" in dialogs(display, app), 10, "the search window")
        display.type("B long")
        time.sleep(1.0)
        display.key("Return")
        wait_for(lambda: dialogs(display, app) == [], 10, "the search window to close")
        time.sleep(0.7)
        display.screenshot(shots / "10-back-with-the-edit.png")
        display.key("Return")
        wait_for(lambda: prompts(transcripts(data)[chat]) == ["C edited"], 30, "the edit to replace the prompt")
        wait_for(lambda: finished_reply(data, chat, "Plain answer."), 30, "the edited prompt's reply")
        assert prompts(transcripts(data)[other]) == ["Other chat"]

        # Item 9: click a chat in the sidebar, F2 renames it; click one, Delete asks to delete it.
        shot = display.settled_screenshot(shots / "11-sidebar.png")
        geometry = display.geometry(app.window)
        rows = sidebar_rows(shot, geometry)
        assert len(rows) == 2, rows  # a row per chat, newest first (the grey "Chats" header is too light)
        click_at(display, geometry[0] + 100, rows[1])  # the older chat: "Other chat"
        display.key("F2")
        time.sleep(0.5)
        display.key("ctrl+a")
        display.type("Renamed by F2")
        display.key("Return")
        # item 27: the window is named after the chat it shows, in the task bar too
        wait_for(lambda: display.window_name(app.window) == "Renamed by F2 — pidesktop", 10, "the window's new name")
        display.screenshot(shots / "12-renamed.png")
        click_at(display, geometry[0] + 100, rows[0])
        display.key("Delete")
        wait_for(lambda: "Delete chat" in dialogs(display, app), 10, "the Delete chat question")
        display.screenshot(shots / "13-delete-asked.png")
        display.key("Escape")
        wait_for(lambda: dialogs(display, app) == [], 10, "the question to close")

        display.key("ctrl+q")
        status = app.wait(30)
        assert "Traceback" not in app.stderr, app.stderr
        assert status == 0, app.stderr
    finally:
        app.close()
    [listed] = seed(data, ("session.list", {}))
    titles = {session["id"]: session["title"] for session in listed["sessions"]}
    assert titles[other] == "Renamed by F2"
    assert chat in titles  # Escape kept it


def test_a_send_that_cannot_go_stores_nothing_and_keeps_the_text(display, tmp_path):
    shots = tmp_path / "shots"
    shots.mkdir()
    root = tmp_path / "app"
    seed_provider(root / "data", name="Dead port", baseUrl="http://127.0.0.1:9/v1")
    app = started(display, root)
    try:
        data = app.data
        display.type("Are you there?")
        display.key("Return")
        logs = data / "logs" / "app"  # the window's logs, one file per category

        def refused() -> str | None:
            lines = [line for path in sorted(logs.glob("*.ndjson")) for line in path.read_text().splitlines()]
            return next((line for line in lines if "not_ready" in line), None)

        line = wait_for(refused, 30, "the refusal in the app's log")
        assert "Dead port has no model chosen: pick one in Settings > Providers." in orjson.loads(line)["msg"]
        time.sleep(0.5)
        display.screenshot(shots / "01-not-sent.png")
        assert not any(prompts(messages) for messages in transcripts(data).values())
        display.key("ctrl+a")
        display.key("ctrl+c")
        assert wait_for(lambda: display.clipboard_text() == "Are you there?", 10, "the typed text in the composer")
        display.key("ctrl+q")
        assert app.wait(30) == 0, app.stderr
    finally:
        app.close()
    [listed] = seed(data, ("session.list", {}))
    assert listed["sessions"] == []  # not even an empty chat
