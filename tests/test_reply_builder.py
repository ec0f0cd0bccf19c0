"""ReplyBuilder: recorded streams replayed through a real server become the right stored message."""

import asyncio

import orjson
import pytest

from pidesktop.agent.events import Finished, RefusalDelta, TextDelta, ThinkingDelta, ToolCallDelta, Usage
from pidesktop.agent.openai_compat import OpenAICompatibleProvider
from pidesktop.agent.reply import ReplyBuilder
from tests.support.sse_server import collect, fixture_bytes, split_randomly


def replay(server, name: str) -> ReplyBuilder:
    server.stream(split_randomly(fixture_bytes(name), seed=3))
    source = OpenAICompatibleProvider(base_url=server.base_url, api_key="k" * 20, model="gpt-4o")
    events, error = asyncio.run(collect(source))
    assert error is None
    builder = ReplyBuilder("r1", "gpt-4o", "openai")
    for event in events:
        builder.feed(event)
    return builder


def final_usage(name: str) -> dict:
    chunks = [orjson.loads(line[6:]) for line in fixture_bytes(name).splitlines() if line.startswith(b"data: {")]
    return [c["usage"] for c in chunks if c.get("usage")][-1]


def test_plain_text(sse_server):
    builder = replay(sse_server, "plain-text")
    expected = "".join(
        c["choices"][0]["delta"].get("content") or ""
        for c in (
            orjson.loads(line[6:]) for line in fixture_bytes("plain-text").splitlines() if line.startswith(b"data: {")
        )
        if c["choices"]
    )
    assert builder.text == expected and expected.startswith("I'm unable to provide real-time weather")
    assert builder.snapshot("done") == {
        "id": "r1",
        "role": "assistant",
        "blocks": [{"type": "text", "text": expected}],
        "meta": {
            "status": "done",
            "modelId": "gpt-4o",
            "providerId": "openai",
            "usage": final_usage("plain-text"),
            "finishReason": "stop",
        },
    }


def test_single_tool_call(sse_server):
    snapshot = replay(sse_server, "single-tool-call").snapshot("done")
    assert snapshot["blocks"] == [
        {
            "type": "tool_call",
            "callId": "call_4XzlGBLtUe9dy3GVNV4jhq7h",
            "name": "get_weather",
            "args": {"city": "New York City"},
            "status": "aborted",  # a final snapshot: the call was never answered
        }
    ]
    assert snapshot["meta"]["usage"] == final_usage("single-tool-call")
    assert snapshot["meta"]["finishReason"] == "tool_calls"


def test_parallel_tool_calls(sse_server):
    snapshot = replay(sse_server, "parallel-tool-calls").snapshot("done")
    assert [(b["callId"], b["name"], b["args"]) for b in snapshot["blocks"]] == [
        ("call_JMW1whyEaYG438VE1OIflxA2", "GetWeatherArgs", {"city": "Edinburgh", "country": "GB", "units": "c"}),
        ("call_DNYTawLBoN8fj3KN6qU9N1Ou", "get_stock_price", {"ticker": "AAPL", "exchange": "NASDAQ"}),
    ]
    assert snapshot["meta"]["usage"] == final_usage("parallel-tool-calls")


def test_blocks_are_thinking_text_then_tool_calls_in_index_order():
    builder = ReplyBuilder("r", None, "ollama")
    assert not builder.has_content() and builder.snapshot("streaming")["blocks"] == []
    for event in (
        ToolCallDelta(1, "b", "second", '{"n":'),
        ThinkingDelta("hm"),
        TextDelta("Hi"),
        ToolCallDelta(0, None, "first", ""),
        ToolCallDelta(1, None, None, "2}"),
        ThinkingDelta("m"),
    ):
        builder.feed(event)
    assert builder.has_content()
    assert builder.snapshot("streaming")["blocks"] == [
        {"type": "thinking", "text": "hmm"},
        {"type": "text", "text": "Hi"},
        {"type": "tool_call", "callId": "call_r_0", "name": "first", "args": {}, "status": "pending"},
        {"type": "tool_call", "callId": "b", "name": "second", "args": {"n": 2}, "status": "pending"},
    ]
    builder.feed(Finished("stop", "qwen3"))
    assert builder.snapshot("done")["meta"] == {
        "status": "done",
        "modelId": "qwen3",
        "providerId": "ollama",
        "finishReason": "stop",
    }


def test_partial_arguments_stay_a_string():
    builder = ReplyBuilder("r", "m", "p")
    builder.feed(ToolCallDelta(0, "c", "f", '{"city": "Par'))
    assert builder.tool_calls[0]["args"] == '{"city": "Par'


@pytest.mark.parametrize("before", ["", "Sure. "])
def test_a_refusal_is_stored_as_the_answer(before):
    builder = ReplyBuilder("r", "m", "p")
    if before:
        builder.feed(TextDelta(before))
    builder.feed(RefusalDelta("I can't help with that."))
    builder.feed(Usage(1, 2, {"prompt_tokens": 1}))
    snapshot = builder.snapshot("done")
    assert snapshot["blocks"] == [
        {"type": "text", "text": f"{before}\n\nI can't help with that." if before else "I can't help with that."}
    ]
    assert snapshot["meta"]["refusal"] is True and snapshot["meta"]["usage"] == {"prompt_tokens": 1}
