"""Regenerate docs/screenshots/: the main window in the states the README shows.

    QT_QPA_PLATFORM=offscreen python tools/screenshots.py [--out docs/screenshots]

Seeds a throwaway data folder with a few realistic chats (the offline demo
answers), then renders each state offscreen at 1280x800.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import tempfile
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import qasync
from PySide6.QtGui import QColor, QImage, QLinearGradient, QPainter
from PySide6.QtWidgets import QApplication

from pidesktop import paths
from pidesktop.agent.runner import TurnRunner
from pidesktop.bus import HostClient, HostThread
from pidesktop.host.core import opener
from pidesktop.ui.kit import i18n
from pidesktop.ui.kit import theme as themes
from pidesktop.ui.window.main_window import MainWindow

ANSWER = """Here is a compact way to read a large JSONL file **without loading it whole**:

1. Keep a byte offset for every line (a *layout*).
2. Seek to the first line of the page you need.
3. Parse only those lines.

```python
def read_page(path, offsets, start, count):
    with open(path, "rb") as f:
        f.seek(offsets[start])
        return [json.loads(f.readline()) for _ in range(count)]
```

| approach | cost to open |
|---|---|
| parse everything | grows with the chat |
| seek + page | the page only |
"""


async def seed(client: HostClient) -> dict[str, str]:
    ids = {}
    runner = TurnRunner(client, offline_delay=0.0)
    long_chat = (
        await client.call("session.create", {"title": "Reading huge JSONL files", "projectPath": "/home/ana/pidesktop"})
    )["session"]["id"]
    for n in range(30):
        await client.call(
            "session.appendMessage",
            {
                "sessionId": long_chat,
                "message": {
                    "id": f"q{n}",
                    "role": "user",
                    "blocks": [{"type": "text", "text": f"Question {n}: how do I page through a long file?"}],
                },
            },
        )
        await client.call(
            "session.appendMessage",
            {
                "sessionId": long_chat,
                "message": {
                    "id": f"a{n}",
                    "role": "assistant",
                    "blocks": [
                        {"type": "thinking", "text": "The reader wants constant-time page reads."},
                        {"type": "text", "text": ANSWER},
                        *(
                            [
                                {
                                    "type": "tool_call",
                                    "callId": f"c{n}",
                                    "name": "Bash",
                                    "args": {"command": "wc -l chat.jsonl"},
                                    "status": "ok",
                                    "result": "100000 chat.jsonl",
                                    "durationMs": 412,
                                }
                            ]
                            if n % 3 == 0
                            else []
                        ),
                    ],
                    "meta": {"status": "completed", "thinkingSeconds": 3},
                },
            },
        )
    ids["long"] = long_chat
    ids["agentic"] = await seed_agentic(client)
    for title, prompt, project in (
        ("Trip to Kyoto", "Plan three calm days in Kyoto in November.", None),
        ("Weekly report", "Summarise this week's release notes.", "/home/ana/work"),
        (None, "What is a layout cache?", None),
    ):
        sid = (
            await client.call(
                "session.create",
                {**({"title": title} if title else {}), **({"projectPath": project} if project else {})},
            )
        )["session"]["id"]
        await runner.send(sid, prompt)
        ids[title or "untitled"] = sid
    failing = (await client.call("session.create", {"title": "Draft the launch email"}))["session"]["id"]
    await client.call("session.startTurn", {"sessionId": failing, "turnId": "t-failed"})
    await client.call(
        "session.endTurn",
        {
            "sessionId": failing,
            "turnId": "t-failed",
            "status": "error",
            "errorCode": "rate_limited",
            "createNotification": True,
        },
    )
    return ids


def tool(call_id: str, name: str, args: dict, ms: int, status: str = "ok", result: str = "ok") -> dict:
    return {
        "type": "tool_call",
        "callId": call_id,
        "name": name,
        "args": args,
        "status": status,
        "result": result,
        "durationMs": ms,
    }


async def seed_agentic(client: HostClient) -> str:
    """A chat with a run of tool calls (folded into one group) and a subagent's rows under its Task call."""
    sid = (
        await client.call(
            "session.create", {"title": "Fix the flaky paging test", "projectPath": "/home/ana/pidesktop"}
        )
    )["session"]["id"]
    messages = [
        {
            "id": "fx-u1",
            "role": "user",
            "blocks": [{"type": "text", "text": "The paging test fails one run in ten. Find out why."}],
        },
        {
            "id": "fx-a1",
            "role": "assistant",
            "meta": {"status": "completed"},
            "blocks": [
                {"type": "text", "text": "I'll read the test and the model first."},
                tool("fx-r1", "Read", {"path": "tests/test_paging.py"}, 40),
                tool("fx-g1", "Grep", {"pattern": "rowsPrepended"}, 120, result="3 matches"),
                tool("fx-b1", "Bash", {"command": "pytest tests/test_paging.py -x -q"}, 5400, "error", "1 failed"),
                tool(
                    "fx-t1",
                    "Task",
                    {"description": "Review the anchor restore", "subagent_type": "code-reviewer"},
                    21000,
                    result="The anchor is restored before the rows are laid out.",
                ),
                {
                    "type": "text",
                    "text": "Found it: the anchor is restored **before** the new rows are laid out, "
                    "so `visualRect` is stale. Restoring it on a zero-delay timer fixes "
                    "the test in 200 runs out of 200.",
                },
            ],
        },
        {
            "id": "fx-s1",
            "role": "user",
            "meta": {"parentToolCallId": "fx-t1", "agentName": "code-reviewer"},
            "blocks": [{"type": "text", "text": "Review how the view restores its anchor after a prepend."}],
        },
        {
            "id": "fx-s2",
            "role": "assistant",
            "meta": {"status": "completed", "parentToolCallId": "fx-t1", "agentName": "code-reviewer"},
            "blocks": [
                tool("fx-sr1", "Read", {"path": "pidesktop/ui/chat/transcript_view.py"}, 20),
                {
                    "type": "text",
                    "text": "`_restore` runs before `doItemsLayout`, so the rectangle it reads is from the old layout.",
                },
            ],
        },
    ]
    for message in messages:
        await client.call("session.appendMessage", {"sessionId": sid, "message": message})
    return sid


