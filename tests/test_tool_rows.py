"""Tool rows of the agent's file and shell tools: status, summary, diff with Revert, live output, limits."""

from __future__ import annotations

import difflib

from hypothesis import given
from hypothesis import strategies as st
from PySide6.QtGui import QFont

from pidesktop.ui.chat import tool_rows
from pidesktop.ui.chat.message_layout import layout_row
from pidesktop.ui.chat.transcript_model import message_row
from pidesktop.ui.kit import theme as themes

BEFORE = "def greet(name):\n    return 'hi ' + name\n"
AFTER = "def greet(name):\n    return f'Hello, {name}!'\n"


def edit_call(**extra) -> dict:
    block = {
        "type": "tool_call",
        "callId": "c1",
        "name": "edit",
        "args": {"path": "src/greet.py", "oldText": "return 'hi ' + name", "newText": "return f'Hello, {name}!'"},
        "status": "ok",
        "result": "Edited src/greet.py",
        "details": {
            "review": {
                "snapshotId": "snap1",
                "path": "src/greet.py",
                "op": "edit",
                "before": BEFORE,
                "after": AFTER,
                "reversible": True,
            }
        },
    }
    return {**block, **extra}


def row_of(*blocks: dict, live: bool = False) -> dict:
    return message_row({"id": "m1", "role": "assistant", "blocks": list(blocks), "meta": {"status": "ok"}}, live=live)


def lay_out(row: dict, expanded=(), reviews=None, theme=themes.LIGHT):
    return layout_row(row, 900, theme, QFont(), frozenset(expanded), mode="flat", reviews=reviews)


def text_of(rendered) -> str:
    return "\n".join(part.doc.toPlainText() for part in rendered.parts)


def test_an_unfolded_edit_shows_its_diff_and_an_enabled_revert(qapp):
    rendered = lay_out(row_of(edit_call()), {"tool:m1:0"})
    text = text_of(rendered)
    assert "edit src/greet.py ✓" in text
    assert "-     return 'hi ' + name" in text and "+     return f'Hello, {name}!'" in text
    assert "+1 −1" in text
    revert = next(a for a in rendered.actions if a.name == "revert:snap1")
    assert revert.enabled and revert.always and revert.label == "Revert"
    tool = next(p for p in rendered.parts if p.kind == "tool")
    assert tool.y <= revert.rect.top() and revert.rect.bottom() <= tool.y + tool.height  # inside its row


def test_a_folded_edit_has_no_revert_and_one_line(qapp):
    rendered = lay_out(row_of(edit_call()))
    assert not [a for a in rendered.actions if a.name.startswith("revert:")]
    assert "return" not in text_of(rendered)


def test_a_reverted_change_says_so_and_revert_is_off(qapp):
    reviews = {"snap1": {"snapshotId": "snap1", "reversible": True, "reverted": True}}
    rendered = lay_out(row_of(edit_call()), {"tool:m1:0"}, reviews)
    revert = next(a for a in rendered.actions if a.name == "revert:snap1")
    assert not revert.enabled and revert.label == "Reverted"
    assert "Reverted: the file is back as it was before this change." in text_of(rendered)


def test_a_change_that_cannot_be_reverted_says_why(qapp):
    review = {"snapshotId": "s2", "path": "big.bin", "op": "write", "reversible": False}
    block = edit_call(name="write", args={"path": "big.bin", "content": "x"}, details={"review": review})
    rendered = lay_out(row_of(block), {"tool:m1:0"})
    assert not next(a for a in rendered.actions if a.name == "revert:s2").enabled
    assert "larger than 1 MiB" in text_of(rendered)


def test_a_failed_call_never_shows_a_tick(qapp):
    failed = edit_call(status="error", result="oldText was found 2 times; give more context", details={})
    rendered = lay_out(row_of(failed), {"tool:m1:0"})
    text = text_of(rendered)
    assert "✓" not in text and "✗" in text
    assert "found 2 times" in text
    assert not [a for a in rendered.actions if a.name.startswith("revert:")]  # nothing changed: nothing to revert


def test_a_call_without_result_is_running_while_live_and_not_run_once_stored(qapp):
    call = {"type": "tool_call", "callId": "c9", "name": "read", "args": {"path": "README.md"}, "status": "ok"}
    assert "read README.md …" in text_of(lay_out(row_of(call, live=True)))
    stored = text_of(lay_out(row_of(call)))
    assert "✓" not in stored and "read README.md –" in stored


