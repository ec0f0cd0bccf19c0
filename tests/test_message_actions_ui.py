"""Per-message actions in the transcript: copy, regenerate with the pager, edit and resend, fork, delete."""

import pytest
from PySide6.QtCore import QPointF, Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication

from pidesktop.ui.chat import markdown
from pidesktop.ui.kit import theme as themes
from tests.support.waits import spin_until
from tests.support.windows import stored_messages


@pytest.fixture
def chat(chat, qloop):
    """The window with one offline exchange in a new chat."""
    qloop.run_until_complete(chat.chats.send_prompt("first question"))
    return chat


def pager_of_first_row(win) -> list[str]:
    """The always-shown actions (the revision pager) of the transcript's first row, as laid out."""
    model = win.transcript_model
    if model.rowCount() == 0:
        return []
    return [action.label for action in win.transcript.delegate.rendered(model.index(0)).actions if action.always]


def test_copy_puts_the_full_text_on_the_clipboard(chat, qloop):
    reply = stored_messages(chat)[1]
    qloop.run_until_complete(chat.chats.run_message_action("copy", reply["id"]))
    assert QApplication.clipboard().text().startswith("## Offline demo")


def test_regenerate_keeps_the_old_reply_as_a_revision_and_pages_between_them(chat, qloop):
    first_reply = stored_messages(chat)[1]
    qloop.run_until_complete(chat.chats.run_message_action("regenerate", first_reply["id"]))
    messages = stored_messages(chat)
    assert [m["role"] for m in messages] == ["user", "assistant"]
    assert messages[1]["id"] != first_reply["id"]
    root = messages[0]
    assert (root["meta"]["revisionCount"], root["meta"]["activeRevision"]) == (2, 2)
    # The transcript reloads once the reply is in. The old rows already counted two, and a reload under load
    # shows the newest row first and puts the prompt above it a tick later: wait for the prompt's pager itself.
    spin_until(qloop, lambda: pager_of_first_row(chat) == ["‹", "2 / 2", "›"])
    qloop.run_until_complete(chat.chats.run_message_action("revision-prev", root["id"]))
    back = stored_messages(chat)
    assert back[1]["id"] == first_reply["id"] and back[0]["meta"]["activeRevision"] == 1


def test_edit_and_resend_replaces_the_prompt_and_keeps_the_family(chat, qtbot, qloop):
    prompt = stored_messages(chat)[0]
    qloop.run_until_complete(chat.chats.run_message_action("edit", prompt["id"]))
    assert chat.composer.edit.toPlainText() == "first question"
    assert chat.composer.edit_bar.isVisible() and "Editing" in chat.composer.edit_bar_label.text()
    chat.composer.edit.setPlainText("better question")
    qtbot.keyClick(chat.composer.edit, Qt.Key.Key_Return)
    spin_until(
        qloop,
        lambda: (
            not chat.runner.is_running(chat.current_session_id)
            and [m["blocks"][0].get("text") for m in stored_messages(chat)][:1] == ["better question"]
        ),
    )
    messages = stored_messages(chat)
    assert len(messages) == 2 and messages[0]["meta"]["revisionRootId"] == prompt["id"]
    revisions = chat.client.call_blocking(
        "session.listRevisions", {"sessionId": chat.current_session_id, "rootUserId": prompt["id"]}
    )["revisions"]
    assert len(revisions) == 2


def test_fork_from_a_message_opens_the_new_chat(chat, qloop):
    source = chat.current_session_id
    prompt = stored_messages(chat)[0]
    qloop.run_until_complete(chat.chats.run_message_action("fork", prompt["id"]))
    spin_until(qloop, lambda: chat.current_session_id != source)
    forked = stored_messages(chat)
    assert [m["role"] for m in forked] == ["user"]
    assert forked[0]["blocks"] == prompt["blocks"] and forked[0]["id"] != prompt["id"]


def test_edit_on_a_reply_saves_the_edit_as_a_new_chat_and_leaves_this_one(chat, qtbot, qloop):
    source = chat.current_session_id
    before = stored_messages(chat)
    reply = before[1]
    row = chat.transcript_model.index(chat.transcript_model.row_of(reply["id"]))
    assert "edit" in [a.name for a in chat.transcript.delegate.rendered(row).actions]
    qloop.run_until_complete(chat.chats.run_message_action("edit", reply["id"]))
    dialog = chat.chats.reply_dialog
    assert dialog.isVisible() and dialog.editor.toPlainText().startswith("## Offline demo")
    assert not chat.composer.edit_bar.isVisible()  # a reply is not a prompt to resend
    dialog.editor.setPlainText("")
    assert not dialog.save_button.isEnabled()
    dialog.editor.setPlainText("A shorter, corrected answer.")
    dialog.grab().save("/tmp/reply-edit-dialog.png")
    qtbot.mouseClick(dialog.save_button, Qt.MouseButton.LeftButton)
    spin_until(qloop, lambda: chat.current_session_id not in (None, source))
    edited = stored_messages(chat)
    assert [m["role"] for m in edited] == ["user", "assistant"]
    assert edited[1]["blocks"][0]["text"] == "A shorter, corrected answer."
    spin_until(qloop, lambda: pager_of_first_row(chat) == ["‹", "2 / 2", "›"])
    assert chat.client.call_blocking("session.get", {"sessionId": source})["messages"] == before


