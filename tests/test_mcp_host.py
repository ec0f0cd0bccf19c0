"""MCP server configuration through the real host: kv rows without key values, env/header values in the
encrypted secret store, validation that names the field, project switches, call records cut like tool output."""

import base64

import apsw

from pidesktop.bus import ErrorCode
from tests.support.host_helpers import new_session


def rows(host, sql):
    conn = apsw.Connection(str(host.location.data_root / "pi.sqlite"), flags=apsw.SQLITE_OPEN_READONLY)
    try:
        return conn.execute(sql).fetchall()
    finally:
        conn.close()


def add_stdio(host, name="files", **extra):
    params = {"name": name, "command": "npx", "args": ["-y", "server-files", "/tmp"], **extra}
    return host.call("mcp.add", params)["server"]


def test_add_list_update_remove_a_stdio_server(host):
    added = add_stdio(host, env={"API_TOKEN": "sk-very-secret-1"})
    assert added["name"] == "files" and added["transport"] == "stdio" and added["envKeys"] == ["API_TOKEN"]
    assert added["state"] == {"state": "stopped"} and added["timeoutSeconds"] == 60 and added["enabled"] is True
    [listed] = host.call("mcp.list")["servers"]
    assert listed["args"] == ["-y", "server-files", "/tmp"] and "env" not in listed
    [(stored,)] = rows(host, "SELECT value_json FROM kv WHERE ns='mcpServers' AND key='files'")
    assert "sk-very-secret-1" not in stored
    [launch] = host.call("mcp.launchConfig")["servers"]
    assert launch["env"] == {"API_TOKEN": "sk-very-secret-1"}

    updated = host.call("mcp.update", {"name": "files", "enabled": False, "env": {"API_TOKEN": None, "MORE": "x"}})[
        "server"
    ]
    assert updated["envKeys"] == ["API_TOKEN", "MORE"] and updated["state"] == {"state": "disabled"}
    assert host.call("mcp.launchConfig")["servers"] == []  # disabled: offered to no chat
    [launch] = host.call("mcp.launchConfig", {"names": ["files"]})["servers"]
    assert launch["env"] == {"API_TOKEN": "sk-very-secret-1", "MORE": "x"}  # null kept the stored value

    host.call("mcp.update", {"name": "files", "env": {"MORE": "y"}})  # API_TOKEN left out: its secret goes
    refs = rows(host, "SELECT secret_ref, owner_kind, owner_id FROM secrets_meta ORDER BY secret_ref")
    assert refs == [("mcp/files/env/MORE", "mcp", "files")]

    assert host.call("mcp.remove", {"name": "files"}) == {"removed": "files"}
    assert host.call("mcp.list")["servers"] == []
    assert rows(host, "SELECT count(*) FROM secrets_meta") == [(0,)]
    assert ("mcp.changed", {"name": "files", "reason": "removed"}) in host.events


def test_an_http_server_keeps_its_headers_secret(host):
    added = host.call(
        "mcp.add", {"name": "remote", "url": "https://example.com/mcp", "headers": {"Authorization": "Bearer abc"}}
    )["server"]
    assert added["transport"] == "http" and added["headerKeys"] == ["Authorization"] and "headers" not in added
    [launch] = host.call("mcp.launchConfig")["servers"]
    assert launch["headers"] == {"Authorization": "Bearer abc"}


def test_bad_input_is_refused_naming_the_field_and_nothing_is_stored(host):
    cases = [
        ({"name": "bad name!", "command": "x"}, "name"),
        ({"name": "a"}, "command"),
        ({"name": "a", "command": "x", "url": "http://h/mcp"}, "url"),
        ({"name": "a", "url": "ftp://h/mcp"}, "url"),
        ({"name": "a", "url": "https://user:pw@h/mcp"}, "url"),
        ({"name": "a", "url": "https://h/mcp", "env": {"K": "v"}}, "env"),
        ({"name": "a", "command": "x", "headers": {"K": "v"}}, "headers"),
        ({"name": "a", "command": "x", "timeoutSeconds": 0}, "timeoutSeconds"),
        ({"name": "a", "command": "x", "env": {"A=B": "v"}}, "env"),
    ]
    for params, field in cases:
        error = host.error("mcp.add", params)
        assert error.code == ErrorCode.INVALID_PARAMS and error.data.get("field") == field, (params, error)
    assert host.call("mcp.list")["servers"] == []
    add_stdio(host)
    assert host.error("mcp.add", {"name": "files", "command": "y"}).code == ErrorCode.INVALID_PARAMS
    assert host.error("mcp.update", {"name": "nope", "enabled": True}).code == ErrorCode.NOT_FOUND
    assert host.error("mcp.remove", {"name": "nope"}).code == ErrorCode.NOT_FOUND


