"""What the SIGKILL tests and the crash campaign share: a host killed mid-command, and the checks after it.

A real ``pidesktop host --stdio`` subprocess is started on a copy of a seeded
template, sent commands, and SIGKILLed after a chosen delay; ``Replies``
records which commands were answered before the kill.
"""

from __future__ import annotations

import re
import shutil
import threading
import time
from pathlib import Path

import apsw
import orjson

from tests.support.hosts import StdioHost


def db_rows(root: Path, sql: str, args: tuple = ()) -> list[tuple]:
    conn = apsw.Connection(str(root / "pi.sqlite"), flags=apsw.SQLITE_OPEN_READONLY)
    try:
        return [tuple(row) for row in conn.execute(sql, args)]
    finally:
        conn.close()


def integrity_ok(root: Path) -> bool:
    return db_rows(root, "PRAGMA integrity_check") == [("ok",)]


def without_rewrite_id(transcript: bytes) -> bytes:
    """The transcript with the header's per-rewrite ``rewriteId`` left out (it differs every run)."""
    header, sep, rest = transcript.partition(b"\n")
    return re.sub(rb',"rewriteId":"[0-9a-f]+"', b"", header) + sep + rest


def transcript_ids(data: bytes) -> list[str]:
    records = [orjson.loads(line) for line in data.splitlines()[1:]]
    return [r["id"] for r in records if r["type"] == "message"]


class Replies:
    """Reads a host's stdout on a thread, recording each reply by id."""

    def __init__(self, h: StdioHost):
        self.h = h
        self.got: dict[int, dict] = {}
        self.when: dict[int, float] = {}
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()

    def _read(self):
        try:
            for line in self.h.proc.stdout:
                message = orjson.loads(line)
                if message.get("id") is not None:
                    self.got[message["id"]] = message
                    self.when[message["id"]] = time.perf_counter()
        except (ValueError, OSError):
            pass

    def acked(self, request_id) -> bool:
        return "result" in self.got.get(request_id, {})


def start_ready(start, root: Path, sid: str) -> StdioHost:
    """A host that has finished its boot pass and read the session once."""
    h = start(root)
    h.call("session.get", {"sessionId": sid, "messageLimit": 1})
    return h


def send(h: StdioHost, request_id: int, command: dict) -> float:
    line = orjson.dumps({"jsonrpc": "2.0", "id": request_id, **command})
    started = time.perf_counter()
    try:
        h.send_raw(line)
    except (BrokenPipeError, OSError, ValueError):
        pass
    return started


def send_all(h: StdioHost, commands: list[dict], first_id: int = 1) -> threading.Thread:
    """Write ``commands`` without waiting for replies (ids ``first_id``...), on a thread so a full pipe never blocks."""

    def write():
        for n, command in enumerate(commands, start=first_id):
            send(h, n, command)

    writer = threading.Thread(target=write, daemon=True)
    writer.start()
    return writer


def kill_after(start, template: Path, root: Path, sid: str, commands: list[dict], delay: float) -> Replies:
    """A copy of ``template`` at ``root`` whose host is SIGKILLed ``delay`` s after ``commands`` (ids 1..n)
    started to go out; the replies that had arrived by then."""
    shutil.copytree(template, root)
    h = start_ready(start, root, sid)
    replies = Replies(h)
    writer = send_all(h, commands)
    time.sleep(delay)  # the kill's instant is the thing under test
    h.kill()
    replies.thread.join(5)
    writer.join(5)
    return replies


def killed_during(start, template: Path, root: Path, sid: str, command: dict, delay: float) -> bool:
    """A copy of ``template`` at ``root`` whose host is SIGKILLed ``delay`` s after ``command`` was sent;
    True when the reply had arrived by then."""
    shutil.copytree(template, root)
    h = start_ready(start, root, sid)
    replies = Replies(h)
    send(h, 99, command)
    time.sleep(delay)  # the kill's instant is the thing under test
    h.kill()
    replies.thread.join(5)
    return replies.acked(99)


def rewrite_outcome(root: Path, sid: str, old: bytes, new: bytes, acknowledged: bool, where: str) -> tuple[bytes, str]:
    """The transcript a kill left during a rewrite: exactly the old or the new file, whole, and the new one
    whenever the reply had arrived. Returns its bytes and "old" or "new"."""
    data = (root / "sessions" / f"{sid}.jsonl").read_bytes()
    assert without_rewrite_id(data) in (without_rewrite_id(old), without_rewrite_id(new)), where
    outcome = "new" if without_rewrite_id(data) == without_rewrite_id(new) else "old"
    assert outcome == "new" or not acknowledged, where
    return data, outcome


def reference(start, template: Path, work: Path, sid: str, command: dict) -> dict:
    """The command run to completion once: its reply, duration, transcript and index afterwards."""
    root = work / "reference"
    shutil.copytree(template, root)
    h = start_ready(start, root, sid)
    replies = Replies(h)
    started = send(h, 99, command)
    deadline = time.monotonic() + 30
    while 99 not in replies.got and time.monotonic() < deadline:
        time.sleep(0.001)  # poll interval of a wait on the reply
    assert "result" in replies.got[99], replies.got[99]
    duration = replies.when[99] - started
    h.proc.stdin.close()
    assert h.proc.wait(30) == 0
    replies.thread.join(5)
    return {
        "result": replies.got[99]["result"],
        "duration": duration,
        "transcript": (root / "sessions" / f"{sid}.jsonl").read_bytes(),
        "ids": [row[0] for row in db_rows(root, "SELECT id FROM messages WHERE session_id = ? ORDER BY seq", (sid,))],
    }
