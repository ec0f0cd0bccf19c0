"""Chat with any OpenAI-compatible ``/chat/completions`` endpoint (OpenAI, OpenRouter, Ollama, LM Studio, llama.cpp).

Three parts, each usable alone: ``to_openai_messages`` turns stored messages
into the chat format, ``events_from_chunk`` turns one streamed JSON chunk into
stream events, and ``OpenAICompatibleProvider`` does the HTTP.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncGenerator
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from typing import Any
from urllib.parse import urlsplit

import httpx
import orjson

from pidesktop import network_proxy, tool_output
from pidesktop.agent.errors import ProviderError, error_for_status, error_in_stream, redact
from pidesktop.agent.events import Finished, RefusalDelta, StreamEvent, TextDelta, ThinkingDelta, ToolCallDelta, Usage
from pidesktop.agent.sse import SSEDecoder, SSEEvent
from pidesktop.agent.stopping import Stopped, unless_stopped
from pidesktop.bus.errors import ErrorCode
from pidesktop.sizes import human_size

log = logging.getLogger(__name__)

# The app's thinking levels mapped onto the widely supported reasoning_effort values.
REASONING_EFFORT = {"minimal": "low", "low": "low", "medium": "medium", "high": "high", "xhigh": "high", "max": "high"}

CONNECT_TIMEOUT = 10.0


# --- stored messages -> chat messages ---------------------------------------------------------


def to_openai_messages(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Stored messages as OpenAI chat messages.

    Thinking is never sent back. Every tool call gets a ``tool`` message: its
    stored result, or a note that it has none, because the API rejects a
    conversation with an unanswered tool call. Assistant messages with nothing
    to say (a failed turn) are left out.
    """
    converted: list[dict[str, Any]] = []
    unanswered: dict[str, None] = {}  # tool call ids waiting for a result, in order
    for message in messages:
        role = message.get("role")
        blocks = message.get("blocks") or []
        if role == "tool":
            for index, block in enumerate(blocks):
                if block.get("type") == "tool_call" and block.get("result") is not None:
                    call_id = _call_id(message, block, index)
                    converted.append(_tool_message(call_id, block["result"]))
                    unanswered.pop(call_id, None)
            continue
        _answer_unanswered(converted, unanswered)
        if role == "user":
            converted.append({"role": role, "content": _user_content(blocks)})
        elif role == "system":
            converted.append({"role": role, "content": _joined_text(blocks)})
        elif role == "assistant":
            _append_assistant(converted, unanswered, message, blocks)
    _answer_unanswered(converted, unanswered)
    return converted


def _append_assistant(
    converted: list[dict[str, Any]], unanswered: dict[str, None], message: dict[str, Any], blocks: list[dict[str, Any]]
) -> None:
    text = _joined_text(blocks)
    calls = [(index, block) for index, block in enumerate(blocks) if block.get("type") == "tool_call"]
    if not text and not calls:
        return
    entry: dict[str, Any] = {"role": "assistant", "content": text or None}
    if calls:
        entry["tool_calls"] = [
            {
                "id": _call_id(message, block, index),
                "type": "function",
                "function": {"name": block.get("name") or "", "arguments": _arguments_text(block.get("args"))},
            }
            for index, block in calls
        ]
    converted.append(entry)
    pictures: list[str] = []
    for index, block in calls:
        call_id = _call_id(message, block, index)
        if block.get("result") is not None:
            converted.append(_tool_message(call_id, block["result"]))
            pictures += [url for url in map(_data_url, block.get("attachments") or []) if url]
        else:
            unanswered[call_id] = None
    if pictures and not unanswered:
        # A tool message carries text only: the pictures a read returned follow as the next user turn.
        parts = [{"type": "text", "text": "The image(s) returned by the tool call(s) above:"}]
        converted.append({"role": "user", "content": parts + [_image_part(url) for url in pictures]})


def _answer_unanswered(converted: list[dict[str, Any]], unanswered: dict[str, None]) -> None:
    for call_id in unanswered:
        converted.append(_tool_message(call_id, "(no result: the tool call did not complete)"))
    unanswered.clear()


