"""A search hit opens with its matched words on screen and keeps them there: in a reply taller than the
window, and in the chat that was already open."""

import asyncio
import random

from PySide6.QtCore import QRect

from tests.support.waits import spin_until

WORDS = "build parse layout thinking message index error value cache query window session token offset".split()


def paragraph(rng: random.Random, words: int) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(words)).capitalize() + "."


def seed(chat, qloop, count: int, hit: str, needle: str) -> str:
    """A chat of ``count`` messages, long replies between short prompts; the reply ``hit`` ends with
    ``needle``."""
    rng = random.Random(7)
    sid = chat.client.call_blocking("session.create", {"title": "Long replies"})["session"]["id"]
    for i in range(count):
        if i % 2 == 0:
            role, text = "user", paragraph(rng, 12)
        else:
            role, text = "assistant", "\n\n".join(paragraph(rng, 90) for _ in range(7))
            if f"m{i}" == hit:
                text += f"\n\nAnd at last the {needle} comes up."
        message = {"id": f"m{i}", "role": role, "blocks": [{"type": "text", "text": text}]}
        chat.client.call_blocking("session.appendMessage", {"sessionId": sid, "message": message})
    spin_until(qloop, lambda: chat.model.session(sid) is not None)
    return sid


def words_on_screen(chat, message_id: str) -> bool:
    model, view = chat.transcript_model, chat.transcript
    row = model.row_of(message_id)
    if row < 0 or model.loading:
        return False
    index = model.index(row)
    top = view.match_top(index)
    return top is not None and 0 <= view.visualRect(index).top() + top < view.viewport().height()


def open_hit(chat, qloop, sid: str, message_id: str, query: str) -> None:
    chat.dialogs.open_search_hit(sid, message_id, query)
    spin_until(qloop, lambda: chat.transcript_model.session_id == sid and words_on_screen(chat, message_id))
    qloop.run_until_complete(asyncio.sleep(0.5))  # whatever goes in afterwards must not move them away
    assert words_on_screen(chat, message_id)


def test_a_hit_at_the_end_of_a_long_reply_is_scrolled_to_its_words(chat, qloop):
    chat.resize(1100, 560)  # shorter than the reply
    sid = seed(chat, qloop, 40, "m27", "persimmon orchard")
    open_hit(chat, qloop, sid, "m27", "Persimmon Orchard")
    index = chat.transcript_model.index(chat.transcript_model.row_of("m27"))
    assert chat.transcript.visualRect(index).height() > chat.transcript.viewport().height()


def test_a_hit_in_the_chat_already_open_is_scrolled_to(chat, qloop):
    sid = seed(chat, qloop, 160, "m91", "persimmon orchard")
    chat.sidebar.select(sid)
    model = chat.transcript_model
    spin_until(qloop, lambda: model.session_id == sid and not model.loading and model.row_of("m159") >= 0)
    assert model.row_of("m91") < 0  # not on the newest page
    open_hit(chat, qloop, sid, "m91", "persimmon orchard")
    assert model.has_more_before


def test_the_words_stay_marked_after_the_row_s_highlight_fades(chat, qloop):
    sid = seed(chat, qloop, 40, "m27", "persimmon orchard")
    open_hit(chat, qloop, sid, "m27", "persimmon orchard")
    view, model = chat.transcript, chat.transcript_model
    spin_until(qloop, lambda: model.highlight_id is None, timeout=10)  # the row's highlight has faded
    index = model.index(model.row_of("m27"))
    line = view.visualRect(index).top() + round(view.match_top(index))
    band = QRect(0, line, view.viewport().width(), 12)
    marked = view.viewport().grab(band).toImage()
    model.found_id = None  # what the same row looks like unmarked
    unmarked = view.viewport().grab(band).toImage()
    assert marked != unmarked
    model.found_id = "m27"
    assert view.viewport().grab(band).toImage() == marked
