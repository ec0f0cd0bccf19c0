"""``pidesktop host --stdio`` in a real subprocess: handshake, bad input, events, clean exit."""

import subprocess
import sys

import orjson
import pytest

from tests.support.repo import REPO


def test_handshake_reports_schema_27_and_the_data_root(stdio_host, data_root):
    host = stdio_host()
    result = host.call("app.handshake", {"protocolVersion": 1})
    assert result["schemaVersion"] == 27
    assert result["protocolVersion"] == 1
    assert result["dataRoot"] == str(data_root)
    assert host.close() == 0


def test_the_documented_one_liner(tmp_path):
    line = b'{"jsonrpc":"2.0","id":1,"method":"app.handshake","params":{"protocolVersion":1}}\n'
    out = subprocess.run(
        [sys.executable, "-m", "pidesktop", "host", "--stdio"],
        input=line,
        capture_output=True,
        cwd=REPO,
        timeout=60,
        env={"PI_DESKTOP_DATA_DIR": str(tmp_path / "root"), "HOME": str(tmp_path), "PATH": "/usr/bin:/bin"},
    )
    assert out.returncode == 0, out.stderr
    reply = orjson.loads(out.stdout)
    assert reply == {
        "jsonrpc": "2.0",
        "id": 1,
        "result": {
            "protocolVersion": 1,
            "schemaVersion": 27,
            "dataRoot": str(tmp_path / "root"),
            "hostVersion": reply["result"]["hostVersion"],
            "interruptedReplies": [],
        },
    }


BAD_INPUT = [
    (b"{not json", None, -32700, "PARSE_ERROR", "not valid JSON"),
    (b"[1, 2, 3]", None, -32600, "INVALID_REQUEST", "JSON object"),
    (b'{"jsonrpc":"2.0","id":7}', 7, -32600, "INVALID_REQUEST", "'method'"),
    (b'{"jsonrpc":"2.0","id":8,"method":42}', 8, -32600, "INVALID_REQUEST", "'method'"),
    (b'{"jsonrpc":"1.0","id":9,"method":"session.list"}', 9, -32600, "INVALID_REQUEST", "'jsonrpc'"),
    (b'{"jsonrpc":"2.0","id":10,"method":"session.explode"}', 10, -32601, "METHOD_NOT_FOUND", "session.explode"),
    (b'{"jsonrpc":"2.0","id":11,"method":"session.list","params":[1]}', 11, -32602, "INVALID_PARAMS", "'params'"),
    (
        b'{"jsonrpc":"2.0","id":12,"method":"session.list","params":{"limit":"ten"}}',
        12,
        -32602,
        "INVALID_PARAMS",
        "'limit'",
    ),
    (
        b'{"jsonrpc":"2.0","id":13,"method":"session.create","params":{"mode":"chat"}}',
        13,
        -32602,
        "INVALID_PARAMS",
        "'mode'",
    ),
    (
        b'{"jsonrpc":"2.0","id":14,"method":"session.rename","params":{"title":"x"}}',
        14,
        -32602,
        "INVALID_PARAMS",
        "'sessionId'",
    ),
    (
        b'{"jsonrpc":"2.0","id":15,"method":"session.create","params":{"title":7}}',
        15,
        -32602,
        "INVALID_PARAMS",
        "'title'",
    ),
    (
        b'{"jsonrpc":"2.0","id":16,"method":"settings.set","params":{"patch":{"largePasteThreshold":0}}}',
        16,
        -32602,
        "INVALID_PARAMS",
        "largePasteThreshold",
    ),
    (
        b'{"jsonrpc":"2.0","id":17,"method":"app.handshake","params":{}}',
        17,
        -32602,
        "INVALID_PARAMS",
        "'protocolVersion'",
    ),
    (
        b'{"jsonrpc":"2.0","id":18,"method":"session.list","params":{"cursor":"garbage"}}',
        18,
        -32602,
        "INVALID_PARAMS",
        "'cursor'",
    ),
    (b'\xff\xfe{"jsonrpc":"2.0"}', None, -32700, "PARSE_ERROR", "not valid JSON"),
]


@pytest.mark.parametrize(
    "line,request_id,number,code,named", BAD_INPUT, ids=[case[3] + ":" + case[4] for case in BAD_INPUT]
)
def test_bad_input_gets_the_right_error_and_the_host_keeps_serving(stdio_host, line, request_id, number, code, named):
    host = stdio_host()
    before = host.call("session.list")["sessions"]
    settings_before = host.call("settings.get")["settings"]
    host.send_raw(line)
    reply = host.read_message()
    assert reply["id"] == request_id
    assert reply["error"]["code"] == number
    assert reply["error"]["data"]["code"] == code
    assert reply["error"]["message"].startswith(f"{code}: ")
    assert named in reply["error"]["message"]
    # still serving, and nothing was written
    assert host.call("session.list")["sessions"] == before
    assert host.call("settings.get")["settings"] == settings_before
    assert host.close() == 0


def test_events_arrive_as_notifications_before_the_reply(stdio_host):
    host = stdio_host()
    created = host.call("session.create", {"title": "Hello"})["session"]
    assert host.events == [
        {"topic": "session.changed", "payload": {"sessionId": created["id"], "reason": "created", "session": created}}
    ]


def test_end_of_stdin_exits_zero_and_stdout_holds_only_protocol_lines(stdio_host, data_root):
    host = stdio_host()
    for i in range(5):
        host.send_raw(
            orjson.dumps({"jsonrpc": "2.0", "id": i, "method": "session.create", "params": {"title": f"chat {i}"}})
        )
    assert host.close() == 0
    messages = [orjson.loads(line) for line in host.raw_lines]
    assert all(m["jsonrpc"] == "2.0" for m in messages)
    assert sorted(m["id"] for m in messages if "id" in m) == [0, 1, 2, 3, 4]
    assert list((data_root / "logs" / "host").glob("*.ndjson"))
    # the queued commands were drained before exit: a new host sees all five
    again = stdio_host()
    assert len(again.call("session.list")["sessions"]) == 5
    assert again.close() == 0


def test_a_second_stdio_host_on_the_same_root_is_refused(stdio_host):
    first = stdio_host()
    first.call("app.handshake", {"protocolVersion": 1})
    second = stdio_host()
    reply = second.request("session.list", {})
    assert reply["error"]["data"]["code"] == "STORAGE_UNAVAILABLE"
    assert "pidesktop host --stdio" in reply["error"]["message"]
    assert second.close() == 0
    assert first.close() == 0


def test_notifications_without_id_get_no_reply(stdio_host):
    host = stdio_host()
    host.send_raw(b'{"jsonrpc":"2.0","method":"session.create","params":{"title":"quiet"}}')
    titles = [s["title"] for s in host.call("session.list")["sessions"]]
    assert titles == ["quiet"]
    assert all("id" not in m or m["id"] == 1 for m in map(orjson.loads, host.raw_lines) if "method" not in m)
