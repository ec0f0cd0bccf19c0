"""Transcript format 2's ``binaryStorage`` v1 envelope is decoded on read (spec 004, preface, #1868).

The fixtures are encoded here by the spec's rules: each image/blob string once
per record, typed JSON paths for where values go, exact text templates for the
JSON mirrors (their spelling kept), and nested mirrors sharing the inner text
only when the outer JSON string token has canonical (``JSON.stringify``)
spelling. Decoding must give back the original record exactly.
"""

import copy
import json

import orjson
import pytest
from hypothesis import given
from hypothesis import strategies as st

from pidesktop.agent.runner import ProviderChoice, TurnRunner
from pidesktop.bus import HostError
from pidesktop.formats.transcript.binary_storage import json_escape
from pidesktop.formats.transcript.records import decode_record
from tests.support.fuzz_budget import fuzz_settings
from tests.support.host_helpers import append, new_session, transcript_path
from tests.support.hosts import InProcessHost, run_with_client
from tests.support.sse_server import fixture_bytes
from tests.support.waits import spin_until
from tests.support.windows import started_window

PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8/5+hHgAHggJ/PchI7wAAAABJRU5ErkJggg=="


# -- an encoder written from the spec's rules (the test's own, independent of the decoder) ------------
def split_text(text, candidates):
    """``text`` as template parts: literal strings and references, longest spelled reference first."""
    if not text:
        return []
    for spelled, reference in candidates:
        if spelled and spelled in text:
            before, _, after = text.partition(spelled)
            rest = [c for c in candidates]
            return split_text(before, rest) + [dict(reference)] + split_text(after, rest)
    return [text]


def encode(record, blobs, mirrors):
    """``record`` in the envelope: ``blobs`` stored once, ``mirrors`` (paths, inner first) as templates."""
    encoded = copy.deepcopy(record)
    strings = list(dict.fromkeys(blobs))
    paths, texts = [], []
    candidates = []
    for index, blob in enumerate(strings):
        for depth in range(3):
            spelled = blob
            for _ in range(depth):
                spelled = json_escape(spelled)
            candidates.append((spelled, {"string": index, "escape": depth} if depth else {"string": index}))
    for path in mirrors:
        text = value_at(record, path)
        ordered = sorted(candidates, key=lambda c: -len(c[0]))
        texts.append(split_text(text, ordered))
        paths.append({"path": path, "text": len(texts) - 1})
        set_at(encoded, path, "")
        # a later (outer) mirror may share this text when it spells it canonically
        candidates.append((json_escape(text), {"text": len(texts) - 1, "escape": 1}))
    for path, value in walk(record):
        if path not in mirrors and value in strings:
            paths.append({"path": path, "string": strings.index(value)})
            set_at(encoded, path, "")
    encoded["binaryStorage"] = {"version": 1, "strings": strings, "texts": texts, "paths": paths}
    return encoded


