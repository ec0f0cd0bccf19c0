"""Steering a running turn and smart Stop (spec 004 section 5, SR-1, W.20), against a real host and HTTP server."""

import asyncio

from pidesktop.agent.runner import ProviderChoice, TurnRunner
from pidesktop.bus import HostClient
from tests.support.sse_server import Script, chunk, sse_body


def slow_reply(words: int, delay: float = 0.02) -> Script:
    pieces = [sse_body(chunk(f"w{i} "), done=False) for i in range(words)] + [sse_body(chunk(finish="stop"))]
    return Script(chunks=pieces, delay=delay)


def quick_reply(text: str) -> Script:
    return Script(chunks=[sse_body(chunk(text), chunk(finish="stop"))])


def texts(message: dict) -> str:
    return "".join(block.get("text", "") for block in message["blocks"] if block.get("type") == "text")


async def until(condition, what: str) -> None:
    """Wait on ``condition`` (checked on every loop turn), failing with ``what`` after a generous bound."""
    for _ in range(20000):
        if condition():
            return
        await asyncio.sleep(0.001)
    raise AssertionError(f"never happened: {what}")


def scenario(host, server, body):
    async def run():
        client = HostClient(host.thread, asyncio.get_running_loop())
        runner = TurnRunner(client, override=ProviderChoice(base_url=server.base_url, model="m", api_key="k"))
        seen: list[tuple[str, dict | None]] = []
        runner.listeners.append(lambda _sid, phase, message: seen.append((phase, message)))
        sid = (await client.call("session.create", {}))["session"]["id"]
        try:
            return sid, await body(runner, sid, seen)
        finally:
            client.close()

    return asyncio.run(run())


def phases(seen, name):
    return [message for phase, message in seen if phase == name]


def test_a_steering_prompt_joins_the_running_turn_at_its_next_request(host, sse_server):
    sse_server.serve_in_turn("/v1/chat/completions", slow_reply(40), quick_reply("Noted, with rain."))

    async def body(runner, sid, seen):
        task = asyncio.create_task(runner.send(sid, "Tell me about the weather"))
        await until(lambda: len(phases(seen, "delta")) >= 3, "the reply streams")
        steered = await runner.steer(sid, "Also mention the rain")
        assert steered["steering"]["content"] == "Also mention the rain"
        return await asyncio.wait_for(task, 30)

    sid, result = scenario(host, sse_server, body)
    assert result["status"] == "completed"
    got = host.call("session.get", {"sessionId": sid})
    roles = [(m["role"], (m.get("meta") or {}).get("steering", False)) for m in got["messages"]]
    assert roles == [("user", False), ("assistant", False), ("user", True), ("assistant", False)]
    assert texts(got["messages"][1]).startswith("w0 w1") and "w39" in texts(got["messages"][1])
    assert texts(got["messages"][2]) == "Also mention the rain"
    assert texts(got["messages"][3]) == "Noted, with rain."
    # one turn: the steering prompt did not wait for a turn of its own
    assert got["session"]["lastTurn"]["id"] == result["turn"]["id"]
    second = sse_server.requests[1].json["messages"]
    assert second[-1] == {"role": "user", "content": "Also mention the rain"}
    assert second[-2]["role"] == "assistant" and "w39" in second[-2]["content"]
    assert len(sse_server.requests) == 2
    assert host.call("session.queueList", {"sessionId": sid})["entries"] == []


def test_stop_before_any_answer_takes_the_prompt_back(host, sse_server):
    sse_server.stream([sse_body(chunk("too late"), chunk(finish="stop"))], wait_before_headers=30)

    async def body(runner, sid, seen):
        task = asyncio.create_task(runner.send(sid, "Never mind this one"))
        await until(lambda: phases(seen, "started") and sse_server.requests, "the request is on its way")
        runner.stop(sid)
        return await asyncio.wait_for(task, 30)

    sid, result = scenario(host, sse_server, body)
    seen_result = result
    assert seen_result["status"] == "withdrawn"
    assert seen_result["withdrawn"] == {"text": "Never mind this one", "attachments": []}
    got = host.call("session.get", {"sessionId": sid})
    assert got["messages"] == []  # the only rewrite Stop makes
    assert got["session"]["lastTurn"]["status"] == "aborted"
    assert host.call("notifications.list")["notifications"] == []


