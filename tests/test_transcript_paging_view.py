"""Paging through a long chat in the window: the message on top stays where the reader saw it,
whether rows went in above it, or rows went out at the far end (at most MAX_ROWS stay loaded)."""

from pidesktop.ui.chat import transcript_model
from tests.support.waits import spin_until
from tests.support.windows import started_window
from tests.test_chat_ui import seed_long_session


def anchored(view):
    """The key of the row at the top of the viewport and where its top is."""
    key, top = view._top_anchor()
    return key, top


def where(view, key):
    model = view.model()
    return view.visualRect(model.index(model.row_of(key))).top()


def test_the_top_message_stays_put_while_pages_come_and_go(qtbot, qloop, location, loop_hosts, monkeypatch):
    monkeypatch.setattr(transcript_model, "MAX_ROWS", 80)
    sid = seed_long_session(location, 220)
    win = started_window(qtbot, qloop, loop_hosts.start(), size=(1000, 700))
    win.sidebar.select(sid)
    model, view = win.transcript_model, win.transcript
    spin_until(qloop, lambda: model.rowCount() == 50 and view.verticalScrollBar().maximum() > 0)
    bar = view.verticalScrollBar()
    dropped = False
    for _page in range(3):  # back: 50 rows in above each time; past 80 rows the newest go
        start = model.start
        bar.setValue(0)  # the reader reaches the top: the older page is asked for
        key, top = view._anchor
        spin_until(qloop, lambda start=start: model.start < start and "older" not in model.loading)
        spin_until(qloop, lambda key=key, top=top: abs(where(view, key) - top) <= 2)  # the anchor is put back
        assert model.rowCount() <= 80
        indexes = [row["index"] for row in model.rows]
        assert indexes == list(range(model.start, model.start + len(indexes)))  # one unbroken stretch
        assert model.end == indexes[-1] + 1  # and paging forward starts right after it
        dropped = dropped or model.has_more_after
    assert dropped and model.start <= 70
    back = model.start
    for _page in range(2):  # forward again (as a jump to a search hit pages): rows go out above the reader
        bar.setValue(bar.maximum() - 60)  # near the end, not at it (that would page on by itself)
        spin_until(qloop, lambda: not model.loading)
        key, top = anchored(view)
        qloop.run_until_complete(model.load_newer())
        assert model.rowCount() <= 80 and model.row_of(key) >= 0
        spin_until(qloop, lambda key=key, top=top: abs(where(view, key) - top) <= 2)
    assert model.start > back  # the oldest rows went as newer ones came in
    win.close()


def test_a_streamed_reply_grows_at_the_end_and_stays_in_view(qtbot, qloop, location, loop_hosts):
    sid = seed_long_session(location, 30)
    win = started_window(qtbot, qloop, loop_hosts.start(), size=(1000, 700))
    win.sidebar.select(sid)
    model, view = win.transcript_model, win.transcript
    spin_until(qloop, lambda: model.rowCount() == 30 and view.verticalScrollBar().maximum() > 0)
    bar = view.verticalScrollBar()
    spin_until(qloop, lambda: bar.value() == bar.maximum())
    text = ""
    for _ in range(12):  # each update is laid out before the next one comes
        text += "a growing reply with more words in every update " * 3
        model.set_live(
            {
                "id": "live",
                "role": "assistant",
                "blocks": [{"type": "text", "text": text}],
                "meta": {"status": "streaming"},
            }
        )

        def laid_out_and_in_view() -> bool:
            last = model.index(model.rowCount() - 1)
            laid_out = view.visualRect(last).height() == round(view.delegate.rendered(last).height)  # for its text
            return laid_out and bar.value() == bar.maximum()  # and the newest line in view

        spin_until(qloop, laid_out_and_in_view)  # each update is laid out before the next (no fixed pause)
    assert model.rows[-1]["live"] and model.rowCount() == 31
    win.close()