def _user_content(blocks: list[dict[str, Any]]) -> str | list[dict[str, Any]]:
    """A plain string, or content parts (text first, then each image) when images travel inline."""
    images = [url for url in map(_data_url, blocks) if url]
    text = _joined_text(blocks)
    if not images:
        return text
    return [{"type": "text", "text": text}, *({"type": "image_url", "image_url": {"url": url}} for url in images)]


def _image_part(url: str) -> dict[str, object]:
    return {"type": "image_url", "image_url": {"url": url}}


def _data_url(block: dict[str, Any]) -> str | None:
    inline = block.get("inline") if block.get("type") == "attachment" else None
    url = inline.get("dataUrl") if isinstance(inline, dict) else None
    return url if isinstance(url, str) else None


def _joined_text(blocks: list[dict[str, Any]]) -> str:
    parts = []
    for block in blocks:
        kind = block.get("type")
        if kind == "text" and block.get("text"):
            parts.append(block["text"])
        elif kind == "attachment":
            parts.append(_attachment_text(block))
    return "\n\n".join(parts)


def _attachment_text(block: dict[str, Any]) -> str:
    """An attachment as the model reads it: its text under a header, or a header naming it (and its size)."""
    name = block.get("name") or "unnamed"
    inline = block.get("inline")
    if not isinstance(inline, dict):
        inline = {}
    text = block.get("text") or inline.get("text")
    if text:
        return f"[attachment: {name}]\n{text}"
    size = block.get("size")
    if _data_url(block) or not isinstance(size, int) or isinstance(size, bool):
        header = f"[attachment: {name}]"
    else:
        header = f"[attachment: {name}, {human_size(size)}]"
    path = block.get("path")  # a picture the model does not see: a copy its tools can open
    return f"{header} @{path}" if isinstance(path, str) and path and not _data_url(block) else header


def _call_id(message: dict[str, Any], block: dict[str, Any], index: int) -> str:
    return block.get("callId") or f"call_{message.get('id', 'm')}_{index}"


def _arguments_text(args: object) -> str:
    if args is None:
        return "{}"
    return args if isinstance(args, str) else orjson.dumps(args).decode()


def _tool_message(call_id: str, result: object) -> dict[str, Any]:
    content = result if isinstance(result, str) else orjson.dumps(result, default=str).decode()
    return {"role": "tool", "tool_call_id": call_id, "content": tool_output.for_model(content)}


def request_body(
    model: str,
    chat_messages: list[dict[str, Any]],
    *,
    thinking_level: str = "off",
    tools: list[dict[str, Any]] | None = None,
    max_tokens: int | None = None,
    temperature: float | None = None,
) -> dict[str, Any]:
    body: dict[str, Any] = {
        "model": model,
        "messages": chat_messages,
        "stream": True,
        "stream_options": {"include_usage": True},
    }
    if max_tokens is not None:  # set per model in Settings > Providers; else the server's own limit
        body["max_tokens"] = max_tokens
    if temperature is not None:
        body["temperature"] = temperature
    if thinking_level in REASONING_EFFORT:
        body["reasoning_effort"] = REASONING_EFFORT[thinking_level]
    if tools:
        body["tools"] = tools
    return body


# --- streamed chunks -> events ----------------------------------------------------------------


@dataclass
class StreamState:
    """What one stream has told us so far."""

    model: str | None = None
    finish_reason: str | None = None
    done: bool = False
    tool_ids: dict[int, str] = field(default_factory=dict)
    last_tool_index: int = -1

    @property
    def finished(self) -> bool:
        return self.done or self.finish_reason is not None

    def tool_index(self, raw_index: object, call_id: str | None) -> int:
        """The call's index; servers that omit it send whole calls, so a new id means a new call."""
        if isinstance(raw_index, int) and not isinstance(raw_index, bool):
            index = raw_index
        elif call_id and self.tool_ids.get(self.last_tool_index) not in (None, call_id):
            index = self.last_tool_index + 1
        else:
            index = max(self.last_tool_index, 0)
        if call_id:
            self.tool_ids[index] = call_id
        self.last_tool_index = index
        return index


class ChunkShapeError(ValueError):
    """A chunk that is JSON but not shaped like a chat-completion chunk."""


