"""The message outbox against real hosts: order, retries, quarantine, capacity, and the runner using it.

A stopped host thread is a real transient failure (``STORAGE_UNAVAILABLE``);
a new host on the same data root is the next host generation. Errors a real
host does not produce on demand (PERMISSION_DENIED, a foreign-key failure) come
from ``Flaky``, which raises the listed errors first and then passes through.
"""

import asyncio
import logging

import orjson
import pytest

from pidesktop.agent.outbox import DEAD_LETTER_NAME, Outbox, OutboxFull, classify
from pidesktop.agent.runner import TurnRunner
from pidesktop.bus import HostClient, HostError
from tests.support.host_helpers import assistant, new_session
from tests.support.hosts import InProcessHost


def stored(host, session_id):
    return {m["id"]: m for m in host.call("session.get", {"sessionId": session_id})["messages"]}


def delivered_order(host):
    return [p["messageId"] for topic, p in host.events if topic == "session.changed" and p.get("reason") == "message"]


class Sleeps(list):
    """An instant ``sleep`` that records each delay and may act on the n-th one."""

    def __init__(self, on_sleep=None):
        super().__init__()
        self.on_sleep = on_sleep

    async def __call__(self, delay):
        self.append(delay)
        if self.on_sleep is not None:
            self.on_sleep(len(self))
        await asyncio.sleep(0)


class Flaky:
    """A client whose ``session.appendMessage`` raises the errors listed for a message first, then delegates."""

    def __init__(self, real, errors, key=lambda message: message["id"]):
        self.real, self.errors, self.key = real, errors, key

    async def call(self, method, params=None):
        if method == "session.appendMessage":
            waiting = self.errors.get(self.key(params["message"]))
            if waiting:
                raise waiting.pop(0)
        return await self.real.call(method, params)


@pytest.fixture
def dead_path(tmp_path):
    return tmp_path / "ui" / DEAD_LETTER_NAME


@pytest.fixture
def restarted(location):
    """Start the next host generation on the same data root (stopped at teardown)."""
    started = []

    def start():
        started.append(InProcessHost(location))
        return started[-1]

    yield start
    for running in started:
        running.stop()


def test_classification_reads_the_code_never_the_text():
    assert classify(HostError("PERMISSION_DENIED", "no")) == "drop"
    assert classify(HostError("INTERNAL", "PERMISSION_DENIED: no")) == "retry"
    assert classify(HostError("INTERNAL", "UNIQUE constraint failed: messages.id")) == "retry"
    assert classify(HostError("INVALID_PARAMS", "message.role")) == "drop"
    assert classify(HostError("PLUGIN_PERMISSION_DENIED", "no")) == "retry"
    assert classify(HostError("INTERNAL", "FOREIGN KEY constraint failed")) == "retry"
    assert classify(HostError("STORAGE_UNAVAILABLE", "The host is shutting down.")) == "retry"


def test_fifo_order_across_sessions_once_the_host_is_back(host, restarted, dead_path):
    a, b = new_session(host), new_session(host)
    host.stop()

    async def scenario():
        loop = asyncio.get_running_loop()
        outbox = Outbox(HostClient(host.thread, loop), dead_path, base_delay=60)
        try:
            for session_id, message_id in [(a, "a1"), (b, "b1"), (a, "a2"), (b, "b2")]:
                assert await outbox.append(session_id, assistant(message_id)) is None
            assert [e["message"]["id"] for e in outbox.pending()] == ["a1", "b1", "a2", "b2"]
            back = restarted()
            outbox.set_client(HostClient(back.thread, loop))  # a new generation: no 60 s wait
            assert await outbox.flush(5)
            return back
        finally:
            await outbox.aclose()

    back = asyncio.run(scenario())
    assert delivered_order(back) == ["a1", "b1", "a2", "b2"]
    assert list(stored(back, a)) == ["a1", "a2"] and list(stored(back, b)) == ["b1", "b2"]


def test_transient_failures_back_off_doubling_and_deliver_when_the_host_is_back(host, restarted, dead_path):
    session_id = new_session(host)
    host.stop()
    generations = []

    async def scenario():
        loop = asyncio.get_running_loop()

        def on_sleep(count):
            if count == 4:
                generations.append(restarted())
                outbox.set_client(HostClient(generations[-1].thread, loop))

        sleeps = Sleeps(on_sleep)
        outbox = Outbox(
            HostClient(host.thread, loop), dead_path, base_delay=0.01, max_delay=0.03, max_failures=10, sleep=sleeps
        )
        try:
            assert await outbox.append(session_id, assistant("m1"), "turn-1") is None
            assert await outbox.flush(5)
        finally:
            await outbox.aclose()
        return sleeps, outbox

    sleeps, outbox = asyncio.run(scenario())
    assert sleeps == [0.01, 0.02, 0.03, 0.03]
    assert "m1" in stored(generations[0], session_id)
    assert outbox.dead_letters() == [] and not dead_path.exists()


