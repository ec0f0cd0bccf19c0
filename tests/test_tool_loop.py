"""The tool loop against the loopback SSE server: results go back to the model, 25 rounds at most,
calls to tools the app did not offer are answered with an error and the turn goes on, a server without
tool support is asked again without tools, and Stop ends the loop."""

import asyncio

from pidesktop.agent import tool_loop
from pidesktop.agent.events import ToolCallDelta
from pidesktop.agent.reply import ReplyBuilder
from pidesktop.agent.runner import ProviderChoice, TurnRunner
from pidesktop.bus import ErrorCode, HostClient
from tests.support.hosts import run_with_client
from tests.support.sse_server import Script
from tests.test_plan_approval import text_body, tool_call_body, tool_names

TODO = {"todos": [{"content": "Step", "status": "in_progress"}]}


def send(host, server, prompt="Do it", mode="agent", model="m", on_runner=None):
    async def body(client):
        runner = TurnRunner(client, override=ProviderChoice(base_url=server.base_url, model=model))
        if on_runner:
            on_runner(runner)
        session_id = (await client.call("session.create", {"mode": mode}))["session"]["id"]
        result = await runner.send(session_id, prompt)
        return session_id, result, await client.call("session.get", {"sessionId": session_id})

    return run_with_client(host, body)


def test_the_loop_stops_after_25_rounds_with_a_clear_error(host, sse_server):
    sse_server.stream([tool_call_body("TodoWrite", TODO)])  # answers every request with another call
    session_id, result, got = send(host, sse_server)
    assert len(sse_server.requests) == tool_loop.MAX_ROUNDS
    assert result["status"] == "error" and result["error"]["code"] == ErrorCode.TOOL_ROUNDS_EXCEEDED
    assert "25 times" in result["error"]["message"]
    replies = [m for m in got["messages"] if m["role"] == "assistant"]
    assert len(replies) == tool_loop.MAX_ROUNDS
    assert all(r["blocks"][0]["status"] == "ok" and "result" in r["blocks"][0] for r in replies)
    assert replies[-1]["meta"]["error"]["code"] == ErrorCode.TOOL_ROUNDS_EXCEEDED
    assert got["session"]["lastTurn"]["status"] == "error"
    assert host.call("todo.get", {"sessionId": session_id})["todo"]["revision"] == tool_loop.MAX_ROUNDS


def test_a_bad_call_is_answered_with_an_error_the_model_can_read(host, sse_server):
    sse_server.serve_in_turn(
        "/v1/chat/completions",
        Script(
            chunks=[
                tool_call_body(
                    "TodoWrite",
                    {"todos": [{"content": "a", "status": "in_progress"}, {"content": "b", "status": "in_progress"}]},
                )
            ]
        ),
        Script(chunks=[tool_call_body("SubmitPlan", {"plan": "# P"}, "call_2")]),
        Script(chunks=[text_body("Sorry.")]),
    )
    _, result, got = send(host, sse_server)
    assert result["status"] == "completed" and result["approval"] is None
    first, second = [m["blocks"][0] for m in got["messages"][1:3]]
    assert first["status"] == "error" and "only one item can be in progress" in first["result"]
    assert second["status"] == "error" and "only available in Plan mode" in second["result"]
    assert sse_server.requests[1].json["messages"][-1]["role"] == "tool"
    assert host.call("plans.pending")["approvals"] == []  # Agent mode: no proposal was stored


def test_a_call_to_a_tool_the_app_did_not_offer_is_an_error_the_model_reads(host, sse_server):
    sse_server.serve_in_turn(
        "/v1/chat/completions",
        Script(chunks=[tool_call_body("Read", {"file_path": "README.md"})]),
        Script(chunks=[text_body("I will use read instead.")]),
    )
    _, result, got = send(host, sse_server)
    assert result["status"] == "completed" and len(sse_server.requests) == 2
    [block] = got["messages"][1]["blocks"]
    assert block["name"] == "Read" and block["status"] == "error"
    assert "There is no tool named 'Read'" in block["result"] and "read" in block["result"]
    answered = sse_server.requests[1].json["messages"][-1]
    assert answered["role"] == "tool" and "no tool named" in answered["content"]
    assert got["messages"][-1]["blocks"] == [{"type": "text", "text": "I will use read instead."}]


def test_a_server_that_refuses_tools_is_asked_again_without_them(host, sse_server):
    sse_server.serve_in_turn(
        "/v1/chat/completions",
        Script(
            status=400,
            headers={"Content-Type": "application/json"},
            framing="length",
            chunks=[b'{"error": {"message": "model does not support tools"}}'],
        ),
        Script(chunks=[text_body("Plain answer.")]),
    )
    runners = []
    _, result, got = send(host, sse_server, model="no-tools-model", on_runner=runners.append)
    assert result["status"] == "completed"
    with_tools, without = sse_server.requests
    assert "TodoWrite" in tool_names(with_tools) and "tools" not in without.json
    assert got["messages"][-1]["blocks"] == [{"type": "text", "text": "Plain answer."}]
    assert runners[0].tool_refusals == {("custom", "no-tools-model")}  # remembered by the runner for that model


