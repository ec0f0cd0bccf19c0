"""Long chats in the window: the compaction divider, Compact now, usage and cost under replies,
the context meter, and Settings > Usage."""

import pytest
import shiboken6
from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QFont

from pidesktop.agent.context import message_tokens
from pidesktop.agent.runner import TurnRunner
from pidesktop.ui.chat import transcript_model
from pidesktop.ui.chat.message_layout import divider_label, layout_row, summary_key
from pidesktop.ui.chat.transcript_model import TranscriptModel, message_row
from pidesktop.ui.chat.usage_format import format_cost, meter_text, short_tokens, usage_line
from pidesktop.ui.kit import theme as themes
from pidesktop.ui.settings.settings_dialog import SettingsDialog
from tests.support.hosts import InProcessHost
from tests.support.waits import spin_until
from tests.support.windows import started_window

SUMMARY = "The person asked about layout caches; we agreed to key them by row revision and width."
NEEDS_COMPACT = pytest.mark.skipif(
    not hasattr(TurnRunner, "compact"), reason="TurnRunner.compact (the runtime's compaction) has not landed yet"
)
NEEDS_USAGE = pytest.mark.skipif(
    not hasattr(TurnRunner, "context_usage"),
    reason="TurnRunner.context_usage (the runtime's context budget) has not landed yet",
)


def seed(location, count, through=None, title="long"):
    """A chat of ``count`` messages, a checkpoint after ``through`` (a message id) if given."""
    host = InProcessHost(location)
    sid = host.call("session.create", {"title": title})["session"]["id"]
    for i in range(count):
        host.call(
            "session.appendMessage",
            {
                "sessionId": sid,
                "message": {
                    "id": f"m{i}",
                    "role": "user" if i % 2 == 0 else "assistant",
                    "blocks": [{"type": "text", "text": f"message number {i}"}],
                    **(
                        {
                            "meta": {
                                "status": "completed",
                                "providerId": "acme",
                                "modelId": "gpt-x",
                                "usage": {"prompt_tokens": 1200 + i, "completion_tokens": 310},
                            }
                        }
                        if i % 2
                        else {}
                    ),
                },
            },
        )
    if through is not None:
        host.call(
            "session.appendCompaction",
            {
                "sessionId": sid,
                "compaction": {
                    "id": "cp1",
                    "throughMessageId": through,
                    "firstKeptMessageId": f"m{int(through[1:]) + 1}",
                    "summary": SUMMARY,
                    "tokensBefore": 48_200,
                    "createdAt": "2025-03-04T14:05:00Z",
                },
            },
        )
    host.stop()
    return sid


def kinds(model):
    return [r["message"]["id"] if r["kind"] == "message" else "divider" for r in model.rows]


def open_window(qtbot, qloop, client, runner=None, theme=themes.LIGHT):
    return started_window(qtbot, qloop, client, theme, runner)


# -- the divider ------------------------------------------------------------------------------
def test_the_divider_sits_after_the_last_summarised_message_and_survives_paging(
    qtmodeltester, qloop, location, loop_hosts
):
    sid = seed(location, 130, through="m40")
    model = TranscriptModel(loop_hosts.start())
    qloop.run_until_complete(model.open(sid))
    assert "divider" not in kinds(model)  # the newest page (m80..) does not reach the checkpoint
    qtmodeltester.check(model)
    qloop.run_until_complete(model.load_older())
    ids = kinds(model)
    assert ids.count("divider") == 1
    assert ids[ids.index("divider") - 1] == "m40" and ids[ids.index("divider") + 1] == "m41"
    assert model.rows[ids.index("divider")]["compaction"]["summary"] == SUMMARY
    qtmodeltester.check(model)
    qloop.run_until_complete(model.load_older())  # m0..m29: nothing doubled
    assert kinds(model).count("divider") == 1 and kinds(model)[0] == "m0"


def test_dropping_rows_at_either_end_never_leaves_a_divider_without_its_message(
    qloop, location, loop_hosts, monkeypatch
):
    monkeypatch.setattr(transcript_model, "MAX_ROWS", 60)
    sid = seed(location, 200, through="m119")
    model = TranscriptModel(loop_hosts.start())
    qloop.run_until_complete(model.open(sid))  # m150..m199
    qloop.run_until_complete(model.load_older())  # m100..m149, the newest dropped down to 60 rows
    ids = kinds(model)
    assert ids[ids.index("divider") - 1] == "m119"
    assert ids[-1] != "m119" or not model.has_more_after
    while model.has_more_after:
        qloop.run_until_complete(model.load_newer())
        ids = kinds(model)
        if "divider" in ids:
            assert ids.index("divider") > 0 and ids[ids.index("divider") - 1] == "m119"
    assert ids[-1] == "m199"