def test_a_project_turns_servers_off_for_its_chats(host, tmp_path):
    add_stdio(host, "one")
    add_stdio(host, "two")
    sid = new_session(host, projectPath=str(tmp_path))
    project_id = host.call("session.get", {"sessionId": sid})["session"]["projectId"]
    other = new_session(host)
    host.call("mcp.setProjectServer", {"projectId": project_id, "name": "two", "enabled": False})
    names = [s["name"] for s in host.call("mcp.launchConfig", {"sessionId": sid})["servers"]]
    assert names == ["one"]
    assert [s["name"] for s in host.call("mcp.launchConfig", {"sessionId": other})["servers"]] == ["one", "two"]
    listed = host.call("mcp.list", {"projectId": project_id})["servers"]
    assert [(s["name"], s["onForProject"]) for s in listed] == [("one", True), ("two", False)]
    host.call("mcp.setProjectServer", {"projectId": project_id, "name": "two", "enabled": True})
    assert len(host.call("mcp.launchConfig", {"sessionId": sid})["servers"]) == 2


def test_reported_state_shows_in_the_list(host):
    add_stdio(host)
    host.call(
        "mcp.reportState",
        {"name": "files", "state": "failed", "reason": "exited", "stderrTail": "boom\n" * 2000},
    )
    [listed] = host.call("mcp.list")["servers"]
    assert listed["state"]["state"] == "failed" and listed["state"]["reason"] == "exited"
    assert len(listed["state"]["stderrTail"]) == 4000
    host.call("mcp.reportState", {"name": "files", "state": "ready", "tools": [{"name": "read", "readOnly": True}]})
    [listed] = host.call("mcp.list")["servers"]
    assert listed["state"] == {"state": "ready", "tools": [{"name": "read", "description": "", "readOnly": True}]}
    assert host.call("mcp.reportState", {"name": "gone", "state": "ready"}) == {"known": False}


def test_a_call_record_is_cut_spilled_and_gets_its_audit_record(host, data_root):
    sid = new_session(host)
    png = base64.b64encode(b"\x89PNG fake").decode()
    content = [
        {"type": "text", "text": "line\n" * 3000},
        {"type": "image", "data": png, "mimeType": "image/png"},
        {"type": "resource", "resource": {"uri": "note://x", "text": "hello"}},
    ]
    params = {"sessionId": sid, "tool": "mcp__s__t", "server": "s", "serverTool": "t", "callId": "c1"}
    recorded = host.call("mcp.recordCall", {**params, "content": content})
    assert recorded["ok"] is True and "[Output cut: showing the first 2000 of" in recorded["result"]
    spilled = list((data_root / "scratch" / sid / "tool-output").iterdir())
    assert sorted(p.suffix for p in spilled) == [".png", ".txt"]
    assert next(p for p in spilled if p.suffix == ".png").read_bytes() == b"\x89PNG fake"
    short = host.call("mcp.recordCall", {**params, "content": content[1:]})["result"]
    assert "Image: image/png, 9 bytes, kept at" in short and "[Resource note://x]\nhello" in short
    failed = host.call("mcp.recordCall", {**params, "content": [{"type": "text", "text": "no"}], "isError": True})
    assert failed["ok"] is False and "reported an error:\nno" in failed["result"]
    dead = host.call("mcp.recordCall", {**params, "error": "The MCP server s stopped."})
    assert (dead["ok"], dead["result"]) == (False, "The MCP server s stopped.")
    assert [failed["audit"]["payload"]["ok"], recorded["audit"]["payload"]["ok"]] == [False, True]
    record = dead["audit"]
    assert record["kind"] == "tool_execute" and record["payload"]["failure"] == "The MCP server s stopped."
    assert record["payload"]["server"] == "s" and record["payload"]["serverTool"] == "t"
    # the row itself is written with the stored result (test_tool_audit), not by the record
    assert host.call("audit.list", {"sessionId": sid})["entries"] == []
