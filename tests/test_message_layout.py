"""One transcript row as laid out: a streaming reply never flashes raw markers; a cut-off reply says why."""

from __future__ import annotations

import pytest

from pidesktop.ui.kit import theme as themes


def row_text(message: dict, live: bool) -> str:
    from PySide6.QtGui import QFont

    from pidesktop.ui.chat.message_layout import layout_row

    rendered = layout_row(
        {"kind": "message", "message": message, "live": live}, 800, themes.LIGHT, QFont(), frozenset()
    )
    return "\n".join(part.doc.toPlainText() for part in rendered.parts)


@pytest.mark.parametrize(
    "partial", ["- **Size:** 15 words\n- **First sen", "Run `pip inst", "It is *very", "Done **", "Say __hi"]
)
def test_a_streaming_reply_does_not_flash_unclosed_markers(qapp, partial):
    message = {"id": "a1", "role": "assistant", "blocks": [{"type": "text", "text": partial}]}
    shown = row_text(message, live=True)
    assert not any(marker in shown for marker in ("**", "`", "*", "__")), shown
    assert "▍" in shown


def test_a_finished_reply_keeps_its_text_as_written(qapp):
    from pidesktop.ui.chat.markdown import close_open_markers

    message = {"id": "a1", "role": "assistant", "blocks": [{"type": "text", "text": "a lone ** stays"}]}
    assert "**" in row_text(message, live=False)
    fenced = "Code:\n\n```python\nprint('**')"
    assert close_open_markers(fenced) == fenced  # an open fence runs to the end by itself
    assert close_open_markers("2 * 3 and snake_case") == "2 * 3 and snake_case"


def test_the_transcript_labels_a_crash_apart_from_a_stop(qapp):
    crashed = {
        "id": "a1",
        "role": "assistant",
        "blocks": [{"type": "text", "text": "Once upon a"}],
        "meta": {"status": "aborted", "recoveredFrom": "inflight", "stopReason": "crash"},
    }
    stopped = {
        "id": "a2",
        "role": "assistant",
        "blocks": [{"type": "text", "text": "Once upon a"}],
        "meta": {"status": "aborted"},
    }
    assert "Interrupted — pidesktop quit or crashed while this reply was being written." in row_text(crashed, False)
    assert "Stopped — the reply above is partial." in row_text(stopped, False)
    assert "Interrupted" not in row_text(stopped, False)


def test_a_tool_row_says_how_long_a_call_ran_and_denied_for_one_that_never_ran(qapp):
    def call(status):
        return {
            "id": "a3",
            "role": "assistant",
            "blocks": [
                {
                    "type": "tool_call",
                    "callId": "c1",
                    "name": "write",
                    "args": {"path": "todo.md", "content": "x"},
                    "status": status,
                    "result": "…",
                    "durationMs": 1200,
                }
            ],
            "meta": {"status": "completed"},
        }

    assert "write todo.md ✓ · 1.2 s" in row_text(call("ok"), False)
    denied = row_text(call("denied"), False)
    assert "write todo.md ⊘ denied" in denied and " s" not in denied.split("⊘")[1]


def test_an_approved_plan_s_prompt_is_rendered_and_a_typed_prompt_is_shown_as_typed(qapp):
    text = (
        "I approved the plan below. Carry it out now, step by step.\n\n"
        "## Steps\n\n1. Read `calc.py`\n2. Add **subtract**"
    )

    def user(meta):
        return {"id": "u1", "role": "user", "blocks": [{"type": "text", "text": text}], "meta": meta}

    approved = row_text(user({"approvedProposal": {"approvalId": "a1", "kind": "plan"}}), False)
    assert "## Steps" not in approved and "**" not in approved and "`" not in approved and "Steps" in approved
    typed = row_text(user({}), False)
    assert "## Steps" in typed and "**subtract**" in typed