def test_the_divider_names_its_tokens_and_date_and_unfolds_its_summary(qtbot, qloop, location, loop_hosts):
    sid = seed(location, 8, through="m3")
    win = open_window(qtbot, qloop, loop_hosts.start())
    win.sidebar.select(sid)
    model = win.transcript_model
    spin_until(qloop, lambda: "divider" in kinds(model))
    position = kinds(model).index("divider")
    assert kinds(model)[position - 1] == "m3"
    row = model.rows[position]
    label = divider_label(row["compaction"])
    assert label.startswith("Earlier messages summarised · 48.2k tokens before · ")
    rendered = win.transcript.delegate.rendered(model.index(position))
    assert [p.kind for p in rendered.parts] == ["divider"]  # folded
    divider = rendered.parts[0]
    assert divider.doc.toPlainText().startswith("▸ Earlier messages summarised")
    closed_height = rendered.height
    # a click on the label unfolds the summary, a second one folds it again
    view = win.transcript
    view.scrollTo(model.index(position))
    qloop.run_until_complete(_settle())
    rect = view.visualRect(model.index(position))
    point = rect.topLeft() + _center(divider)
    qtbot.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=point)
    assert summary_key(row) in view.expanded
    opened = view.delegate.rendered(model.index(position))
    assert [p.kind for p in opened.parts] == ["divider", "summary"]
    assert SUMMARY in opened.parts[1].doc.toPlainText() and opened.height > closed_height
    qtbot.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=point)
    assert summary_key(row) not in view.expanded
    win.close()


def _near(color, target, slack=40):
    return all(
        abs(a - b) <= slack
        for a, b in ((color.red(), target.red()), (color.green(), target.green()), (color.blue(), target.blue()))
    )


def add_provider(client, models=("gpt-x",)):
    """A provider with catalogue rows, so prices can be stored and listed."""
    client.call_blocking(
        "providers.upsert", {"provider": {"id": "acme", "name": "Acme", "baseUrl": "http://127.0.0.1:9/v1"}}
    )
    for model in models:
        client.call_blocking("models.upsert", {"providerId": "acme", "model": {"modelId": model}})


def _center(part):
    from PySide6.QtCore import QPoint

    return QPoint(int(part.x + part.width / 2), int(part.y + part.height / 2))


async def _settle():
    import asyncio

    await asyncio.sleep(0.05)


def test_a_compaction_made_elsewhere_shows_up_in_the_open_chat(qtbot, qloop, location, loop_hosts):
    sid = seed(location, 6)
    client = loop_hosts.start()
    win = open_window(qtbot, qloop, client)
    win.sidebar.select(sid)
    spin_until(qloop, lambda: len(win.transcript_model.rows) == 6)
    client.call_blocking(
        "session.appendCompaction",
        {
            "sessionId": sid,
            "compaction": {"id": "cp9", "throughMessageId": "m3", "summary": "short", "tokensBefore": 900},
        },
    )
    spin_until(qloop, lambda: kinds(win.transcript_model) == ["m0", "m1", "m2", "m3", "divider", "m4", "m5"])
    win.close()


# -- usage and cost under a reply --------------------------------------------------------------
def reply(usage=None, model="gpt-x"):
    meta = {"status": "completed", "providerId": "p1", "modelId": model}
    if usage is not None:
        meta["usage"] = usage
    return {"id": "a1", "role": "assistant", "blocks": [{"type": "text", "text": "Hello."}], "meta": meta}


def usage_part(message, prices):
    rendered = layout_row(message_row(message), 900, themes.LIGHT, QFont(), frozenset(), prices=prices)
    parts = [p for p in rendered.parts if p.kind == "usage"]
    return parts[0].doc.toPlainText() if parts else None


def test_a_reply_shows_its_tokens_and_its_cost_when_the_price_is_known(qapp):
    prices = {("p1", "gpt-x"): {"inputPerMillion": 3, "outputPerMillion": 15, "currency": "USD"}}
    text = usage_part(reply({"prompt_tokens": 12_345, "completion_tokens": 678}), prices)
    assert text == "12.3k in · 678 out · $0.05"
    # the other spellings providers use
    assert usage_part(reply({"input_tokens": 100, "output_tokens": 20}), prices) == "100 in · 20 out · $0.0006"


