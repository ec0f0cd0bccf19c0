"""Data safety: a deleted chat stays deleted, a queued prompt never vanishes, every stored line gets indexed.

1. Deleting a chat while its reply is still on its way (in the outbox, in an
   in-flight checkpoint, in the dead-letter file) never brings it back as a
   blank stub chat: the host refuses late appends for a deleted id, and the
   runtime drops what it still holds for that chat.
2. A queued prompt leaves the queue only together with its stored user line;
   a start that fails keeps the entry, marked, and Retry sends it.
3. A message line whose index commit was cut off by a crash is indexed by the
   next start (search finds it, ``messageCount`` counts it).
"""

import asyncio
import random
import threading
import time

import orjson
import pytest
from PySide6.QtWidgets import QToolButton

from pidesktop import paths
from pidesktop.agent.outbox import DEAD_LETTER_NAME, Outbox
from pidesktop.agent.runner import TurnRunner
from pidesktop.bus import ErrorCode, HostClient, HostError
from pidesktop.ui.chat.queue_strip import QueueStrip
from tests.support.host_helpers import append, assistant, crash_mid_reply, msg, new_session
from tests.support.hosts import InProcessHost, StdioHost
from tests.support.waits import spin_until, wait_until


def all_session_ids(host):
    return {s["id"] for s in host.call("session.list", {"includeDeleted": True})["sessions"]}


class Gate:
    """A client whose ``session.appendMessage`` fails (host unavailable) while ``closed``; the rest passes through.

    Events come from the real client, so the outbox sees what the host announces.
    """

    def __init__(self, real):
        self.real = real
        self.closed = True

    async def call(self, method, params=None):
        if method == "session.appendMessage" and self.closed:
            raise HostError(ErrorCode.STORAGE_UNAVAILABLE, "the host is busy")
        return await self.real.call(method, params)

    def subscribe(self, callback):
        return self.real.subscribe(callback)


# -- 1. a deleted chat stays deleted --------------------------------------------------------
def test_host_refuses_a_late_append_for_a_deleted_chat_and_keeps_stubs_for_unknown_ids(host, location):
    sid = new_session(host)
    append(host, sid, msg("u1"))
    host.call("session.saveInflightMessage", {"sessionId": sid, "message": assistant("a1", status="streaming")})
    host.call("session.delete", {"sessionId": sid, "forGood": True})
    error = host.error("session.appendMessage", {"sessionId": sid, "message": assistant("a1")})
    assert error.code == "NOT_FOUND" and error.data.get("deleted") is True
    assert host.error("session.saveInflightMessage", {"sessionId": sid, "message": assistant("a1")}).code == "NOT_FOUND"
    assert sid not in all_session_ids(host)
    assert not (location.data_root / "sessions" / f"{sid}.inflight.json").exists()
    # an id the host never deleted still gets its stub row, so a pending append can land (D318)
    append(host, "never-seen-before", assistant("x1"))
    assert "never-seen-before" in all_session_ids(host)
    host.stop()
    again = InProcessHost(location)
    try:
        assert sid not in all_session_ids(again)
        assert again.error("session.appendMessage", {"sessionId": sid, "message": assistant("a2")}).data["deleted"]
    finally:
        again.stop()


def test_over_stdio_a_deleted_chat_is_not_restored_from_a_left_over_transcript(stdio_host, data_root):
    """A crash between the row delete and the file removal leaves the transcript: boot finishes the delete."""
    host = stdio_host()
    sid = host.call("session.create", {})["session"]["id"]
    host.call("session.appendMessage", {"sessionId": sid, "message": msg("u1", text="secret words")})
    kept = (data_root / "sessions" / f"{sid}.jsonl").read_bytes()
    host.call("session.delete", {"sessionId": sid, "forGood": True})
    with pytest.raises(HostError) as refused:
        host.call("session.appendMessage", {"sessionId": sid, "message": assistant("a1")})
    assert refused.value.code == "NOT_FOUND" and refused.value.data.get("deleted") is True
    assert host.close() == 0
    (data_root / "sessions" / f"{sid}.jsonl").write_bytes(kept)  # the files the crash did not get to
    again = stdio_host()
    try:
        assert sid not in {s["id"] for s in again.call("session.list", {"includeDeleted": True})["sessions"]}
        assert not (data_root / "sessions" / f"{sid}.jsonl").exists()
        assert again.call("search.query", {"query": "secret words"})["total"] == 0
    finally:
        again.close()


