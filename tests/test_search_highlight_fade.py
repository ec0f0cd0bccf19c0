"""A search hit's highlight shows where the hit is, then fades away."""

from tests.support.waits import spin_until


def test_the_highlight_of_a_search_hit_fades(chat, qtbot, qloop):
    qloop.run_until_complete(chat.chats.send_prompt("needle in a haystack"))
    sid = chat.current_session_id
    spin_until(qloop, lambda: not chat.runner.is_running(sid))
    hit = chat.client.call_blocking("session.get", {"sessionId": sid})["messages"][0]
    qloop.run_until_complete(chat.chat_view.open_transcript(sid, around=hit["id"]))
    assert chat.transcript_model.highlight_id == hit["id"]
    spin_until(qloop, lambda: 0 < chat.transcript.highlight_level < 1, timeout=10)  # fading
    spin_until(qloop, lambda: chat.transcript_model.highlight_id is None, timeout=10)
    assert chat.transcript.highlight_level == 0
