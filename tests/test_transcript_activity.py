"""Display modes (flat / command-first / fully-folded) and subagent rows under their Task call."""

import pytest
from hypothesis import given
from hypothesis import strategies as st
from PySide6.QtWidgets import QStyleOptionViewItem

from pidesktop.ui.chat import activity
from tests.support.waits import spin_until


def tool(cid, name, status="ok", ms=100):
    return {
        "type": "tool_call",
        "callId": cid,
        "name": name,
        "args": {"path": cid},
        "status": status,
        "result": "done",
        "durationMs": ms,
    }


BLOCKS = [
    {"type": "text", "text": "Looking."},
    tool("r1", "Read"),
    tool("g1", "Grep"),
    tool("b1", "Bash"),
    tool("r2", "Read"),
    tool("t1", "Task", ms=2000),
    {"type": "text", "text": "Found it."},
]


def shape(segments):
    return [(s.kind, [n for n, _b in s.tools]) if s.kind != "text" else ("text", s.text) for s in segments]


def test_flat_shows_every_call_on_its_own():
    assert shape(activity.segments("m", BLOCKS, "flat")) == [
        ("text", "Looking."),
        ("tool", [0]),
        ("tool", [1]),
        ("tool", [2]),
        ("tool", [3]),
        ("tool", [4]),
        ("text", "Found it."),
    ]


def test_fully_folded_folds_the_whole_run_commands_included():
    segments = activity.segments("m", BLOCKS, "fully-folded")
    assert shape(segments) == [("text", "Looking."), ("group", [0, 1, 2, 3, 4]), ("text", "Found it.")]
    assert segments[1].key == "group:m:0"


def test_command_first_keeps_commands_beside_the_groups():
    assert shape(activity.segments("m", BLOCKS, "command-first")) == [
        ("text", "Looking."),
        ("group", [0, 1]),
        ("tool", [2]),
        ("group", [3, 4]),
        ("text", "Found it."),
    ]


def test_unknown_or_missing_mode_means_fully_folded():
    assert activity.normalize_mode(None) == "fully-folded"
    assert activity.normalize_mode("compact") == "fully-folded"
    assert shape(activity.segments("m", BLOCKS, "weird")) == shape(activity.segments("m", BLOCKS, "fully-folded"))


def test_a_group_of_one_is_shown_as_that_call():
    blocks = [{"type": "text", "text": "a"}, tool("r1", "Read"), {"type": "text", "text": "b"}]
    assert shape(activity.segments("m", blocks, "fully-folded")) == [("text", "a"), ("tool", [0]), ("text", "b")]


def test_group_summary_counts_names_sums_time_and_reports_the_worst_status():
    segments = activity.segments("m", BLOCKS[:4] + [tool("x", "Read", status="error", ms=50)], "fully-folded")
    names, seconds, worst = activity.group_summary(segments[1].tools)
    assert names == [("Read", 2), ("Grep", 1), ("Bash", 1)]
    assert seconds == pytest.approx(0.35)
    assert worst == "error"


block_strategy = st.one_of(
    st.builds(lambda t: {"type": "text", "text": t}, st.text(min_size=1, max_size=5)),
    st.builds(
        lambda n: {"type": "tool_call", "callId": "c", "name": n},
        st.sampled_from(["Read", "Bash", "run", "Grep", "Task", "shell"]),
    ),
    st.just({"type": "thinking", "text": "hm"}),
)


@given(st.lists(block_strategy, max_size=30), st.sampled_from(activity.DISPLAY_MODES))
def test_every_call_appears_once_in_order_and_text_is_kept(blocks, mode):
    segments = activity.segments("m", blocks, mode)
    numbers = [n for s in segments for n, _b in s.tools]
    calls = [b for b in blocks if b["type"] == "tool_call"]
    assert numbers == list(range(len(calls)))
    assert [b for s in segments for _n, b in s.tools] == calls
    # a text segment joins its blocks with a blank line, so joining the segments the same way gives every
    # text block, in order, exactly (stripping the separators instead would lose texts made of newlines)
    texts = "\n\n".join(s.text for s in segments if s.kind == "text")
    assert texts == "\n\n".join(b["text"] for b in blocks if b["type"] == "text")
    assert all(len(s.tools) >= 2 for s in segments if s.kind == "group")
    if mode == "flat":
        assert not any(s.kind == "group" for s in segments)
    if mode == "command-first":
        assert not any(activity.is_command(b) for s in segments if s.kind == "group" for _n, b in s.tools)
    if mode == "fully-folded":  # no two tool segments side by side: a run is one fold
        kinds = [s.kind for s in segments]
        assert not any(a != "text" and b != "text" for a, b in zip(kinds, kinds[1:]))