def test_an_unknown_price_shows_tokens_and_no_cost(qapp):
    text = usage_part(
        reply({"prompt_tokens": 500, "completion_tokens": 50}, model="mystery"),
        {("p1", "gpt-x"): {"inputPerMillion": 3, "outputPerMillion": 15, "currency": "USD"}},
    )
    assert text == "500 in · 50 out"
    half = {("p1", "gpt-x"): {"inputPerMillion": 3, "outputPerMillion": None, "currency": "USD"}}
    assert usage_part(reply({"prompt_tokens": 500, "completion_tokens": 50}), half) == "500 in · 50 out"
    assert "$0" not in usage_line(reply({"prompt_tokens": 1, "completion_tokens": 1}, "m")["meta"], {})
    assert usage_part(reply(None), {}) is None  # no usage reported: no line at all


def test_number_formats():
    assert [short_tokens(n) for n in (0, 999, 1000, 12_345, 128_000, 1_500_000)] == [
        "0",
        "999",
        "1k",
        "12.3k",
        "128k",
        "1.5M",
    ]
    assert format_cost(1.5) == "$1.50" and format_cost(0.00001) == "<$0.0001" and format_cost(0) == "free"
    assert meter_text(12_300, 32_000) == "12.3k / 32k" and meter_text(800, None) == "800"


def test_the_transcript_shows_usage_under_stored_replies_and_cost_once_priced(qtbot, qloop, location, loop_hosts):
    sid = seed(location, 4)
    client = loop_hosts.start()
    add_provider(client)
    win = open_window(qtbot, qloop, client)
    win.sidebar.select(sid)
    model = win.transcript_model
    spin_until(qloop, lambda: len(model.rows) == 4)
    rendered = win.transcript.delegate.rendered(model.index(1))
    assert [p.doc.toPlainText() for p in rendered.parts if p.kind == "usage"] == ["1.2k in · 310 out"]
    client.call_blocking(
        "models.setPrice", {"providerId": "acme", "modelId": "gpt-x", "inputPerMillion": 2, "outputPerMillion": 10}
    )
    spin_until(
        qloop,
        lambda: (
            [p.doc.toPlainText() for p in win.transcript.delegate.rendered(model.index(1)).parts if p.kind == "usage"]
            == ["1.2k in · 310 out · $0.0055"]
        ),
    )
    win.close()


# -- the context meter -------------------------------------------------------------------------
def test_the_meter_shows_the_context_and_turns_amber_near_the_limit(chat, qloop):
    meter = chat.context_meter
    chat.chat_view.show_context_usage({"tokens": 12_300, "window": 32_000})
    assert meter.isVisible() and meter.text() == "12.3k / 32k"
    assert meter.property("level") == "normal"
    assert "32k" in meter.toolTip() and "38%" in meter.toolTip()
    chat.chat_view.show_context_usage({"tokens": 26_000, "window": 32_000})
    assert meter.property("level") == "high"
    themes.apply(qtbot_app(), themes.LIGHT)  # the amber comes from the application stylesheet
    image = meter.grab().toImage()
    amber = QColor(themes.LIGHT.warning)
    assert any(_near(QColor(image.pixel(x, y)), amber) for x in range(image.width()) for y in range(image.height()))
    chat.chat_view.show_context_usage({"tokens": None, "window": 32_000})
    assert not meter.isVisible()
    assert chat.compact_action in meter.menu().actions()


@NEEDS_USAGE
def test_the_meter_follows_the_chat_after_a_turn_and_a_start_measures_the_same(chat, qtbot, qloop):
    qtbot.keyClicks(chat.composer.edit, "How big is my context?")
    qtbot.keyClick(chat.composer.edit, Qt.Key.Key_Return)
    spin_until(qloop, lambda: chat.current_session_id and len(stored_messages(chat)) == 2)
    sid = chat.current_session_id
    spin_until(qloop, lambda: not chat.runner.is_running(sid) and sid in chat.runner.contexts.usage)
    kept = chat.runner.contexts.usage[sid]
    # the prompt and the reply, with what goes around them: the demo's usage is an estimate, never a count
    assert kept["tokens"] > sum(message_tokens(m) for m in stored_messages(chat))
    spin_until(qloop, lambda: chat.context_meter.text() == meter_text(kept["tokens"], kept["window"]))
    # the next start knows nothing of the turn: its estimate has the system prompt and the workspace note too
    chat.runner.contexts.usage.clear()
    assert qloop.run_until_complete(chat.runner.context_usage(sid)) == kept