def test_delete_asks_then_removes_the_message(chat, qtbot, qloop):
    reply = stored_messages(chat)[1]
    qloop.run_until_complete(chat.chats.run_message_action("delete", reply["id"]))
    box = chat.chats.confirm_box
    delete = next(b for b in box.buttons() if b.text() == "Delete")
    qtbot.mouseClick(delete, Qt.MouseButton.LeftButton)
    spin_until(qloop, lambda: [m["role"] for m in stored_messages(chat)] == ["user"])
    spin_until(qloop, lambda: chat.transcript_model.rowCount() == 1)


def test_sidebar_fork_copies_the_whole_chat(chat, qloop):
    source = chat.current_session_id
    chat.sidebar.fork_action.trigger()
    spin_until(qloop, lambda: chat.current_session_id not in (None, source))
    assert [m["role"] for m in stored_messages(chat)] == ["user", "assistant"]


def test_held_prompts_show_above_the_composer_and_resume(chat, qloop):
    sid = chat.current_session_id
    chat.client.call_blocking("session.queuePush", {"sessionId": sid, "content": "queued while away"})
    spin_until(qloop, lambda: not chat.queue_strip.isHidden())
    assert chat.queue_strip.resume_button.isVisible()
    chat.queue_strip.resume_button.click()
    spin_until(qloop, lambda: chat.queue_strip.isHidden() and len(stored_messages(chat)) == 4)
    assert stored_messages(chat)[2]["blocks"][0]["text"] == "queued while away"


def test_a_long_message_is_capped_with_show_full(chat, qloop, monkeypatch):
    from pidesktop.ui.chat import transcript_model

    monkeypatch.setattr(transcript_model, "CONTENT_LIMIT", 200)
    sid = chat.current_session_id
    long_text = "word " * 400
    chat.client.call_blocking(
        "session.appendMessage",
        {
            "sessionId": sid,
            "message": {"id": "long-1", "role": "assistant", "blocks": [{"type": "text", "text": long_text}]},
        },
    )
    qloop.run_until_complete(chat.chat_view.open_transcript(sid))
    row = chat.transcript_model.rows[chat.transcript_model.row_of("long-1")]
    assert row["message"]["blocks"][0]["truncated"] and len(row["message"]["blocks"][0]["text"]) == 200
    index = chat.transcript_model.index(chat.transcript_model.row_of("long-1"))
    rendered = chat.transcript.delegate.rendered(index)
    assert any(a.name == "show-full" and a.always for a in rendered.actions)
    qloop.run_until_complete(chat.chats.run_message_action("show-full", "long-1"))
    full = chat.transcript_model.rows[chat.transcript_model.row_of("long-1")]["message"]["blocks"][0]
    assert full["text"] == long_text and "truncated" not in full


def test_a_code_panel_has_a_copy_link_that_copies_exactly_its_code(chat, qloop):
    # the offline reply to "first question" ends with a Python snippet in a fenced block
    view = chat.transcript
    model = chat.transcript_model
    reply_row = next(
        i for i, r in enumerate(model.rows) if r["kind"] == "message" and r["message"]["role"] == "assistant"
    )
    index = model.index(reply_row)
    view.scrollTo(index)
    rendered = view.delegate.rendered(index)
    part = next(p for p in rendered.parts if p.source and "```" in p.source)
    # find the Copy link's place in the laid-out document
    layout = part.doc.documentLayout()
    rect = view.visualRect(index)
    spot = None
    for y in range(0, int(part.height), 3):
        for x in range(int(part.width) - 1, int(part.width) - 120, -3):
            if layout.anchorAt(QPointF(x, y)).startswith("pidesktop-copy:"):
                spot = QPointF(rect.left() + part.x + x, rect.top() + part.y + y)
                break
        if spot:
            break
    assert spot is not None, "the code panel shows a Copy link"
    found_part, href = view.link_at(spot)
    assert found_part is part and href == "pidesktop-copy:0"
    QApplication.clipboard().setText("")
    QTest.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=spot.toPoint())
    code = markdown.code_blocks(part.source)[0]
    assert QApplication.clipboard().text() == code and code.startswith("prompt = ")
    assert "copied" in chat.notice.label.text()


def test_code_blocks_are_listed_in_the_order_their_links_are_numbered():
    text = "intro\n\n```python\nprint(1)\n```\n\n    indented\n\n```\nplain\n```"
    assert markdown.code_blocks(text) == ["print(1)", "indented", "plain"]
    rendered = markdown.to_html(text, themes.LIGHT, "Copy")
    assert [rendered.index(f"pidesktop-copy:{n}") for n in range(3)] == sorted(
        rendered.index(f"pidesktop-copy:{n}") for n in range(3)
    )
