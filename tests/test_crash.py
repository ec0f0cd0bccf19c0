"""kill -9 at random instants: nothing acknowledged is ever lost, no partial line is ever returned.

A real ``pidesktop host --stdio`` subprocess is driven as fast as it will go
and SIGKILLed after a random delay; a fresh host then opens the same data root.
"""

import random
import threading
import time

import orjson
import pytest

from tests.support.crash_support import integrity_ok
from tests.support.hosts import InProcessHost, StdioHost

pytestmark = pytest.mark.slow  # kill -9 at random instants, many times

APPEND_RUNS = 50
TURN_RUNS = 30


class Pump:
    """Writes requests without waiting; a reader thread records which ids were answered."""

    def __init__(self, host: StdioHost):
        self.host = host
        self.acked: dict[int, dict] = {}
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self):
        try:
            for line in self.host.proc.stdout:
                message = orjson.loads(line)
                if "id" in message and message["id"] is not None and "result" in message:
                    self.acked[message["id"]] = message["result"]
        except (ValueError, OSError):
            pass

    def send(self, request_id, method, params):
        try:
            self.host.send_raw(orjson.dumps({"jsonrpc": "2.0", "id": request_id, "method": method, "params": params}))
            return True
        except (BrokenPipeError, OSError, ValueError):
            return False


def body(i):
    # varied sizes so kills land inside lines of every length
    return "word " * random.choice((1, 10, 200, 3000)) + f"#{i}"


def test_kill_during_appends_never_loses_an_acknowledged_message(tmp_path):
    rng = random.Random(20261130)
    stats = []
    for run in range(APPEND_RUNS):
        root = tmp_path / f"run{run}"
        # the session exists before the race starts
        setup = InProcessHost_at(root)
        sid = setup.call("session.create", {"title": "crash"})["session"]["id"]
        setup.stop()
        host = StdioHost(root)
        host.call(
            "app.handshake", {"protocolVersion": 1}
        )  # the clock starts once the host serves, however slow its start
        pump = Pump(host)
        sent = {}
        deadline = time.monotonic() + rng.uniform(0.05, 0.6)
        i = 0
        while time.monotonic() < deadline:
            i += 1
            message = {
                "id": f"m{i}",
                "role": "user" if i % 2 else "assistant",
                "blocks": [{"type": "text", "text": body(i)}],
            }
            sent[i] = message
            if not pump.send(i, "session.appendMessage", {"sessionId": sid, "message": message}):
                break
            if i % 20 == 0:
                time.sleep(0.001)  # spread the sends over time, so the kill lands at a random instant
        host.kill()
        pump.reader.join(5)
        acknowledged = [sent[k]["id"] for k in sorted(pump.acked)]
        stats.append((len(acknowledged), len(sent)))
        assert integrity_ok(root), f"run {run}"
        again = InProcessHost_at(root)
        try:
            got = again.call("session.get", {"sessionId": sid})
            ids = [m["id"] for m in got["messages"]]
            # every acknowledged message is there, in order, complete
            assert ids[: len(acknowledged)] == acknowledged, f"run {run}"
            for m in got["messages"]:
                number = int(m["id"][1:])
                assert m["blocks"] == sent[number]["blocks"], f"run {run}: partial line returned"
            # the host keeps working on the file it left
            again.call(
                "session.appendMessage",
                {
                    "sessionId": sid,
                    "message": {"id": "after", "role": "user", "blocks": [{"type": "text", "text": "after the crash"}]},
                },
            )
            assert again.call("session.get", {"sessionId": sid, "messageLimit": 1})["messages"][0]["id"] == "after"
        finally:
            again.stop()
    # the race really raced: most runs acknowledged some appends and lost some in flight
    assert sum(1 for acked, sent in stats if 0 < acked) >= APPEND_RUNS // 2, stats
    assert sum(1 for acked, sent in stats if acked < sent) >= APPEND_RUNS // 2, stats


def InProcessHost_at(root):
    from pidesktop import paths

    return InProcessHost(paths.resolve(data_dir=root))


def test_kill_during_a_running_turn_aborts_it_and_promotes_the_checkpoint_once(tmp_path):
    rng = random.Random(7)
    for run in range(TURN_RUNS):
        root = tmp_path / f"turn{run}"
        setup = InProcessHost_at(root)
        sid = setup.call("session.create", {"title": "streaming"})["session"]["id"]
        setup.call(
            "session.appendMessage",
            {
                "sessionId": sid,
                "message": {"id": "u1", "role": "user", "blocks": [{"type": "text", "text": "write me a story"}]},
            },
        )
        setup.call("session.startTurn", {"sessionId": sid, "turnId": "t1"})
        setup.stop()
        host = StdioHost(root)
        pump = Pump(host)
        text = ""
        deadline = time.monotonic() + rng.uniform(0.05, 0.5)
        i = 0
        while time.monotonic() < deadline:
            i += 1
            text += f"token{i} "
            pump.send(
                i,
                "session.saveInflightMessage",
                {
                    "sessionId": sid,
                    "turnId": "t1",
                    "message": {
                        "id": "a1",
                        "role": "assistant",
                        "blocks": [{"type": "text", "text": text}],
                        "meta": {"status": "streaming"},
                    },
                },
            )
            time.sleep(0.003)  # checkpoints spread over time: the kill lands between two of them
        host.kill()
        pump.reader.join(5)
        acked_texts = {k for k in pump.acked if pump.acked[k].get("saved")}
        assert integrity_ok(root)
        again = InProcessHost_at(root)
        try:
            got = again.call("session.get", {"sessionId": sid})
            assert got["session"]["lastTurn"]["status"] == "aborted", f"run {run}"
            ids = [m["id"] for m in got["messages"]]
            assert ids[0] == "u1"
            assert ids.count("a1") <= 1
            if acked_texts:
                # the last acknowledged checkpoint (or a later one) was promoted, exactly once
                assert ids == ["u1", "a1"], f"run {run}"
                promoted = got["messages"][1]["blocks"][0]["text"]
                last_acked = max(acked_texts)
                assert promoted.startswith(" ".join(f"token{n}" for n in range(1, last_acked + 1)))
                assert got["messages"][1]["meta"]["status"] == "aborted"
                assert again.call("search.query", {"query": "token1 "})["total"] == 1
            assert again.call("notifications.list")["notifications"] == []
            assert not (root / "sessions" / f"{sid}.inflight.json").exists()
        finally:
            again.stop()
