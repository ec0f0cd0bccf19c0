"""The import readers: every fixture file read with exact counts, noise and unknown entries, hostile bytes.

Expected counts were taken from the files by hand (and a throwaway count of
their raw lines), never from the readers: messages a person sees, tool calls
(a call and its result are one), thinking blocks.
"""

from __future__ import annotations

import json
from pathlib import Path

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pidesktop.host.imports import READERS, ReadFailure, find
from tests.support.repo import FIXTURES

CLAUDE = FIXTURES / "claude-code"
CODEX = FIXTURES / "codex" / "sessions" / "2026" / "01" / "02"
PI_V1 = FIXTURES / "pi-sessions" / "v1"
PI_NATIVE = FIXTURES / "pi-native" / "sessions"

# file -> (messages, tool calls, thinking blocks)
EXPECTED = {
    ("claude-code", "representative_messages.jsonl"): (7, 2, 0),  # 4 prompts, 3 replies (a turn is one reply)
    ("claude-code", "2b4ed4c0-b905-41de-9238-273db3ec737a.jsonl"): (2, 9, 0),  # 12 reply lines: one turn, one reply
    ("claude-code", "326189cf-5676-4237-8cde-1ce80aae4a9f.jsonl"): (4, 14, 0),  # caveat (isMeta) dropped
    ("codex", "rollout-2026-01-02T03-04-05-11111111-1111-4111-8111-111111111111.jsonl"): (2, 3, 1),
    ("pi", "large-session.jsonl"): (541, 391, 1),  # 88 user + 453 assistant; results joined
    ("pi", "2026-12-01T14-13-50-016Z_01a231f4-653f-75e0-b557-9081058b407f.jsonl"): (2, 0, 0),
    ("pi", "2026-12-01T14-13-52-060Z_01a231f4-6d3b-74c0-8a0e-6f9f6aede47c.jsonl"): (10, 0, 0),
    ("pi", "2026-12-01T14-14-03-055Z_01a231f4-982d-716b-adc1-6b769c5af92a.jsonl"): (14, 4, 2),
    ("pi", "2026-12-01T14-14-13-431Z_01a231f4-c0b6-7048-b7c1-d9b4aae38a2c.jsonl"): (7, 1, 0),
    ("pi", "2026-12-01T14-14-26-050Z_01a231f4-f201-704f-974e-b88fc345cd3d.jsonl"): (6, 0, 0),  # branch of 12
    ("pi", "2026-12-01T14-14-32-045Z_01a231f5-096b-7787-b71b-d9f63d75e94b.jsonl"): (12, 0, 0),
    ("pi", "2026-12-01T14-14-33-491Z_01a231f5-0f12-7042-be20-72f0e9b9732a.jsonl"): (124, 4, 5),
    ("pi", "2026-12-01T14-16-07-462Z_01a231f6-7e25-7604-a24b-cc803de2a902.jsonl"): (21, 2, 1),  # bash is a call
    ("pi", "2026-12-01T14-16-07-775Z_01a231f6-7f5f-7353-b95c-c2a64db22047.jsonl"): (12, 1, 0),  # clone: its branch
    ("pi", "2026-12-01T14-14-21-335Z_01a231f4-df96-70c2-9c60-751da47663f1.jsonl"): (5, 1, 0),
}


def fixture_files() -> list[tuple[str, Path]]:
    files = [("claude-code", p) for p in find("claude-code", [str(CLAUDE)])]
    files += [("codex", p) for p in find("codex", [str(FIXTURES / "codex")])]
    files += [("pi", p) for p in find("pi", [str(PI_V1), str(PI_NATIVE)])]
    return files


def test_every_fixture_session_file_is_covered():
    assert {(source, path.name) for source, path in fixture_files()} == set(EXPECTED)


@pytest.mark.parametrize("source, name", sorted(EXPECTED))
def test_each_fixture_reads_with_exact_counts(source, name):
    path = next(p for s, p in fixture_files() if s == source and p.name == name)
    session = READERS[source](path.read_bytes(), str(path))
    counts = session.counts()
    assert (counts["messages"], counts["toolCalls"], counts["thinking"]) == EXPECTED[(source, name)]
    ids = [m["id"] for m in session.messages]
    assert len(ids) == len(set(ids))
    assert all(m["role"] in ("user", "assistant", "system", "tool") for m in session.messages)
    assert all(isinstance(m.get("createdAt"), str) for m in session.messages)
    assert session.created_at is not None and session.updated_at >= session.created_at
    orjson.dumps(session.messages)  # storable as it is


