"""The host's resident memory with one very long chat: restored from its file at start, then open.

A transcript of short messages (ids as long as the app's) is written to an
empty data root; a real ``pidesktop host --stdio`` starts on it, which
restores the chat (its row, every index row), then the chat is opened
(``session.get``, the newest 50 messages, as the window does) and searched
once for a phrase one message holds. Printed: the host's
peak resident memory (VmHWM) through the start, its resident memory (VmRSS)
after the open and the search, and the same for a host on an empty data root
(the baseline of this run). Target (issue 36): under 300 MB with 1,000,000
messages. Usage::

    python bench/host_memory.py [--messages 1000000] [--quick]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import orjson
from quick import add_quick

TARGET_MB = 300
SESSION = "memory0000"


def write_chat(path: Path, count: int) -> None:
    header = {"type": "session", "schema": 2, "sessionId": SESSION, "createdAt": "2026-07-26T09:00:00.000Z"}
    with open(path, "wb") as out:
        out.write(orjson.dumps(header) + b"\n")
        for i in range(count):
            role = "user" if i % 2 == 0 else "assistant"
            words = f"message {i} about the layout of a long chat and its index"
            record = {
                "type": "message",
                "id": f"0194b3c2-7d1e-7a8b-9c0d-{i:012d}",
                "role": role,
                "createdAt": f"2026-07-26T09:{(i // 60) % 60:02d}:{i % 60:02d}.000Z",
                "blocks": [{"type": "text", "text": words}],
            }
            out.write(orjson.dumps(record) + b"\n")


def status(pid: int) -> dict[str, float]:
    found = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        name, _, value = line.partition(":")
        if name in ("VmRSS", "VmHWM"):
            found[name] = int(value.split()[0]) / 1024
    return found


class Host:
    def __init__(self, root: Path):
        env = {**os.environ, "PI_DESKTOP_DATA_DIR": str(root)}
        self.process = subprocess.Popen(
            [sys.executable, "-m", "pidesktop", "host", "--stdio"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            env=env,
        )
        self.next_id = 0

    def call(self, method: str, params: dict) -> dict:
        self.next_id += 1
        request = {"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params}
        assert self.process.stdin is not None and self.process.stdout is not None
        self.process.stdin.write(orjson.dumps(request) + b"\n")
        self.process.stdin.flush()
        while True:
            message = orjson.loads(self.process.stdout.readline())
            if message.get("id") == self.next_id:
                if "error" in message:
                    raise RuntimeError(message["error"])
                return message["result"]

    def close(self) -> None:
        assert self.process.stdin is not None
        self.process.stdin.close()
        self.process.wait(timeout=600)


def measure(root: Path, chat: bool, messages: int = 0) -> dict[str, float]:
    host = Host(root)
    started = time.perf_counter()
    host.call("app.handshake", {"protocolVersion": 1})
    ready = time.perf_counter() - started
    peak_start = status(host.process.pid)["VmHWM"]
    if chat:
        page = host.call("session.get", {"sessionId": SESSION, "messageLimit": 50})  # what the window opens
        assert page["messages"], "the chat did not open"
        host.call("search.query", {"query": f"message {messages // 2} about"})
    after = status(host.process.pid)
    host.close()
    return {"ready": ready, "peak_start": peak_start, "rss_open": after["VmRSS"], "peak": after["VmHWM"]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--messages", type=int, default=1_000_000)
    add_quick(parser, messages=20_000)
    arguments = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="pidesktop-bench-") as temporary:
        empty = Path(temporary) / "empty"
        empty.mkdir()
        root = Path(temporary) / "chat"
        (root / "sessions").mkdir(parents=True)
        path = root / "sessions" / f"{SESSION}.jsonl"
        write_chat(path, arguments.messages)
        base = measure(empty, chat=False)
        restored = measure(root, True, arguments.messages)
        reopened = measure(root, True, arguments.messages)  # the index is there now: an ordinary start
        load = os.getloadavg()[0]
        print(f"{arguments.messages:,} messages, {path.stat().st_size / 1e6:.0f} MB of JSONL; target < {TARGET_MB} MB")
        print(f"{'':<34} {'ready s':>8} {'peak MB':>8} {'RSS open MB':>12} {'peak MB':>8} | load")
        for name, row in (
            ("empty data root (baseline)", base),
            ("start restoring it", restored),
            ("next start", reopened),
        ):
            print(
                f"{name:<34} {row['ready']:>8.1f} {row['peak_start']:>8.0f} {row['rss_open']:>12.0f} "
                f"{row['peak']:>8.0f} | {load:.1f}"
            )


if __name__ == "__main__":
    main()
