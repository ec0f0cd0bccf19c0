"""Settings > Tools with a real host and a real MCP server: add a server in its dialog (the refused name
said under the form, the typing kept), the state and tools once a chat's pool started it, a tool switched
off, Edit keeping the stored env value, Import of a Claude Desktop file, Remove."""

import json
import sys

import pytest
import shiboken6
from PySide6.QtCore import Qt

from pidesktop.agent.mcp.pool import McpPool
from pidesktop.ui.kit import theme as themes
from pidesktop.ui.settings.settings_dialog import SettingsDialog
from tests.mcp_helpers import SERVER
from tests.support.sse_server import Script
from tests.support.waits import spin_until


@pytest.fixture
def page(qloop, host_client):
    dialog = SettingsDialog.ask(host_client, themes.LIGHT)
    dialog.open()
    qloop.run_until_complete(dialog.loading)
    dialog.show_page("Tools")
    yield dialog.tools
    if shiboken6.isValid(dialog):
        dialog.close()


def click(qtbot, button):
    assert button.isEnabled() and button.isVisible(), button.text()
    qtbot.mouseClick(button, Qt.MouseButton.LeftButton)


def row_text(page, row):
    """A row as a person reads it: the server's name, then its state."""
    return page.list.itemWidget(page.list.item(row)).text()


def row_dot(page, row):
    return page.list.itemWidget(page.list.item(row)).dot.property("state")


def names(page):
    return [row_text(page, row).split("\n")[0] for row in range(page.list.count())]


def test_add_a_server_see_it_start_switch_a_tool_off_edit_and_remove(qtbot, qloop, host_client, page, shots):
    assert page.empty.isVisible() and not page.panel.isVisible()
    dialog = page.edit(None)
    dialog.name.setText("bad name")
    dialog.command.setText(f"{sys.executable} {SERVER} stdio")
    dialog.pairs.setPlainText("TOKEN=tok-123")
    dialog.save_button.click()
    spin_until(qloop, lambda: dialog.error.isVisible())
    assert dialog.error.text().startswith("The server name 'bad name' can hold only")
    assert dialog.isVisible() and dialog.command.text().endswith("stdio")  # nothing typed is lost
    dialog.name.setText("tester")
    dialog.save_button.click()
    spin_until(qloop, lambda: names(page) == ["tester"])
    assert "Starts when a chat needs it" in row_text(page, 0)
    [stored] = host_client.call_blocking("mcp.list")["servers"]
    assert stored["args"] == [str(SERVER), "stdio"] and stored["envKeys"] == ["TOKEN"]

    pool = McpPool(host_client)  # a chat's turn starting it: the page follows mcp.changed
    try:
        qloop.run_until_complete(pool.offer(None))
        spin_until(qloop, lambda: "Ready · 8 tools" in row_text(page, 0))
        assert row_dot(page, 0) == "ready"
        switches = {box.text().split()[0]: box for box in page.tools_box.findChildren(type(page.enabled))}
        assert set(switches) >= {"echo", "add", "die"} and "(read-only)" in switches["echo"].text()
        page.grab().save(str(shots / "settings-tools.png"))
        switches["die"].click()
        spin_until(qloop, lambda: host_client.call_blocking("mcp.list")["servers"][0]["disabledTools"] == ["die"])
        offer = qloop.run_until_complete(pool.offer(None))
        assert "mcp__tester__die" not in offer.tools and "mcp__tester__echo" in offer.tools
    finally:
        qloop.run_until_complete(pool.aclose())

    edit = page.edit(page.selected())
    assert edit.pairs.toPlainText() == "TOKEN="  # the name only: values never come back to the window
    edit.timeout.setValue(5)
    edit.save_button.click()
    spin_until(qloop, lambda: host_client.call_blocking("mcp.list")["servers"][0]["timeoutSeconds"] == 5)
    [launch] = host_client.call_blocking("mcp.launchConfig")["servers"]
    assert launch["env"] == {"TOKEN": "tok-123"}  # the empty value kept the stored one

    page.enabled.click()
    spin_until(qloop, lambda: "Off" in row_text(page, 0))
    qloop.run_until_complete(page.remove("tester"))
    assert names(page) == [] and page.empty.isVisible()


def test_closing_the_server_dialog_with_typed_text_asks_first(qtbot, qloop, host_client, page):
    dialog = page.edit(None)
    qtbot.keyClick(dialog.name, Qt.Key.Key_Escape)  # nothing typed: it just closes
    assert not dialog.isVisible()
    dialog = page.edit(None)
    qtbot.keyClicks(dialog.name, "files")
    dialog.command.setText(f"{sys.executable} {SERVER} stdio")
    qtbot.keyClick(dialog.name, Qt.Key.Key_Escape)
    question = spin_until(qloop, lambda: dialog.question)
    assert question.text() == "Save this MCP server?" and dialog.isVisible()
    next(b for b in question.buttons() if b.text() == "Keep editing").click()
    spin_until(qloop, lambda: dialog.question is None)
    assert dialog.isVisible() and dialog.name.text() == "files"
    dialog.reject()
    next(b for b in spin_until(qloop, lambda: dialog.question).buttons() if b.text() == "Save").click()
    spin_until(qloop, lambda: names(page) == ["files"])
    assert not dialog.isVisible()