def read_claude(name: str):
    return READERS["claude-code"]((CLAUDE / name).read_bytes(), name)


def test_claude_code_joins_tool_results_keeps_times_and_names_the_chat_from_its_summary():
    session = read_claude("representative_messages.jsonl")
    assert session.external_id == "representative_messages" and session.cwd == "/tmp"
    assert session.title.startswith("User learned about Python decorators")
    calls = [b for m in session.messages for b in m["blocks"] if b["type"] == "tool_call"]
    assert all("result" in c and c["status"] == "ok" for c in calls)
    assert session.messages[0]["createdAt"] == "2025-07-03T15:50:07.874Z"
    assert session.messages[0]["blocks"][0]["text"].startswith("Hello Claude!")


def test_claude_code_drops_meta_and_hook_noise_and_marks_failed_tools():
    session = read_claude("326189cf-5676-4237-8cde-1ce80aae4a9f.jsonl")
    texts = [b["text"] for m in session.messages for b in m["blocks"] if b["type"] == "text"]
    assert not any(t.startswith("Caveat:") for t in texts)  # isMeta
    assert not any("PostToolUse" in t for t in texts)  # system hook output
    assert session.title is None  # its summaries belong to other sessions
    shell = session.messages[:2]  # "!uv run ty check" and its output, as the CLI wrapped them
    assert shell[0]["blocks"][0]["text"] == "$ uv run ty check" and shell[0]["meta"]["localCommand"]
    assert shell[1]["blocks"][0]["text"].startswith("```\nwarning[possibly-unbound-attribute]")
    assert shell[1]["meta"]["localCommand"] and "meta" not in session.messages[2]
    statuses = [b["status"] for m in session.messages for b in m["blocks"] if b["type"] == "tool_call"]
    assert statuses.count("error") == 2
    merged = read_claude("2b4ed4c0-b905-41de-9238-273db3ec737a.jsonl")
    assert sum(1 for m in merged.messages if m["role"] == "assistant") == 1  # 10 responses of one turn


def _line(value: dict) -> bytes:
    return orjson.dumps(value) + b"\n"


def test_claude_code_subagent_rows_are_attributed_to_their_task_call_and_commands_are_dropped():
    lines = [
        {
            "type": "user",
            "uuid": "u1",
            "timestamp": "2026-01-01T00:00:00Z",
            "cwd": "/w",
            "message": {"role": "user", "content": "Review the code"},
        },
        {
            "type": "assistant",
            "uuid": "a1",
            "timestamp": "2026-01-01T00:00:01Z",
            "message": {
                "id": "r1",
                "role": "assistant",
                "content": [
                    {"type": "thinking", "thinking": "delegate"},
                    {
                        "type": "tool_use",
                        "id": "task-1",
                        "name": "Task",
                        "input": {"prompt": "Look at app.py", "subagent_type": "code-reviewer"},
                    },
                ],
            },
        },
        {
            "type": "user",
            "uuid": "s1",
            "isSidechain": True,
            "timestamp": "2026-01-01T00:00:02Z",
            "message": {"role": "user", "content": "Look at app.py"},
        },
        {
            "type": "assistant",
            "uuid": "s2",
            "isSidechain": True,
            "timestamp": "2026-01-01T00:00:03Z",
            "message": {"id": "r2", "role": "assistant", "content": [{"type": "text", "text": "Looks fine"}]},
        },
        {
            "type": "user",
            "uuid": "u2",
            "timestamp": "2026-01-01T00:00:04Z",
            "message": {
                "role": "user",
                "content": [
                    {
                        "type": "tool_result",
                        "tool_use_id": "task-1",
                        "content": [{"type": "text", "text": "Looks fine"}],
                    }
                ],
            },
        },
        {"type": "user", "uuid": "c1", "message": {"role": "user", "content": "<command-name>/clear</command-name>"}},
        {
            "type": "user",
            "uuid": "c2",
            "message": {"role": "user", "content": "<local-command-stdout></local-command-stdout>"},
        },
        {"type": "brand-new-kind", "uuid": "x"},
        {
            "type": "assistant",
            "uuid": "e1",
            "isApiErrorMessage": True,
            "message": {
                "id": "r3",
                "role": "assistant",
                "model": "<synthetic>",
                "content": [{"type": "text", "text": "API Error: 529 overloaded"}],
            },
        },
    ]
    session = READERS["claude-code"](b"".join(_line(x) for x in lines), "/p/abc.jsonl")
    assert [m["role"] for m in session.messages] == ["user", "assistant", "user", "assistant", "assistant"]
    assert session.messages[-1]["meta"] == {"status": "error"}  # no "<synthetic>" model
    assert session.messages[2]["meta"]["parentToolCallId"] == "task-1"
    assert session.messages[3]["meta"]["parentToolCallId"] == "task-1"
    assert session.messages[3]["meta"]["agentName"] == "code-reviewer"
    assert "meta" not in session.messages[0]
    task = session.messages[1]["blocks"][1]
    assert task["result"] == "Looks fine" and task["args"]["prompt"] == "Look at app.py"
    assert session.counts()["thinking"] == 1 and dict(session.skipped) == {"brand-new-kind": 1}


