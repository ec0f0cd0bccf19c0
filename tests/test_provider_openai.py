"""The OpenAI-compatible provider against a real local HTTP server: request shape, streams, failures, cancel."""

import asyncio
import time

import orjson
import pytest

from pidesktop.agent.errors import ProviderError
from pidesktop.agent.events import Finished, RefusalDelta, TextDelta, ThinkingDelta, ToolCallDelta, Usage
from pidesktop.agent.openai_compat import (
    OpenAICompatibleProvider,
    StreamState,
    events_from_chunk,
    request_body,
    to_openai_messages,
)
from pidesktop.agent.presets import PRESETS
from tests.support.sse_server import (
    FIXTURE_NAMES,
    HELLO,
    Script,
    chunk,
    closed_port,
    collect,
    fixture_bytes,
    split_every,
    split_randomly,
    sse_body,
    usage_chunk,
    with_endings,
)

KEY = "sk-test-SECRET-0123456789abcdef"
PLAIN_TEXT = (
    "I'm unable to provide real-time weather updates. To get the current weather in San Francisco, "
    "I recommend checking a reliable weather website or a weather app."
)


def provider(server, **options) -> OpenAICompatibleProvider:
    settings = {"base_url": server.base_url + "/", "api_key": KEY, "model": "test-model", "label": "Test"}
    return OpenAICompatibleProvider(**(settings | options))


def run(server, **options):
    stream_options = {k: options.pop(k) for k in ("thinking_level", "tools", "cancel", "messages") if k in options}
    messages = stream_options.pop("messages", None)
    return asyncio.run(collect(provider(server, **options), messages, **stream_options))


def texts(events, kind=TextDelta) -> str:
    return "".join(e.text for e in events if isinstance(e, kind))


def assert_secret_free(error: ProviderError):
    for shown in (error.message, str(error), repr(error)):
        assert KEY not in shown


# --- the request -----------------------------------------------------------------------------------


def test_request_shape_with_a_key(sse_server):
    sse_server.stream([sse_body(chunk("hi", finish="stop"))])
    run(sse_server, extra_headers={"X-Title": "pidesktop"}, tools=[{"type": "function", "function": {"name": "f"}}])
    [request] = sse_server.requests
    assert (request.method, request.path) == ("POST", "/v1/chat/completions")
    assert request.headers["authorization"] == f"Bearer {KEY}"
    assert request.headers["x-title"] == "pidesktop"
    assert request.json == {
        "model": "test-model",
        "messages": [{"role": "user", "content": "Hello"}],
        "stream": True,
        "stream_options": {"include_usage": True},
        "tools": [{"type": "function", "function": {"name": "f"}}],
    }


def test_no_authorization_header_without_a_key(sse_server):
    sse_server.stream([sse_body(chunk("hi", finish="stop"))])
    run(sse_server, api_key=None)
    assert "authorization" not in sse_server.requests[0].headers


@pytest.mark.parametrize(
    "level, effort",
    [
        ("off", None),
        ("omit", None),
        ("minimal", "low"),
        ("low", "low"),
        ("medium", "medium"),
        ("high", "high"),
        ("xhigh", "high"),
        ("max", "high"),
    ],
)
def test_thinking_levels_map_to_reasoning_effort(level, effort):
    body = request_body("m", [], thinking_level=level, tools=[])
    assert body.get("reasoning_effort") == effort
    assert "tools" not in body


# --- recorded streams ----------------------------------------------------------------------------


def _variants(raw: bytes) -> dict[str, tuple[list[bytes], dict]]:
    crlf = with_endings(raw, b"\r\n")
    return {
        "whole": ([raw], {}),
        "1-byte": (split_every(raw, 1), {}),
        "random": (split_randomly(raw, seed=7), {}),
        "crlf random": (split_randomly(crlf, seed=11), {}),
        "crlf content-length": (split_randomly(crlf, seed=13), {"framing": "length"}),
    }


@pytest.mark.parametrize("name", FIXTURE_NAMES)
def test_recorded_streams_give_the_same_events_however_they_are_chunked(sse_server, name):
    raw = fixture_bytes(name)
    results = {}
    for variant, (chunks, options) in _variants(raw).items():
        sse_server.stream(chunks, **options)
        events, error = run(sse_server)
        assert error is None, variant
        results[variant] = events
    whole = results["whole"]
    assert all(events == whole for events in results.values())
    assert whole[-1] == Finished("stop" if name == "plain-text" else "tool_calls", "gpt-4o-2024-08-06")
    assert isinstance(whole[-2], Usage) and whole[-2].raw["completion_tokens_details"] == {"reasoning_tokens": 0}


