"""The in-process bus: FIFO order, errors as HostError, events on the loop thread, shutdown."""

import asyncio
import threading

import apsw
import pytest

from pidesktop.bus import HostClient, HostError, HostThread
from pidesktop.host.core import opener
from pidesktop.paths import prepare_data_root
from tests.support.hosts import InProcessHost


def test_commands_run_in_submission_order(host):
    finished = []
    done = threading.Event()
    titles = [f"chat {i:03d}" for i in range(60)]

    for title in titles:

        def reply(result, error, title=title):
            finished.append((title, result["session"]["title"] if result else error))
            if len(finished) == len(titles):
                done.set()

        host.thread.submit("session.create", {"title": title}, reply)
    assert done.wait(30)
    assert [t for t, _ in finished] == titles
    assert [r for _, r in finished] == titles
    listed = host.call("session.list", {"limit": 500})["sessions"]
    created = sorted(s["createdAt"] for s in listed)
    assert created == [s["createdAt"] for s in reversed(listed)]  # newest first


def test_errors_cross_as_host_error_with_a_stable_code(location):
    thread = HostThread(opener(location)).start()

    async def scenario():
        client = HostClient(thread, asyncio.get_running_loop())
        with pytest.raises(HostError) as missing:
            await client.call("no.such.command", {})
        with pytest.raises(HostError) as invalid:
            await client.call("session.rename", {"sessionId": "abc", "title": "   "})
        with pytest.raises(HostError) as absent:
            await client.call("session.rename", {"sessionId": "abc", "title": "ok"})
        client.close()
        return missing.value, invalid.value, absent.value

    try:
        missing, invalid, absent = asyncio.run(scenario())
    finally:
        thread.stop()
    assert missing.code == "METHOD_NOT_FOUND" and "no.such.command" in missing.message
    assert invalid.code == "INVALID_PARAMS" and "'title'" in invalid.message
    assert absent.code == "NOT_FOUND" and "abc" in absent.message


def test_events_are_delivered_on_the_loop_thread(location):
    thread = HostThread(opener(location)).start()
    seen = []

    async def scenario():
        loop_thread = threading.get_ident()
        client = HostClient(thread, asyncio.get_running_loop())
        arrived = asyncio.Event()

        def on_event(topic, payload):
            seen.append((topic, payload["reason"], threading.get_ident() == loop_thread))
            arrived.set()

        client.subscribe(on_event)
        await client.call("session.create", {"title": "evented"})
        await asyncio.wait_for(arrived.wait(), 10)
        client.close()

    try:
        asyncio.run(scenario())
    finally:
        thread.stop()
    assert seen == [("session.changed", "created", True)]


def test_shutdown_drains_the_queue_and_joins_the_thread(location):
    thread = HostThread(opener(location)).start()
    replies = []
    for i in range(20):
        thread.submit("session.create", {"title": f"t{i}"}, lambda r, e: replies.append(e))
    thread.stop()
    assert not thread.alive
    assert replies == [None] * 20  # everything queued before stop was answered
    late = []
    thread.submit("session.list", {}, lambda r, e: late.append(e.code))
    assert late == ["STORAGE_UNAVAILABLE"]
    # the database is closed and the writer lock released: a new host opens it
    again = InProcessHost(location)
    try:
        assert len(again.call("session.list")["sessions"]) == 20
    finally:
        again.stop()


def test_a_failed_open_answers_every_call_with_the_reason(location):
    root = prepare_data_root(location)
    (root / "pi.sqlite").mkdir()  # a folder where the database file should be
    broken = InProcessHost(location)
    try:
        for method in ("app.handshake", "session.list", "settings.get"):
            error = broken.error(method, {"protocolVersion": 1})
            assert error.code == "STORAGE_UNAVAILABLE"
            assert "pi.sqlite" in error.message
    finally:
        broken.stop()


def test_a_newer_schema_answers_every_call_schema_incompatible(location):
    root = prepare_data_root(location)
    conn = apsw.Connection(str(root / "pi.sqlite"))
    conn.execute("CREATE TABLE t(x); PRAGMA user_version = 28;")
    conn.close()
    newer = InProcessHost(location)
    try:
        assert newer.error("session.list").code == "SCHEMA_INCOMPATIBLE"
        assert newer.error("app.handshake", {"protocolVersion": 1}).code == "SCHEMA_INCOMPATIBLE"
    finally:
        newer.stop()


def test_a_second_host_on_one_data_root_is_refused_naming_the_holder(host):
    second = InProcessHost(host.location)
    try:
        error = second.error("session.list")
        assert error.code == "STORAGE_UNAVAILABLE"
        assert "test host" in error.message and "pid" in error.message
    finally:
        second.stop()
    assert host.call("session.list")["sessions"] == []  # the first host is unaffected


def test_a_started_host_thread_shortens_the_gil_switch_interval(location):
    """The window waits for the GIL at most about 0.2 ms while the host works; a shorter
    interval someone chose is kept."""
    import sys

    from pidesktop.bus import inprocess

    saved = sys.getswitchinterval()
    try:
        sys.setswitchinterval(0.005)
        thread = HostThread(opener(location)).start()
        assert sys.getswitchinterval() <= inprocess.SWITCH_INTERVAL_S
        thread.stop()
        sys.setswitchinterval(0.0001)
        thread = HostThread(opener(location)).start()
        assert sys.getswitchinterval() == pytest.approx(0.0001)
        thread.stop()
    finally:
        sys.setswitchinterval(saved)