def test_the_meter_of_a_chat_only_looked_at_makes_no_folder(chat, qloop, host_client, location):
    sid = host_client.call_blocking("session.create", {"title": "Looked at"})["session"]["id"]
    message = {"id": "m1", "role": "user", "blocks": [{"type": "text", "text": "What is in this folder?"}]}
    host_client.call_blocking("session.appendMessage", {"sessionId": sid, "message": message})
    usage = qloop.run_until_complete(chat.runner.context_usage(sid))
    assert usage["tokens"] > message_tokens(message)  # the workspace note is counted
    assert not (location.data_root / "scratch" / sid).exists()


def stored_messages(chat):
    return [row["message"] for row in chat.transcript_model.rows if row["kind"] == "message" and not row["live"]]


# -- Compact now and /compact -----------------------------------------------------------------
def chat_with_turns(chat, qtbot, qloop, count=3):
    for number in range(count):
        qtbot.keyClicks(chat.composer.edit, f"Question {number}: tell me about layout caches")
        qtbot.keyClick(chat.composer.edit, Qt.Key.Key_Return)
        spin_until(
            qloop,
            lambda n=number: (
                chat.current_session_id
                and len([r for r in chat.transcript_model.rows if r["kind"] == "message" and not r["live"]])
                == 2 * (n + 1)
                and not chat.runner.is_running(chat.current_session_id)
            ),
        )
    return chat.current_session_id


def test_compact_now_is_in_the_chat_menu_and_the_header(chat):
    assert chat.sidebar.compact_action.text() == "Compact now"
    assert chat.compact_action.text() == "Compact now"


@NEEDS_COMPACT
def test_compact_now_calls_the_runner_and_the_divider_appears(chat, qtbot, qloop):
    sid = chat_with_turns(chat, qtbot, qloop)
    calls = []
    real = chat.runner.compact

    async def counted(session_id):
        calls.append(session_id)
        return await real(session_id)

    chat.runner.compact = counted
    chat.compact_action.trigger()
    spin_until(qloop, lambda: "divider" in kinds(chat.transcript_model))
    assert calls == [sid]
    assert chat.compact_action.isEnabled()


def test_a_failed_compaction_goes_to_the_notice_line(chat, qtbot, qloop):
    from pidesktop.bus import HostError

    sid = chat_with_turns(chat, qtbot, qloop, count=1)

    async def nothing(_session_id):
        raise HostError("INVALID_PARAMS", "Nothing to compact yet.")

    chat.runner.compact = nothing
    chat.sidebar.select(sid)
    chat.sidebar.compact_action.trigger()
    spin_until(qloop, lambda: chat.notice.isVisible())
    assert chat.compact_action.isEnabled() and chat.sidebar.compact_action.isEnabled()


def test_compacting_a_short_chat_says_so_in_a_note_not_an_error(chat, qtbot, qloop):
    sid = chat_with_turns(chat, qtbot, qloop, count=1)
    chat.sidebar.select(sid)
    chat.sidebar.compact_action.trigger()
    spin_until(qloop, lambda: chat.notice.isVisible())
    assert chat.notice.property("kind") == "note" and not chat.notice.details_button.isVisible()
    assert chat.notice.message() == "Nothing to compact yet: this chat is still short enough to keep whole."
    assert chat.notices.error_log.entries() == []


@NEEDS_COMPACT
def test_typing_slash_compact_compacts_and_shows_the_divider(chat, qtbot, qloop):
    sid = chat_with_turns(chat, qtbot, qloop)
    qtbot.keyClicks(chat.composer.edit, "/compact")
    qtbot.keyClick(chat.composer.edit, Qt.Key.Key_Return)
    spin_until(qloop, lambda: "divider" in kinds(chat.transcript_model) and not chat.runner.is_running(sid))
    assert chat.composer.edit.toPlainText() == ""


# -- Settings > Usage --------------------------------------------------------------------------
def record_usage(client, sid, turn, model, tokens_in, tokens_out):
    client.call_blocking(
        "session.startTurn", {"sessionId": sid, "turnId": turn, "providerId": "acme", "modelId": model}
    )
    client.call_blocking(
        "session.recordUsage",
        {
            "sessionId": sid,
            "turnId": turn,
            "records": [{"id": f"{turn}-op", "inputTokens": tokens_in, "outputTokens": tokens_out}],
        },
    )
    client.call_blocking(
        "session.endTurn", {"sessionId": sid, "turnId": turn, "status": "completed", "createNotification": False}
    )


