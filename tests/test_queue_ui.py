"""Waiting prompts above the composer: send now, reorder, remove, resume after a restart."""

from PySide6.QtWidgets import QLabel, QToolButton

from pidesktop.agent.runner import TurnRunner
from pidesktop.ui.chat.queue_strip import QueueStrip
from tests.support.hosts import InProcessHost
from tests.support.waits import spin_until


def seed_queue(location, prompts):
    host = InProcessHost(location)
    sid = host.call("session.create", {})["session"]["id"]
    for prompt in prompts:
        host.call("session.queuePush", {"sessionId": sid, "content": prompt})
    host.stop()
    return sid


def labels(strip):
    return [row.findChild(QLabel).toolTip() for row in strip._rows]


def button(row, text):
    return next(b for b in row.findChildren(QToolButton) if b.text() == text)


def test_held_prompts_are_listed_and_can_be_reordered_promoted_and_removed(qtbot, qloop, location, loop_hosts):
    sid = seed_queue(location, ["first", "second", "third"])
    client = loop_hosts.start()
    strip = QueueStrip(client)
    qtbot.addWidget(strip)
    client.subscribe(strip.handle_event)
    qloop.run_until_complete(strip.show_session(sid))
    assert not strip.isHidden()
    assert labels(strip) == ["first", "second", "third"]
    assert strip.title.text() == "3 prompts waiting" and not strip.resume_button.isHidden()
    button(strip._rows[2], "↑").click()
    spin_until(qloop, lambda: labels(strip) == ["first", "third", "second"])
    button(strip._rows[2], "Send now").click()
    spin_until(qloop, lambda: labels(strip) == ["second", "first", "third"])
    button(strip._rows[1], "✕").click()
    spin_until(qloop, lambda: labels(strip) == ["second", "third"])
    stored = client.call_blocking("session.queueList", {"sessionId": sid})["entries"]
    assert [e["content"] for e in stored] == ["second", "third"]
    button(strip._rows[1], "✕").click()
    spin_until(qloop, lambda: labels(strip) == ["second"])
    assert strip.title.text() == "1 prompt waiting"  # not "1 prompt(s)"


def test_resume_sends_the_held_prompts_one_turn_at_a_time(qtbot, qloop, location, loop_hosts):
    sid = seed_queue(location, ["alpha", "beta"])
    client = loop_hosts.start()
    runner = TurnRunner(client, offline_delay=0.0)
    qloop.run_until_complete(runner.resume(sid))
    messages = client.call_blocking("session.get", {"sessionId": sid})["messages"]
    prompts = [m["blocks"][0]["text"] for m in messages if m["role"] == "user"]
    assert prompts == ["alpha", "beta"]
    assert [m["role"] for m in messages] == ["user", "assistant", "user", "assistant"]
    assert client.call_blocking("session.queueList", {"sessionId": sid})["entries"] == []
