"""The window is named after the chat it shows, and the chat open at quit opens again at the next start."""

from pidesktop.agent.runner import TurnRunner
from pidesktop.ui.kit.prefs import Preferences
from tests.support.waits import spin_until
from tests.support.windows import started_window


def test_the_title_follows_the_chat_shown(chat, qloop):
    assert chat.windowTitle() == "pidesktop"
    qloop.run_until_complete(chat.chats.send_prompt("Trip to Kyoto"))
    spin_until(qloop, lambda: chat.windowTitle() == "Trip to Kyoto — pidesktop")
    chat.client.call_blocking("session.rename", {"sessionId": chat.current_session_id, "title": "Kyoto in May"})
    spin_until(qloop, lambda: chat.windowTitle() == "Kyoto in May — pidesktop")
    chat.chats.new_chat()
    assert chat.windowTitle() == "pidesktop"


def test_the_last_chat_opens_again_at_start(qtbot, qloop, loop_hosts, tmp_path):
    prefs = Preferences(tmp_path / "ui")
    client = loop_hosts.start()
    first = started_window(qtbot, qloop, client, runner=TurnRunner(client, offline_delay=0.0), prefs=prefs)
    for prompt in ("Older chat", "Newer chat"):
        first.chats.new_chat()
        qloop.run_until_complete(first.chats.send_prompt(prompt))
        spin_until(qloop, lambda: not first.runner.is_running(first.current_session_id))
    older = next(s["id"] for s in first.model.shown_sessions() if s["title"] == "Older chat")
    first.sidebar.select(older)
    spin_until(qloop, lambda: first.current_session_id == older)
    first.close()

    again = Preferences(tmp_path / "ui")  # read back from the file, as a new start does
    second = started_window(qtbot, qloop, client, runner=TurnRunner(client, offline_delay=0.0), prefs=again)
    spin_until(qloop, lambda: second.current_session_id == older)
    assert second.windowTitle() == "Older chat — pidesktop"
    spin_until(qloop, lambda: second.transcript_model.rowCount() == 2)
    second.close()
