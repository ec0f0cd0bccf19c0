"""Deeply nested JSON: refused at the door naming the field, and the stdio bus answers every request."""

from __future__ import annotations

import json

import orjson
import pytest

from pidesktop.bus import ErrorCode, HostError
from pidesktop.bus.stdio import encode
from pidesktop.host.params import MAX_DEPTH
from tests.support.host_helpers import msg, new_session


def nested(levels: int) -> dict:
    """An object ``levels`` deep (the outermost counts as one)."""
    value: dict = {"leaf": True}
    for _ in range(levels - 1):
        value = {"inner": value}
    return value


def with_meta(levels: int, mid: str) -> dict:
    # the message is level 1, meta level 2, so meta's value nests levels - 1 more
    return msg(mid, meta=nested(levels - 1))


def test_a_message_at_the_limit_is_stored_and_reads_back_over_stdio(stdio_host):
    host = stdio_host()
    sid = new_session(host)
    host.call("session.appendMessage", {"sessionId": sid, "message": with_meta(MAX_DEPTH, "m1")})
    messages = host.call("session.get", {"sessionId": sid})["messages"]
    assert [m["id"] for m in messages] == ["m1"]
    assert host.close() == 0


@pytest.mark.parametrize("levels", [MAX_DEPTH + 1, 250, 300])
def test_a_deeper_message_is_refused_naming_the_field_and_the_chat_stays_readable(stdio_host, levels):
    host = stdio_host()
    sid = new_session(host)
    params = {"sessionId": sid, "message": with_meta(levels, "deep")}
    # the standard library writes deeper JSON than orjson does, as another client might
    host.send_raw(
        json.dumps({"jsonrpc": "2.0", "id": "deep", "method": "session.appendMessage", "params": params}).encode()
    )
    reply = host.reply_to("deep")
    error = reply["error"]
    assert error["data"]["code"] == ErrorCode.INVALID_PARAMS
    assert error["data"]["field"].startswith("message.meta.inner")
    assert f"more than {MAX_DEPTH} levels" in error["message"]
    assert host.call("session.get", {"sessionId": sid})["messages"] == []
    assert host.call("session.list", {})["sessions"][0]["messageCount"] == 0
    assert host.close() == 0


def test_the_in_process_host_refuses_the_same(host):
    sid = new_session(host)
    with pytest.raises(HostError) as refused:
        host.call("session.appendMessage", {"sessionId": sid, "message": with_meta(MAX_DEPTH + 1, "deep")})
    assert refused.value.code == ErrorCode.INVALID_PARAMS


@pytest.mark.parametrize(
    "method, params, field",
    [
        ("settings.set", {"patch": {"composerDrafts": "DEEP"}}, "patch.composerDrafts"),
        (
            "session.saveInflightMessage",
            {"turnId": "t1", "message": {**msg("r1", "assistant"), "meta": "DEEP"}},
            "message.meta",
        ),
        (
            "session.saveInflightMessage",
            {"turnId": "t1", "message": msg("r1", "assistant", blocks=[{"type": "toolCall", "arguments": "DEEP"}])},
            "message.blocks[0].arguments",
        ),
        (
            "session.appendCompaction",
            {"compaction": {"id": "c1", "throughMessageId": "u1", "summary": "s", "details": "DEEP"}},
            "compaction.details",
        ),
        ("session.replaceMessages", {"messages": [msg("u1", meta="DEEP")]}, "messages[0].meta"),
    ],
)
def test_every_command_taking_json_values_refuses_the_same_and_stores_nothing(host, method, params, field):
    """Meta, settings, in-flight checkpoints and compactions, not only an appended message."""
    sid = new_session(host)
    host.call("session.appendMessage", {"sessionId": sid, "message": msg("u1")})
    host.call("session.startTurn", {"sessionId": sid, "turnId": "t1"})
    before = (host.call("settings.get")["settings"], host.call("session.get", {"sessionId": sid}))
    deep = orjson.loads(orjson.dumps({"sessionId": sid, **params}).replace(b'"DEEP"', orjson.dumps(nested(MAX_DEPTH))))
    with pytest.raises(HostError) as refused:
        host.call(method, deep)
    assert refused.value.code == ErrorCode.INVALID_PARAMS
    assert refused.value.data["field"].startswith(field + ".inner")
    assert (host.call("settings.get")["settings"], host.call("session.get", {"sessionId": sid})) == before


def test_a_reply_that_cannot_be_encoded_becomes_an_error_reply():
    line = encode({"jsonrpc": "2.0", "id": 7, "result": nested(300)})
    reply = orjson.loads(line)
    assert reply["id"] == 7 and reply["error"]["data"]["code"] == ErrorCode.INTERNAL
    assert "could not be encoded" in reply["error"]["message"]


def test_an_event_that_cannot_be_encoded_is_dropped_not_sent_half():
    assert encode({"jsonrpc": "2.0", "method": "event", "params": nested(300)}) is None
    assert orjson.loads(encode({"jsonrpc": "2.0", "method": "event", "params": {"topic": "x"}}))["method"] == "event"