def sample_files(folder: Path) -> list[str]:
    """A picture and a text file to attach."""
    image = QImage(1200, 700, QImage.Format.Format_RGB32)
    painter = QPainter(image)
    gradient = QLinearGradient(0, 0, 1200, 700)
    gradient.setColorAt(0, QColor("#1d4ed8"))
    gradient.setColorAt(1, QColor("#f59e0b"))
    painter.fillRect(image.rect(), gradient)
    painter.end()
    image.save(str(folder / "kyoto-sunset.jpg"), "JPEG")
    (folder / "itinerary.md").write_text("# Kyoto\n\n- Day 1: Arashiyama\n- Day 2: Fushimi Inari\n")
    return [str(folder / "kyoto-sunset.jpg"), str(folder / "itinerary.md")]


async def seed_attachments(client: HostClient, files: list[str]) -> str:
    """A chat whose first prompt carries a picture and a text file."""
    sid = (await client.call("session.create", {}))["session"]["id"]
    blocks = [(await client.call("attachments.import", {"path": path}))["attachment"] for path in files]
    await TurnRunner(client, offline_delay=0.0).send(
        sid, "Which colours would suit a poster of this?", attachments=blocks
    )
    return sid


async def seed_mcp(client: HostClient) -> None:
    """Three MCP servers for Settings > Tools: one started (ready, a tool switched off), one failed, one not yet."""
    from pidesktop.agent.mcp.pool import McpPool

    repo = Path(__file__).resolve().parent.parent
    os.chdir(repo)  # the server's command line is shown as typed: relative to the checkout
    python = os.path.relpath(sys.executable, repo)
    await client.call(
        "mcp.add", {"name": "toolbox", "command": python, "args": ["tests/support/mcp_server.py", "stdio"]}
    )
    await client.call("mcp.add", {"name": "notes", "command": "/opt/notes-mcp/bin/notes-mcp"})
    await client.call("mcp.add", {"name": "github", "url": "https://api.githubcopilot.com/mcp/"})
    await client.call("mcp.update", {"name": "github", "enabled": False})
    pool = McpPool(client)
    try:
        await pool.offer(None)
    finally:
        await pool.aclose()
    await client.call("mcp.update", {"name": "toolbox", "disabledTools": ["die", "hang"]})


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", default=str(Path(__file__).resolve().parent.parent / "docs" / "screenshots"))
    out = Path(parser.parse_args().out)
    out.mkdir(parents=True, exist_ok=True)
    app = QApplication.instance() or QApplication([])
    app.setQuitOnLastWindowClosed(False)  # one window per theme, closed in turn
    loop = qasync.QEventLoop(app)
    asyncio.set_event_loop(loop)
    with tempfile.TemporaryDirectory(prefix="pidesktop-shots-") as tmp:
        location = paths.resolve(data_dir=Path(tmp) / "data")
        host = HostThread(opener(location)).start()
        client = HostClient(host, loop)

        async def shoot() -> None:
            ids = await seed(client)
            files = sample_files(Path(tmp))
            ids["attachments"] = await seed_attachments(client, files)
            await seed_mcp(client)
            for theme in (themes.LIGHT, themes.DARK):
                themes.apply(app, theme)
                window = MainWindow(client, theme, TurnRunner(client, offline_delay=0.0))
                window.forced_theme = theme.name
                window.resize(1280, 800)
                window.show()
                await window.start()
                await asyncio.sleep(0.2)
                window.grab().save(str(out / f"empty-{theme.name}.png"))
                window.sidebar.select(ids["Trip to Kyoto"])
                await asyncio.sleep(0.6)
                window.grab().save(str(out / f"chat-{theme.name}.png"))
                window.sidebar.select(ids["agentic"])
                await asyncio.sleep(0.6)
                window.transcript.toggle("group:fx-a1:0")
                window.transcript.toggle("tool:fx-a1:3")
                await asyncio.sleep(0.3)
                window.transcript.scroll_to_end()
                await asyncio.sleep(0.2)
                window.grab().save(str(out / f"activity-{theme.name}.png"))
                window.sidebar.select(ids["attachments"])
                await asyncio.sleep(0.8)
                window.composer.tray.add_files(files[1:])
                window.composer.edit.setPlainText("And a title for it?")
                await asyncio.sleep(0.5)
                window.transcript.verticalScrollBar().setValue(0)
                await asyncio.sleep(0.2)
                window.grab().save(str(out / f"attachments-{theme.name}.png"))
                window.composer.tray.clear()
                window.composer.edit.clear()
                window.sidebar.select(ids["long"])
                await asyncio.sleep(0.8)
                window.transcript.verticalScrollBar().setValue(0)
                await asyncio.sleep(0.8)
                window.transcript.verticalScrollBar().setValue(window.transcript.verticalScrollBar().maximum() // 3)
                await asyncio.sleep(0.3)
                window.grab().save(str(out / f"long-scrolled-back-{theme.name}.png"))
                window.dialogs.toggle_inbox()
                await asyncio.sleep(0.6)
                window.grab().save(str(out / f"inbox-{theme.name}.png"))
                window.dialogs.toggle_inbox()
                window.dialogs.open_search()
                window.search_dialog.field.setText("layout")
                await asyncio.sleep(0.8)
                window.search_dialog.grab().save(str(out / f"search-{theme.name}.png"))
                window.search_dialog.close()
                window.dialogs.open_settings()
                await asyncio.sleep(0.6)
                window.settings_dialog.show_page("Providers")
                await asyncio.sleep(0.3)
                window.settings_dialog.grab().save(str(out / f"settings-{theme.name}.png"))
                window.settings_dialog.show_page("Tools")
                window.settings_dialog.tools.selected_name = "toolbox"
                await window.settings_dialog.tools.load()
                await asyncio.sleep(0.3)
                window.settings_dialog.grab().save(str(out / f"settings-tools-{theme.name}.png"))
                window.settings_dialog.close()
                window.close()
                window.deleteLater()
                await asyncio.sleep(0.1)
            # The Chinese UI (needs a CJK font, e.g. Debian's fonts-noto-cjk).
            i18n.install(app, "zh_CN")
            themes.apply(app, themes.LIGHT)
            window = MainWindow(client, themes.LIGHT, TurnRunner(client, offline_delay=0.0))
            window.forced_theme = "light"
            window.resize(1280, 800)
            window.show()
            await window.start()
            window.sidebar.select(ids["agentic"])
            await asyncio.sleep(0.8)
            window.grab().save(str(out / "chinese-light.png"))
            window.close()
            window.deleteLater()
            i18n.remove(app)
            await asyncio.sleep(0.1)

        try:
            loop.run_until_complete(shoot())
        finally:
            client.close()
            host.stop()
            loop.close()  # joins the worker threads the maintenance pages used
    print(f"screenshots written to {out}")


if __name__ == "__main__":
    main()