def events_from_chunk(chunk: dict[str, Any], state: StreamState) -> list[StreamEvent]:
    """The events in one ``chat.completion.chunk``; records model and finish reason in ``state``."""
    events: list[StreamEvent] = []
    if isinstance(chunk.get("model"), str) and chunk["model"]:
        state.model = chunk["model"]
    choices = chunk.get("choices") or []
    if not isinstance(choices, list):
        raise ChunkShapeError("choices is not a list")
    for choice in choices:
        if not isinstance(choice, dict):
            raise ChunkShapeError("a choice is not an object")
        if choice.get("index", 0) != 0:
            continue  # only one choice is ever requested
        delta = choice.get("delta") or {}
        if not isinstance(delta, dict):
            raise ChunkShapeError("delta is not an object")
        _delta_events(delta, state, events)
        if choice.get("finish_reason"):
            state.finish_reason = str(choice["finish_reason"])
    usage = chunk.get("usage")
    if isinstance(usage, dict):
        events.append(usage_event(usage))
    return events


def _delta_events(delta: dict[str, Any], state: StreamState, events: list[StreamEvent]) -> None:
    # reasoning_content: DeepSeek, vLLM, llama.cpp; reasoning: Ollama, OpenRouter. Never both at once.
    thinking = _text_field(delta, "reasoning_content") or _text_field(delta, "reasoning")
    if thinking:
        events.append(ThinkingDelta(thinking))
    if content := _text_field(delta, "content"):
        events.append(TextDelta(content))
    if refusal := _text_field(delta, "refusal"):
        events.append(RefusalDelta(refusal))
    calls = delta.get("tool_calls") or []
    if not isinstance(calls, list):
        raise ChunkShapeError("tool_calls is not a list")
    for call in calls:
        if not isinstance(call, dict):
            raise ChunkShapeError("a tool call is not an object")
        function = call.get("function") or {}
        if not isinstance(function, dict):
            raise ChunkShapeError("a tool call's function is not an object")
        call_id = call.get("id") or None
        arguments = function.get("arguments")
        if arguments is not None and not isinstance(arguments, str):
            arguments = orjson.dumps(arguments).decode()  # a few local servers send an object
        events.append(
            ToolCallDelta(
                state.tool_index(call.get("index"), call_id), call_id, function.get("name") or None, arguments or ""
            )
        )


def _text_field(delta: dict[str, Any], name: str) -> str:
    value = delta.get(name)
    if value is None:
        return ""
    if not isinstance(value, str):
        raise ChunkShapeError(f"{name} is not a string")
    return value


def usage_event(usage: dict[str, Any]) -> Usage:
    def count(*names: str) -> int:
        for name in names:
            if isinstance(usage.get(name), (int, float)):
                return int(usage[name])
        return 0

    return Usage(count("prompt_tokens", "input_tokens"), count("completion_tokens", "output_tokens"), usage)


def events_from_completion(completion: dict[str, Any], state: StreamState) -> list[StreamEvent]:
    """The events of a whole (non-streamed) completion, for servers that ignore ``stream: true``."""
    choices = completion.get("choices")
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
        raise ChunkShapeError("no choices")
    message = choices[0].get("message") or {}
    if not isinstance(message, dict):
        raise ChunkShapeError("message is not an object")
    calls = message.get("tool_calls") or []
    if isinstance(calls, list):
        calls = [{**call, "index": index} for index, call in enumerate(calls) if isinstance(call, dict)]
    chunk = {
        **completion,
        "choices": [
            {
                "index": 0,
                "delta": {**message, "tool_calls": calls},
                "finish_reason": choices[0].get("finish_reason") or "stop",
            }
        ],
    }
    return events_from_chunk(chunk, state)


# --- HTTP ---------------------------------------------------------------------------------------


class _Secret:
    """Holds the API key so that no repr, vars() dump or traceback local shows it."""

    __slots__ = ("value",)

    def __init__(self, value: str | None):
        self.value = value or None

    def __repr__(self) -> str:
        return "'***'" if self.value else "None"