def test_stop_between_rounds_ends_the_turn_aborted(host, sse_server):
    sse_server.stream([tool_call_body("TodoWrite", TODO)])

    def stop_after_first_round(runner):
        def listener(session_id, phase, message):
            if phase == "finished" and message is not None:
                runner.stop(session_id)  # the first round's message is stored: Stop now

        runner.listeners.append(listener)

    _, result, got = send(host, sse_server, on_runner=stop_after_first_round)
    assert result["status"] == "aborted"
    assert len(sse_server.requests) == 1  # never asked again
    assert got["session"]["lastTurn"]["status"] == "aborted"


def test_the_turn_counts_the_tokens_of_every_round(host, sse_server):
    from tests.support.sse_server import usage_chunk

    def with_usage(body, prompt, completion):
        return body.replace(
            b"data: [DONE]",
            b"data: " + __import__("orjson").dumps(usage_chunk(prompt, completion)) + b"\n\ndata: [DONE]",
        )

    sse_server.serve_in_turn(
        "/v1/chat/completions",
        Script(chunks=[with_usage(tool_call_body("TodoWrite", TODO), 100, 10)]),
        Script(chunks=[with_usage(text_body("Done."), 150, 20)]),
    )
    session_id, result, _ = send(host, sse_server)
    assert result["status"] == "completed"
    turn = host.call("session.recordUsage", {"sessionId": session_id, "turnId": result["turn"]["id"], "records": []})[
        "turn"
    ]
    assert (turn["inputTokens"], turn["outputTokens"]) == (250, 30)


class SlowTodo:
    """The real client, with ``todo.set`` held until the test lets it go: a tool call still running."""

    def __init__(self, client):
        self.client = client
        self.started = asyncio.Event()
        self.release = asyncio.Event()

    async def call(self, method, params):
        if method == "todo.set":
            self.started.set()
            await self.release.wait()
        return await self.client.call(method, params)


def test_stop_during_a_call_ends_the_loop_and_the_call_keeps_no_result(host):
    async def main():
        client = HostClient(host.thread, asyncio.get_running_loop())
        try:
            session_id = (await client.call("session.create", {}))["session"]["id"]
            slow, cancel = SlowTodo(client), asyncio.Event()
            loop = tool_loop.ToolLoop(slow, session_id, "turn-1", "agent", cancel)
            builder = ReplyBuilder("m1", "m", "p")
            builder.feed(ToolCallDelta(0, "call_1", "TodoWrite", '{"todos": [{"content": "a", "status": "pending"}]}'))
            running = asyncio.ensure_future(loop.run_calls(builder))
            await slow.started.wait()
            cancel.set()  # Stop while the call waits
            try:
                again = await asyncio.wait_for(running, 10)  # a loop that ignored Stop would wait for ever
            finally:
                slow.release.set()
            return again, builder.tool_calls
        finally:
            client.close()

    again, [block] = asyncio.run(main())
    assert again is False and "result" not in block


def test_a_404_about_tool_use_is_asked_again_without_tools(host, sse_server):
    sse_server.serve_in_turn(
        "/v1/chat/completions",
        Script(
            status=404,
            headers={"Content-Type": "application/json"},
            framing="length",
            chunks=[b'{"error": {"message": "No endpoints found that support tool use."}}'],
        ),
        Script(chunks=[text_body("Fine.")]),
    )
    _, result, _ = send(host, sse_server, model="router-model-without-tools")
    assert result["status"] == "completed" and len(sse_server.requests) == 2
    assert "tools" not in sse_server.requests[1].json


def test_a_rejected_key_is_not_asked_again(host, sse_server):
    sse_server.serve(
        "/v1/chat/completions",
        Script(
            status=401,
            headers={"Content-Type": "application/json"},
            framing="length",
            chunks=[b'{"error": {"message": "bad key"}}'],
        ),
    )
    _, result, _ = send(host, sse_server, model="keyed-model")
    assert result["status"] == "error" and len(sse_server.requests) == 1


def test_a_host_refusal_inside_a_tool_round_still_ends_the_turn(host, sse_server):
    """The host refuses storing a round (a full disk, say): the turn ends as an error, never left running."""
    from pidesktop.bus import ErrorCode, HostError

    sse_server.serve_in_turn(
        "/v1/chat/completions", Script(chunks=[tool_call_body("TodoWrite", TODO)]), Script(chunks=[text_body("Done.")])
    )

    class RefusesTheFirstRoundStore:
        def __init__(self, client):
            self.client, self.refused = client, False

        def __getattr__(self, name):
            return getattr(self.client, name)

        async def call(self, method, params=None):
            if method == "session.appendMessage" and (params or {}).get("turnId") and not self.refused:
                self.refused = True
                raise HostError(ErrorCode.STORAGE_UNAVAILABLE, "The disk is full.")
            return await self.client.call(method, params)

    async def main():
        client = HostClient(host.thread, asyncio.get_running_loop())
        runner = TurnRunner(
            RefusesTheFirstRoundStore(client), override=ProviderChoice(base_url=sse_server.base_url, model="m")
        )
        try:
            session_id = (await client.call("session.create", {}))["session"]["id"]
            result = await runner.send(session_id, "Do it")
            return result, await client.call("session.get", {"sessionId": session_id}), runner.is_running(session_id)
        finally:
            client.close()

    result, got, running = asyncio.run(main())
    assert result["status"] == "error" and result["error"]["code"] == "STORAGE_UNAVAILABLE"
    assert got["session"]["lastTurn"]["status"] == "error" and not running