def test_plain_text_recording(sse_server):
    sse_server.stream([fixture_bytes("plain-text")])
    events, error = run(sse_server)
    assert error is None
    assert texts(events) == PLAIN_TEXT
    assert events[-2] == Usage(
        14,
        30,
        {
            "prompt_tokens": 14,
            "completion_tokens": 30,
            "total_tokens": 44,
            "completion_tokens_details": {"reasoning_tokens": 0},
        },
    )


def test_parallel_tool_call_recording(sse_server):
    sse_server.stream([fixture_bytes("parallel-tool-calls")])
    events, _ = run(sse_server)
    calls = [e for e in events if isinstance(e, ToolCallDelta)]
    assert [(c.index, c.id, c.name) for c in calls if c.id] == [
        (0, "call_JMW1whyEaYG438VE1OIflxA2", "GetWeatherArgs"),
        (1, "call_DNYTawLBoN8fj3KN6qU9N1Ou", "get_stock_price"),
    ]
    assert "".join(c.arguments for c in calls if c.index == 1) == '{"ticker": "AAPL", "exchange": "NASDAQ"}'


def test_slow_drip_still_assembles(sse_server):
    sse_server.stream(split_every(fixture_bytes("plain-text"), 61), delay=0.002)
    events, error = run(sse_server)
    assert error is None and texts(events) == PLAIN_TEXT


def test_non_ascii_text_split_inside_characters(sse_server):
    body = sse_body(chunk("héllo "), chunk("wörld 🌍"), chunk(finish="stop"))
    sse_server.stream(split_every(body, 1))
    events, _ = run(sse_server)
    assert texts(events) == "héllo wörld 🌍"


# --- stream content --------------------------------------------------------------------------------


def test_keep_alive_comments_are_skipped(sse_server):
    body = (
        b": OPENROUTER PROCESSING\n\n"
        + sse_body(chunk("a"), done=False)
        + b":\n\n: keep-alive\n\n"
        + sse_body(chunk("b", finish="stop"))
    )
    sse_server.stream([body[:30], body[30:]])
    events, error = run(sse_server)
    assert error is None and texts(events) == "ab"


def test_reasoning_content_and_reasoning_become_thinking(sse_server):
    sse_server.stream(
        [
            sse_body(
                chunk(reasoning_content="Let me "),
                chunk(reasoning="think."),
                chunk("Answer", reasoning=None),
                chunk(finish="stop"),
                usage_chunk(
                    completion_tokens_details={"reasoning_tokens": 3}, prompt_tokens_details={"cached_tokens": 2}
                ),
            )
        ]
    )
    events, _ = run(sse_server, thinking_level="high")
    assert [type(e) for e in events] == [ThinkingDelta, ThinkingDelta, TextDelta, Usage, Finished]
    assert texts(events, ThinkingDelta) == "Let me think."
    assert events[3].raw["prompt_tokens_details"] == {"cached_tokens": 2}
    assert sse_server.requests[0].json["reasoning_effort"] == "high"


def test_refusal(sse_server):
    sse_server.stream([sse_body(chunk(refusal="I can't help"), chunk(refusal=" with that."), chunk(finish="stop"))])
    events, _ = run(sse_server)
    assert texts(events, RefusalDelta) == "I can't help with that."
    assert events[-1] == Finished("stop", "test-model")


def test_tool_calls_without_index_are_told_apart_by_id():
    state = StreamState()
    events = []
    for call_id, name in (("a", "first"), ("b", "second")):
        events += events_from_chunk(
            chunk(tool_calls=[{"id": call_id, "function": {"name": name, "arguments": {"x": 1}}}]), state
        )
    assert [(e.index, e.id, e.name, e.arguments) for e in events] == [
        (0, "a", "first", '{"x":1}'),
        (1, "b", "second", '{"x":1}'),
    ]