class OpenAICompatibleProvider:
    """Streams chat completions from one base URL with one model."""

    def __init__(
        self,
        *,
        base_url: str,
        api_key: str | None,
        model: str,
        label: str = "",
        timeout: float = 60.0,
        extra_headers: dict[str, Any] | None = None,
        client: httpx.AsyncClient | None = None,
        proxy: object = None,
    ):
        self.base_url = base_url.rstrip("/")
        self.model = model
        self.label = label
        self.timeout = timeout
        self._key = _Secret(api_key)
        self._extra_headers = dict(extra_headers or {})
        self._client = client
        self._proxy = proxy  # settings.networkProxy (``network_proxy``); None: the system's
        self._owns_client = client is None
        self.host, self.display_url = _where(self.base_url)
        self.max_tokens: int | None = None  # the model's settings (``model_settings``), set by the runner
        self.temperature: float | None = None

    def __repr__(self) -> str:
        return (
            f"OpenAICompatibleProvider(label={self.label!r}, base_url={self.display_url!r}, "
            f"model={self.model!r}, api_key={'set' if self._key.value else 'none'})"
        )

    # -- public API --

    async def stream(
        self,
        messages: list[dict[str, Any]],
        *,
        thinking_level: str = "off",
        tools: list[dict[str, Any]] | None = None,
        cancel: asyncio.Event | None = None,
    ) -> AsyncGenerator[StreamEvent, None]:
        body = request_body(
            self.model,
            to_openai_messages(messages),
            thinking_level=thinking_level,
            tools=tools,
            max_tokens=self.max_tokens,
            temperature=self.temperature,
        )
        client = self._http()
        request = client.build_request(
            "POST",
            f"{self.base_url}/chat/completions",
            content=orjson.dumps(body),
            headers=self._headers("text/event-stream"),
            timeout=self._timeouts(),
        )
        log.debug("chat request", extra={"fields": {"url": self.display_url, "model": self.model}})
        try:
            response = await unless_stopped(client.send(request, stream=True), cancel)
        except Stopped:
            return
        except httpx.HTTPError as exc:
            raise self._transport_error(exc) from exc
        try:
            if response.status_code >= 400:
                raise await self._status_error(response, cancel)
            content_type = response.headers.get("content-type", "")
            if "json" in content_type and "event-stream" not in content_type:
                for event in await self._whole_completion(response, cancel):
                    yield event
                return
            async with contextlib.aclosing(self._read_stream(response, cancel)) as events:
                async for event in events:
                    yield event
        except Stopped:
            return
        finally:
            await response.aclose()

    async def list_models(self) -> list[dict[str, Any]]:
        """``[{"id", "ownedBy", "contextWindow", "price"}]`` from ``GET {base_url}/models``.

        ``price`` is what the server itself lists (see ``_pricing``), else None.
        """
        url = f"{self.base_url}/models"
        try:
            response = await self._http().get(url, headers=self._headers("application/json"), timeout=self._timeouts())
        except httpx.HTTPError as exc:
            raise self._transport_error(exc) from exc
        if response.status_code == 404:
            # Here a 404 means the base URL is wrong, not that a model is missing.
            raise ProviderError(
                ErrorCode.BAD_REQUEST,
                f"{self.host} has no model list at {self.display_url}/models (404). "
                "Check the base URL in Settings > Providers.",
                404,
            )
        if response.status_code >= 400:
            raise self._error_for_status(response.status_code, response.content, response.headers)
        try:
            payload = orjson.loads(response.content)
        except orjson.JSONDecodeError:
            raise self._bad_response("a model list that is not JSON") from None
        items = payload.get("data", payload.get("models")) if isinstance(payload, dict) else payload
        if not isinstance(items, list):
            raise self._bad_response("a model list without a data array")
        return [
            {
                "id": str(item["id"]),
                "ownedBy": item.get("owned_by"),
                "contextWindow": _context_window(item),
                "price": _pricing(item),
            }
            for item in items
            if isinstance(item, dict) and item.get("id")
        ]

    async def aclose(self) -> None:
        if self._client is not None and self._owns_client:
            await self._client.aclose()
        if self._owns_client:
            self._client = None

    # -- reading --

    async def _read_stream(
        self, response: httpx.Response, cancel: asyncio.Event | None
    ) -> AsyncGenerator[StreamEvent, None]:
        """The events of an event-stream body; the response is closed here, whatever ends the reading.

        httpx reads the body through a chain of async generators, and closing the
        outermost one leaves the inner ones to the garbage collector. Closing the
        response first makes their clean-up a no-op; otherwise a collector running
        outside this task (qasync installs no async-generator hooks) makes httpcore
        print ``Exception ignored ... RuntimeError`` after every reply.
        """
        state = StreamState()
        decoder = SSEDecoder()
        chunks = response.aiter_bytes()
        try:
            while True:
                cut: Exception | None = None
                try:
                    chunk = await unless_stopped(anext(chunks, None), cancel)
                except (httpx.RemoteProtocolError, httpx.ReadError, httpx.TimeoutException) as exc:
                    chunk, cut = None, exc
                if cut is not None:
                    if state.finished:
                        break  # the answer was complete; only the goodbye got lost
                    if isinstance(cut, httpx.TimeoutException):
                        raise self._timeout_error() from cut
                    raise self._stream_cut() from cut
                at_end = chunk is None
                for sse in decoder.close() if chunk is None else decoder.feed(chunk):
                    for event in self._interpret(sse, state, at_end):
                        yield event
                    if state.done:
                        break
                if state.done or at_end:
                    break
            if not state.finished:
                raise self._stream_cut()
            yield Finished(state.finish_reason, state.model)
        finally:
            await response.aclose()  # first: see the docstring
            # httpx types aiter_bytes() as an AsyncIterator; what it returns is an async generator.
            await chunks.aclose()  # type: ignore[attr-defined]

    def _interpret(self, sse: SSEEvent, state: StreamState, at_end: bool) -> list[StreamEvent]:
        data = sse.data.strip()
        if data == "[DONE]":
            state.done = True
            return []
        if not data:
            return []
        try:
            payload = orjson.loads(data)
        except orjson.JSONDecodeError:
            if at_end and not state.finished:
                raise self._stream_cut() from None  # a half-sent last line, not a malformed one
            if at_end:
                return []
            raise self._bad_response(f"a chunk that is not JSON ({_excerpt(data)})") from None
        if sse.event == "error" or (isinstance(payload, dict) and payload.get("error")):
            error = payload.get("error", payload) if isinstance(payload, dict) else payload
            raise error_in_stream(error, host=self.host, model=self.model, secret=self._key.value)
        if not isinstance(payload, dict):
            raise self._bad_response(f"a chunk that is not an object ({_excerpt(data)})")
        try:
            return events_from_chunk(payload, state)
        except ChunkShapeError as exc:
            raise self._bad_response(f"a chunk this app cannot read: {exc}") from None

    async def _whole_completion(self, response: httpx.Response, cancel: asyncio.Event | None) -> list[StreamEvent]:
        try:
            body = await unless_stopped(response.aread(), cancel)
        except httpx.TimeoutException as exc:
            raise self._timeout_error() from exc
        except httpx.HTTPError as exc:
            raise self._stream_cut() from exc
        try:
            payload = orjson.loads(body)
        except orjson.JSONDecodeError:
            raise self._bad_response("a body that is not JSON") from None
        if not isinstance(payload, dict):
            raise self._bad_response("a body that is not an object")
        if payload.get("error"):
            raise error_in_stream(payload["error"], host=self.host, model=self.model, secret=self._key.value)
        state = StreamState()
        try:
            events = events_from_completion(payload, state)
        except ChunkShapeError as exc:
            raise self._bad_response(f"a completion this app cannot read: {exc}") from None
        return [*events, Finished(state.finish_reason, state.model)]

    # -- plumbing --

    def _http(self) -> httpx.AsyncClient:
        if self._client is None:
            self._client = network_proxy.http_client(self._proxy, self.base_url, timeout=self._timeouts())
        return self._client

    def _timeouts(self) -> httpx.Timeout:
        return httpx.Timeout(self.timeout, connect=min(CONNECT_TIMEOUT, self.timeout))

    def _headers(self, accept: str) -> dict[str, Any]:
        headers = {"Accept": accept, "Content-Type": "application/json"}
        if self._key.value:
            headers["Authorization"] = f"Bearer {self._key.value}"
        return {**headers, **self._extra_headers}

    async def _status_error(self, response: httpx.Response, cancel: asyncio.Event | None) -> ProviderError:
        try:
            body = await unless_stopped(response.aread(), cancel)
        except httpx.HTTPError:
            body = b""
        return self._error_for_status(response.status_code, body, response.headers)

    def _error_for_status(self, status: int, body: bytes, headers: httpx.Headers) -> ProviderError:
        return error_for_status(
            status,
            body,
            host=self.host,
            model=self.model,
            retry_after=headers.get("retry-after"),
            secret=self._key.value,
        )

    def _transport_error(self, exc: httpx.HTTPError) -> ProviderError:
        if isinstance(exc, httpx.ConnectTimeout):
            return ProviderError(
                ErrorCode.TIMEOUT,
                f"Could not reach {self.host} within {self._timeouts().connect:g} s. "
                "Check the network and the base URL in Settings > Providers.",
            )
        if isinstance(exc, httpx.TimeoutException):
            return self._timeout_error()
        if isinstance(exc, (httpx.UnsupportedProtocol, httpx.InvalidURL)):
            return ProviderError(
                ErrorCode.CONNECTION_FAILED,
                f"The base URL {self.display_url!r} is not a valid http(s) URL. Fix it in Settings > Providers.",
            )
        return ProviderError(
            ErrorCode.CONNECTION_FAILED,
            f"Could not connect to {self.display_url}. Check that the server is running "
            "and the base URL in Settings > Providers is right.",
        )

    def _timeout_error(self) -> ProviderError:
        return ProviderError(ErrorCode.TIMEOUT, f"{self.host} did not answer within {self.timeout:g} s.")

    def _stream_cut(self) -> ProviderError:
        return ProviderError(
            ErrorCode.STREAM_CUT, f"The connection to {self.host} closed before the reply was finished."
        )

    def _bad_response(self, what: str) -> ProviderError:
        return ProviderError(
            ErrorCode.BAD_RESPONSE,
            redact(f"{self.host} sent {what}. Is the base URL an OpenAI-compatible API?", self._key.value),
        )


