"""An MCP server added in Settings > Tools of the real app (Xvfb, openbox, xdotool) and used in a chat:
the scripted model calls its tool, the result is in the chat's transcript, and quitting leaves no server
process behind. Select with ``-m realwindow``; it skips without the X tools."""

from __future__ import annotations

import sys
import time

import orjson
import pytest

from pidesktop import paths
from tests.mcp_helpers import SERVER, alive
from tests.support.hosts import InProcessHost
from tests.support.realwindow import App, XDisplay, wait_for
from tests.support.sse_server import Script
from tests.test_plan_approval import text_body, tool_call_body

pytestmark = pytest.mark.realwindow

PROMPT = "Say hello through the tool"
# Where Settings > Tools puts things: the nav's third row from the top; the Add button under the server
# list, a footer's height above the bottom edge (the window is as tall as its tallest page needs).
TOOLS_ROW = (80, 113)
ADD_BUTTON_X, ADD_BUTTON_ABOVE_BOTTOM = 253, 80


def tool_results(data) -> list[str]:
    results = []
    for path in (data / "sessions").glob("*.jsonl"):
        for line in path.read_bytes().splitlines():
            entry = orjson.loads(line)
            for block in entry.get("blocks") or []:
                if block.get("type") == "tool_call" and block.get("result") is not None:
                    results.append(block["result"])
    return results


def click(display: XDisplay, app: App, window: str, point: tuple[int, int]) -> None:
    try:
        display.xdotool("mousemove", "--window", window, str(point[0]), str(point[1]))
    except AssertionError as exc:  # the window went away: say which the app shows instead
        raise AssertionError(f"{exc}\nthe app's windows now: {display.windows_named(app.process.pid)}") from None
    display.xdotool("click", "1")


def test_add_a_server_in_settings_and_use_it_in_a_chat(display, tmp_path, sse_server):
    root = tmp_path / "app"
    starts = tmp_path / "starts.txt"
    shots = tmp_path / "shots"
    shots.mkdir()
    host = InProcessHost(paths.resolve(data_dir=root / "data"))
    try:
        provider = host.call(
            "providers.upsert",
            {"provider": {"name": "Scripted", "baseUrl": sse_server.base_url, "defaultModelId": "m"}},
        )["provider"]
        host.call("providers.setDefault", {"providerId": provider["id"], "modelId": "m"})
    finally:
        host.stop()
    sse_server.serve_in_turn(
        "/v1/chat/completions",
        Script(chunks=[tool_call_body("mcp__greeter__echo", {"text": "hello"}, "call_0")]),
        Script(chunks=[text_body("The tool said hello.")]),
    )
    app = App(display, root)
    try:
        window = app.wait_for_window()
        app.focus()
        display.settled_screenshot(shots / "00-started.png")
        display.key("ctrl+comma")
        [settings] = wait_for(
            lambda: [w for w in display.visible_windows(app.process.pid) if w != window], 10, "the Settings window"
        )
        display.settled_screenshot(shots / "01-settings.png")  # laid out: the click lands on its Tools row
        click(display, app, settings, TOOLS_ROW)
        display.settled_screenshot(shots / "01-tools-empty.png")
        height = display.geometry(settings)[3]
        click(display, app, settings, (ADD_BUTTON_X, height - ADD_BUTTON_ABOVE_BOTTOM))
        [dialog] = wait_for(
            lambda: [w for w in display.visible_windows(app.process.pid) if w not in (window, settings)],
            10,
            "the Add MCP server window",
        )
        assert display.window_name(dialog) == "Add MCP server"
        display.type("greeter")
        display.key("Tab")
        display.key("Tab")
        display.type(f"{sys.executable} {SERVER} stdio {starts}")
        display.screenshot(shots / "02-add-dialog.png")
        display.key("Return")
        wait_for(lambda: dialog not in display.visible_windows(app.process.pid), 10, "the dialog to close")
        display.settled_screenshot(shots / "03-tools-added.png")
        display.key("Escape")
        wait_for(lambda: display.visible_windows(app.process.pid) == [window], 10, "the Settings window to close")
        app.focus()
        display.key("ctrl+n")
        time.sleep(0.7)
        display.type(PROMPT)
        display.key("Return")
        results = wait_for(lambda: tool_results(app.data), 60, "the tool's result in the transcript")
        assert results == ["echo: hello"]
        wait_for(lambda: len(sse_server.requests) >= 2, 30, "the model to be asked again with the result")
        time.sleep(0.8)
        display.screenshot(shots / "04-chat-used-the-tool.png")
        offered = [t["function"]["name"] for t in sse_server.requests[0].json["tools"]]
        assert "mcp__greeter__echo" in offered
        [pid] = [int(line) for line in starts.read_text().split()]
        assert alive(pid)
        display.key("ctrl+q")
        assert app.wait(30) == 0, app.stderr
        assert "Traceback" not in app.stderr, app.stderr
        wait_for(lambda: not alive(pid), 10, "the MCP server to end with the app")
    finally:
        app.close()