def test_import_a_claude_desktop_file(qtbot, qloop, host_client, page, tmp_path):
    config = tmp_path / "claude_desktop_config.json"
    servers = {"files": {"command": "npx", "args": ["-y", "srv"]}, "old": {"type": "sse", "url": "https://x/sse"}}
    config.write_text(json.dumps({"mcpServers": servers}))
    qloop.run_until_complete(page.import_file(str(config)))
    assert names(page) == ["files"]
    assert "Imported: files" in page.notice.text() and "Skipped old: it uses the older SSE" in page.notice.text()
    broken = tmp_path / "broken.json"
    broken.write_text("{")
    qloop.run_until_complete(page.import_file(str(broken)))
    assert "could not be read" in page.notice.text() and names(page) == ["files"]


def test_the_composer_shows_the_chats_servers_and_a_project_turns_one_off(qtbot, qloop, host_client, tmp_path, shots):
    from tests.support.windows import started_window

    for name in ("files", "github"):
        host_client.call_blocking("mcp.add", {"name": name, "command": "srv"})
    project_chat = host_client.call_blocking("session.create", {"projectPath": str(tmp_path)})["session"]
    plain_chat = host_client.call_blocking("session.create", {})["session"]
    win = started_window(qtbot, qloop, host_client)
    try:
        chip = win.composer.mcp_chip
        win.sidebar.select(project_chat["id"])

        def github():
            return next((a for a in chip.menu().actions() if a.text() == "github"), None)

        spin_until(qloop, lambda: chip.project_id == project_chat["projectId"] and github() and github().isEnabled())
        assert chip.isVisible() and chip.text() == "MCP: files, github" and github().isChecked()
        github().setChecked(False)  # off for this project's chats
        spin_until(qloop, lambda: chip.text() == "MCP: files")
        launch = host_client.call_blocking("mcp.launchConfig", {"sessionId": project_chat["id"]})["servers"]
        assert [s["name"] for s in launch] == ["files"]
        win.composer.grab().save(str(shots / "composer-mcp-chip.png"))
        win.sidebar.select(plain_chat["id"])
        spin_until(qloop, lambda: chip.project_id is None and chip.text() == "MCP: files, github")
        assert not github().isEnabled()  # a chat without a project: every enabled server, switched in Settings
    finally:
        win.close()


def test_a_server_that_dies_is_said_in_one_sentence_in_the_window(qtbot, qloop, host_client, sse_server, tmp_path):
    from pidesktop.agent.runner import ProviderChoice, TurnRunner
    from tests.support.windows import started_window
    from tests.test_plan_approval import text_body, tool_call_body

    host_client.call_blocking("mcp.add", {"name": "t", "command": sys.executable, "args": [str(SERVER), "stdio"]})
    sse_server.serve_in_turn(
        "/v1/chat/completions",
        Script(chunks=[tool_call_body("mcp__t__die", {}, "call_0")]),
        Script(chunks=[text_body("It stopped.")]),
    )
    sid = host_client.call_blocking("session.create", {"mode": "agent"})["session"]["id"]
    host_client.call_blocking("session.update", {"sessionId": sid, "permissionMode": "auto"})
    pool = McpPool(host_client)
    runner = TurnRunner(host_client, override=ProviderChoice(base_url=sse_server.base_url, model="m"), mcp=pool)
    win = started_window(qtbot, qloop, host_client, runner=runner)
    try:
        win.sidebar.select(sid)
        spin_until(qloop, lambda: win.current_session_id == sid)
        qloop.run_until_complete(runner.send(sid, "Run it"))
        note = win.notice.label.text()
        assert "The MCP server t stopped while running die" in note, note
        assert "dying on purpose" not in note  # stderr stays with the model and Settings' Details
    finally:
        qloop.run_until_complete(pool.aclose())
        win.close()


def test_an_mcp_tool_not_marked_read_only_waits_on_the_permission_card(qtbot, qloop, host_client, sse_server, shots):
    from pidesktop.agent.runner import ProviderChoice, TurnRunner
    from tests.support.windows import started_window
    from tests.test_plan_approval import text_body, tool_call_body

    host_client.call_blocking("mcp.add", {"name": "calc", "command": sys.executable, "args": [str(SERVER), "stdio"]})
    sse_server.serve_in_turn(
        "/v1/chat/completions",
        Script(chunks=[tool_call_body("mcp__calc__add", {"a": 1, "b": 2}, "call_0")]),
        Script(chunks=[text_body("It is 3.")]),
    )
    sid = host_client.call_blocking("session.create", {"mode": "agent"})["session"]["id"]
    host_client.call_blocking("session.update", {"sessionId": sid, "permissionMode": "ask"})
    pool = McpPool(host_client)
    runner = TurnRunner(host_client, override=ProviderChoice(base_url=sse_server.base_url, model="m"), mcp=pool)
    win = started_window(qtbot, qloop, host_client, runner=runner)
    try:
        win.sidebar.select(sid)
        spin_until(qloop, lambda: win.current_session_id == sid and win.permission_card.session_id == sid)
        qtbot.keyClicks(win.composer.edit, "Add one and two")
        qtbot.keyClick(win.composer.edit, Qt.Key.Key_Return)
        card = win.permission_card
        spin_until(qloop, lambda: card.isVisible())
        assert card.title.text() == "Allow this? Use add from the MCP server calc"
        assert '"a": 1' in card.detail.toPlainText() and "cannot undo" in card.explanation.text()
        win.grab().save(str(shots / "permission-card-mcp.png"))
        qtbot.mouseClick(card.allow_once_button, Qt.MouseButton.LeftButton)
        spin_until(qloop, lambda: not runner.is_running(sid))
        got = host_client.call_blocking("session.get", {"sessionId": sid})
        [call] = [b for m in got["messages"] for b in m["blocks"] if b["type"] == "tool_call"]
        assert (call["status"], call["result"]) == ("ok", "3")
    finally:
        qloop.run_until_complete(pool.aclose())
        win.close()
