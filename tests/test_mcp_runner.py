"""MCP servers' tools through the real runner and host, called by a scripted loopback model: real servers
(the SDK's own ``MCPServer``) over stdio and streamable HTTP; results stored, permissions asked and audited;
a server that raises, dies mid-call, or never answers gives the model an error and the turn ends; no server
process outlives the pool; an env value never reaches the database or the logs."""

import asyncio
import hashlib
import logging
import os
import signal

import pytest

from pidesktop import logs
from pidesktop.agent.mcp.pool import McpPool
from pidesktop.agent.permissions import Answer, Decision
from pidesktop.agent.runner import ProviderChoice, TurnRunner
from pidesktop.bus import HostClient
from tests.mcp_helpers import HttpServer, alive, stdio_params
from tests.support.sse_server import Script
from tests.test_plan_approval import text_body, tool_call_body


def script(server, *calls, final="Done."):
    bodies = [Script(chunks=[tool_call_body(name, args, f"call_{n}")]) for n, (name, args) in enumerate(calls)]
    server.serve_in_turn("/v1/chat/completions", *bodies, Script(chunks=[text_body(final)]))


def drive(host, server, *, mode="auto", asker=None, prompts=("Use the tools",), during=None):
    """Run the prompts in one chat with a fresh pool; returns (sid, results, session, pool) after closing it."""

    async def main():
        client = HostClient(host.thread, asyncio.get_running_loop())
        pool = McpPool(client)
        runner = TurnRunner(client, override=ProviderChoice(base_url=server.base_url, model="m"), asker=asker, mcp=pool)
        try:
            sid = (await client.call("session.create", {"mode": "agent"}))["session"]["id"]
            await client.call("session.update", {"sessionId": sid, "permissionMode": mode})
            results = []
            for prompt in prompts:
                sending = asyncio.ensure_future(runner.send(sid, prompt))
                if during is not None:
                    await during(runner, sid)
                results.append(await sending)
            return sid, results, await client.call("session.get", {"sessionId": sid}), pool
        finally:
            await pool.aclose()
            client.close()

    return asyncio.run(main())


def calls_of(got):
    return [block for m in got["messages"] for block in m["blocks"] if block["type"] == "tool_call"]


def offered(request):
    return {tool["function"]["name"]: tool["function"] for tool in request.json.get("tools", [])}


def starts(path):
    return [int(line) for line in path.read_text().split()] if path.exists() else []


@pytest.fixture
def started(tmp_path):
    """The file the test server writes its pid to on every start (given to it in its env)."""
    return tmp_path / "starts.txt"


def counted(started, name="t", env=None, **extra):
    """``mcp.add`` params for the stdio test server, telling it where to note its starts."""
    return stdio_params(name, env={"MCP_TEST_STARTS": str(started), **(env or {})}, **extra)


def test_stdio_tools_are_offered_called_and_stored(host, sse_server, started):
    host.call("mcp.add", counted(started, disabledTools=["die"]))
    script(
        sse_server,
        ("mcp__t__echo", {"text": "hi"}),
        ("mcp__t__add", {"a": 2, "b": 3}),
        ("mcp__t__picture", {}),
        ("mcp__t__note", {}),
    )
    sid, [result], got, pool = drive(host, sse_server)
    assert result["status"] == "completed", result
    tools = offered(sse_server.requests[0])
    assert "mcp__t__die" not in tools and {"mcp__t__echo", "mcp__t__add", "read"} <= set(tools)
    assert tools["mcp__t__add"]["parameters"]["properties"].keys() == {"a", "b"}
    assert "Add two numbers." in tools["mcp__t__add"]["description"]
    echo, add, picture, note = calls_of(got)
    assert (echo["status"], echo["result"]) == ("ok", "echo: hi")
    assert (add["status"], add["result"]) == ("ok", "5")
    assert picture["status"] == "ok" and "Image: image/png" in picture["result"]
    assert note["result"] == "[Resource note://today]\nbuy milk"
    assert [m["content"] for m in sse_server.requests[1].json["messages"] if m["role"] == "tool"] == ["echo: hi"]
    executed = host.call("audit.list", {"sessionId": sid, "kind": "tool_execute"})["entries"]
    assert sorted(e["payload"]["serverTool"] for e in executed) == ["add", "echo", "note", "picture"]
    assert len(starts(started)) == 1  # started once, for the first turn, and kept for the calls
    [state] = [s["state"] for s in host.call("mcp.list")["servers"]]
    assert state["state"] == "ready" and len(state["tools"]) == 8
    assert not any(alive(pid) for pid in starts(started))  # closed with the pool: no orphan