def test_a_whole_json_completion_is_accepted(sse_server):
    completion = {
        "model": "m2",
        "choices": [
            {
                "index": 0,
                "finish_reason": "stop",
                "message": {"role": "assistant", "content": "Whole", "reasoning_content": "hmm"},
            }
        ],
        "usage": {"prompt_tokens": 1},
    }
    sse_server.serve(
        "/v1/chat/completions",
        Script(headers={"Content-Type": "application/json"}, chunks=[orjson.dumps(completion)], framing="length"),
    )
    events, error = run(sse_server)
    assert error is None
    assert events == [
        ThinkingDelta("hmm"),
        TextDelta("Whole"),
        Usage(1, 0, {"prompt_tokens": 1}),
        Finished("stop", "m2"),
    ]


# --- how streams end ---------------------------------------------------------------------------------


def test_finish_reason_then_clean_close_without_done_is_finished(sse_server):
    sse_server.stream([sse_body(chunk("all"), chunk(finish="length"), done=False)], framing="close")
    events, error = run(sse_server)
    assert error is None and events[-1] == Finished("length", "test-model")


def test_finish_reason_then_abrupt_close_is_finished(sse_server):
    sse_server.stream([sse_body(chunk("all"), chunk(finish="stop"), done=False), b'data: {"id"'], drop_after=2)
    events, error = run(sse_server)
    assert error is None and events == [TextDelta("all"), Finished("stop", "test-model")]


def test_cut_mid_chunk_before_finish_is_stream_cut_after_the_earlier_deltas(sse_server):
    body = sse_body(chunk("one "), chunk("two "), chunk("three", finish="stop"))
    cut = body.index(b"three") - 10
    sse_server.stream([body[:cut], body[cut:]], drop_after=1)
    events, error = run(sse_server)
    assert texts(events) == "one two "
    assert error.code == "stream_cut" and "127.0.0.1" in error.message


def test_close_delimited_body_ending_mid_line_is_stream_cut(sse_server):
    sse_server.stream([sse_body(chunk("one "), done=False) + b'data: {"choi'], framing="close")
    events, error = run(sse_server)
    assert texts(events) == "one " and error.code == "stream_cut"


def test_malformed_json_chunk_is_bad_response(sse_server):
    sse_server.stream([sse_body(chunk("ok "), "{not json", chunk("never"))])
    events, error = run(sse_server)
    assert texts(events) == "ok " and error.code == "bad_response"


def test_wrongly_shaped_chunk_is_bad_response(sse_server):
    sse_server.stream([sse_body({"choices": [{"index": 0, "delta": "oops"}]})])
    assert run(sse_server)[1].code == "bad_response"


def test_error_object_mid_stream_is_provider_error_after_the_partial_text(sse_server):
    error_event = {"error": {"message": f"Upstream overloaded (key {KEY})", "type": "server_error", "code": 502}}
    sse_server.stream([sse_body(chunk("Partial "), chunk("answer"), error_event)])
    events, error = run(sse_server)
    assert texts(events) == "Partial answer"
    assert error.code == "provider_error" and "Upstream overloaded" in error.message
    assert_secret_free(error)


def test_error_event_saying_the_model_is_missing_is_model_not_found(sse_server):
    sse_server.stream([b'event: error\ndata: {"error": {"message": "model \\"qwen9\\" not found"}}\n\n'])
    assert run(sse_server)[1].code == "model_not_found"


# --- HTTP errors -------------------------------------------------------------------------------------


def _error_script(status: int, body: object, headers: dict | None = None) -> Script:
    content = body if isinstance(body, bytes) else orjson.dumps(body)
    return Script(
        status=status,
        headers={"Content-Type": "application/json", **(headers or {})},
        chunks=[content],
        framing="length",
    )