# -- in the window -----------------------------------------------------------------------------


def seed(client):
    sid = client.call_blocking("session.create", {"title": "Agentic"})["session"]["id"]

    def add(message):
        client.call_blocking("session.appendMessage", {"sessionId": sid, "message": message})

    add({"id": "u1", "role": "user", "blocks": [{"type": "text", "text": "Why is it flaky?"}]})
    add({"id": "a1", "role": "assistant", "blocks": BLOCKS, "meta": {"status": "completed"}})
    sub = {"parentToolCallId": "t1", "agentName": "code-reviewer"}
    add({"id": "s1", "role": "user", "blocks": [{"type": "text", "text": "Review it."}], "meta": sub})
    add(
        {
            "id": "s2",
            "role": "assistant",
            "blocks": [{"type": "text", "text": "Stale rect."}],
            "meta": {**sub, "status": "completed"},
        }
    )
    add({"id": "u2", "role": "user", "blocks": [{"type": "text", "text": "Thanks."}]})
    return sid


def height(window, key):
    view = window.transcript
    index = window.transcript_model.index(window.transcript_model.row_of(key))
    return view.delegate.sizeHint(QStyleOptionViewItem(), index).height()


def kinds(window, key):
    view = window.transcript
    index = window.transcript_model.index(window.transcript_model.row_of(key))
    return [part.kind for part in view.delegate.rendered(index).parts]


def open_chat(chat, qloop):
    sid = seed(chat.client)
    qloop.run_until_complete(chat.chat_view.open_transcript(sid))
    spin_until(qloop, lambda: chat.transcript_model.row_of("u2") >= 0)
    return sid


def test_subagent_rows_stay_folded_under_their_task_call_until_it_is_opened(chat, qloop):
    open_chat(chat, qloop)
    view = chat.transcript
    assert kinds(chat, "a1") == ["text", "group", "text"]
    assert height(chat, "s1") == 0 and height(chat, "s2") == 0
    view.toggle("group:a1:0")
    assert kinds(chat, "a1") == ["text", "group", "tool", "tool", "tool", "tool", "tool", "text"]
    assert height(chat, "s1") == 0  # the Task call itself is still folded
    view.toggle("tool:a1:4")
    assert height(chat, "s1") > 0 and height(chat, "s2") > 0
    index = chat.transcript_model.index(chat.transcript_model.row_of("s1"))
    nested = view.delegate.rendered(index)
    assert nested.guide_x is not None
    assert "code-reviewer" in nested.parts[0].doc.toPlainText()  # the first row names the agent
    second = view.delegate.rendered(chat.transcript_model.index(chat.transcript_model.row_of("s2")))
    assert "code-reviewer" not in second.parts[0].doc.toPlainText()
    assert [a.name for a in nested.actions] == ["copy"]  # no edit/regenerate on a delegate's row
    view.toggle("group:a1:0")  # folding the group folds the Task call and its rows again
    assert height(chat, "s1") == 0


def test_subagent_rows_whose_task_is_not_loaded_are_shown_nested(chat, qloop):
    sid = chat.client.call_blocking("session.create", {"title": "Orphans"})["session"]["id"]
    chat.client.call_blocking(
        "session.appendMessage",
        {
            "sessionId": sid,
            "message": {
                "id": "o1",
                "role": "assistant",
                "blocks": [{"type": "text", "text": "From a delegate."}],
                "meta": {"status": "completed", "parentToolCallId": "gone", "agentName": "helper"},
            },
        },
    )
    qloop.run_until_complete(chat.chat_view.open_transcript(sid))
    spin_until(qloop, lambda: chat.transcript_model.row_of("o1") >= 0)
    assert height(chat, "o1") > 0
    index = chat.transcript_model.index(0)
    assert chat.transcript.delegate.rendered(index).guide_x is not None


def test_the_display_mode_setting_regroups_the_open_chat(chat, qloop):
    open_chat(chat, qloop)
    chat.client.call_blocking("settings.set", {"patch": {"transcriptDisplayMode": "flat"}})
    settings = chat.client.call_blocking("settings.get", {})["settings"]
    qloop.run_until_complete(chat.dialogs.apply_settings(settings))
    assert kinds(chat, "a1") == ["text", "tool", "tool", "tool", "tool", "tool", "text"]
    qloop.run_until_complete(chat.dialogs.apply_settings({**settings, "transcriptDisplayMode": "command-first"}))
    assert kinds(chat, "a1") == ["text", "group", "tool", "group", "text"]
