"""Unattended runs in Plan or Goal mode are refused before any model request (spec 004, acceptance list):
the runner with ``interactive=False`` and ``pidesktop chat`` without ``--interactive``."""

import asyncio

import pytest

from pidesktop import paths
from pidesktop.agent.runner import ProviderChoice, TurnRunner
from pidesktop.bus import HostClient
from tests.support.cli import chat_cli
from tests.support.hosts import InProcessHost
from tests.support.sse_server import Script, chunk, sse_body
from tests.test_chat_cli import sessions_in
from tests.test_plan_approval import text_body, tool_call_body

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
def test_an_unattended_plan_or_goal_turn_is_stored_as_refused_without_a_request(host, sse_server, mode):
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
    assert not (host.location.data_root / "scratch").exists() or not any(
        (host.location.data_root / "scratch").rglob("*.md")
    )


def test_an_unattended_agent_turn_still_runs(host, sse_server):
    sse_server.stream([sse_body(chunk("Done."), chunk(finish="stop"))])
    _, result = run_unattended(host, sse_server, "agent")
    assert result["status"] == "completed"
    assert len(sse_server.requests) == 1


def test_pidesktop_chat_in_plan_mode_exits_non_zero_with_the_code(tmp_path, sse_server):
    sse_server.stream([sse_body(chunk("never"), chunk(finish="stop"))])
    root = tmp_path / "d"
    done = chat_cli(root, "--base-url", sse_server.base_url, "--model", "m", "--mode", "plan", "Plan a move")
    assert done.returncode == 1
    assert CODE in done.stderr
    assert sse_server.requests == []
    assert sessions_in(root) == []  # a new chat that never reached the model is not kept


def test_pidesktop_chat_keeps_the_refused_turn_of_an_existing_chat(tmp_path, sse_server):
    sse_server.stream([sse_body(chunk("Hello"), chunk(finish="stop"))])
    root = tmp_path / "d"
    first = chat_cli(root, "--base-url", sse_server.base_url, "--model", "m", "hi")
    assert first.returncode == 0, first.stderr
    session_id = first.stderr.strip().rsplit("session: ", 1)[1]
    again = chat_cli(
        root,
        "--session",
        session_id,
        "--mode",
        "goal",
        "--base-url",
        sse_server.base_url,
        "--model",
        "m",
        "Agree a goal",
    )
    assert again.returncode == 1 and CODE in again.stderr
    assert len(sse_server.requests) == 1  # only the first, agent-mode turn asked the model
    [row] = sessions_in(root)
    assert row["id"] == session_id and row["mode"] == "goal"


def test_pidesktop_chat_interactive_asks_on_stdin_and_carries_out_the_approved_plan(tmp_path, sse_server):
    sse_server.serve_in_turn(
        "/v1/chat/completions",
        Script(chunks=[tool_call_body("SubmitPlan", {"plan": "# First\n1. a\n"})]),
        Script(chunks=[tool_call_body("SubmitPlan", {"plan": "# Second\n1. b\n"}, "call_2")]),
        Script(chunks=[text_body("Carried out.")]),
    )
    root = tmp_path / "d"
    done = chat_cli(
        root,
        "--base-url",
        sse_server.base_url,
        "--model",
        "m",
        "--mode",
        "plan",
        "--interactive",
        "Plan the move",
        input="x\nr shorter please\na\n",
    )
    assert done.returncode == 0, done.stderr
    assert "# First" in done.stderr and "# Second" in done.stderr  # each proposal is shown before the question
    assert "Type a (approve) or r" in done.stderr  # "x" is not an answer
    assert done.stdout.strip().endswith("Carried out.")
    feedback, execution = sse_server.requests[1].json, sse_server.requests[2].json
    assert "shorter please" in feedback["messages"][-1]["content"]
    assert execution["messages"][-1]["content"].endswith("# Second\n1. b\n")


def test_pidesktop_chat_interactive_without_an_answer_ends_and_the_next_start_interrupts_it(tmp_path, sse_server):
    sse_server.serve_in_turn("/v1/chat/completions", Script(chunks=[tool_call_body("SubmitPlan", {"plan": "# P\n"})]))
    root = tmp_path / "d"
    done = chat_cli(
        root, "--base-url", sse_server.base_url, "--model", "m", "--mode", "plan", "--interactive", "Plan it", input=""
    )
    assert done.returncode == 1
    assert "was not carried out" in done.stderr and "Ask again" in done.stderr
    [session] = sessions_in(root)  # the chat holds the proposal, so it is kept
    host = InProcessHost(paths.resolve(data_dir=root))
    try:
        [approval] = host.call("plan.list", {"sessionId": session["id"]})["approvals"]
    finally:
        host.stop()
    assert approval["status"] == "interrupted"  # a new host is a restart: nothing from before is answered
