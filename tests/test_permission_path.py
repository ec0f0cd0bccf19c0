"""One permission path for built-in and MCP tools, through the real runner and host with a real MCP server:
both are asked the same way, a refusal is stored as ``denied`` with its ``tool_denied`` row, and "Allow for
this chat" is kept with the chat across a restart of the host until it is reset."""

import asyncio

import apsw
import pytest

from pidesktop.agent.mcp.pool import McpPool
from pidesktop.agent.permissions import Answer, Decision
from pidesktop.agent.runner import ProviderChoice, TurnRunner
from pidesktop.bus import HostClient
from tests.mcp_helpers import stdio_params
from tests.support.hosts import InProcessHost
from tests.support.sse_server import Script
from tests.test_plan_approval import text_body, tool_call_body

EDIT = ("edit", {"path": "README.md", "oldText": "hello", "newText": "bye"})
ADD = ("mcp__t__add", {"a": 2, "b": 3})


@pytest.fixture
def project(tmp_path):
    folder = tmp_path / "proj"
    folder.mkdir()
    (folder / "README.md").write_text("# Demo\nhello world\n")
    return folder


def script(server, *calls, final="Done."):
    bodies = [Script(chunks=[tool_call_body(name, args, f"call_{n}")]) for n, (name, args) in enumerate(calls)]
    server.serve_in_turn("/v1/chat/completions", *bodies, Script(chunks=[text_body(final)]))


def turn(host, server, *, asker, sid=None, project=None, mode="ask"):
    """One turn with a fresh runner and MCP pool; a new chat in ``project`` unless ``sid`` is given."""

    async def main():
        client = HostClient(host.thread, asyncio.get_running_loop())
        pool = McpPool(client)
        runner = TurnRunner(client, override=ProviderChoice(base_url=server.base_url, model="m"), asker=asker, mcp=pool)
        try:
            chat = sid
            if chat is None:
                params = {"mode": "agent", "projectPath": str(project)}
                chat = (await client.call("session.create", params))["session"]["id"]
                await client.call("session.update", {"sessionId": chat, "permissionMode": mode})
            result = await runner.send(chat, "Do the work")
            return chat, result, await client.call("session.get", {"sessionId": chat})
        finally:
            await pool.aclose()
            client.close()

    return asyncio.run(main())


def calls_of(got):
    return [block for m in got["messages"] for block in m["blocks"] if block["type"] == "tool_call"]


def test_built_in_and_mcp_tools_are_asked_denied_and_audited_alike(host, sse_server, project):
    host.call("mcp.add", stdio_params("t"))
    script(sse_server, EDIT, ADD)
    asked = []

    async def asker(request):
        asked.append(request)
        return Answer(Decision.DENY, "not today")

    sid, result, got = turn(host, sse_server, asker=asker, project=project)
    assert result["status"] == "completed", result
    assert [r.tool for r in asked] == ["edit", "mcp__t__add"]
    assert all(r.session_id == sid and r.call_id for r in asked)
    edit, add = calls_of(got)
    for call in (edit, add):
        assert call["status"] == "denied" and "not today" in call["result"], call
    assert (project / "README.md").read_text() == "# Demo\nhello world\n"
    denied = host.call("audit.list", {"sessionId": sid, "kind": "tool_denied"})["entries"]
    by_call = {e["payload"]["callId"]: e["payload"] for e in denied}
    assert set(by_call) == {edit["callId"], add["callId"]}
    assert {p["tool"] for p in by_call.values()} == {"edit", "mcp__t__add"}
    assert all(p["reason"] == "not today" and p["nobodyToAsk"] is False for p in by_call.values())
    assert by_call[add["callId"]]["mcpServer"] == "t"
    assert host.call("audit.list", {"sessionId": sid, "kind": "tool_execute"})["entries"] == []


def test_with_nobody_to_ask_both_are_denied_and_audited(host, sse_server, project):
    host.call("mcp.add", stdio_params("t"))
    script(sse_server, EDIT, ADD)
    sid, _, got = turn(host, sse_server, asker=None, project=project)
    assert [c["status"] for c in calls_of(got)] == ["denied", "denied"]
    denied = host.call("audit.list", {"sessionId": sid, "kind": "tool_denied"})["entries"]
    assert sorted(e["payload"]["tool"] for e in denied) == ["edit", "mcp__t__add"]
    assert all(e["payload"]["nobodyToAsk"] for e in denied)


def test_allow_for_this_chat_holds_across_a_restart_until_reset(location, sse_server, project):
    first = InProcessHost(location)
    try:
        first.call("mcp.add", stdio_params("t"))
        script(sse_server, EDIT, ADD)
        asked = []

        async def allow_for_chat(request):
            asked.append(request.tool)
            return Answer(Decision.ALLOW_FOR_CHAT)

        sid, _, got = turn(first, sse_server, asker=allow_for_chat, project=project)
        assert asked == ["edit", "mcp__t__add"]
        assert [c["status"] for c in calls_of(got)] == ["ok", "ok"]
    finally:
        first.stop()

    again = InProcessHost(location)
    try:
        assert again.call("permissions.grants", {"sessionId": sid}) == {
            "tools": ["edit", "mcp__t__add"],
            "unconfined": False,
        }
        script(sse_server, ("edit", {"path": "README.md", "oldText": "bye", "newText": "hi"}), ADD)

        async def must_not_ask(request):
            raise AssertionError(f"asked again for {request.tool}")

        _, result, got = turn(again, sse_server, asker=must_not_ask, sid=sid)
        assert result["status"] == "completed", result
        assert [c["status"] for c in calls_of(got)][-2:] == ["ok", "ok"]
        assert (project / "README.md").read_text() == "# Demo\nhi world\n"

        assert again.call("permissions.reset", {"sessionId": sid}) == {"tools": [], "unconfined": False}
        assert ("permissions.changed", {"sessionId": sid, "tools": [], "unconfined": False}) in again.events
        script(sse_server, ("edit", {"path": "README.md", "oldText": "hi", "newText": "yo"}))
        asked.clear()
        turn(again, sse_server, asker=allow_for_chat, sid=sid)
        assert asked == ["edit"]  # asked again after the reset
    finally:
        again.stop()


def grant_rows(location):
    conn = apsw.Connection(str(location.data_root / "pi.sqlite"), flags=apsw.SQLITE_OPEN_READONLY)
    try:
        return [key for (key,) in conn.execute("SELECT key FROM kv WHERE ns = 'permissionGrants'")]
    finally:
        conn.close()


def test_grants_are_checked_and_go_with_the_chat(host, location):
    sid = host.call("session.create", {})["session"]["id"]
    assert host.call("permissions.grant", {"sessionId": sid, "tool": "bash", "unconfined": True}) == {
        "tools": ["bash"],
        "unconfined": True,
    }
    assert host.error("permissions.grant", {"sessionId": sid, "tool": ""}).code == "INVALID_PARAMS"
    assert host.error("permissions.grants", {"sessionId": "nope"}).code == "NOT_FOUND"
    assert grant_rows(location) == [sid]
    host.call("session.delete", {"sessionId": sid, "forGood": True})
    assert host.error("permissions.grants", {"sessionId": sid}).code == "NOT_FOUND"
    assert grant_rows(location) == []
    other = host.call("session.create", {})["session"]["id"]
    assert host.call("permissions.grants", {"sessionId": other}) == {"tools": [], "unconfined": False}