def test_codex_reads_reasoning_summaries_and_tool_outputs_but_never_encrypted_content():
    path = next(CODEX.glob("*.jsonl"))
    session = READERS["codex"](path.read_bytes(), str(path))
    assert session.external_id == "11111111-1111-4111-8111-111111111111"
    assert session.cwd == "/workspace/synthetic-project" and session.model_id == "synthetic-model"
    reply = session.messages[1]
    kinds = [b["type"] for b in reply["blocks"]]
    assert kinds == ["thinking", "tool_call", "tool_call", "tool_call", "text"]
    assert reply["blocks"][1] == {
        "type": "tool_call",
        "callId": "call-structured-001",
        "name": "exec_command",
        "args": {"cmd": "find . -maxdepth 1 -type f"},
        "status": "ok",
        "result": "./alpha.txt\n./beta.txt",
    }
    assert reply["blocks"][2]["result"] == "Done!"
    assert "SYNTHETIC_ENCRYPTED" not in orjson.dumps(session.messages).decode()
    assert dict(session.skipped) == {"future_synthetic_record": 1}


def test_pi_reads_the_current_branch_its_name_and_its_compaction_checkpoint():
    path = next(PI_NATIVE.glob("*/2026-12-01T14-16-07-462Z_*.jsonl"))
    session = READERS["pi"](path.read_bytes(), str(path))
    assert session.title == "Fixture: RPC extras" and session.cwd == "/home/ada/code/work"
    assert session.external_id == "01a231f6-7e25-7604-a24b-cc803de2a902"
    (checkpoint,) = session.compactions
    ids = [m["id"] for m in session.messages]
    assert checkpoint["throughMessageId"] == "533f5a11" and checkpoint["firstKeptMessageId"] in ids
    assert checkpoint["summary"].startswith("## Goal") and checkpoint["tokensBefore"] == 2210
    branchy = next(PI_NATIVE.glob("*/2026-12-01T14-14-26-050Z_*.jsonl"))
    assert len(READERS["pi"](branchy.read_bytes(), str(branchy)).messages) == 6  # of 12 in the file


def test_a_torn_last_line_is_ignored_and_the_rest_is_read():
    data = (CLAUDE / "representative_messages.jsonl").read_bytes()
    torn = data + b'{"type":"user","message":{"role":"user","content":"half'
    session = READERS["claude-code"](torn, "x.jsonl")
    assert session.torn_tail and len(session.messages) == 7 and session.bad_lines == 0
    path = next(CODEX.glob("*.jsonl"))
    cut = path.read_bytes()[:-40]
    assert READERS["codex"](cut, str(path)).torn_tail


@pytest.mark.parametrize("source", ["claude-code", "codex", "pi"])
@pytest.mark.parametrize(
    "data", [b"", b"\x00\xff garbage \n\n", b"[1,2,3]\n", b'{"hello": "world"}\n', b"%PDF-1.4\n" + bytes(range(256))]
)
def test_garbage_is_a_read_failure_with_a_reason(source, data):
    with pytest.raises(ReadFailure) as info:
        READERS[source](data, "junk.jsonl")
    assert str(info.value)


ENTRY = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(
            st.sampled_from(
                [
                    "type",
                    "message",
                    "content",
                    "role",
                    "id",
                    "parentId",
                    "payload",
                    "uuid",
                    "text",
                    "tool_use_id",
                    "isSidechain",
                    "summary",
                    "leafUuid",
                    "timestamp",
                    "call_id",
                    "version",
                    "arguments",
                    "output",
                    "name",
                    "thinking",
                ]
            ),
            inner,
            max_size=5,
        )
    ),
    max_leaves=12,
)
TYPES = st.sampled_from(
    [
        "user",
        "assistant",
        "session",
        "message",
        "response_item",
        "session_meta",
        "summary",
        "compaction",
        "toolResult",
        "function_call",
        "reasoning",
        "system",
        "weird",
    ]
)