def test_five_failures_quarantine_the_head_and_the_next_entry_is_delivered(host, restarted, dead_path):
    a, b = new_session(host), new_session(host)
    host.stop()
    generations = []

    async def scenario():
        loop = asyncio.get_running_loop()

        def on_sleep(count):
            if count == 5:  # the first backoff of the second head
                generations.append(restarted())
                outbox.set_client(HostClient(generations[-1].thread, loop))

        sleeps = Sleeps(on_sleep)
        outbox = Outbox(HostClient(host.thread, loop), dead_path, base_delay=0.01, sleep=sleeps, clock=lambda: 0)
        try:
            assert await outbox.append(a, assistant("stuck"), "turn-a") is None
            assert await outbox.append(b, assistant("next")) is None
            assert await outbox.flush(5)
        finally:
            await outbox.aclose()
        return sleeps, outbox

    sleeps, outbox = asyncio.run(scenario())
    assert sleeps == [0.01, 0.02, 0.04, 0.08, 0.01]
    [letter] = outbox.dead_letters()
    assert letter == {
        "sessionId": a,
        "turnId": "turn-a",
        "message": assistant("stuck"),
        "failedAt": "1970-01-01T00:00:00.000Z",
        "error": {"code": "STORAGE_UNAVAILABLE", "message": "The host is shutting down."},
    }
    assert orjson.loads(dead_path.read_bytes()) == [letter]
    back = generations[0]
    assert "next" in stored(back, b) and "stuck" not in stored(back, a)


def test_the_dead_letter_file_keeps_the_newest_256(host, dead_path):
    session_id = new_session(host)

    async def scenario():
        outbox = Outbox(HostClient(host.thread, asyncio.get_running_loop()), dead_path)
        for number in range(260):  # a real INVALID_PARAMS: quarantined at once, never retried
            refused = {"id": f"d{number}", "role": "nobody", "blocks": []}
            assert await outbox.append(session_id, refused) is None
        assert outbox.pending() == []
        await outbox.aclose()
        return outbox

    outbox = asyncio.run(scenario())
    expected = [f"d{number}" for number in range(4, 260)]
    assert [r["message"]["id"] for r in outbox.dead_letters()] == expected
    assert [r["message"]["id"] for r in orjson.loads(dead_path.read_bytes())] == expected
    assert {r["error"]["code"] for r in outbox.dead_letters()} == {"INVALID_PARAMS"}
    assert stored(host, session_id) == {}
    reopened = Outbox(host.client, dead_path)  # quarantine survives a restart of the app
    assert [r["message"]["id"] for r in reopened.dead_letters()] == expected


def test_a_full_queue_rejects_and_reports_nothing_as_queued(host, dead_path, caplog):
    session_id = new_session(host)
    host.stop()

    async def scenario():
        outbox = Outbox(HostClient(host.thread, asyncio.get_running_loop()), dead_path, base_delay=60)
        try:
            for number in range(1024):
                assert await outbox.append(session_id, assistant(f"q{number}")) is None
            with caplog.at_level(logging.ERROR, logger="pidesktop.agent.outbox"):
                with pytest.raises(OutboxFull):
                    await outbox.append(session_id, assistant("overflow"))
            return outbox.pending()
        finally:
            await outbox.aclose()

    pending = asyncio.run(scenario())
    assert len(pending) == 1024 and "overflow" not in {e["message"]["id"] for e in pending}
    assert "overflow" in caplog.text and session_id in caplog.text


def test_a_replay_of_a_stored_message_is_an_ack_but_a_foreign_key_error_is_retried(host, dead_path):
    session_id = new_session(host)
    first = host.call("session.appendMessage", {"sessionId": session_id, "message": assistant("u1")})
    errors = {"f1": [HostError("INTERNAL", "FOREIGN KEY constraint failed")]}

    async def scenario():
        sleeps = Sleeps()
        real = HostClient(host.thread, asyncio.get_running_loop())
        outbox = Outbox(Flaky(real, errors), dead_path, base_delay=0.01, sleep=sleeps)
        try:
            acked = await outbox.append(session_id, assistant("u1"))
            queued = await outbox.append(session_id, assistant("f1"))
            assert await outbox.flush(5)
        finally:
            await outbox.aclose()
        return acked, queued, sleeps, outbox

    acked, queued, sleeps, outbox = asyncio.run(scenario())
    assert acked["message"] == first["message"]  # the host's answer to the replay: the stored row
    assert queued is None and sleeps == [0.01]
    assert list(stored(host, session_id)) == ["u1", "f1"]  # u1 once, never stored twice
    assert outbox.dead_letters() == []


