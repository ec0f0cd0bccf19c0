"""Tool rows in the window while the real runner works: a command's output streams in, an edit's diff
and Revert, driven by the loopback OpenAI-compatible server scripted to call the tools."""

from __future__ import annotations

import asyncio

import pytest

from pidesktop.agent import sandbox
from pidesktop.agent.runner import ProviderChoice, TurnRunner
from tests.support.sse_server import Script
from tests.support.waits import wait_until
from tests.support.windows import started_window
from tests.test_plan_approval import text_body, tool_call_body

WAIT_FOR_GO = "echo first; while [ ! -e go ]; do sleep 0.02; done; echo second"


@pytest.fixture
def project(tmp_path):
    folder = tmp_path / "proj"
    folder.mkdir()
    (folder / "README.md").write_text("# Demo\nhello world\n")
    return folder


def row_with_call(win, call_id):
    """(row position, row key, the call's number in its message) of the row holding ``call_id``."""
    for position, row in enumerate(win.transcript_model.rows):
        calls = [b for b in row.get("message", {}).get("blocks", []) if b.get("type") == "tool_call"]
        for number, block in enumerate(calls):
            if block.get("callId") == call_id:
                return position, row["key"], number
    return None


def shown(win, call_id):
    found = row_with_call(win, call_id)
    if found is None:
        return ""
    position, key, number = found
    win.transcript.expanded.add(f"tool:{key}:{number}")
    win.transcript._relayout()
    rendered = win.transcript.delegate.rendered(win.transcript_model.index(position))
    return "\n".join(part.doc.toPlainText() for part in rendered.parts)


def test_a_command_streams_into_its_row_and_an_edit_can_be_reverted(
    qtbot,
    qloop,
    host_client,
    sse_server,
    project,
    monkeypatch,
):
    monkeypatch.setenv(sandbox.FORCE_OFF, "1")  # the row, not the sandbox: it has tests of its own
    sse_server.serve_in_turn(
        "/v1/chat/completions",
        Script(chunks=[tool_call_body("bash", {"command": WAIT_FOR_GO}, "call_0")]),
        Script(
            chunks=[tool_call_body("edit", {"path": "README.md", "oldText": "world", "newText": "there"}, "call_1")]
        ),
        Script(chunks=[text_body("Done.")]),
    )
    runner = TurnRunner(
        host_client, override=ProviderChoice(base_url=sse_server.base_url, model="m"), confirm_unconfined=False
    )
    sid = host_client.call_blocking("session.create", {"projectPath": str(project)})["session"]["id"]
    host_client.call_blocking("session.update", {"sessionId": sid, "permissionMode": "auto"})
    win = started_window(qtbot, qloop, host_client, runner=runner)

    async def scenario():  # one running loop throughout, as in the app
        win.sidebar.select(sid)
        await wait_until(lambda: win.current_session_id == sid)
        sending = asyncio.ensure_future(win.chats.send_prompt("Run it, then fix the greeting"))
        running = await wait_until(lambda: "first" in shown(win, "call_0") and shown(win, "call_0"), 30)
        assert "Running…" in running and "second" not in running and "✓" not in running
        (project / "go").touch()
        finished = await wait_until(lambda: "Exit status 0" in shown(win, "call_0") and shown(win, "call_0"), 30)
        assert "first\nsecond" in finished and "bash echo first" in finished and "✓" in finished
        edit = await wait_until(lambda: "+ hello there" in shown(win, "call_1") and shown(win, "call_1"), 30)
        assert "- hello world" in edit and "edit README.md ✓" in edit
        await sending
        await wait_until(lambda: win.file_changes.button.text() == "Files changed · 1")
        position, key, _number = row_with_call(win, "call_1")
        revert = next(
            a
            for a in win.transcript.delegate.rendered(win.transcript_model.index(position)).actions
            if a.name.startswith("revert:")
        )
        assert revert.enabled
        await win.chats.run_message_action(revert.name, key)
        assert (project / "README.md").read_text() == "# Demo\nhello world\n"
        await wait_until(lambda: "Reverted: the file is back" in shown(win, "call_1"))

    qloop.run_until_complete(scenario())
    win.close()