def test_outbox_drops_the_pending_and_quarantined_appends_of_a_chat_deleted_elsewhere(host, tmp_path):
    """The deletion comes from another client of the same host: the outbox learns it from the event."""
    dead_path = tmp_path / "ui" / DEAD_LETTER_NAME
    doomed, kept = new_session(host), new_session(host)

    async def scenario():
        loop = asyncio.get_running_loop()
        real = HostClient(host.thread, loop)
        gate = Gate(real)
        outbox = Outbox(gate, dead_path, base_delay=0.01, max_failures=2)
        try:
            gate.closed = False
            await outbox.append(doomed, {"id": "bad", "role": "nobody", "blocks": []})  # quarantined
            gate.closed = True
            assert await outbox.append(doomed, assistant("late")) is None
            assert await outbox.append(kept, assistant("fine")) is None
            assert [r["sessionId"] for r in outbox.dead_letters()] == [doomed]
            other = HostClient(host.thread, loop)  # another window's client
            await other.call("session.delete", {"sessionId": doomed, "forGood": True})
            await wait_until(lambda: all(e["sessionId"] != doomed for e in outbox.pending()))
            gate.closed = False
            outbox.reset_backoff()
            assert await outbox.flush(5)
            # a reply that arrives after the deletion is not queued at all
            assert await outbox.append(doomed, assistant("later still")) is None
            assert outbox.pending() == []
            return outbox
        finally:
            await outbox.aclose()

    outbox = asyncio.run(scenario())
    assert outbox.dead_letters() == []
    assert orjson.loads(dead_path.read_bytes()) == []
    assert all_session_ids(host) == {kept}
    assert [m["id"] for m in host.call("session.get", {"sessionId": kept})["messages"]] == ["fine"]


def test_outbox_forgets_a_chat_when_the_host_says_it_was_deleted(host, tmp_path):
    """Even without the event (another process deleted it), the host's refusal drops that chat's entries."""
    doomed = new_session(host)

    class Deaf(Gate):
        def subscribe(self, callback):
            return lambda: None

    async def scenario():
        gate = Deaf(HostClient(host.thread, asyncio.get_running_loop()))
        outbox = Outbox(gate, tmp_path / DEAD_LETTER_NAME, base_delay=0.01)
        try:
            assert await outbox.append(doomed, assistant("one")) is None
            assert await outbox.append(doomed, assistant("two")) is None
            host.call("session.delete", {"sessionId": doomed, "forGood": True})
            gate.closed = False
            outbox.reset_backoff()
            assert await outbox.flush(5)
            return outbox
        finally:
            await outbox.aclose()

    outbox = asyncio.run(scenario())
    assert outbox.dead_letters() == [] and outbox.pending() == []
    assert doomed not in all_session_ids(host)


def test_deleting_a_chat_while_its_reply_streams_does_not_bring_it_back(qloop, host_client, location, tmp_path):
    sid = host_client.call_blocking("session.create", {})["session"]["id"]
    outbox = Outbox(host_client, tmp_path / DEAD_LETTER_NAME)
    runner = TurnRunner(host_client, outbox=outbox, offline_delay=0.02, checkpoint_every=0.0)
    phases = []
    runner.listeners.append(lambda session_id, phase, message: phases.append(phase))

    async def scenario():
        turn = asyncio.ensure_future(runner.send(sid, "tell me a long story"))
        await wait_until(lambda: phases.count("delta") >= 3)
        await host_client.call("session.delete", {"sessionId": sid, "forGood": True})
        result = await turn
        await outbox.flush(2)
        return result

    result = qloop.run_until_complete(scenario())
    assert result["status"] == "aborted" and result["stored"] is None
    assert not runner.is_running(sid)
    sessions = host_client.call_blocking("session.list", {"includeDeleted": True})["sessions"]
    assert sid not in {s["id"] for s in sessions}
    assert outbox.pending() == [] and outbox.dead_letters() == []
    assert not (location.data_root / "sessions" / f"{sid}.inflight.json").exists()