@pytest.mark.parametrize(
    "status, body, headers, code, words",
    [
        (
            401,
            {
                "error": {
                    "message": f"Incorrect API key provided: {KEY}.",
                    "type": "invalid_request_error",
                    "code": "invalid_api_key",
                }
            },
            {},
            "auth_failed",
            ["The API key was rejected by 127.0.0.1:", "(401)", "Settings > Providers"],
        ),
        (403, {"error": "forbidden"}, {}, "auth_failed", ["(403)"]),
        (
            404,
            {"error": {"message": "The model `gpt-9` does not exist", "code": "model_not_found"}},
            {},
            "model_not_found",
            ["test-model", "does not exist"],
        ),
        (
            400,
            {"error": {"message": "The model `x` does not exist or you do not have access to it."}},
            {},
            "model_not_found",
            ["does not exist"],
        ),
        (
            429,
            {"error": {"message": "Rate limit reached for requests"}},
            {"Retry-After": "7"},
            "rate_limited",
            ["Rate limit reached", "7 s"],
        ),
        (
            500,
            {"error": {"message": "The server had an error"}},
            {},
            "provider_unavailable",
            ["(500)", "The server had an error"],
        ),
        (503, b"<html><body>Bad gateway</body></html>", {}, "provider_unavailable", ["(503)"]),
        (
            400,
            {"error": {"message": "messages: field required", "type": "invalid_request_error"}},
            {},
            "bad_request",
            ["(400)", "messages: field required"],
        ),
    ],
)
def test_http_errors_map_to_codes(sse_server, status, body, headers, code, words):
    sse_server.serve("/v1/chat/completions", _error_script(status, body, headers))
    events, error = run(sse_server)
    assert events == []
    assert (error.code, error.status) == (code, status)
    for word in words:
        assert word in error.message
    assert_secret_free(error)
    if code == "rate_limited":
        assert error.retry_after == 7


def test_connection_refused_is_connection_failed():
    base_url = f"http://127.0.0.1:{closed_port()}/v1"
    events, error = asyncio.run(collect(OpenAICompatibleProvider(base_url=base_url, api_key=KEY, model="m")))
    assert events == [] and error.code == "connection_failed" and base_url in error.message
    assert_secret_free(error)


def test_no_answer_within_the_timeout_is_timeout(sse_server):
    sse_server.stream([sse_body(chunk("late"))], wait_before_headers=5)
    started = time.monotonic()
    events, error = run(sse_server, timeout=0.2)
    assert error.code == "timeout" and time.monotonic() - started < 2


def test_a_stall_mid_stream_is_timeout_after_the_earlier_deltas(sse_server):
    sse_server.stream([sse_body(chunk("early"), done=False), sse_body(chunk(finish="stop"))], delay=5)
    events, error = run(sse_server, timeout=0.2)
    assert texts(events) == "early" and error.code == "timeout"


def test_the_key_never_shows_in_repr():
    shown = repr(OpenAICompatibleProvider(base_url="https://user:pw@api.example.com/v1?k=1", api_key=KEY, model="m"))
    assert KEY not in shown and "pw" not in shown and "api_key=set" in shown


# --- cancel ------------------------------------------------------------------------------------------


def test_cancel_mid_stream_returns_promptly_without_finished(sse_server):
    sse_server.stream([sse_body(chunk("first"), done=False), sse_body(chunk("second", finish="stop"))], delay=5)

    async def scenario():
        cancel = asyncio.Event()
        received = []

        async def consume():
            async for event in provider(sse_server).stream(HELLO, cancel=cancel):
                received.append(event)

        task = asyncio.create_task(consume())
        while not received:
            await asyncio.sleep(0.005)
        started = time.monotonic()
        cancel.set()
        await asyncio.wait_for(task, 2)
        return received, time.monotonic() - started

    received, took = asyncio.run(scenario())
    assert received == [TextDelta("first")] and took < 0.5


def test_cancel_while_waiting_for_headers_returns_promptly(sse_server):
    sse_server.stream([sse_body(chunk("late"))], wait_before_headers=5)

    async def scenario():
        cancel = asyncio.Event()
        asyncio.get_running_loop().call_later(0.1, cancel.set)
        started = time.monotonic()
        events, error = await collect(provider(sse_server), cancel=cancel)
        return events, error, time.monotonic() - started

    events, error, took = asyncio.run(scenario())
    assert (events, error) == ([], None) and took < 1


def test_cancel_set_before_the_call_sends_nothing(sse_server):
    async def scenario():
        cancel = asyncio.Event()
        cancel.set()
        return await collect(provider(sse_server), cancel=cancel)

    assert asyncio.run(scenario()) == ([], None)
    assert sse_server.requests == []


# --- models and presets ------------------------------------------------------------------------------


