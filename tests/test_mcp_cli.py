"""``pidesktop mcp add/list/remove/import`` and ``pidesktop chat`` with an MCP server, as a person runs them:
real processes, a real test server over stdio, a scripted model; no server process is left behind, and a
key given with --env is in neither the database nor the logs."""

import json
import os
import subprocess
import sys

from pidesktop import paths
from tests.mcp_helpers import SERVER, alive
from tests.support.hosts import InProcessHost
from tests.support.repo import REPO
from tests.support.sse_server import Script
from tests.test_plan_approval import text_body, tool_call_body


def pidesktop(data_dir, *args):
    return subprocess.run(
        [sys.executable, "-m", "pidesktop", *args, "--data-dir", str(data_dir)] if args[0] != "mcp" else
        [sys.executable, "-m", "pidesktop", *args[:2], "--data-dir", str(data_dir), *args[2:]],
        capture_output=True, text=True, cwd=REPO, timeout=120,
    )  # fmt: skip


def test_add_list_with_tools_and_remove(tmp_path):
    data = tmp_path / "data"
    starts = tmp_path / "starts.txt"
    added = pidesktop(
        data, "mcp", "add", "t", "--env", f"MCP_TEST_STARTS={starts}", "--", sys.executable, str(SERVER), "stdio"
    )
    assert added.returncode == 0 and added.stdout == "added t (stdio)\n", added.stderr
    listed = pidesktop(data, "mcp", "list")
    assert listed.stdout.split("\t")[:3] == ["t", "stdio", "enabled"]
    with_tools = pidesktop(data, "mcp", "list", "--tools")
    assert with_tools.returncode == 0, with_tools.stderr
    lines = with_tools.stdout.splitlines()
    assert lines[0].startswith("t\tstdio\tready, 8 tools\t") and "  echo" in lines and "  has_env" in lines
    [pid] = [int(line) for line in starts.read_text().split()]
    assert not alive(pid)  # started to list its tools, then stopped
    again = pidesktop(data, "mcp", "add", "t", "--", "other")
    assert again.returncode == 2 and "already exists" in again.stderr
    assert pidesktop(data, "mcp", "remove", "t").stdout == "removed t\n"
    assert "no MCP servers" in pidesktop(data, "mcp", "list").stdout
    missing = pidesktop(data, "mcp", "remove", "t")
    assert missing.returncode == 1 and "There is no MCP server named 't'" in missing.stderr


def test_a_bad_command_line_says_what_to_do(tmp_path):
    data = tmp_path / "data"
    nothing = pidesktop(data, "mcp", "add", "x")
    assert nothing.returncode == 2 and "give the command after --" in nothing.stderr
    both = pidesktop(data, "mcp", "add", "x", "--url", "http://127.0.0.1:1/mcp", "--", "cmd")
    assert both.returncode == 2 and "not both" in both.stderr
    bad_env = pidesktop(data, "mcp", "add", "x", "--env", "NOVALUE", "--", "cmd")
    assert bad_env.returncode == 2 and "--env takes KEY=VALUE" in bad_env.stderr


def test_import_a_claude_desktop_file(tmp_path):
    data = tmp_path / "data"
    config = tmp_path / "claude_desktop_config.json"
    servers = {
        "files.local": {"command": "npx", "args": ["-y", "server-files", "/tmp"], "env": {"TOKEN": "tok-secret-9"}},
        "remote": {"url": "https://example.com/mcp", "headers": {"Authorization": "Bearer hdr-secret-7"}},
        "legacy": {"type": "sse", "url": "https://example.com/sse"},
        "off": {"command": "srv", "disabled": True},
    }
    config.write_text(json.dumps({"mcpServers": servers}))
    result = pidesktop(data, "mcp", "import", str(config))
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == ["added files-local (stdio)", "added remote (http)", "added off (stdio)"]
    assert "skipped legacy: it uses the older SSE transport" in result.stderr
    host = InProcessHost(paths.resolve(data_dir=data))
    try:
        listed = {s["name"]: s for s in host.call("mcp.list")["servers"]}
        assert listed["files-local"]["args"] == ["-y", "server-files", "/tmp"]
        assert listed["files-local"]["envKeys"] == ["TOKEN"] and listed["remote"]["headerKeys"] == ["Authorization"]
        assert listed["off"]["enabled"] is False
    finally:
        host.stop()
    for path in data.rglob("*"):
        if path.is_file() and "secrets" not in path.parts:
            content = path.read_bytes()
            assert b"tok-secret-9" not in content and b"hdr-secret-7" not in content, path
    broken = tmp_path / "broken.json"
    broken.write_text("{not json")
    unreadable = pidesktop(data, "mcp", "import", str(broken))
    assert unreadable.returncode == 2 and "cannot read" in unreadable.stderr


def test_chat_offers_and_calls_the_enabled_servers_tools(tmp_path, sse_server):
    data = tmp_path / "data"
    starts = tmp_path / "starts.txt"
    pidesktop(data, "mcp", "add", "t", "--env", f"MCP_TEST_STARTS={starts}", "--", sys.executable, str(SERVER), "stdio")
    sse_server.serve_in_turn(
        "/v1/chat/completions",
        Script(chunks=[tool_call_body("mcp__t__add", {"a": 40, "b": 2}, "call_0")]),
        Script(chunks=[text_body("It is 42.")]),
    )
    chat = subprocess.run(
        [sys.executable, "-m", "pidesktop", "chat", "--data-dir", str(data), "--base-url", sse_server.base_url,
         "--model", "m", "--permission-mode", "auto", "What is 40 + 2?"],
        capture_output=True, text=True, cwd=REPO, timeout=120, env=os.environ,
    )  # fmt: skip
    assert chat.returncode == 0, chat.stderr
    assert "It is 42." in chat.stdout
    offered = [t["function"]["name"] for t in sse_server.requests[0].json["tools"]]
    assert "mcp__t__add" in offered
    assert [m["content"] for m in sse_server.requests[1].json["messages"] if m["role"] == "tool"] == ["42"]
    [pid] = [int(line) for line in starts.read_text().split()]
    assert not alive(pid)  # the command's exit ended its server