# -- 2. a queued prompt never vanishes ---------------------------------------------------------
class FailUserAppends:
    """Fails the next ``failures`` appends of a user line; everything else passes through."""

    def __init__(self, real, failures):
        self.real, self.failures = real, failures

    async def call(self, method, params=None):
        if method == "session.appendMessage" and params["message"]["role"] == "user" and self.failures:
            self.failures -= 1
            raise HostError(ErrorCode.STORAGE_UNAVAILABLE, "The host did not answer in time.")
        return await self.real.call(method, params)

    def subscribe(self, callback):
        return self.real.subscribe(callback)


def seed_queue(location, prompts):
    host = InProcessHost(location)
    sid = new_session(host)
    for prompt in prompts:
        host.call("session.queuePush", {"sessionId": sid, "content": prompt})
    host.stop()
    return sid


def test_a_queued_prompt_whose_start_fails_stays_in_the_queue_marked_and_retry_sends_it(qloop, location, loop_hosts):
    sid = seed_queue(location, ["alpha", "beta"])
    client = loop_hosts.start()
    runner = TurnRunner(FailUserAppends(client, failures=1), offline_delay=0.0)
    with pytest.raises(HostError):
        qloop.run_until_complete(runner.resume(sid))
    entries = client.call_blocking("session.queueList", {"sessionId": sid})["entries"]
    assert [e["content"] for e in entries] == ["alpha", "beta"]
    assert entries[0]["lastError"]["code"] == "STORAGE_UNAVAILABLE" and entries[0]["failedAt"] is not None
    assert entries[1]["lastError"] is None
    assert client.call_blocking("session.get", {"sessionId": sid})["messages"] == []
    qloop.run_until_complete(runner.resume(sid))  # Retry
    messages = client.call_blocking("session.get", {"sessionId": sid})["messages"]
    assert [m["blocks"][0]["text"] for m in messages if m["role"] == "user"] == ["alpha", "beta"]
    assert client.call_blocking("session.queueList", {"sessionId": sid})["entries"] == []


def test_the_queue_entry_leaves_in_the_same_step_as_its_user_line_is_stored(host):
    sid = new_session(host)
    entry = host.call("session.queuePush", {"sessionId": sid, "content": "hi"})["entry"]
    append(host, sid, msg("u1", text="hi"), queueEntryId=entry["id"])
    assert host.call("session.queueList", {"sessionId": sid})["entries"] == []
    assert any(t == "queue.changed" and p["entries"] == [] for t, p in host.events)
    # a replay of the same line (the reply to the first call was lost) is fine too
    assert append(host, sid, msg("u1", text="hi"), queueEntryId=entry["id"])["message"]["seq"] == 1


def test_queue_positions_are_never_handed_out_twice(host, location):
    sid = new_session(host)
    seen = []

    def push(content):
        entry = host.call("session.queuePush", {"sessionId": sid, "content": content})["entry"]
        seen.append(entry["position"])
        return entry["id"]

    push("a")
    b, c = push("b"), push("c")
    host.call("session.queueRemove", {"sessionId": sid, "entryId": c})
    push("d")
    host.call("session.queueReorder", {"sessionId": sid, "entryId": b, "direction": "up"})
    for entry in host.call("session.queueList", {"sessionId": sid})["entries"]:
        host.call("session.queueRemove", {"sessionId": sid, "entryId": entry["id"]})
    push("e")
    host.stop()
    again = InProcessHost(location)
    try:
        seen.append(again.call("session.queuePush", {"sessionId": sid, "content": "f"})["entry"]["position"])
        live = [e["position"] for e in again.call("session.queueList", {"sessionId": sid})["entries"]]
    finally:
        again.stop()
    assert len(seen) == len(set(seen)), seen
    assert seen == sorted(seen) and len(live) == len(set(live))