def test_stop_after_the_reply_began_keeps_the_prompt_and_returns_an_unsent_steering_prompt(
    host,
    sse_server,
):
    sse_server.stream(slow_reply(400).chunks, delay=0.02)

    async def body(runner, sid, seen):
        task = asyncio.create_task(runner.send(sid, "Write a long story"))
        await until(lambda: len(phases(seen, "delta")) >= 3, "the reply streams")
        await runner.steer(sid, "Make it shorter")
        runner.stop(sid)
        return await asyncio.wait_for(task, 30), seen

    sid, (result, seen) = scenario(host, sse_server, body)
    assert result["status"] == "aborted"
    assert result["withdrawn"] == {"text": "Make it shorter", "attachments": []}
    assert phases(seen, "withdrawn") == [{"text": "Make it shorter", "attachments": []}]
    got = host.call("session.get", {"sessionId": sid})
    assert [m["role"] for m in got["messages"]] == ["user", "assistant"]
    assert texts(got["messages"][0]) == "Write a long story"
    assert got["messages"][1]["meta"]["status"] == "aborted"
    # the steering prompt did not become a turn of its own after Stop
    assert host.call("session.queueList", {"sessionId": sid})["entries"] == []
    assert len(sse_server.requests) == 1


def test_stop_before_a_steering_prompt_is_answered_takes_only_it_back(host, sse_server):
    waiting = Script(chunks=[sse_body(chunk("too late"), chunk(finish="stop"))], wait_before_headers=30)
    sse_server.serve_in_turn("/v1/chat/completions", slow_reply(20), waiting)

    async def body(runner, sid, seen):
        task = asyncio.create_task(runner.send(sid, "First question"))
        await until(lambda: len(phases(seen, "delta")) >= 3, "the reply streams")
        await runner.steer(sid, "And a follow-up")
        await until(lambda: len(sse_server.requests) == 2, "the steering prompt is sent")
        runner.stop(sid)
        return await asyncio.wait_for(task, 30)

    sid, result = scenario(host, sse_server, body)
    assert result["status"] == "withdrawn"
    assert result["withdrawn"]["text"] == "And a follow-up"
    got = host.call("session.get", {"sessionId": sid})
    assert [m["role"] for m in got["messages"]] == ["user", "assistant"]
    assert got["messages"][1]["meta"]["status"] == "completed"
    assert texts(got["messages"][0]) == "First question"


def test_steering_an_idle_chat_sends_it_as_a_prompt(host, sse_server):
    sse_server.stream([sse_body(chunk("Hello"), chunk(finish="stop"))])

    async def body(runner, sid, seen):
        return await runner.steer(sid, "Hi")

    sid, result = scenario(host, sse_server, body)
    assert result["status"] == "completed"
    got = host.call("session.get", {"sessionId": sid})
    assert [texts(m) for m in got["messages"]] == ["Hi", "Hello"]


def test_a_steering_prompt_removed_from_the_queue_is_not_sent(host, sse_server):
    sse_server.serve_in_turn("/v1/chat/completions", slow_reply(30), quick_reply("never asked"))

    async def body(runner, sid, seen):
        task = asyncio.create_task(runner.send(sid, "Tell me about the weather"))
        await until(lambda: len(phases(seen, "delta")) >= 3, "the reply streams")
        entry = (await runner.steer(sid, "Actually, never mind"))["steering"]
        await runner.client.call("session.queueRemove", {"sessionId": sid, "entryId": entry["id"]})
        return await asyncio.wait_for(task, 30)

    sid, result = scenario(host, sse_server, body)
    assert result["status"] == "completed" and result["withdrawn"] is None
    got = host.call("session.get", {"sessionId": sid})
    assert [m["role"] for m in got["messages"]] == ["user", "assistant"]
    assert len(sse_server.requests) == 1