def test_list_models(sse_server):
    models = {
        "object": "list",
        "data": [
            {"id": "gpt-4o", "object": "model", "owned_by": "openai"},
            {"id": "meta/llama-3", "owned_by": "meta", "context_length": 131072},
            {"object": "model"},
        ],
    }
    sse_server.serve("/v1/models", _error_script(200, models))

    async def scenario():
        source = provider(sse_server)
        try:
            return await source.list_models()
        finally:
            await source.aclose()

    assert asyncio.run(scenario()) == [
        {"id": "gpt-4o", "ownedBy": "openai", "contextWindow": None, "price": None},
        {"id": "meta/llama-3", "ownedBy": "meta", "contextWindow": 131072, "price": None},
    ]
    [request] = sse_server.requests
    assert (request.method, request.path, request.headers["authorization"]) == ("GET", "/v1/models", f"Bearer {KEY}")


@pytest.mark.parametrize("status, code", [(401, "auth_failed"), (404, "bad_request"), (500, "provider_unavailable")])
def test_list_models_errors(sse_server, status, code):
    sse_server.serve("/v1/models", _error_script(status, {"error": {"message": "nope"}}))

    async def scenario():
        source = provider(sse_server)
        try:
            with pytest.raises(ProviderError) as info:
                await source.list_models()
            return info.value
        finally:
            await source.aclose()

    assert asyncio.run(scenario()).code == code


def test_presets():
    assert {key: (p.base_url, p.needs_key) for key, p in PRESETS.items()} == {
        "openai": ("https://api.openai.com/v1", True),
        "openrouter": ("https://openrouter.ai/api/v1", True),
        "ollama": ("http://localhost:11434/v1", False),
        "lmstudio": ("http://localhost:1234/v1", False),
        "llamacpp": ("http://localhost:8080/v1", False),
    }
    assert all(p.id == key and p.name for key, p in PRESETS.items())


# --- stored messages -> chat messages -------------------------------------------------------------


def test_to_openai_messages():
    stored = [
        {"id": "s", "role": "system", "blocks": [{"type": "text", "text": "Be brief."}]},
        {
            "id": "u1",
            "role": "user",
            "blocks": [
                {"type": "text", "text": "Summarise these."},
                {"type": "attachment", "name": "notes.txt", "text": "alpha beta"},
                {"type": "attachment", "name": "photo.png"},
            ],
        },
        {
            "id": "a1",
            "role": "assistant",
            "blocks": [
                {"type": "thinking", "text": "never sent"},
                {"type": "text", "text": "Checking."},
                {
                    "type": "tool_call",
                    "callId": "c1",
                    "name": "read",
                    "args": {"path": "a"},
                    "result": "A",
                    "status": "ok",
                },
                {
                    "type": "tool_call",
                    "callId": "c2",
                    "name": "stat",
                    "args": {"path": "b"},
                    "result": {"size": 3},
                    "status": "ok",
                },
                {"type": "tool_call", "callId": "c3", "name": "slow", "args": None, "status": "running"},
            ],
        },
        {
            "id": "t1",
            "role": "tool",
            "blocks": [{"type": "tool_call", "callId": "c3", "name": "slow", "args": None, "result": ["done"]}],
        },
        {"id": "a2", "role": "assistant", "blocks": [{"type": "thinking", "text": "only thinking"}]},
        {"id": "a3", "role": "assistant", "blocks": [{"type": "tool_call", "name": "ls", "args": '{"d":1}'}]},
        {"id": "u2", "role": "user", "blocks": [{"type": "text", "text": "Thanks"}]},
    ]
    assert to_openai_messages(stored) == [
        {"role": "system", "content": "Be brief."},
        {
            "role": "user",
            "content": "Summarise these.\n\n[attachment: notes.txt]\nalpha beta\n\n[attachment: photo.png]",
        },
        {
            "role": "assistant",
            "content": "Checking.",
            "tool_calls": [
                {"id": "c1", "type": "function", "function": {"name": "read", "arguments": '{"path":"a"}'}},
                {"id": "c2", "type": "function", "function": {"name": "stat", "arguments": '{"path":"b"}'}},
                {"id": "c3", "type": "function", "function": {"name": "slow", "arguments": "{}"}},
            ],
        },
        {"role": "tool", "tool_call_id": "c1", "content": "A"},
        {"role": "tool", "tool_call_id": "c2", "content": '{"size":3}'},
        {"role": "tool", "tool_call_id": "c3", "content": '["done"]'},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [{"id": "call_a3_0", "type": "function", "function": {"name": "ls", "arguments": '{"d":1}'}}],
        },
        {"role": "tool", "tool_call_id": "call_a3_0", "content": "(no result: the tool call did not complete)"},
        {"role": "user", "content": "Thanks"},
    ]
