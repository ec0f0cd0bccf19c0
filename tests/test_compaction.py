"""Long chats against a real loopback server: compaction, the budget per request, and `pidesktop chat`."""

import asyncio

import pytest

from pidesktop.agent import compaction
from pidesktop.agent import context as budget
from pidesktop.agent.runner import ProviderChoice, TurnRunner
from pidesktop.bus import HostError
from tests.support.cli import chat_cli
from tests.support.hosts import run_with_client
from tests.support.sse_server import Script, chunk, sse_body

WINDOW = 3000
ANSWER = "The answer."
SUMMARY = "SUMMARY: they counted kelp."


def seed(host, count, words=8):
    sid = host.call("session.create", {})["session"]["id"]
    for i in range(count):
        role = "user" if i % 2 == 0 else "assistant"
        host.call(
            "session.appendMessage",
            {
                "sessionId": sid,
                "message": {
                    "id": f"h{i}",
                    "role": role,
                    "blocks": [{"type": "text", "text": f"message {i} " + "kelp " * words}],
                },
            },
        )
    return sid


def reply(text):
    return [sse_body(chunk(text), chunk(finish="stop"))]  # no usage: the estimate stays uncorrected


def answering(server, *texts):
    server.serve_in_turn("/v1/chat/completions", *(Script(chunks=reply(t)) for t in texts))


def runner_for(client, server, window=WINDOW):
    return TurnRunner(
        client, context_window=window, override=ProviderChoice(base_url=server.base_url, model="gpt-test", api_key="k")
    )


def request_tokens(request):
    """The budget's estimate of what was sent, from the request body as received."""
    return sum(
        budget.MESSAGE_OVERHEAD + budget.tokens_for_chars(len(m.get("content") or "")) for m in request.json["messages"]
    )


def chat_requests(server):
    return [r for r in server.requests if r.path.endswith("/chat/completions")]


@pytest.mark.slow
def test_a_long_chat_gets_an_answer_within_the_window_and_one_checkpoint(host, sse_server):
    sid = seed(host, 2000)
    answering(sse_server, SUMMARY, ANSWER)

    async def body(client):
        runner = runner_for(client, sse_server)
        first = await runner.send(sid, "What did we count?")
        answering(sse_server, ANSWER)
        second = await runner.send(sid, "And then?")
        return first, second, await runner.context_usage(sid)

    first, second, usage = run_with_client(host, body)
    assert first["status"] == "completed" and first["message"]["blocks"][0]["text"] == ANSWER
    requests = chat_requests(sse_server)
    assert len(requests) == 3  # summary + answer, then the next turn's answer only
    assert all(request_tokens(r) <= budget.input_budget(WINDOW) for r in requests)
    summary_request = requests[0].json["messages"]
    assert summary_request[0]["role"] == "system" and "summary" in summary_request[0]["content"].lower()
    assert compaction.LEFT_OUT in summary_request[1]["content"]  # 2000 messages do not fit one request
    assert "message 0 " not in summary_request[1]["content"]
    got = host.call("session.get", {"sessionId": sid})
    assert got["totalMessages"] == 2004 and [m["id"] for m in got["messages"][:3]] == ["h0", "h1", "h2"]
    [record] = got["compactions"]
    assert record["summary"] == SUMMARY and record["tokensBefore"] > WINDOW
    assert {"id", "firstKeptMessageId", "throughMessageId", "createdAt"} <= set(record)
    ids = [m["id"] for m in got["messages"]]
    assert ids.index(record["firstKeptMessageId"]) == ids.index(record["throughMessageId"]) + 1
    sent = requests[2].json["messages"]
    assert sent[0]["role"] == "system" and "workspace" in sent[0]["content"]  # the note naming the workspace
    assert sent[1]["role"] == "system" and SUMMARY in sent[1]["content"]
    assert {"role": "user", "content": "What did we count?"} in sent
    assert sent[-1] == {"role": "user", "content": "And then?"}
    assert second["status"] == "completed"
    assert 0 < usage["tokens"] <= WINDOW and usage["window"] == WINDOW
    assert ("session.changed", {"sessionId": sid, "reason": "compaction"}) in host.events


@pytest.mark.parametrize("status", [500, 401])
def test_a_failed_summary_fails_the_turn_and_writes_no_checkpoint(host, sse_server, status):
    sid = seed(host, 600)
    sse_server.serve(
        "/v1/chat/completions",
        Script(
            status=status,
            headers={"Content-Type": "application/json"},
            chunks=[b'{"error": {"message": "down"}}'],
            framing="length",
        ),
    )
    result = run_with_client(host, lambda client: runner_for(client, sse_server).send(sid, "Still there?"))
    assert result["status"] == "error" and result["error"]["code"] == "compaction_failed"
    assert "summarised" in result["error"]["message"]
    assert len(chat_requests(sse_server)) == 1  # no answer was asked for
    got = host.call("session.get", {"sessionId": sid, "messageLimit": 2})
    assert got["compactions"] == [] and got["session"]["lastTurn"]["errorCode"] == "compaction_failed"