@st.composite
def session_bytes(draw) -> bytes:
    lines = []
    for _ in range(draw(st.integers(0, 8))):
        if draw(st.booleans()):
            value = draw(ENTRY)
            if isinstance(value, dict):
                value["type"] = draw(TYPES)
            lines.append(json.dumps(value).encode())  # stdlib: any integer, lone surrogates too
        else:
            lines.append(draw(st.binary(max_size=40)))
    return b"\n".join(lines)


@settings(max_examples=150, deadline=None)
@given(data=session_bytes(), source=st.sampled_from(["claude-code", "codex", "pi"]))
def test_readers_never_raise_anything_but_read_failure_and_what_they_return_can_be_stored(data, source):
    try:
        session = READERS[source](data, "fuzz.jsonl")
    except ReadFailure:
        return
    encoded = orjson.dumps({"m": session.messages, "c": session.compactions})
    assert orjson.loads(encoded)["m"] == session.messages
    ids = [m["id"] for m in session.messages]
    assert len(ids) == len(set(ids)) and all(isinstance(m["blocks"], list) for m in session.messages)


def test_claude_code_subagent_files_are_placed_under_the_task_call_that_names_them():
    from pidesktop.host.imports import claude_code

    main = [
        {
            "type": "user",
            "uuid": "u1",
            "timestamp": "2026-02-01T00:00:00Z",
            "message": {"role": "user", "content": "Explore the repo"},
        },
        {
            "type": "assistant",
            "uuid": "a1",
            "timestamp": "2026-02-01T00:00:01Z",
            "message": {
                "id": "r1",
                "role": "assistant",
                "content": [
                    {
                        "type": "tool_use",
                        "id": "task-9",
                        "name": "Task",
                        "input": {"subagent_type": "Explore", "prompt": "Map the folders"},
                    }
                ],
            },
        },
        {
            "type": "user",
            "uuid": "u2",
            "timestamp": "2026-02-01T00:00:09Z",
            "message": {
                "role": "user",
                "content": [
                    {
                        "type": "tool_result",
                        "tool_use_id": "task-9",
                        "content": [{"type": "text", "text": "Three folders.\nagentId: ab12cd3 (for resuming)"}],
                    }
                ],
            },
        },
        {
            "type": "assistant",
            "uuid": "a2",
            "timestamp": "2026-02-01T00:00:10Z",
            "message": {"id": "r2", "role": "assistant", "content": [{"type": "text", "text": "Done"}]},
        },
    ]
    agent = [
        {
            "type": "user",
            "uuid": "s1",
            "isSidechain": True,
            "agentId": "ab12cd3",
            "timestamp": "2026-02-01T00:00:02Z",
            "message": {"role": "user", "content": "Map the folders"},
        },
        {
            "type": "assistant",
            "uuid": "s2",
            "isSidechain": True,
            "agentId": "ab12cd3",
            "timestamp": "2026-02-01T00:00:08Z",
            "message": {"id": "r9", "role": "assistant", "content": [{"type": "text", "text": "src, docs, tests"}]},
        },
    ]
    stray = [{"type": "user", "uuid": "x1", "isSidechain": True, "message": {"role": "user", "content": "lost"}}]
    session = claude_code.read_with_subagents(
        b"".join(_line(x) for x in main),
        "/p/main.jsonl",
        {"ab12cd3": b"".join(_line(x) for x in agent), "zz99": b"".join(_line(x) for x in stray), "bad": b"\x00\n"},
    )
    roles = [(m["role"], (m.get("meta") or {}).get("parentToolCallId")) for m in session.messages]
    assert roles == [  # the reply goes on after its Task call in the same message, as the app's own replies do
        ("user", None),
        ("assistant", None),
        ("user", "task-9"),
        ("assistant", "task-9"),
        ("user", None),
    ]
    assert session.messages[2]["meta"]["agentName"] == "Explore"
    assert session.messages[-1]["meta"]["sidechain"] and session.messages[-1]["blocks"][0]["text"] == "lost"
    assert session.skipped["subagent file"] == 1
    assert len({m["id"] for m in session.messages}) == len(session.messages)
    assert claude_code.subagent_id("agent-acompact-1.jsonl") is None
    assert claude_code.subagent_id("agent-ab12cd3.jsonl") == "ab12cd3"


