"""Live pi sessions: a writer appends while the host lists and reads; the watcher's events; a clean stop."""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path

import orjson
import pytest

from pidesktop.host.native import pi_format
from tests.support.hosts import InProcessHost
from tests.support.waits import wait_for


def line(entry: dict) -> bytes:
    return orjson.dumps(entry) + b"\n"


def header(session_id: str) -> bytes:
    return line(
        {"type": "session", "version": 3, "id": session_id, "timestamp": "2025-01-01T00:00:00.000Z", "cwd": "/work"}
    )


def message(number: int, parent: str | None) -> dict:
    role = "user" if number % 2 == 0 else "assistant"
    body: dict = {
        "role": role,
        "content": [{"type": "text", "text": f"entry {number} " + "x" * (number % 50)}],
        "timestamp": 1_700_000_000_000 + number,
    }
    if role == "assistant":
        body.update(provider="p", model="m", stopReason="stop")
    return {
        "type": "message",
        "id": f"m{number}",
        "parentId": parent,
        "timestamp": "2025-01-01T00:00:01.000Z",
        "message": body,
    }


@pytest.fixture
def sessions_root(isolated_home) -> Path:
    root = Path(os.environ["PI_CODING_AGENT_DIR"]) / "sessions" / "--work--"
    root.mkdir(parents=True)
    return root


def test_reads_stay_consistent_while_pi_appends(host, sessions_root):
    path = sessions_root / "live.jsonl"
    path.write_bytes(header("live") + line(message(0, None)))
    (row,) = [r for r in host.call("session.list", {})["sessions"] if r["id"].startswith("native-pi:")]
    total = 400
    done = threading.Event()

    def writer() -> None:
        with path.open("ab", buffering=0) as handle:
            for number in range(1, total):
                data = line(message(number, f"m{number - 1}"))
                cut = len(data) // 2
                handle.write(data[:cut])  # a line in two writes: readers see a torn tail in between
                handle.write(data[cut:])
                if number % 40 == 0:
                    time.sleep(0.005)
        done.set()

    thread = threading.Thread(target=writer)
    thread.start()
    counts = []
    try:
        while not done.is_set():
            listed = next(r for r in host.call("session.list", {})["sessions"] if r["id"] == row["id"])
            page = host.call("session.get", {"sessionId": row["id"], "messageLimit": 20})
            ids = [m["id"] for m in page["messages"]]
            assert ids == [f"m{n}" for n in range(page["messageStart"], page["messageEnd"])]
            assert page["messageEnd"] == page["totalMessages"] >= listed["messageCount"]
            counts.append(page["totalMessages"])
    finally:
        thread.join()
    assert counts == sorted(counts)
    final = host.call("session.get", {"sessionId": row["id"]})
    assert final["messages"] == pi_format.read_branch(pi_format.parse(path.read_bytes()))[0]
    assert final["totalMessages"] == total


def repeat_until(action, predicate, tries: int = 20) -> None:
    """Do ``action`` until ``predicate`` holds: the first event may come before the watch is set up."""
    for _ in range(tries):
        action()
        deadline = time.monotonic() + 0.5
        while time.monotonic() < deadline:
            if predicate():
                return
            time.sleep(0.02)
    raise AssertionError("no event came")