def test_a_stopped_summary_writes_no_checkpoint(host, sse_server):
    sid = seed(host, 600)
    sse_server.serve(
        "/v1/chat/completions", Script(chunks=[sse_body(chunk("SUM"), done=False), b""] + reply("x"), delay=5.0)
    )

    async def body(client):
        runner = runner_for(client, sse_server)
        task = asyncio.ensure_future(runner.send(sid, "Still there?"))
        while not chat_requests(sse_server):
            await asyncio.sleep(0.02)
        await asyncio.sleep(0.1)
        runner.stop(sid)
        return await asyncio.wait_for(task, 10)

    result = run_with_client(host, body)
    # Stopped before any reply text: smart Stop takes the unanswered prompt back into the composer.
    assert result["status"] == "withdrawn"
    assert result["withdrawn"] == {"text": "Still there?", "attachments": []}
    assert host.call("session.get", {"sessionId": sid, "messageLimit": 1})["compactions"] == []
    assert len(chat_requests(sse_server)) == 1


def test_regenerate_and_edit_keep_working_across_a_checkpoint(host, sse_server):
    sid = seed(host, 1000)
    answering(sse_server, SUMMARY, ANSWER)

    async def body(client):
        runner = runner_for(client, sse_server)
        first = await runner.send(sid, "What did we count?")
        answering(sse_server, "Again.")
        again = await runner.regenerate(sid, first["message"]["id"])
        # edit-and-resend of a prompt the checkpoint replaced: the checkpoint goes with the old branch
        record = host.call("session.get", {"sessionId": sid, "messageLimit": 1})["compactions"][-1]
        answering(sse_server, "SUMMARY TWO", "Edited.")
        await client.call("session.truncateFrom", {"sessionId": sid, "messageId": record["throughMessageId"]})
        edited = await runner.send(sid, "Edited question")
        return again, edited

    again, edited = run_with_client(host, body)
    requests = chat_requests(sse_server)
    assert again["status"] == "completed" and again["message"]["blocks"][0]["text"] == "Again."
    regenerated = requests[2].json["messages"]
    assert SUMMARY in regenerated[1]["content"] and regenerated[-1]["content"] == "What did we count?"
    assert edited["status"] == "completed"
    assert all(request_tokens(r) <= budget.input_budget(WINDOW) for r in requests)
    assert requests[-1].json["messages"][-1]["content"] == "Edited question"
    assert "SUMMARY TWO" in requests[-1].json["messages"][1]["content"]
    [record] = host.call("session.get", {"sessionId": sid, "messageLimit": 1})["compactions"]
    assert record["summary"] == "SUMMARY TWO"


def test_compact_now_the_command_and_nothing_to_compact(host, sse_server):
    sid = seed(host, 40)
    answering(sse_server, SUMMARY)

    async def body(client):
        runner = runner_for(client, sse_server, window=32_000)
        record = await runner.compact(sid)
        usage = await runner.context_usage(sid)
        answering(sse_server, "SUMMARY TWO")
        for i, role in ((40, "user"), (41, "assistant")):
            await client.call(
                "session.appendMessage",
                {
                    "sessionId": sid,
                    "message": {"id": f"h{i}", "role": role, "blocks": [{"type": "text", "text": "more"}]},
                },
            )
        command = await runner.send(sid, "/compact")
        with pytest.raises(HostError) as nothing:
            await runner.compact(sid)
        return record, usage, command, nothing.value

    record, usage, command, nothing = run_with_client(host, body)
    assert record["summary"] == SUMMARY and record["firstKeptMessageId"] == "h38"
    assert usage["window"] == 32_000 and usage["tokens"] > 0
    assert command["status"] == "compacted" and command["compaction"]["summary"] == "SUMMARY TWO"
    assert nothing.code == "CONFLICT" and "Nothing to compact" in nothing.message
    got = host.call("session.get", {"sessionId": sid})
    assert len(got["compactions"]) == 2 and got["totalMessages"] == 42  # "/compact" is not a message


def test_the_offline_demo_compacts_without_a_server(host):
    sid = seed(host, 1500)

    async def body(client):
        return await TurnRunner(client, context_window=WINDOW, offline_delay=0).send(sid, "Hello again")

    result = run_with_client(host, body)
    assert result["status"] == "completed"
    [record] = host.call("session.get", {"sessionId": sid, "messageLimit": 1})["compactions"]
    assert "offline demo" in record["summary"] and "Older history was left out" in record["summary"]


@pytest.mark.slow
def test_the_cli_flags(host, sse_server):
    sid = seed(host, 400)
    data_dir = host.location.data_root
    host.stop()
    assert chat_cli(data_dir, "--compact").returncode == 2
    assert chat_cli(data_dir, "--session", sid, "--compact", "hello").returncode == 2
    answering(sse_server, SUMMARY, ANSWER)
    option = ["--base-url", sse_server.base_url, "--model", "gpt-test"]
    done = chat_cli(data_dir, "--session", sid, "--context-window", str(WINDOW), *option, "Where were we?")
    assert done.returncode == 0, done.stderr
    assert ANSWER in done.stdout
    assert len(chat_requests(sse_server)) == 2
    assert all(request_tokens(r) <= budget.input_budget(WINDOW) for r in chat_requests(sse_server))
    answering(sse_server, "SUMMARY TWO")
    compacted = chat_cli(data_dir, "--session", sid, "--compact", *option)
    assert compacted.returncode == 0, compacted.stderr
    assert "compacted: cp-" in compacted.stderr
    assert len(chat_requests(sse_server)) == 3
