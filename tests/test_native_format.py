"""The pi session format and the per-file index, without a host.

The property: however a file grows (whole entries, half lines completed
later, garbage, branches, labels, compactions), every window the index reads
equals the same slice of a whole-file parse, on every branch.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import orjson
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pidesktop.host.native import index as index_module
from pidesktop.host.native import pi_format
from pidesktop.host.native.index import FileIndex
from pidesktop.host.native.reading import read_window
from pidesktop.host.transcripts.windows import WindowRequest
from tests.support.repo import FIXTURES

NATIVE = FIXTURES / "pi-native" / "sessions"
V1 = FIXTURES / "pi-sessions" / "v1" / "large-session.jsonl"


def fixture_files() -> list[Path]:
    return sorted(NATIVE.rglob("*.jsonl"))


def test_every_fixture_parses_as_v3_with_one_current_branch():
    assert len(fixture_files()) == 10
    for path in fixture_files():
        parsed = pi_format.parse(path.read_bytes())
        assert parsed.header is not None and parsed.version == 3, path.name
        assert not parsed.torn and parsed.garbage == 0
        messages, _ = pi_format.read_branch(parsed)
        assert messages, path.name
        assert parsed.tree.leaf == parsed.metas[-1].id


def test_the_rpc_fixture_maps_every_kind_of_entry():
    path = next(p for p in fixture_files() if "7e25-7604" in p.name)
    parsed = pi_format.parse(path.read_bytes())
    messages, compactions = pi_format.read_branch(parsed)
    by_id = {m["id"]: m for m in messages}
    bash = by_id["3b635cd5"]
    assert bash["role"] == "assistant" and bash["blocks"][0]["name"] == "bash"
    assert bash["blocks"][0]["args"] == {"command": "ls -1"} and bash["blocks"][0]["isError"] is False
    context = by_id["771ed07f"]
    assert context["role"] == "system"
    assert context["meta"]["native"] == {"type": "custom_message", "customType": "fixture-context", "display": True}
    assert context["blocks"] == [{"type": "text", "text": "Extra context injected by the fixture extension."}]
    assert by_id["791d80dd"]["meta"]["labels"] == ["checkpoint-1"]
    call = by_id["4fe0af59"]["blocks"][-1]
    assert call["type"] == "tool_call" and call["result"] and call["status"] in ("ok", "error")
    assert "7402fd50" not in by_id  # the tool result is folded into its call
    thinking = by_id["b90d837c"]["blocks"][0]
    assert thinking["type"] == "thinking" and thinking["text"]
    assert compactions == [
        {
            "id": "98445ee4",
            "summary": compactions[0]["summary"],
            "throughMessageId": "533f5a11",
            "firstKeptMessageId": "9b87450c",
            "tokensBefore": 2210,
            "createdAt": compactions[0]["createdAt"],
        }
    ]
    assert compactions[0]["summary"].startswith("## Goal")
    assert [m["index"] for m in messages] == list(range(len(messages)))


def test_a_tool_error_is_marked():
    path = next(p for p in fixture_files() if "982d-716b" in p.name)
    messages, _ = pi_format.read_branch(pi_format.parse(path.read_bytes()))
    calls = [b for m in messages for b in m["blocks"] if b["type"] == "tool_call"]
    assert len(calls) == 4 and all("result" in c for c in calls)
    assert [c["isError"] for c in calls].count(True) == 1
    assert next(c for c in calls if c["isError"])["status"] == "error"


def test_the_branch_fixture_has_three_leaves_and_a_divider():
    path = next(p for p in fixture_files() if "f201-704f" in p.name)
    parsed = pi_format.parse(path.read_bytes())
    leaves = parsed.tree.leaves()
    assert len(leaves) == 3 and leaves[-1].id == parsed.tree.leaf
    summaries = []
    for leaf in leaves:
        messages, _ = pi_format.read_branch(parsed, leaf.id)
        summaries += [m for m in messages if m.get("meta", {}).get("native", {}).get("type") == "branch_summary"]
    assert len(summaries) == 1 and summaries[0]["role"] == "system"
    assert summaries[0]["meta"]["labels"] == ["alt-A"]


def test_a_v1_file_reads_as_one_chain_with_stable_ids():
    data = V1.read_bytes()
    parsed = pi_format.parse(data)
    assert parsed.version == 1 and parsed.header["id"] == "d703a1a9-1b7b-4fb1-b512-c9738b1fe617"
    messages, _ = pi_format.read_branch(parsed)
    again, _ = pi_format.read_branch(pi_format.parse(data))
    assert messages == again
    roles = {m["role"] for m in messages}
    assert roles <= {"user", "assistant"}
    # toolResults fold into their assistant calls; 88 user prompts stay messages of their own
    assert sum(m["role"] == "user" for m in messages) == 88
    assert any(b.get("result") for m in messages for b in m["blocks"] if b["type"] == "tool_call")
    aborted = [m for m in messages if m.get("meta", {}).get("finishReason") == "aborted"]
    assert aborted and all(m["meta"]["status"] == "aborted" for m in aborted)


def test_a_v2_custom_message_reads_as_custom_and_v1_compaction_points_at_an_entry():
    header = {"type": "session", "id": "s", "timestamp": "2025-01-01T00:00:00.000Z", "cwd": "/w", "version": 2}
    lines = [
        header,
        {
            "type": "message",
            "id": "a",
            "parentId": None,
            "timestamp": "2025-01-01T00:00:01.000Z",
            "message": {"role": "hookMessage", "customType": "x", "content": "note", "display": True},
        },
    ]
    parsed = pi_format.parse(b"".join(orjson.dumps(line) + b"\n" for line in lines))
    (message,), _ = pi_format.read_branch(parsed)
    assert message["role"] == "system" and message["meta"]["native"]["type"] == "custom_message"
    v1 = [
        {"type": "session", "id": "s", "timestamp": "2025-01-01T00:00:00.000Z", "cwd": "/w"},
        {"type": "message", "timestamp": "t", "message": {"role": "user", "content": "one", "timestamp": 1}},
        {"type": "message", "timestamp": "t", "message": {"role": "user", "content": "two", "timestamp": 2}},
        {"type": "compaction", "timestamp": "t", "summary": "s", "firstKeptEntryIndex": 2, "tokensBefore": 5},
    ]
    messages, compactions = pi_format.read_branch(pi_format.parse(b"".join(orjson.dumps(x) + b"\n" for x in v1)))
    assert [m["id"] for m in messages] == ["v1-0", "v1-1"]
    assert compactions[0]["throughMessageId"] == "v1-1" and compactions[0]["firstKeptMessageId"] == "v1-1"


def test_not_a_session_torn_tails_and_garbage():
    assert pi_format.parse(b"garbage\n").header is None
    assert pi_format.parse(b'{"type":"message"}\n').header is None
    header = b'{"type":"session","version":3,"id":"x","timestamp":"2025-01-01T00:00:00Z","cwd":"/"}\n'
    user = (
        b'{"type":"message","id":"u","parentId":null,"timestamp":"2025-01-01T00:00:01Z",'
        b'"message":{"role":"user","content":"hi","timestamp":5}}\n'
    )
    parsed = pi_format.parse(header + b"not json\n[1,2]\n" + user + user[:30])
    assert parsed.torn and parsed.garbage == 2
    messages, _ = pi_format.read_branch(parsed)
    assert [m["blocks"] for m in messages] == [[{"type": "text", "text": "hi"}]]


def test_a_missing_parent_ends_the_branch_as_in_pi():
    path = next(p for p in fixture_files() if "7f5f-7353" in p.name)  # pi's clone drops a label entry
    parsed = pi_format.parse(path.read_bytes())
    messages, _ = pi_format.read_branch(parsed)
    assert messages[0]["id"] == "5676b368" and len(messages) == 12


# -- the property: windows of an index that grows equal slices of a whole parse --------------------------
KINDS = (
    "user",
    "assistant",
    "call",
    "result",
    "bash",
    "context",
    "summary",
    "compaction",
    "label",
    "name",
    "model",
    "garbage",
)


def _entry(kind: str, number: int, parent: str | None, ids: list[str]) -> dict | bytes:
    base = {"id": f"e{number}", "parentId": parent, "timestamp": f"2025-01-01T00:00:{number % 60:02d}.000Z"}
    if kind == "user":
        return {
            **base,
            "type": "message",
            "message": {"role": "user", "content": f"prompt {number}", "timestamp": 1000 + number},
        }
    if kind in ("assistant", "call"):
        content = [{"type": "thinking", "thinking": "t"}, {"type": "text", "text": "x" * (number % 7)}]
        if kind == "call":
            content.append({"type": "toolCall", "id": f"c{number}", "name": "read", "arguments": {"p": number}})
        return {
            **base,
            "type": "message",
            "message": {
                "role": "assistant",
                "content": content,
                "provider": "p",
                "model": f"m{number % 3}",
                "stopReason": "stop",
                "timestamp": 1000 + number,
            },
        }
    if kind == "result":
        return {
            **base,
            "type": "message",
            "message": {
                "role": "toolResult",
                "toolCallId": f"c{number - 1}",
                "toolName": "read",
                "isError": number % 2 == 0,
                "content": [{"type": "text", "text": "out"}],
            },
        }
    if kind == "bash":
        return {
            **base,
            "type": "message",
            "message": {"role": "bashExecution", "command": "ls", "output": "a", "exitCode": number % 2},
        }
    if kind == "context":
        return {**base, "type": "custom_message", "customType": "c", "content": "ctx", "display": True}
    if kind == "summary":
        return {**base, "type": "branch_summary", "fromId": parent or "root", "summary": "gone"}
    if kind == "compaction":
        return {
            **base,
            "type": "compaction",
            "summary": "sum",
            "tokensBefore": number,
            "firstKeptEntryId": ids[len(ids) // 2] if ids else "none",
        }
    if kind == "label":
        return {
            **base,
            "type": "label",
            "targetId": ids[number % len(ids)] if ids else "none",
            "label": f"L{number}" if number % 3 else None,
        }
    if kind == "name":
        return {**base, "type": "session_info", "name": f"name {number}"}
    if kind == "model":
        return {**base, "type": "model_change", "provider": "p", "modelId": f"m{number}"}
    return b"{not json"


@st.composite
def growing_files(draw):
    steps = draw(st.lists(st.tuples(st.sampled_from(KINDS), st.integers(0, 1000)), min_size=1, max_size=40))
    header = (
        orjson.dumps({"type": "session", "version": 3, "id": "s", "timestamp": "2025-01-01T00:00:00.000Z", "cwd": "/w"})
        + b"\n"
    )
    data = header
    ids: list[str] = []
    for number, (kind, pick) in enumerate(steps):
        # mostly continue the last entry; sometimes branch from an earlier one, or start a new root
        parent = ids[-1] if ids and pick % 5 else (ids[pick % len(ids)] if ids and pick % 7 else None)
        entry = _entry(kind, number, parent, ids)
        data += (entry if isinstance(entry, bytes) else orjson.dumps(entry)) + b"\n"
        if not isinstance(entry, bytes):
            ids.append(entry["id"])
    cuts = sorted(draw(st.lists(st.integers(0, len(data)), max_size=5)))
    limit = draw(st.integers(1, 12))
    chunk = draw(st.sampled_from([7, 64, 300, 8 << 20]))  # the index reads a file a chunk at a time
    return data, cuts, limit, chunk


def _full_read(data: bytes) -> pi_format.Parsed:
    return pi_format.parse(data)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(growing_files())
def test_windows_equal_slices_of_a_full_read_as_the_file_grows(case):
    data, cuts, limit, chunk = case
    default_chunk, index_module.READ_CHUNK = index_module.READ_CHUNK, chunk
    try:
        _grow_and_check(data, cuts, limit)
    finally:
        index_module.READ_CHUNK = default_chunk


def _grow_and_check(data: bytes, cuts: list[int], limit: int) -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "s.jsonl")
        index = FileIndex(path)
        with open(path, "wb") as handle:
            written = 0
            for cut in [*cuts, len(data)]:
                handle.write(data[written:cut])
                handle.flush()
                written = cut
                index.refresh_path()
                _check_every_window(index, path, data[:cut], limit)


def _check_every_window(index: FileIndex, path: str, data: bytes, limit: int) -> None:
    parsed = _full_read(data)
    if parsed.header is None:
        assert not index.is_session
        return
    assert [m.id for m in index.tree.metas] == [m.id for m in parsed.metas]
    fd = os.open(path, os.O_RDONLY)
    try:
        index.refresh_fd(fd)  # the file on disk may be ahead of ``data`` only by what the test wrote
        for leaf in [None, *(m.id for m in parsed.tree.leaves())]:
            expected, compactions = pi_format.read_branch(parsed, leaf)
            whole = read_window(index, fd, leaf, WindowRequest())
            assert whole["messages"] == expected
            assert whole["compactions"] == compactions
            for before in range(0, len(expected) + 1, max(1, limit)):
                page = read_window(index, fd, leaf, WindowRequest(before=before, limit=limit))
                assert page["messages"] == expected[max(0, before - limit) : before]
    finally:
        os.close(fd)


def test_an_append_parses_only_the_new_bytes_and_a_rewrite_starts_over(tmp_path):
    path = tmp_path / "s.jsonl"
    source = next(p for p in fixture_files() if "0f12-7042" in p.name).read_bytes()  # 131 lines
    lines = source.splitlines(keepends=True)
    path.write_bytes(b"".join(lines[:100]))
    index = FileIndex(str(path))
    index.refresh_path()
    first_metas = list(index.tree.metas)
    with path.open("ab") as handle:
        handle.write(b"".join(lines[100:]))
    index.refresh_path()
    assert index.tree.metas[: len(first_metas)] == first_metas  # the same objects: nothing reparsed
    assert len(index.tree.metas) == 130
    token = index.token
    path.write_bytes(source.replace(b"Long session", b"LONG SESSION"))  # same size, new content
    index.refresh_path()
    assert index.token != token and index.tree.metas[0] is not first_metas[0]
    assert index.first_user.startswith("LONG SESSION")


def test_images_and_truncation_marks():
    from pidesktop.host.native.reading import cap

    image = {"type": "image", "mimeType": "image/png", "data": "iVBORw0KGgo="}
    lines = [
        {"type": "session", "version": 3, "id": "s", "timestamp": "2025-01-01T00:00:00.000Z", "cwd": "/w"},
        {
            "type": "message",
            "id": "u",
            "parentId": None,
            "timestamp": "2025-01-01T00:00:01.000Z",
            "message": {"role": "user", "content": [{"type": "text", "text": "look"}, image], "timestamp": 1},
        },
        {
            "type": "message",
            "id": "a",
            "parentId": "u",
            "timestamp": "2025-01-01T00:00:02.000Z",
            "message": {
                "role": "assistant",
                "stopReason": "toolUse",
                "provider": "p",
                "model": "m",
                "content": [{"type": "toolCall", "id": "c", "name": "read", "arguments": {}}],
            },
        },
        {
            "type": "message",
            "id": "r",
            "parentId": "a",
            "timestamp": "2025-01-01T00:00:03.000Z",
            "message": {
                "role": "toolResult",
                "toolCallId": "c",
                "toolName": "read",
                "isError": False,
                "content": [{"type": "text", "text": "x" * 50}, image],
            },
        },
    ]
    messages, _ = pi_format.read_branch(pi_format.parse(b"".join(orjson.dumps(x) + b"\n" for x in lines)))
    assert messages[0]["blocks"] == [{"type": "text", "text": "look"}, image]
    call = messages[1]["blocks"][0]
    assert call["images"] == [image] and call["result"] == "x" * 50
    capped = cap(messages[1], 10)["blocks"][0]
    assert capped["result"] == "x" * 10 and capped["truncated"] is True
    assert messages[1]["blocks"][0]["result"] == "x" * 50  # the read itself is never changed


def _v3(*entries: dict) -> bytes:
    header = {"type": "session", "version": 3, "id": "s", "timestamp": "2026-05-01T10:00:00.000Z", "cwd": "/w"}
    return b"".join(orjson.dumps(value) + b"\n" for value in (header, *entries))


def _message(entry_id: str, parent: str | None, role: str, content, **extra) -> dict:
    message = {"role": role, "content": content, "timestamp": 1, **extra}
    return {
        "type": "message",
        "id": entry_id,
        "parentId": parent,
        "timestamp": "2026-05-01T10:00:00.000Z",
        "message": message,
    }


def test_context_edits_on_the_branch_mark_what_the_model_is_shown_and_keep_the_history():
    data = _v3(
        _message("u1", None, "user", "my password is hunter2"),
        _message("a1", "u1", "assistant", [{"type": "toolCall", "id": "c1", "name": "read", "arguments": {}}]),
        _message("r1", "a1", "toolResult", [{"type": "text", "text": "a very long file"}], toolCallId="c1"),
        _message("u2", "r1", "user", "and now?"),
        {
            "type": "context_edit",
            "id": "x1",
            "parentId": "u2",
            "targetId": "u1",
            "replacement": {"content": "my password is [redacted]"},
        },
        {
            "type": "context_edit",
            "id": "x2",
            "parentId": "x1",
            "targetId": "r1",
            "replacement": {"content": "a short summary"},
        },
        {"type": "context_edit", "id": "x3", "parentId": "x2", "targetId": "u2", "replacement": None},
        # on another branch (child of u1): does not apply to the current one
        {"type": "context_edit", "id": "y1", "parentId": "u1", "targetId": "u1", "replacement": None},
        _message("u3", "x3", "user", "last"),
    )
    messages, _ = pi_format.read_branch(pi_format.parse(data))
    by_id = {m["id"]: m for m in messages}
    assert list(by_id) == ["u1", "a1", "u2", "u3"]  # the edits are not messages
    assert by_id["u1"]["blocks"] == [{"type": "text", "text": "my password is hunter2"}]  # history intact
    assert by_id["u1"]["meta"]["contextEdit"] == {"blocks": [{"type": "text", "text": "my password is [redacted]"}]}
    assert by_id["u2"]["meta"]["contextEdit"] == {"omitted": True}
    call = by_id["a1"]["blocks"][0]
    assert call["contextEdit"] == {"result": "a short summary"}
    assert "contextEdit" not in by_id["u3"].get("meta", {})
