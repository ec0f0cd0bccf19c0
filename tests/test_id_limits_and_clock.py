"""Ids a client sends have a length limit everywhere; a turn lasts the time that passed, whatever the wall clock does;
`pidesktop export` keeps exit 1 for a chat that cannot be read."""

from __future__ import annotations

import subprocess
import sys

import pytest

from pidesktop.bus.errors import ErrorCode, HostError
from pidesktop.host import handlers  # noqa: F401 - registers every command
from pidesktop.host.core import WRITER_LOCK, Host
from pidesktop.locks import FileLock
from tests.support.repo import REPO

NOW = 1_780_000_000_000
LONG = "t" * 10_000


class ClockHost:
    def __init__(self, location):
        self.host = Host.open(location, emit=lambda topic, payload: None)
        self.now = NOW
        self.host.ctx.clock = lambda: self.now
        self.seconds = 100.0  # the monotonic clock: moves only when a test says time passed
        self.host.ctx.monotonic = lambda: self.seconds

    def call(self, method, params=None):
        return self.host.dispatch(method, params or {})

    def error(self, method, params) -> HostError:
        with pytest.raises(HostError) as info:
            self.call(method, params)
        return info.value


@pytest.fixture
def h(location):
    opened = ClockHost(location)
    yield opened
    opened.host.close()


def chat(h) -> str:
    sid = h.call("session.create", {})["session"]["id"]
    message = {"id": "u1", "role": "user", "blocks": [{"type": "text", "text": "hi"}]}
    h.call("session.appendMessage", {"sessionId": sid, "message": message})
    return sid


@pytest.mark.parametrize(
    "method, params, field",
    [
        ("session.startTurn", {"turnId": LONG}, "turnId"),
        ("session.endTurn", {"turnId": LONG, "status": "completed", "createNotification": False}, "turnId"),
        ("session.appendCompaction", {"compaction": {"id": LONG, "throughMessageId": "u1"}}, "compaction.id"),
        (
            "session.appendCompaction",
            {"compaction": {"id": "c1", "throughMessageId": LONG}},
            "compaction.throughMessageId",
        ),
    ],
)
def test_ids_of_ten_kilobytes_are_refused_naming_the_field(h, method, params, field):
    sid = chat(h)
    error = h.error(method, {"sessionId": sid, **params})
    assert error.code == ErrorCode.INVALID_PARAMS
    assert error.data["field"] == field
    assert "256" in error.message


@pytest.mark.parametrize("step", [-60_000, 3_600_000], ids=["back a minute", "forward an hour"])
def test_a_turn_lasts_the_time_that_passed_whatever_the_wall_clock_does(h, step):
    sid = chat(h)
    turn = h.call("session.startTurn", {"sessionId": sid})["turn"]
    h.now += step  # the wall clock stepped during the turn
    h.seconds += 2.5  # while 2.5 s really passed
    ended = h.call(
        "session.endTurn", {"sessionId": sid, "turnId": turn["id"], "status": "completed", "createNotification": False}
    )["turn"]
    assert ended["startedAt"] == NOW
    assert ended["endedAt"] == NOW + 2_500
    stored = h.host.ctx.conn.execute("SELECT ended_at FROM turns WHERE id = ?", (turn["id"],)).fetchone()
    assert stored == (NOW + 2_500,)


def test_a_turn_started_before_a_restart_ends_at_the_wall_clock_never_before_it_began(h):
    sid = chat(h)
    turn = h.call("session.startTurn", {"sessionId": sid})["turn"]
    h.host.ctx.turn_clocks.clear()  # as after a restart: this host did not see the turn start
    h.now -= 60_000
    ended = h.call(
        "session.endTurn", {"sessionId": sid, "turnId": turn["id"], "status": "completed", "createNotification": False}
    )["turn"]
    assert ended["endedAt"] == ended["startedAt"] == NOW


def test_export_while_the_app_holds_the_data_folder_exits_2_not_1(tmp_path):
    """Exit 1 means "that chat cannot be read"; a data folder in use is the data folder's problem: 2."""
    root = tmp_path / "root"
    root.mkdir(mode=0o700)
    lock = FileLock(root / WRITER_LOCK, "pidesktop GUI").acquire()
    try:
        done = subprocess.run(
            [sys.executable, "-m", "pidesktop", "export", "any-chat", "--format", "md", "--data-dir", str(root)],
            capture_output=True,
            text=True,
            cwd=REPO,
            timeout=60,
        )
    finally:
        lock.release()
    assert done.returncode == 2, done.stderr
    assert "already in use" in done.stderr