def test_ask_mode_asks_for_tools_not_marked_read_only(host, sse_server, started):
    host.call("mcp.add", counted(started))
    script(sse_server, ("mcp__t__echo", {"text": "a"}), ("mcp__t__add", {"a": 1, "b": 1}))
    asked = []

    async def asker(request):
        asked.append(request)
        return Answer(Decision.DENY, "not now")

    sid, [result], got, _ = drive(host, sse_server, mode="ask", asker=asker)
    assert result["status"] == "completed"
    assert [r.tool for r in asked] == ["mcp__t__add"]  # echo is readOnlyHint: it runs without asking
    assert asked[0].title == "Use add from the MCP server t" and '"a": 1' in asked[0].detail
    echo, add = calls_of(got)
    assert echo["status"] == "ok" and add["status"] == "denied" and "not now" in add["result"]
    [denied] = host.call("audit.list", {"sessionId": sid, "kind": "tool_denied"})["entries"]
    assert denied["payload"]["tool"] == "mcp__t__add"


def test_nobody_to_ask_denies_in_accept_edits(host, sse_server, started):
    host.call("mcp.add", counted(started))
    script(sse_server, ("mcp__t__add", {"a": 1, "b": 1}))
    _, [result], got, _ = drive(host, sse_server, mode="accept-edits")
    [add] = calls_of(got)
    assert result["status"] == "completed" and add["status"] == "denied" and "not here to approve" in add["result"]


def test_a_tool_that_raises_gives_an_error_result(host, sse_server, started):
    host.call("mcp.add", counted(started))
    script(sse_server, ("mcp__t__boom", {}), ("mcp__t__echo", {"text": "still here"}))
    _, [result], got, _ = drive(host, sse_server)
    boom, echo = calls_of(got)
    assert result["status"] == "completed"
    assert boom["status"] == "error" and "reported an error" in boom["result"]
    assert echo["result"] == "echo: still here"


def test_a_server_that_dies_mid_call_restarts_on_the_next_call(host, sse_server, started):
    host.call("mcp.add", counted(started))
    script(sse_server, ("mcp__t__die", {}), ("mcp__t__echo", {"text": "back"}))
    _, [result], got, _ = drive(host, sse_server)
    died, echo = calls_of(got)
    assert result["status"] == "completed"
    assert died["status"] == "error" and "stopped while running die" in died["result"]
    assert "dying on purpose" in died["result"]  # its stderr's tail
    assert echo["status"] == "ok" and echo["result"] == "echo: back"
    assert len(starts(started)) == 2


def test_a_server_that_never_answers_is_cut_off(host, sse_server, started):
    host.call("mcp.add", counted(started, timeoutSeconds=2))
    script(sse_server, ("mcp__t__hang", {}), ("mcp__t__echo", {"text": "after"}))
    _, [result], got, _ = drive(host, sse_server)
    hang, echo = calls_of(got)
    assert result["status"] == "completed"
    assert hang["status"] == "error" and "did not answer hang within 2 s" in hang["result"]
    assert echo["result"] == "echo: after"
    first, second = starts(started)
    assert not alive(first)  # the hung server was stopped, not left behind


def test_stop_cancels_a_call_in_flight(host, sse_server, started, tmp_path):
    hanging = tmp_path / "hanging.txt"
    host.call("mcp.add", counted(started, env={"MCP_TEST_HANGING": str(hanging)}))
    script(sse_server, ("mcp__t__hang", {}))

    async def stop_when_hanging(runner, sid):
        while not hanging.exists():
            await asyncio.sleep(0.02)
        runner.stop(sid)

    _, [result], got, _ = drive(host, sse_server, during=stop_when_hanging)
    assert result["status"] == "aborted"
    [hang] = calls_of(got)
    assert hang.get("result") is None  # stopped: the call keeps no result


