"""Unattended runs in Plan or Goal mode are refused before any model request (spec 004, acceptance list):
the runner with ``interactive=False`` and ``pidesktop chat`` without ``--interactive``."""

import asyncio

import pytest

from pidesktop.agent.runner import ProviderChoice, TurnRunner
from pidesktop.bus import HostClient

from .sse_server import chunk, sse_body, sse_server  # noqa: F401  (the fixture)
from .test_chat_cli import chat_cli, sessions_in

CODE = "PLAN_REQUIRES_INTERACTIVE_SESSION"


def run_unattended(host, server, mode, session_mode_later=None):
    async def scenario():
        client = HostClient(host.thread, asyncio.get_running_loop())
        runner = TurnRunner(client, override=ProviderChoice(base_url=server.base_url, model="m"), interactive=False)
        session_id = (await client.call("session.create", {"mode": mode}))["session"]["id"]
        try:
            return session_id, await runner.send(session_id, "Tidy the repository")
        finally:
            client.close()

    return asyncio.run(scenario())


@pytest.mark.parametrize("mode", ["plan", "goal"])
def test_an_unattended_plan_or_goal_turn_is_stored_as_refused_without_a_request(host, sse_server, mode):  # noqa: F811
    sse_server.stream([sse_body(chunk("should never be asked"), chunk(finish="stop"))])
    session_id, result = run_unattended(host, sse_server, mode)
    assert result["status"] == "error"
    assert result["error"]["code"] == CODE
    assert "Agent mode" in result["error"]["message"]
    assert sse_server.requests == []  # the model was never asked
    got = host.call("session.get", {"sessionId": session_id})
    user, reply = got["messages"]
    assert user["blocks"] == [{"type": "text", "text": "Tidy the repository"}]
    assert reply["meta"]["error"]["code"] == CODE and reply["blocks"] == []
    assert got["session"]["lastTurn"]["status"] == "error"
    assert got["session"]["lastTurn"]["errorCode"] == CODE
    assert not (host.location.data_root / "scratch").exists() or not any((host.location.data_root / "scratch").rglob("*.md"))


def test_an_unattended_agent_turn_still_runs(host, sse_server):  # noqa: F811
    sse_server.stream([sse_body(chunk("Done."), chunk(finish="stop"))])
    _, result = run_unattended(host, sse_server, "agent")
    assert result["status"] == "completed"
    assert len(sse_server.requests) == 1


def test_pidesktop_chat_in_plan_mode_exits_non_zero_with_the_code(tmp_path, sse_server):  # noqa: F811
    sse_server.stream([sse_body(chunk("never"), chunk(finish="stop"))])
    root = tmp_path / "d"
    done = chat_cli(root, "--base-url", sse_server.base_url, "--model", "m", "--mode", "plan", "Plan a move")
    assert done.returncode == 1
    assert CODE in done.stderr
    assert sse_server.requests == []
    assert sessions_in(root) == []  # a new chat that never reached the model is not kept


def test_pidesktop_chat_keeps_the_refused_turn_of_an_existing_chat(tmp_path, sse_server):  # noqa: F811
    sse_server.stream([sse_body(chunk("Hello"), chunk(finish="stop"))])
    root = tmp_path / "d"
    first = chat_cli(root, "--base-url", sse_server.base_url, "--model", "m", "hi")
    assert first.returncode == 0, first.stderr
    session_id = first.stderr.strip().rsplit("session: ", 1)[1]
    again = chat_cli(root, "--session", session_id, "--mode", "goal", "--base-url", sse_server.base_url,
                     "--model", "m", "Agree a goal")
    assert again.returncode == 1 and CODE in again.stderr
    assert len(sse_server.requests) == 1  # only the first, agent-mode turn asked the model
    [row] = sessions_in(root)
    assert row["id"] == session_id and row["mode"] == "goal"
