"""What a send needs (a provider, a model, a key it requires) is checked before anything is stored."""

import pytest
from PySide6.QtCore import Qt

from pidesktop.agent.runner import TurnRunner
from pidesktop.bus import HostError
from tests.support.waits import spin_until

DEAD_PORT = {"name": "Dead port", "baseUrl": "http://127.0.0.1:9/v1"}


def add_default(client, provider, **extra):
    made = client.call_blocking("providers.upsert", {"provider": provider, **extra})["provider"]
    client.call_blocking("providers.setDefault", {"providerId": made["id"]})
    return made


def user_lines(client):
    found = []
    for session in client.call_blocking("session.list", {})["sessions"]:
        messages = client.call_blocking("session.get", {"sessionId": session["id"]})["messages"]
        found += [m for m in messages if m["role"] == "user"]
    return found


def test_a_default_provider_without_a_model_stores_nothing_and_says_why(chat, qtbot, qloop):
    add_default(chat.client, DEAD_PORT)
    qtbot.keyClicks(chat.composer.edit, "Are you there?")
    qtbot.keyClick(chat.composer.edit, Qt.Key.Key_Return)
    spin_until(qloop, lambda: "Not sent" in chat.composer.status_label.text())
    assert chat.notice.message() == "Dead port has no model chosen: pick one in Settings > Providers."
    assert chat.composer.edit.toPlainText() == "Are you there?"  # the typed text stays
    assert user_lines(chat.client) == []
    assert chat.client.call_blocking("session.list", {})["sessions"] == []  # no empty chat was made either


def test_after_fixing_the_provider_the_prompt_is_stored_once(chat, qtbot, qloop):
    made = add_default(chat.client, {**DEAD_PORT, "baseUrl": "http://127.0.0.1:9/v1"})
    qloop.run_until_complete(chat.chats.send_prompt("Once only"))
    assert user_lines(chat.client) == []
    chat.client.call_blocking("providers.setDefault", {"providerId": "offline"})
    chat.composer.edit.clear()
    qloop.run_until_complete(chat.chats.send_prompt("Once only"))
    spin_until(qloop, lambda: not chat.runner.is_running(chat.current_session_id))
    assert [m["blocks"][0]["text"] for m in user_lines(chat.client)] == ["Once only"]
    assert made["id"]


def test_an_existing_chat_keeps_its_transcript_as_it_was(chat, qloop):
    qloop.run_until_complete(chat.chats.send_prompt("first"))
    sid = chat.current_session_id
    spin_until(qloop, lambda: not chat.runner.is_running(sid))
    made = chat.client.call_blocking("providers.upsert", {"provider": DEAD_PORT})["provider"]
    chat.client.call_blocking("session.update", {"sessionId": sid, "providerId": made["id"]})
    qloop.run_until_complete(chat.chats.send_prompt("second"))
    assert [m["blocks"][0]["text"] for m in user_lines(chat.client)] == ["first"]
    assert chat.composer.edit.toPlainText() == "second"


@pytest.mark.parametrize(
    ("provider", "cause"),
    [
        (DEAD_PORT, "Dead port has no model chosen: pick one in Settings > Providers."),
        (
            {"name": "My OpenAI", "baseUrl": "https://api.openai.com/v1", "vendorKey": "openai", "defaultModelId": "m"},
            "My OpenAI has no API key: add one in Settings > Providers.",
        ),
    ],
)
def test_the_runner_refuses_before_storing(host_client, qloop, provider, cause):
    runner = TurnRunner(host_client, offline_delay=0.0)
    add_default(host_client, provider)
    sid = host_client.call_blocking("session.create", {})["session"]["id"]
    with pytest.raises(HostError) as info:
        qloop.run_until_complete(runner.send(sid, "hello"))
    assert info.value.code == "not_ready" and info.value.message == cause
    assert host_client.call_blocking("session.get", {"sessionId": sid})["messages"] == []


def test_a_chat_whose_provider_was_deleted_is_refused_in_words(host_client, qloop):
    runner = TurnRunner(host_client, offline_delay=0.0)
    made = host_client.call_blocking("providers.upsert", {"provider": {**DEAD_PORT, "defaultModelId": "m"}})
    sid = host_client.call_blocking("session.create", {"providerId": made["provider"]["id"], "modelId": "m"})
    host_client.call_blocking("providers.delete", {"providerId": made["provider"]["id"]})
    with pytest.raises(HostError) as info:
        qloop.run_until_complete(runner.send(sid["session"]["id"], "hello"))
    assert info.value.code == "not_ready" and "no longer" in info.value.message


def test_an_edit_that_cannot_go_out_keeps_the_old_prompt_and_the_edit(chat, qtbot, qloop):
    qloop.run_until_complete(chat.chats.send_prompt("original"))
    sid = chat.current_session_id
    spin_until(qloop, lambda: not chat.runner.is_running(sid))
    prompt = chat.client.call_blocking("session.get", {"sessionId": sid})["messages"][0]
    qloop.run_until_complete(chat.chats.run_message_action("edit", prompt["id"]))
    made = chat.client.call_blocking("providers.upsert", {"provider": DEAD_PORT})["provider"]
    chat.client.call_blocking("session.update", {"sessionId": sid, "providerId": made["id"]})
    chat.composer.edit.setPlainText("changed")
    qtbot.keyClick(chat.composer.edit, Qt.Key.Key_Return)
    spin_until(qloop, lambda: "Not sent" in chat.composer.status_label.text())
    messages = chat.client.call_blocking("session.get", {"sessionId": sid})["messages"]
    assert [m["id"] for m in messages][:1] == [prompt["id"]] and len(messages) == 2  # nothing was cut
    assert chat.composer.edit.toPlainText() == "changed" and chat.composer.editing