def test_permission_denied_is_dropped_but_plugin_permission_denied_is_retried(host, dead_path, caplog):
    session_id = new_session(host)
    errors = {
        "p1": [HostError("PERMISSION_DENIED", "not allowed")],
        "g1": [HostError("PLUGIN_PERMISSION_DENIED", "plugin said no")],
    }

    async def scenario():
        real = HostClient(host.thread, asyncio.get_running_loop())
        outbox = Outbox(Flaky(real, errors), dead_path, base_delay=0.01, sleep=Sleeps())
        try:
            with caplog.at_level(logging.ERROR, logger="pidesktop.agent.outbox"):
                assert await outbox.append(session_id, assistant("p1")) is None
            assert outbox.pending() == []
            assert (await outbox.append(session_id, assistant("n1")))["message"]["id"] == "n1"
            assert await outbox.append(session_id, assistant("g1")) is None
            assert [e["message"]["id"] for e in outbox.pending()] == ["g1"]
            assert await outbox.flush(5)
        finally:
            await outbox.aclose()
        return outbox

    outbox = asyncio.run(scenario())
    assert list(stored(host, session_id)) == ["n1", "g1"]
    assert [(r["message"]["id"], r["error"]["code"]) for r in outbox.dead_letters()] == [("p1", "PERMISSION_DENIED")]
    assert session_id in caplog.text and "done" not in caplog.text  # ids only, never content


def test_forget_session_drops_its_queued_and_quarantined_entries(host, restarted, dead_path):
    a, b = new_session(host), new_session(host)

    async def scenario():
        loop = asyncio.get_running_loop()
        outbox = Outbox(HostClient(host.thread, loop), dead_path, base_delay=60)
        try:
            for session_id in (a, b):
                await outbox.append(session_id, {"id": f"bad-{session_id}", "role": "nobody", "blocks": []})
            host.stop()
            for session_id, message_id in [(a, "a1"), (b, "b1"), (a, "a2")]:
                assert await outbox.append(session_id, assistant(message_id)) is None
            outbox.forget_session(a)
            assert [(e["sessionId"], e["message"]["id"]) for e in outbox.pending()] == [(b, "b1")]
            back = restarted()
            outbox.set_client(HostClient(back.thread, loop))
            assert await outbox.flush(5)
            return back, outbox
        finally:
            await outbox.aclose()

    back, outbox = asyncio.run(scenario())
    assert [r["sessionId"] for r in outbox.dead_letters()] == [b]
    assert [r["sessionId"] for r in orjson.loads(dead_path.read_bytes())] == [b]
    assert list(stored(back, b)) == ["b1"] and stored(back, a) == {}


def test_a_newer_snapshot_replaces_the_queued_one(host, restarted, dead_path):
    session_id = new_session(host)
    host.stop()

    async def scenario():
        loop = asyncio.get_running_loop()
        outbox = Outbox(HostClient(host.thread, loop), dead_path, base_delay=60)
        try:
            await outbox.append(session_id, assistant("r1", "partial", "streaming"))
            await outbox.append(session_id, assistant("r1", "the whole answer"))
            assert [e["message"]["blocks"][0]["text"] for e in outbox.pending()] == ["the whole answer"]
            back = restarted()
            outbox.set_client(HostClient(back.thread, loop))
            assert await outbox.flush(5)
            return back
        finally:
            await outbox.aclose()

    back = asyncio.run(scenario())
    assert stored(back, session_id)["r1"]["blocks"][0]["text"] == "the whole answer"


def test_the_runner_completes_a_turn_through_the_outbox(host, dead_path):
    session_id = new_session(host)

    async def scenario():
        client = HostClient(host.thread, asyncio.get_running_loop())
        outbox = Outbox(client, dead_path)
        try:
            return await TurnRunner(client, outbox=outbox, offline_delay=0).send(session_id, "hi"), outbox
        finally:
            await outbox.aclose()

    result, outbox = asyncio.run(scenario())
    assert result["status"] == "completed" and result["stored"] is not None
    messages = list(stored(host, session_id).values())
    assert [m["role"] for m in messages] == ["user", "assistant"]
    assert messages[1]["id"] == result["stored"]["message"]["id"] and outbox.pending() == []


def test_a_queued_final_reply_does_not_hold_up_the_turn(host, location, dead_path):
    """The turn ends while the reply waits; its checkpoint stays on disk until the reply lands (D327)."""
    session_id = new_session(host)
    inflight = location.data_root / "sessions" / f"{session_id}.inflight.json"

    async def scenario():
        client = HostClient(host.thread, asyncio.get_running_loop())
        busy = Flaky(
            client, {"assistant": [HostError("STORAGE_UNAVAILABLE", "busy")]}, key=lambda message: message["role"]
        )
        outbox = Outbox(busy, dead_path, base_delay=0.05)
        try:
            result = await TurnRunner(client, outbox=outbox, offline_delay=0).send(session_id, "hi")
            checkpoint_kept = inflight.exists()
            queued = outbox.pending()
            assert await outbox.flush(5)
            return result, checkpoint_kept, queued
        finally:
            await outbox.aclose()

    result, checkpoint_kept, queued = asyncio.run(scenario())
    assert result["status"] == "completed" and result["stored"] is None
    assert result["turn"]["status"] == "completed"
    assert checkpoint_kept and [e["message"]["id"] for e in queued] == [result["message"]["id"]]
    assert [m["role"] for m in stored(host, session_id).values()] == ["user", "assistant"]
    assert not inflight.exists()