def test_a_command_streams_its_output_into_its_row(qapp, host_client, qtbot):
    from pidesktop.ui.chat.transcript_model import TranscriptModel

    model = TranscriptModel(host_client)
    call = {"type": "tool_call", "callId": "b1", "name": "bash", "args": {"command": "make test"}, "status": "ok"}
    model.set_live({"id": "m1", "role": "assistant", "blocks": [call], "meta": {"status": "streaming"}})
    model.add_tool_output("b1", "compiling\n")
    model.add_tool_output("b1", "3 passed\n")
    qtbot.waitUntil(lambda: "3 passed" in text_of(lay_out(model.rows[0], {"tool:m1:0"})))
    running = text_of(lay_out(model.rows[0], {"tool:m1:0"}))
    assert "compiling\n3 passed" in running and "Running…" in running and "✓" not in running
    model.finish_tool("b1", False, {"output": "compiling\n3 passed\n1 failed", "exitCode": 2})
    qtbot.waitUntil(lambda: "Exit status 2" in text_of(lay_out(model.rows[0], {"tool:m1:0"})))
    assert "✗" in text_of(lay_out(model.rows[0], {"tool:m1:0"}))


def test_a_running_command_shows_its_newest_lines_and_counts_the_rest(qapp, host_client, qtbot):
    from pidesktop.ui.chat.transcript_model import TranscriptModel

    model = TranscriptModel(host_client)
    call = {"type": "tool_call", "callId": "b1", "name": "bash", "args": {"command": "make test"}, "status": "ok"}
    model.set_live({"id": "m1", "role": "assistant", "blocks": [call], "meta": {"status": "streaming"}})
    lines = [f"line {n} " + "x" * 150 + "\n" for n in range(3000)]  # over 400 KiB: more than the window keeps
    for start in range(0, len(lines), 100):
        model.add_tool_output("b1", "".join(lines[start : start + 100]))
    qtbot.waitUntil(lambda: "line 2999 " in text_of(lay_out(model.rows[0], {"tool:m1:0"})))
    running = text_of(lay_out(model.rows[0], {"tool:m1:0"}))
    shown = [n for n in range(3000) if f"line {n} " in running]
    assert shown == list(range(3000 - tool_rows.LIVE_OUTPUT_LINES, 3000))  # the newest, in order, none missing
    assert f"… {3000 - tool_rows.LIVE_OUTPUT_LINES} earlier lines" in running
    assert "Running…" in running


def test_a_long_output_is_laid_out_as_its_tail(qapp):
    output = "\n".join(f"line {i}" for i in range(5000))
    call = {
        "type": "tool_call",
        "callId": "b1",
        "name": "bash",
        "args": {"command": "seq"},
        "status": "ok",
        "result": {"output": output, "exitCode": 0},
    }
    text = text_of(lay_out(row_of(call), {"tool:m1:0"}))
    assert "line 1999" in text and "line 2000" not in text  # pi's 2,000-line limit, then the last lines
    assert "line 1799" not in text and "earlier lines" in text
    assert "Exit status 0" in text


def test_an_imported_result_is_cut_to_the_limits_when_shown(qapp):
    call = {
        "type": "tool_call",
        "callId": "x",
        "name": "Read",
        "args": {"file_path": "a"},
        "status": "ok",
        "result": "\n".join("y" * 10 for _ in range(3000)),
    }
    text = text_of(lay_out(row_of(call), {"tool:m1:0"}))
    assert text.count("yyyyyyyyyy") == 2000


@given(
    st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=3000),
    st.integers(1, 50),
    st.integers(4, 400),
)
def test_cut_keeps_a_prefix_within_both_limits(text, max_lines, max_bytes):
    shown, was_cut = tool_rows.cut(text, max_lines, max_bytes)
    assert text.startswith(shown)
    assert len(shown.splitlines()) <= max_lines and len(shown.encode()) <= max_bytes
    assert was_cut == (shown != text)


lines = st.lists(st.sampled_from(["a", "b", "c", "", "d e", "  f"]), max_size=30)


@given(lines, lines)
def test_the_diff_rows_rebuild_both_sides(before, after):
    diff = "\n".join(difflib.unified_diff(before, after, lineterm="", n=1000))
    rows = tool_rows._parse_unified(diff)
    assert [t for m, t in rows if m in " -"] == (before if before != after else [])
    assert [t for m, t in rows if m in " +"] == (after if before != after else [])