def test_a_server_that_cannot_start_leaves_the_chat_working(host, sse_server):
    host.call("mcp.add", {"name": "broken", "command": "/nonexistent/mcp-server"})
    script(sse_server)
    _, [result], _, _ = drive(host, sse_server)
    assert result["status"] == "completed"
    assert not any(name.startswith("mcp__") for name in offered(sse_server.requests[0]))
    [listed] = host.call("mcp.list")["servers"]
    assert listed["state"]["state"] == "failed" and "not found" in listed["state"]["reason"]


def test_streamable_http_with_a_header(host, sse_server):
    server = HttpServer()
    try:
        host.call("mcp.add", {"name": "web", "url": server.url, "headers": {"X-Token": "abc"}})
        script(sse_server, ("mcp__web__add", {"a": 20, "b": 22}))
        _, [result], got, _ = drive(host, sse_server)
    finally:
        server.stop()
    [add] = calls_of(got)
    assert result["status"] == "completed" and add["result"] == "42"


def test_an_env_value_reaches_the_server_but_never_the_database_or_logs(host, sse_server, data_root):
    secret = "sk-mcp-0123456789-secret"
    logger = logging.getLogger("pidesktop")
    level, propagate = logger.level, logger.propagate
    handler = logs.configure(data_root, "agent", logging.DEBUG)
    try:
        host.call("mcp.add", stdio_params("t", env={"MY_TOKEN": secret}))
        digest = hashlib.sha256(secret.encode()).hexdigest()
        script(sse_server, ("mcp__t__has_env", {"name": "MY_TOKEN", "sha256": digest}))
        _, [result], got, _ = drive(host, sse_server)
    finally:
        logger.removeHandler(handler)
        logger.setLevel(level)
        logger.propagate = propagate
        handler.close()
    [checked] = calls_of(got)
    assert checked["result"] == "matches"
    host.stop()
    written = [path for path in (data_root / "logs").rglob("*.ndjson") if path.stat().st_size > 0]
    assert any(path.parent.name == "agent" for path in written), written  # logs by category under logs/agent/
    needle = secret.encode()
    for path in data_root.rglob("*"):
        if path.is_file() and "secrets" not in path.parts:
            assert needle not in path.read_bytes(), path


def test_a_server_that_exited_between_turns_is_started_again_for_the_next(host, sse_server, started):
    host.call("mcp.add", counted(started))
    sse_server.serve_in_turn(
        "/v1/chat/completions",
        Script(chunks=[tool_call_body("mcp__t__echo", {"text": "one"}, "call_0")]),
        Script(chunks=[text_body("First.")]),
        Script(chunks=[tool_call_body("mcp__t__echo", {"text": "two"}, "call_1")]),
        Script(chunks=[text_body("Second.")]),
    )

    killed = []

    async def kill_between_turns(runner, sid):
        if killed:  # called again for the second prompt: that turn runs with the server it starts
            return
        while not (runner.is_running(sid) or starts(started)):
            await asyncio.sleep(0.01)
        while runner.is_running(sid):
            await asyncio.sleep(0.01)
        # after the first turn only (before, the second call could find the second turn not yet running
        # and kill the first server again, which was already gone)
        os.kill(starts(started)[0], signal.SIGKILL)
        killed.append(True)

    _, results, got, _ = drive(host, sse_server, prompts=("one", "two"), during=kill_between_turns)
    assert [r["status"] for r in results] == ["completed", "completed"]
    assert [c["result"] for c in calls_of(got)] == ["echo: one", "echo: two"]
    assert len(starts(started)) == 2


def test_a_server_that_never_finishes_starting_is_cut_off_and_the_turn_goes_on(host, sse_server, tmp_path):
    pid_file = tmp_path / "pid"
    # a "server" that never answers the handshake: it notes its pid and sleeps
    host.call(
        "mcp.add",
        {"name": "mute", "command": "sh", "args": ["-c", f"echo $$ > {pid_file}; exec sleep 600"], "timeoutSeconds": 1},
    )
    script(sse_server)
    _, [result], _, _ = drive(host, sse_server)
    assert result["status"] == "completed"
    assert not any(name.startswith("mcp__") for name in offered(sse_server.requests[0]))
    [listed] = host.call("mcp.list")["servers"]
    assert listed["state"]["state"] == "failed" and "did not finish starting within 10 s" in listed["state"]["reason"]
    assert not alive(int(pid_file.read_text()))  # stopped, not left behind