def test_the_queue_strip_shows_a_failed_entry_with_retry(qtbot, qloop, location, loop_hosts):
    sid = seed_queue(location, ["first", "second"])
    client = loop_hosts.start()
    entries = client.call_blocking("session.queueList", {"sessionId": sid})["entries"]
    client.call_blocking(
        "session.queueMarkFailed",
        {"sessionId": sid, "entryId": entries[1]["id"], "error": {"code": "STORAGE_UNAVAILABLE", "message": "busy"}},
    )
    strip = QueueStrip(client)
    qtbot.addWidget(strip)
    client.subscribe(strip.handle_event)
    qloop.run_until_complete(strip.show_session(sid))
    retries = [b for row in strip._rows for b in row.findChildren(QToolButton) if b.text() == "Retry"]
    assert len(retries) == 1 and "busy" in retries[0].toolTip()
    assert retries[0].parent() is strip._rows[1]
    asked = []
    strip.resumeRequested.connect(lambda: asked.append(True))
    retries[0].click()
    spin_until(qloop, lambda: asked)
    listed = client.call_blocking("session.queueList", {"sessionId": sid})["entries"]
    assert listed[0]["id"] == entries[1]["id"]  # the failed prompt goes next


# -- 3. a line without its index row gets indexed -------------------------------------------------
def write_line_without_index(data_root, sid, message):
    """The crash window exactly: the line is in the file, its index commit never happened."""
    with open(data_root / "sessions" / f"{sid}.jsonl", "ab") as handle:
        handle.write(orjson.dumps({"type": "message", **message}) + b"\n")


def test_a_line_left_without_its_index_row_by_a_killed_host_is_indexed_at_the_next_start(stdio_host, data_root):
    host = stdio_host()
    sid = host.call("session.create", {})["session"]["id"]
    host.call("session.appendMessage", {"sessionId": sid, "message": msg("u1", text="where is the zebra")})
    host.kill()
    write_line_without_index(
        data_root, sid, {**assistant("a1", "the quokka sleeps"), "createdAt": "2030-01-01T00:00:00.000Z"}
    )
    again = InProcessHost(paths.resolve(data_dir=data_root))
    try:
        got = again.call("session.get", {"sessionId": sid})
        assert [m["seq"] for m in got["messages"]] == [1, 2]
        assert got["session"]["messageCount"] == 2
        found = again.call("search.query", {"query": "quokka"})["results"]
        assert [r["messageId"] for r in found] == ["a1"]
        assert again.call("search.sessions", {"query": "quokka"})["results"][0]["sessionId"] == sid
        # the next append numbers after it, and a further restart changes nothing
        assert append(again, sid, msg("u2"))["message"]["seq"] == 3
    finally:
        again.stop()
    third = InProcessHost(paths.resolve(data_dir=data_root))
    try:
        assert third.call("session.get", {"sessionId": sid})["session"]["messageCount"] == 3
    finally:
        third.stop()


def test_after_a_clean_close_the_start_reads_no_transcript(host, location):
    sid = new_session(host)
    append(host, sid, msg("u1"))
    host.stop()
    again = InProcessHost(location)
    try:
        assert again.call("session.get", {"sessionId": sid})["session"]["messageCount"] == 1
    finally:
        again.stop()
    from pidesktop.host.core import Host

    opened = Host.open(location, lambda topic, payload: None)
    try:
        assert opened.ctx.transcripts.bytes_read == 0
    finally:
        opened.close()


KILL_RUNS = 12