def test_compaction_summaries_of_claude_code_and_codex_become_checkpoints_and_old_rollouts_read():
    claude = [
        {"type": "user", "uuid": "u1", "message": {"role": "user", "content": "first"}},
        {"type": "assistant", "uuid": "a1", "message": {"id": "r1", "role": "assistant", "content": "reply"}},
        {"type": "system", "subtype": "compact_boundary", "uuid": "b1"},
        {
            "type": "user",
            "uuid": "c1",
            "isCompactSummary": True,
            "timestamp": "2026-03-01T00:00:00Z",
            "message": {"role": "user", "content": "This session is being continued. Summary: ..."},
        },
        {"type": "user", "uuid": "u2", "message": {"role": "user", "content": "next"}},
    ]
    session = READERS["claude-code"](b"".join(_line(x) for x in claude), "c.jsonl")
    assert [m["blocks"][0]["text"] for m in session.messages] == ["first", "reply", "next"]
    (checkpoint,) = session.compactions
    assert checkpoint["throughMessageId"] == "a1" and checkpoint["summary"].startswith("This session")
    assert checkpoint["createdAt"] == "2026-03-01T00:00:00.000Z"

    old_rollout = [
        {"id": "0a0a0a0a-0000-4000-8000-000000000000", "timestamp": "2025-05-01T10:00:00Z", "instructions": None},
        {"record_type": "state"},
        {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "hi codex"}]},
        {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "hello"}]},
        {"type": "compacted", "payload": {"message": "we said hello"}},
    ]
    rollout = READERS["codex"](b"".join(_line(x) for x in old_rollout), "rollout-old.jsonl")
    assert rollout.external_id == "0a0a0a0a-0000-4000-8000-000000000000"
    assert [m["role"] for m in rollout.messages] == ["user", "assistant"]
    assert rollout.created_at == 1746093600000 and not rollout.skipped
    assert rollout.compactions[0]["summary"] == "we said hello"


def test_claude_code_one_turn_of_tool_calls_is_one_reply_that_folds():
    """Claude Code writes each API response of a turn as its own entry; here they are one reply, as the app's own
    replies are, so "Fully folded" folds the turn's calls into one line (and no row gap sits between them)."""
    from pidesktop.ui.chat.activity import segments

    def assistant(uuid, api_id, content, second):
        return {
            "type": "assistant",
            "uuid": uuid,
            "timestamp": f"2026-01-01T00:00:{second:02d}Z",
            "message": {"id": api_id, "role": "assistant", "model": "claude-x", "content": content},
        }

    def result(uuid, call_id, second):
        return {
            "type": "user",
            "uuid": uuid,
            "timestamp": f"2026-01-01T00:00:{second:02d}Z",
            "message": {"role": "user", "content": [{"type": "tool_result", "tool_use_id": call_id, "content": "ok"}]},
        }

    lines = [
        {
            "type": "user",
            "uuid": "u1",
            "timestamp": "2026-01-01T00:00:00Z",
            "message": {"role": "user", "content": "Fix it"},
        },
        assistant(
            "a1",
            "r1",
            [{"type": "text", "text": "Looking."}, {"type": "tool_use", "id": "c1", "name": "Read", "input": {}}],
            1,
        ),
        result("t1", "c1", 2),
        assistant("a2", "r2", [{"type": "tool_use", "id": "c2", "name": "Edit", "input": {}}], 3),
        result("t2", "c2", 4),
        assistant("a3", "r3", [{"type": "tool_use", "id": "c3", "name": "Bash", "input": {}}], 5),
        result("t3", "c3", 6),
        assistant("a4", "r4", [{"type": "text", "text": "Done."}], 7),
        {
            "type": "user",
            "uuid": "u2",
            "timestamp": "2026-01-01T00:00:08Z",
            "message": {"role": "user", "content": "Thanks"},
        },
        assistant("a5", "r5", [{"type": "text", "text": "Welcome."}], 9),
    ]
    session = READERS["claude-code"](b"".join(_line(v) for v in lines), "turns.jsonl")
    assert [m["role"] for m in session.messages] == ["user", "assistant", "user", "assistant"]
    reply = session.messages[1]
    assert [b.get("name") or b.get("text") for b in reply["blocks"]] == ["Looking.", "Read", "Edit", "Bash", "Done."]
    assert all(b["status"] == "ok" for b in reply["blocks"] if b["type"] == "tool_call")
    assert reply["createdAt"] == "2026-01-01T00:00:01.000Z" and reply["meta"]["modelId"] == "claude-x"
    kinds = [s.kind for s in segments(reply["id"], reply["blocks"], "fully-folded")]
    assert kinds == ["text", "group", "text"]