def test_the_watcher_reports_growth_and_new_or_removed_files(host, sessions_root):
    path = sessions_root / "watched.jsonl"
    path.write_bytes(header("watched") + line(message(0, None)))
    (row,) = [r for r in host.call("session.list", {})["sessions"] if r["id"].startswith("native-pi:")]
    numbers = iter(range(1, 1000))

    def topics(name: str, session_id: str | None = None) -> int:
        return sum(
            1
            for topic, payload in list(host.events)
            if topic == name and (session_id is None or payload.get("sessionId") == session_id)
        )

    def grow() -> None:
        number = next(numbers)
        with path.open("ab") as handle:
            handle.write(line(message(number, f"m{number - 1}")))

    grown = topics("session.changed", row["id"])
    repeat_until(grow, lambda: topics("session.changed", row["id"]) > grown)
    listed = topics("session.listChanged")
    (sessions_root / "new.jsonl").write_bytes(header("new") + line(message(0, None)))
    wait_for(lambda: topics("session.listChanged") > listed)
    listed = topics("session.listChanged")
    (sessions_root / "new.jsonl").unlink()
    wait_for(lambda: topics("session.listChanged") > listed)
    (sessions_root / "notes.txt").write_text("not a session")
    grown = topics("session.changed", row["id"])
    listed = topics("session.listChanged")
    grow()
    wait_for(lambda: topics("session.changed", row["id"]) > grown)
    assert topics("session.listChanged") == listed  # other files are not sessions
    assert next(r for r in host.call("session.list", {})["sessions"] if r["id"] == row["id"])["messageCount"] > 2


def test_a_configured_folder_is_watched_without_its_subfolders(host, sessions_root, tmp_path):
    custom = tmp_path / "custom"
    (custom / "nested").mkdir(parents=True)
    (sessions_root.parent.parent / "settings.json").write_bytes(orjson.dumps({"sessionDir": str(custom)}))
    assert [r for r in host.call("session.list", {})["sessions"] if r["id"].startswith("native")] == []

    def listed() -> int:
        return sum(1 for topic, _ in list(host.events) if topic == "session.listChanged")

    numbers = iter(range(100))
    repeat_until(
        lambda: (custom / f"s{next(numbers)}.jsonl").write_bytes(header("c") + line(message(0, None))),
        lambda: listed() > 0,
    )
    seen = listed()
    (custom / "nested" / "deep.jsonl").write_bytes(header("deep") + line(message(0, None)))
    (custom / "last.jsonl").write_bytes(header("last") + line(message(0, None)))
    wait_for(lambda: listed() > seen)
    rows = [r for r in host.call("session.list", {})["sessions"] if r["id"].startswith("native")]
    assert "deep" not in {r["nativeId"] for r in rows} and "last" in {r["nativeId"] for r in rows}


def test_a_folder_made_after_start_is_watched(location, isolated_home):
    agent = Path(os.environ["PI_CODING_AGENT_DIR"])
    running = InProcessHost(location)
    try:
        root = agent / "sessions" / "--later--"
        root.mkdir(parents=True)
        wait_for(lambda: any(topic == "session.listChanged" for topic, _ in list(running.events)))
        (root / "s.jsonl").write_bytes(header("later") + line(message(0, None)))
        wait_for(lambda: [r for r in running.call("session.list", {})["sessions"] if r["id"].startswith("native")])
    finally:
        running.stop()


def test_the_watcher_thread_stops_with_the_host(location, sessions_root):
    def watchers() -> int:
        return sum(1 for t in threading.enumerate() if t.name.startswith("pidesktop-native-watcher"))

    before = watchers()
    running = InProcessHost(location)
    assert watchers() == before + 2  # the default root, and the configured folders
    running.stop()
    assert watchers() == before


def test_a_new_folder_with_a_session_already_in_it_is_listed(host, sessions_root):
    """pi makes a project's folder and its first file at once: inotify may see only the folder."""

    def listed() -> int:
        return sum(1 for topic, _ in list(host.events) if topic == "session.listChanged")

    numbers = iter(range(100))
    repeat_until(
        lambda: (sessions_root / f"warm{next(numbers)}.jsonl").write_bytes(header("warm") + line(message(0, None))),
        lambda: listed() > 0,
    )  # the watch is up
    seen = listed()
    folder = sessions_root / "--home-ada-new--"
    folder.mkdir()
    (folder / "first.jsonl").write_bytes(header("first") + line(message(0, None)))
    wait_for(lambda: listed() > seen)
    assert "first" in {r.get("nativeId") for r in host.call("session.list", {})["sessions"]}
    seen = listed()
    (folder / "first.jsonl").unlink()
    folder.rmdir()
    wait_for(lambda: listed() > seen)