@pytest.mark.slow
def test_kill_during_appends_leaves_every_stored_line_indexed_after_restart(tmp_path):
    """SIGKILL at random instants while appending: after the restart every line has its row."""
    rng = random.Random(20260511)
    for run in range(KILL_RUNS):
        root = tmp_path / f"run{run}"
        host = StdioHost(root)
        sid = host.call("session.create", {})["session"]["id"]
        acked = []

        def read_replies(host=host, acked=acked):  # this run's host and list, not the next run's
            try:
                for line in host.proc.stdout:
                    reply = orjson.loads(line)
                    if "result" in reply:
                        acked.append(reply["id"])
            except (ValueError, OSError):
                pass

        reader = threading.Thread(target=read_replies, daemon=True)
        reader.start()
        deadline = time.monotonic() + rng.uniform(0.05, 0.4)
        i = 0
        while time.monotonic() < deadline:
            i += 1
            body = {
                "jsonrpc": "2.0",
                "id": 1000 + i,
                "method": "session.appendMessage",
                "params": {
                    "sessionId": sid,
                    "message": msg(f"m{i}", text=f"needle{i} " + "x " * rng.choice((1, 50, 2000))),
                },
            }
            try:
                host.send_raw(orjson.dumps(body))
            except (BrokenPipeError, OSError, ValueError):
                break
        host.kill()
        reader.join(5)
        again = InProcessHost(paths.resolve(data_dir=root))
        try:
            got = again.call("session.get", {"sessionId": sid})
            assert all(m["seq"] is not None for m in got["messages"]), f"run {run}"
            assert got["session"]["messageCount"] == len(got["messages"]), f"run {run}"
            if got["messages"]:
                last = got["messages"][-1]["id"]
                assert again.call("search.query", {"query": f"needle{last[1:]} "})["total"] == 1, f"run {run}"
        finally:
            again.stop()


# -- 4. a reply cut off by a crash says so, unlike one the person stopped --------------------------------
def test_the_boot_pass_marks_a_reply_cut_off_by_a_crash(location):
    sid = crash_mid_reply(location)
    host = InProcessHost(location)  # reopening runs the boot pass
    try:
        got = host.call("session.get", {"sessionId": sid})
        assert got["session"]["lastTurn"]["status"] == "aborted"
        recovered = got["messages"][-1]
        assert recovered["id"] == "a1" and recovered["blocks"][0]["text"] == "Once upon a"
        assert recovered["meta"]["status"] == "aborted" and recovered["meta"]["stopReason"] == "crash"
        assert "error" not in recovered["meta"]  # aborted, not failed
        # Spec 004 (4.14, acceptance list): aborted turns are never a notification source.
        assert host.call("notifications.list")["notifications"] == []
    finally:
        host.stop()


def test_a_stopped_reply_is_not_marked_as_a_crash(location):
    host = InProcessHost(location)
    try:
        sid = host.call("session.create", {"title": "Story"})["session"]["id"]
        host.call("session.startTurn", {"sessionId": sid, "turnId": "t1"})
        host.call(
            "session.appendMessage",
            {
                "sessionId": sid,
                "turnId": "t1",
                "message": {
                    "id": "a1",
                    "role": "assistant",
                    "blocks": [{"type": "text", "text": "Once"}],
                    "meta": {"status": "aborted"},
                },
            },
        )
        host.call(
            "session.endTurn", {"sessionId": sid, "turnId": "t1", "status": "aborted", "createNotification": False}
        )
    finally:
        host.stop()
    again = InProcessHost(location)
    try:
        meta = again.call("session.get", {"sessionId": sid})["messages"][-1]["meta"]
        assert meta["status"] == "aborted" and "stopReason" not in meta
        assert again.call("notifications.list")["notifications"] == []
    finally:
        again.stop()


def test_the_next_start_is_told_which_replies_a_crash_cut_off(location):
    sid = crash_mid_reply(location)
    host = InProcessHost(location)
    try:
        hello = host.call("app.handshake", {"protocolVersion": 1})
        assert hello["interruptedReplies"] == [{"sessionId": sid, "sessionTitle": "Story", "messageId": "a1"}]
    finally:
        host.stop()
    again = InProcessHost(location)  # told once: the start after that has nothing to say
    try:
        assert again.call("app.handshake", {"protocolVersion": 1})["interruptedReplies"] == []
    finally:
        again.stop()
