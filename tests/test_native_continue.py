"""Continue in pidesktop: what the model is shown of a pi session, and pi's usage fields."""

from __future__ import annotations

from pidesktop.agent import compaction
from pidesktop.agent.native_continue import pi_usage, request_messages


def msg(n: int, role: str, text: str = "", **extra) -> dict:
    return {
        "id": f"e{n}",
        "role": role,
        "blocks": [{"type": "text", "text": text or f"{role} {n}"}],
        "seq": n + 1,
        "index": n,
        **extra,
    }


def page(messages: list[dict], compactions: list[dict] | None = None) -> dict:
    return {"messages": messages, "compactions": compactions or [], "session": {"nativeToken": "t"}}


def test_the_prompt_follows_the_branch_without_reader_bookkeeping():
    sent = request_messages(page([msg(0, "user"), msg(1, "assistant")]), "next", 100_000)
    assert [m["role"] for m in sent] == ["user", "assistant", "user"]
    assert sent[-1]["blocks"] == [{"type": "text", "text": "next"}]
    assert all("seq" not in m and "index" not in m for m in sent)


def test_pis_compaction_summary_comes_first_then_what_it_kept():
    messages = [msg(n, "user" if n % 2 == 0 else "assistant") for n in range(6)]
    checkpoint = {
        "id": "cp1",
        "summary": "They talked about sorting.",
        "throughMessageId": "e3",
        "firstKeptMessageId": "e2",
    }
    sent = request_messages(page(messages, [checkpoint]), "go on", 100_000)
    assert sent[0] == compaction.summary_message(checkpoint)
    assert [m["id"] for m in sent[1:-1]] == ["e2", "e3", "e4", "e5"]
    # a first kept message outside the window: everything after the checkpoint's boundary
    checkpoint["firstKeptMessageId"] = "gone"
    assert [m["id"] for m in request_messages(page(messages, [checkpoint]), "go on", 100_000)[1:-1]] == ["e4", "e5"]


def test_context_notes_go_along_and_unfinished_replies_do_not():
    note = msg(2, "system", "Injected context", meta={"native": {"type": "custom_message"}})
    streaming = msg(3, "assistant", meta={"status": "streaming"})
    sent = request_messages(page([msg(0, "user"), msg(1, "assistant"), note, streaming]), "q", 100_000)
    assert [m["id"] for m in sent[:-1]] == ["e0", "e1", "e2"]


def test_the_oldest_messages_go_first_when_over_budget_and_a_request_starts_with_the_person():
    messages = [msg(n, "user" if n % 2 == 0 else "assistant", "x" * 400) for n in range(10)]
    sent = request_messages(page(messages), "last", 500)  # room for about four of them
    ids = [m["id"] for m in sent[:-1]]
    assert ids and len(ids) < 10 and ids == [m["id"] for m in messages[-len(ids) :]]
    assert sent[0]["role"] == "user"
    assert request_messages(page(messages), "last", 1)[-1]["blocks"][0]["text"] == "last"


def test_pi_usage_from_an_openai_report():
    assert pi_usage(
        {
            "prompt_tokens": 40,
            "completion_tokens": 4,
            "total_tokens": 44,
            "prompt_tokens_details": {"cached_tokens": 30},
        }
    ) == {"input": 10, "output": 4, "cacheRead": 30, "cacheWrite": 0, "totalTokens": 44}
    assert pi_usage(None) == {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 0}
    assert pi_usage({"input_tokens": 3, "output_tokens": True})["output"] == 0


def test_pis_context_edits_omit_or_replace_what_the_model_is_shown():
    removed = msg(1, "assistant", "a secret", meta={"contextEdit": {"omitted": True}})
    replaced = msg(
        2, "user", "my password is hunter2", meta={"contextEdit": {"blocks": [{"type": "text", "text": "[redacted]"}]}}
    )
    tool = msg(3, "assistant")
    tool["blocks"] = [
        {"type": "tool_call", "callId": "c1", "name": "read", "result": "huge", "contextEdit": {"result": "short"}},
        {"type": "tool_call", "callId": "c2", "name": "read", "result": "gone", "contextEdit": {"omitted": True}},
    ]
    sent = request_messages(page([msg(0, "user"), removed, replaced, tool]), "q", 100_000)
    assert [m["id"] for m in sent[:-1]] == ["e0", "e2", "e3"]
    assert sent[1]["blocks"] == [{"type": "text", "text": "[redacted]"}]
    first, second = sent[2]["blocks"]
    assert first["result"] == "short" and "contextEdit" not in first
    assert "result" not in second
