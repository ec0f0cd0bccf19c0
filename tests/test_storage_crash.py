"""kill -9 of ``pidesktop data move`` at random points: the old root survives, the next launch finishes."""

from __future__ import annotations

import os
import random
import shutil
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest

from pidesktop import paths
from pidesktop.storage import journal, old_roots, recovery, verify
from tests.support.hosts import InProcessHost
from tests.support.repo import REPO
from tests.test_storage_seed import seed, snapshot

pytestmark = pytest.mark.slow  # kill -9 of data-folder moves, many times

KILLS = 32


def start_move(dest: Path) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "pidesktop", "data", "move", str(dest)],
        cwd=REPO,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env=os.environ.copy(),
    )


def published_root() -> Path | None:
    if not paths.pointer_path().exists():
        return None
    return paths.resolve().data_root.parent


def forget_the_move(dest: Path) -> None:
    """Back to the starting line: the old root active, no copy, no bookkeeping."""
    paths.pointer_path().unlink(missing_ok=True)
    old_roots.path().unlink(missing_ok=True)
    journal.clear()
    shutil.rmtree(dest, ignore_errors=True)


def assert_new_root_is_complete(dest: Path, sessions: set[str]) -> None:
    report = verify.verify(dest / "data")
    assert report.ok, report.problems
    listed = {
        row.name[: -len(".jsonl")]
        for row in (dest / "data" / "sessions").glob("*.jsonl")
        if not row.name.endswith(".revisions.jsonl")
    }
    assert listed == sessions


def use_old_root(session_id: str, text: str) -> None:
    """Open the old (still active) root with a real host and write to it."""
    location = paths.resolve()
    host = InProcessHost(location)
    try:
        before = host.call("session.get", {"sessionId": session_id})["messages"]
        host.call(
            "session.appendMessage",
            {
                "sessionId": session_id,
                "message": {"id": f"m-{len(before)}", "role": "user", "blocks": [{"type": "text", "text": text}]},
            },
        )
        assert host.call("search.query", {"query": text})["results"]
    finally:
        host.stop()


def test_kill_9_anywhere_keeps_the_old_root_and_the_next_launch_finishes(tmp_path):
    seeded = seed(paths.resolve(), tmp_path / "external", bulk_mb=110)
    roots = (seeded.root, seeded.location.ui_root)
    sessions = {seeded.a, seeded.b}
    dest = tmp_path / "dest"
    rng = random.Random(20260726)

    started = time.monotonic()
    assert start_move(dest).wait(60) == 0
    duration = time.monotonic() - started
    assert published_root() == dest
    assert_new_root_is_complete(dest, sessions)
    forget_the_move(dest)
    baseline = snapshot(*roots)

    outcomes: Counter = Counter()
    for run in range(KILLS):
        if run == KILLS // 2:  # the old root is still the active one: use it, then keep moving
            assert published_root() is None
            use_old_root(seeded.b, "written while a move was pending")
            baseline = snapshot(*roots)
        proc = start_move(dest)
        time.sleep(rng.uniform(0.0, duration * 1.1))  # the kill's instant is the thing under test
        if proc.poll() is None:
            proc.kill()
        proc.wait(30)
        assert snapshot(*roots) == baseline, f"run {run}: the old root changed"
        pending = journal.read()
        if published_root() == dest:
            outcomes["published"] += 1
            assert_new_root_is_complete(dest, sessions)
            recovery.resume_pending()  # only bookkeeping is left, if anything
            assert journal.read() is None and old_roots.entries()[0].paths == roots
            forget_the_move(dest)
            continue
        assert published_root() is None and paths.resolve().data_root == seeded.root, f"run {run}"
        outcomes["pending" if pending else "before the journal"] += 1
        if pending is not None:
            assert pending.destination == dest and pending.source_data_root == seeded.root
            if run % 4 == 3:  # the next launch finishes it before any host starts
                result = recovery.resume_pending()
                assert result is not None and published_root() == dest
                assert_new_root_is_complete(dest, sessions)
                outcomes["resumed"] += 1
                forget_the_move(dest)
            # otherwise the next run's `data move` is the relaunch that resumes it

    assert outcomes["pending"] >= 8, outcomes
    if journal.read() is not None:
        assert recovery.resume_pending() is not None
    else:
        forget_the_move(dest)
        assert start_move(dest).wait(60) == 0
    assert published_root() == dest and journal.read() is None
    assert_new_root_is_complete(dest, sessions)
    assert snapshot(*roots) == baseline

    host = InProcessHost(paths.resolve())
    try:
        assert host.location.data_root == dest / "data"
        assert host.call("search.query", {"query": "written while a move was pending"})["results"]
        assert [m["id"] for m in host.call("session.get", {"sessionId": seeded.a})["messages"]] == [
            "u1",
            "a1",
            "t1",
            "u2",
        ]
    finally:
        host.stop()
    # The old root still opens and works on its own.
    forget_the_move(dest)
    use_old_root(seeded.a, "the old root still works")
    print(f"kill -9 outcomes over {KILLS} runs (move takes {duration:.2f} s): {dict(outcomes)}")