@pytest.fixture
def usage_dialog(qloop, host_client, keep_running):
    add_provider(host_client, ("priced-model", "mystery-model"))
    sid = host_client.call_blocking("session.create", {"title": "costs"})["session"]["id"]
    record_usage(host_client, sid, "t1", "priced-model", 120_000, 8_000)
    record_usage(host_client, sid, "t2", "priced-model", 30_000, 2_000)
    record_usage(host_client, sid, "t3", "mystery-model", 5_000, 500)
    host_client.call_blocking(
        "models.setPrice",
        {"providerId": "acme", "modelId": "priced-model", "inputPerMillion": 3, "outputPerMillion": 15},
    )
    opened = []

    def open_(theme=themes.LIGHT):
        dialog = SettingsDialog.ask(host_client, theme)
        opened.append(dialog)
        dialog.resize(900, 640)
        dialog.open()
        qloop.run_until_complete(dialog.loading)
        dialog.show_page("Usage")
        return dialog

    yield open_
    for dialog in opened:
        if shiboken6.isValid(dialog):
            dialog.close()


def table_text(table):
    return [
        [table.item(r, c).text() if table.item(r, c) else "" for c in range(table.columnCount())]
        for r in range(table.rowCount())
    ]


def test_the_usage_page_shows_models_and_days_with_known_and_unknown_costs(usage_dialog, qloop):
    page = usage_dialog().usage
    models = table_text(page.models_table)
    assert models[0][:5] == ["priced-model", "2", "150k", "10k", "$0.60"]
    assert models[1][:5] == ["mystery-model", "1", "5k", "500", "unknown"]
    inputs, outputs = page.price_fields(0)
    assert (inputs.text(), outputs.text()) == ("3", "15")
    assert page.price_fields(1)[0].text() == "" and page.price_fields(1)[0].placeholderText() == "unknown"
    days = table_text(page.days_table)
    assert len(days) == 1 and days[0][1:] == ["3", "155k", "10.5k", "at least $0.60"]
    assert page.totals.text() == "Last 30 days: 3 replies, 155k tokens in, 10.5k out · cost at least $0.60"


def test_typing_a_price_stores_it_and_the_cost_becomes_known(usage_dialog, qloop, host_client):
    page = usage_dialog().usage
    inputs, outputs = page.price_fields(1)
    inputs.setText("1")
    outputs.setText("2")
    outputs.editingFinished.emit()
    spin_until(qloop, lambda: table_text(page.models_table)[1][4] == "$0.0060")
    rows = host_client.call_blocking("usage.summary", {})["models"]
    price = next(m["price"] for m in rows if m["modelId"] == "mystery-model")
    assert price["inputPerMillion"] == 1 and price["outputPerMillion"] == 2


# -- screenshots ---------------------------------------------------------------------------------
@pytest.mark.parametrize("theme", [themes.LIGHT, themes.DARK], ids=["light", "dark"])
def test_screenshots(theme, qtbot, qloop, location, loop_hosts, shots, keep_running):
    sid = seed(location, 10, through="m5", title="Layout caches")
    client = loop_hosts.start()
    add_provider(client, ("gpt-x", "priced-model", "mystery-model"))
    client.call_blocking(
        "models.setPrice", {"providerId": "acme", "modelId": "gpt-x", "inputPerMillion": 2.5, "outputPerMillion": 10}
    )
    win = open_window(qtbot, qloop, client, theme=theme)
    themes.apply(qtbot_app(), theme)
    win.dialogs.set_theme(theme)
    win.sidebar.select(sid)
    model = win.transcript_model
    spin_until(qloop, lambda: "divider" in kinds(model))
    win.chat_view.show_context_usage({"tokens": 27_400, "window": 32_000})
    position = kinds(model).index("divider")
    win.transcript.toggle(summary_key(model.rows[position]))
    win.transcript.scrollTo(model.index(position), win.transcript.ScrollHint.PositionAtCenter)
    qloop.run_until_complete(_settle())
    win.grab().save(str(shots / f"context-chat-{theme.name}.png"))
    dialog = SettingsDialog.ask(client, theme, win)
    dialog.resize(900, 640)
    sid2 = client.call_blocking("session.create", {"title": "costs"})["session"]["id"]
    record_usage(client, sid2, "t1", "priced-model", 120_000, 8_000)
    record_usage(client, sid2, "t2", "mystery-model", 5_000, 500)
    client.call_blocking(
        "models.setPrice",
        {"providerId": "acme", "modelId": "priced-model", "inputPerMillion": 3, "outputPerMillion": 15},
    )
    dialog.open()
    qloop.run_until_complete(dialog.loading)
    dialog.show_page("Usage")
    qloop.run_until_complete(_settle())
    dialog.grab().save(str(shots / f"context-usage-{theme.name}.png"))
    dialog.close()
    win.close()
    themes.apply(qtbot_app(), themes.LIGHT)


def qtbot_app():
    from PySide6.QtWidgets import QApplication

    return QApplication.instance()