def _where(base_url: str) -> tuple[str, str]:
    """``(host, url)`` to show in messages: no user:password, no query (some deployments put keys there)."""
    parts = urlsplit(base_url)
    if not parts.hostname:
        return base_url, base_url
    host = f"[{parts.hostname}]" if ":" in parts.hostname else parts.hostname
    try:
        host += f":{parts.port}" if parts.port else ""
    except ValueError:
        pass  # a malformed port; the request itself will report the bad URL
    return host, f"{parts.scheme}://{host}{parts.path}"


def _context_window(item: dict[str, Any]) -> int | None:
    # OpenAI lists none; OpenRouter: context_length; LM Studio: max_context_length; vLLM: max_model_len.
    for name in ("context_window", "context_length", "max_context_length", "max_model_len"):
        value = item.get(name)
        if isinstance(value, int):
            return value
    top = item.get("top_provider")
    if isinstance(top, dict) and isinstance(top.get("context_length"), int):
        length: int = top["context_length"]
        return length
    return None


def _pricing(item: dict[str, Any]) -> dict[str, Any] | None:
    """``{"inputPerMillion", "outputPerMillion"}`` in USD from a listed ``pricing`` object, or None.

    OpenRouter (and servers copying its listing) give ``pricing: {"prompt": "<USD per token>",
    "completion": "<USD per token>", "request": "<USD per request>", ...}`` as decimal strings. A side
    that is missing, negative (OpenRouter's "-1" means the price varies) or not a number is None. A model
    with a per-request fee that is not zero (or not readable) gets no price at all: its token prices
    alone would give a cost lower than the real one. Charges per image, search and the like are per use
    and not counted.
    """
    pricing = item.get("pricing")
    if not isinstance(pricing, dict):
        return None
    if "request" in pricing and _per_unit(pricing["request"]) != 0:
        return None
    figures = {}
    for side, name in (("inputPerMillion", "prompt"), ("outputPerMillion", "completion")):
        per_token = _per_unit(pricing.get(name))
        # over 1 USD a token is no real price (and the host refuses it); the test also keeps the product finite
        figures[side] = None if per_token is None or per_token > 1 else float(per_token * 1_000_000)
    return figures if any(figure is not None for figure in figures.values()) else None


def _per_unit(value: object) -> Decimal | None:
    """A listed price (a decimal string or a JSON number) as a finite, non-negative Decimal, else None."""
    if isinstance(value, bool) or not isinstance(value, (str, int, float)):
        return None
    text = value.strip() if isinstance(value, str) else repr(value)
    if not text or len(text) > 40 or not text.isascii():
        return None
    try:
        number = Decimal(text)
    except InvalidOperation:
        return None
    return number if number.is_finite() and number >= 0 else None


def _excerpt(text: str, limit: int = 60) -> str:
    return repr(text if len(text) <= limit else text[:limit] + "…")