def walk(value, path=()):
    if isinstance(value, dict):
        for key, item in value.items():
            yield from walk(item, (*path, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from walk(item, (*path, index))
    elif isinstance(value, str):
        yield list(path), value


def value_at(value, path):
    for step in path:
        value = value[step]
    return value


def set_at(value, path, new):
    value_at(value, path[:-1])[path[-1]] = new


def decoded(record):
    return decode_record(orjson.dumps(record), "message", record["id"], "fixture.jsonl", 0)


def tool_record(blobs, narrative, inner_spelling, outer_canonical):
    result = {"content": [{"type": "image", "mimeType": "image/png", "data": b} for b in blobs]}
    result["content"].append({"type": "text", "text": narrative})
    inner = json.dumps(result, **inner_spelling)
    outer_value = {"result": result, "mirror": inner}
    outer = (
        json.dumps(outer_value, ensure_ascii=False, separators=(",", ":"))
        if outer_canonical
        else json.dumps(outer_value, indent=1, ensure_ascii=True)
    )
    record = {
        "type": "message",
        "id": "m1",
        "role": "assistant",
        "blocks": [
            {
                "type": "tool_call",
                "callId": "c1",
                "name": "screenshot",
                "args": {},
                "status": "ok",
                "result": result,
                "details": {"json": inner, "nested": outer},
            }
        ],
    }
    mirrors = [["blocks", 0, "details", "json"], ["blocks", 0, "details", "nested"]]
    return record, mirrors


# -- fixtures ---------------------------------------------------------------------------------------
def test_an_image_a_mirror_and_a_nested_canonical_mirror_come_back_exactly():
    spelling = {"indent": 2, "sort_keys": True, "ensure_ascii": True}  # a writer's own spelling, kept
    record, mirrors = tool_record([PNG], 'screen "A" é', spelling, outer_canonical=True)
    encoded = encode(record, [PNG], mirrors)
    line = orjson.dumps(encoded)
    assert line.count(PNG.encode()) == 1  # stored once in the record
    outer_template = encoded["binaryStorage"]["texts"][1]
    assert {"text": 0, "escape": 1} in outer_template  # the nested mirror shares the inner text
    assert decoded(encoded) == record


def test_a_nested_mirror_in_another_spelling_stays_literal_and_still_decodes():
    record, mirrors = tool_record([PNG], "naïve", {"ensure_ascii": False}, outer_canonical=False)
    encoded = encode(record, [PNG], mirrors)
    assert not any("text" in part for part in encoded["binaryStorage"]["texts"][1] if isinstance(part, dict))
    assert decoded(encoded) == record


def test_a_plain_record_is_returned_as_it_is():
    record = {"type": "message", "id": "m1", "role": "user", "blocks": [{"type": "text", "text": PNG}]}
    assert decoded(record) == record


def test_an_unknown_codec_version_is_an_error_not_a_skipped_line():
    record, mirrors = tool_record([PNG], "x", {}, True)
    encoded = encode(record, [PNG], mirrors)
    encoded["binaryStorage"]["version"] = 2
    with pytest.raises(HostError) as info:
        decoded(encoded)
    assert info.value.code == "SCHEMA_INCOMPATIBLE"
    assert info.value.data["reason"] == "unknownVersion"
    assert "update pidesktop" in info.value.message


@pytest.mark.parametrize(
    "breaks",
    [
        lambda env: env["paths"].append({"path": ["blocks", 0, "result"], "string": 9}),
        lambda env: env["paths"].append({"path": ["blocks", 3, "data"], "string": 0}),
        lambda env: env["paths"].append({"path": ["blocks", "0"], "string": 0}),  # typed: "0" is not index 0
        lambda env: env["texts"][0].append({"text": 1}),  # a reference forward (could loop)
        lambda env: env["texts"][0].append({"text": 0}),  # itself
        lambda env: env["texts"][1].append({"string": 0, "text": 0}),
        lambda env: env.__setitem__("strings", [1]),
    ],
)
def test_a_bad_reference_is_an_error(breaks):
    record, mirrors = tool_record([PNG], "x", {}, True)
    encoded = encode(record, [PNG], mirrors)
    breaks(encoded["binaryStorage"])
    with pytest.raises(HostError) as info:
        decoded(encoded)
    assert info.value.data["reason"] == "badReference"


blob_text = st.text(st.characters(blacklist_categories=("Cs",)), min_size=1, max_size=40)


@fuzz_settings(300)
@given(
    blobs=st.lists(blob_text, min_size=1, max_size=3),
    narrative=st.text(st.characters(blacklist_categories=("Cs",)), max_size=40),
    indent=st.sampled_from([None, 0, 2]),
    ensure_ascii=st.booleans(),
    sort_keys=st.booleans(),
    outer_canonical=st.booleans(),
)
def test_encoding_by_the_spec_rules_then_decoding_gives_the_original(
    blobs, narrative, indent, ensure_ascii, sort_keys, outer_canonical
):
    spelling = {"indent": indent, "ensure_ascii": ensure_ascii, "sort_keys": sort_keys}
    record, mirrors = tool_record(blobs, narrative, spelling, outer_canonical)
    assert decoded(encode(record, blobs, mirrors)) == record


# -- through the host ---------------------------------------------------------------------------------
def stored_tool_chat(location, envelope_change=None):
    """A chat whose tool reply is then stored in the envelope (as Pi Desktop v26+ writes it); its sid and record."""
    host = InProcessHost(location)
    try:
        sid = new_session(host)
        record, mirrors = tool_record([PNG], "the screen", {"indent": 2}, True)
        append(host, sid, {k: v for k, v in record.items() if k != "type"})
    finally:
        host.stop()
    path = transcript_path(host, sid)
    lines = path.read_bytes().splitlines(keepends=True)
    stored = orjson.loads(lines[-1])
    record = {"type": "message", **{k: v for k, v in stored.items() if k != "type"}}
    encoded = encode(record, [PNG], mirrors)
    if envelope_change:
        envelope_change(encoded["binaryStorage"])
    lines[-1] = orjson.dumps(encoded) + b"\n"
    path.write_bytes(b"".join(lines))
    return sid, record, path


def test_the_host_serves_an_encoded_chat_decoded_and_never_converts_the_file(location):
    sid, record, path = stored_tool_chat(location)
    before = path.read_bytes()
    host = InProcessHost(location)
    try:
        got = host.call("session.get", {"sessionId": sid})
        block = got["messages"][-1]["blocks"][0]
        assert block["result"] == record["blocks"][0]["result"]
        assert block["details"] == record["blocks"][0]["details"]
        assert "binaryStorage" not in got["messages"][-1]
    finally:
        host.stop()
    assert path.read_bytes() == before


def test_the_host_refuses_a_chat_with_a_bad_reference_instead_of_showing_it_empty(location):
    sid, _record, path = stored_tool_chat(location, lambda env: env["paths"][0].__setitem__("text", 7))
    before = path.read_bytes()
    host = InProcessHost(location)
    try:
        error = host.error("session.get", {"sessionId": sid})
        assert error.data["reason"] == "badReference"
        assert "cannot be decoded" in error.message
    finally:
        host.stop()
    assert path.read_bytes() == before


def test_the_model_is_sent_the_decoded_tool_result_of_an_encoded_chat(location, sse_server):
    """Continuing a chat Pi Desktop stored in the envelope: the model sees the tool's picture and text."""
    sid, _record, path = stored_tool_chat(location)
    sse_server.stream([fixture_bytes("plain-text")])
    host = InProcessHost(location)
    try:

        async def turn(client):
            choice = ProviderChoice(base_url=sse_server.base_url, model="gpt-test", api_key="sk-test-key")
            return await TurnRunner(client, override=choice, offline_delay=0).send(sid, "What did it show?")

        assert run_with_client(host, turn)["status"] == "completed"
    finally:
        host.stop()
    sent = sse_server.requests[-1].json["messages"]
    request = orjson.dumps(sent).decode()
    assert "binaryStorage" not in request
    tool_messages = [m for m in sent if m["role"] == "tool"]
    assert len(tool_messages) == 1 and "the screen" in orjson.dumps(tool_messages[0]).decode()
    assert PNG in request  # the picture itself, not the envelope's empty placeholder


@pytest.mark.parametrize(
    "change",
    [
        lambda env: env.__setitem__("version", 2),  # a newer codec: SCHEMA_INCOMPATIBLE
        lambda env: env["paths"][0].__setitem__("text", 7),  # a bad reference: STORAGE_UNAVAILABLE
    ],
    ids=["unknown-version", "bad-reference"],
)
def test_the_window_says_one_chat_cannot_be_shown_and_the_others_still_open(
    change, qtbot, qloop, location, loop_hosts, shots
):
    good, record, _ = stored_tool_chat(location)
    bad, _record, path = stored_tool_chat(location, change)
    before = path.read_bytes()
    win = started_window(qtbot, qloop, loop_hosts.start(), size=None)
    win.sidebar.select(bad)
    spin_until(qloop, lambda: win.notices.host_error is not None)
    assert win.notices.host_error.data["reason"] in ("unknownVersion", "badReference")
    line = win.notice.label.text()
    assert "tool pictures" in line and "This chat" in line
    assert not win.banner.isVisible()  # the data folder is fine: only this chat is refused
    assert win.sidebar.new_chat_button.isEnabled() and win.new_chat_action.isEnabled()
    win.grab().save(str(shots / "binary-storage-refused.png"))
    win.sidebar.select(good)
    spin_until(qloop, lambda: win.transcript_model.row_of(record["id"]) >= 0)
    assert path.read_bytes() == before
    win.close()
