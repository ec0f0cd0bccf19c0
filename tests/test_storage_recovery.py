"""Start-up recovery: a journal left by a crash is finished before any host opens; a missing default root."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

import orjson
import pytest

from pidesktop import paths
from pidesktop.storage import cache_request, journal, marker, recovery
from pidesktop.storage.errors import RecoveryError
from pidesktop.ui.startup import prepare
from tests.support.repo import REPO
from tests.test_storage_seed import seed, snapshot


def crashed_move(seeded, dest):
    """What a move killed mid-copy leaves: the journal, and a destination with its marker and a partial copy."""
    job = journal.PendingMove("job-1", seeded.root, seeded.location.ui_root, "default", None, dest, "copy", 1, 1)
    journal.write(job)
    (dest / "data" / "sessions").mkdir(parents=True)
    marker.write(dest, job.job_id, seeded.root)
    (dest / "data" / "sessions" / f"{seeded.a}.jsonl").write_bytes(b"half a fi")
    return job


def test_nothing_pending_is_a_no_op():
    assert recovery.resume_pending() is None
    location = paths.resolve()
    assert recovery.before_host_start(location) == location


def test_the_stdio_host_finishes_a_pending_move_before_it_serves(tmp_path):
    seeded = seed(paths.resolve(), tmp_path / "external")
    old = snapshot(seeded.root)
    dest = tmp_path / "dest"
    crashed_move(seeded, dest)
    proc = subprocess.Popen(
        [sys.executable, "-m", "pidesktop", "host", "--stdio"],
        cwd=REPO,
        env=os.environ.copy(),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    out, err = proc.communicate(
        orjson.dumps({"jsonrpc": "2.0", "id": 1, "method": "session.list", "params": {}}) + b"\n", timeout=60
    )
    assert proc.returncode == 0, err
    reply = orjson.loads(out.splitlines()[0])
    assert {s["id"] for s in reply["result"]["sessions"]} == {seeded.a, seeded.b}
    assert b"resuming the data folder move" in err
    assert paths.resolve().data_root == dest / "data" and journal.read() is None
    assert snapshot(seeded.root) == old


def test_a_gone_source_refuses_start_up_and_changes_nothing(tmp_path):
    seeded = seed(paths.resolve(), tmp_path / "external")
    dest = tmp_path / "dest"
    crashed_move(seeded, dest)
    shutil.move(seeded.root, tmp_path / "unplugged")
    with pytest.raises(RecoveryError, match="no longer there"):
        recovery.before_host_start(paths.resolve())
    gui = subprocess.run(
        [sys.executable, "-m", "pidesktop"],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "QT_QPA_PLATFORM": "offscreen"},
    )
    assert gui.returncode == 2 and "could not be completed" in gui.stderr and "--abandon" in gui.stderr
    assert journal.read() is not None and not paths.pointer_path().exists()
    assert not seeded.root.exists()  # no blank profile was created in its place


def test_a_damaged_journal_refuses_start_up(tmp_path):
    paths.ensure_private_dir(paths.anchor_dir())
    journal.path().write_text("{not json")
    gui = subprocess.run(
        [sys.executable, "-m", "pidesktop"],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "QT_QPA_PLATFORM": "offscreen"},
    )
    assert gui.returncode == 2 and "journal" in gui.stderr and "damaged" in gui.stderr
    assert not (paths.resolve().data_root).exists()


def test_a_pinned_root_ignores_the_journal(tmp_path, location):
    paths.ensure_private_dir(paths.anchor_dir())
    journal.path().write_text("{not json")
    assert recovery.before_host_start(location) == location


def test_a_cache_cleanup_waiting_for_a_missing_default_root_refuses_start_up(tmp_path):
    location = paths.resolve()
    paths.prepare_data_root(location)
    recovery.before_host_start(location)  # the default root is in use: its absence later is "missing"
    cache_request.request(location)
    shutil.rmtree(location.data_root)
    assert recovery.check_default_root().state == "missing"

    with pytest.raises(RecoveryError, match="cleanup of the caches") as refused:
        prepare.prepare(location)  # before any window could offer to create a fresh folder
    assert str(cache_request.request_path()) in str(refused.value)
    for command in (["-m", "pidesktop"], ["-m", "pidesktop", "host", "--stdio"]):
        started = subprocess.run(
            [sys.executable, *command],
            cwd=REPO,
            capture_output=True,
            text=True,
            timeout=60,
            input="",
            env={**os.environ, "QT_QPA_PLATFORM": "offscreen"},
        )
        assert started.returncode != 0 and "is waiting, but that data folder is gone" in started.stderr
    assert not location.data_root.exists()  # no blank profile took its place
    assert cache_request.pending(location)  # the request waits for the folder

    cache_request.request_path().unlink()  # what the refusal says to do, to start without it
    assert recovery.before_host_start(location) == location


def test_missing_default_root_offers_two_choices(tmp_path):
    location = paths.resolve()
    assert recovery.check_default_root().state == "first-run"
    paths.prepare_data_root(location)
    recovery.before_host_start(location)  # start-up notes that the default root is in use
    assert recovery.check_default_root().state == "present"
    shutil.rmtree(location.data_root)
    check = recovery.check_default_root()
    assert check.state == "missing" and check.choices == (recovery.CREATE_FRESH, recovery.SELECT_EXISTING)
    assert not location.data_root.exists()  # checking creates nothing

    # "select existing": a folder holding data/pi.sqlite, or the data folder itself
    existing = tmp_path / "found"
    seed(paths.resolve(data_dir=existing / "data"), tmp_path / "external")
    with pytest.raises(RecoveryError, match="not a pidesktop storage location"):
        recovery.select_existing(tmp_path)
    assert not paths.pointer_path().exists()
    assert recovery.validate_existing(existing / "data") == existing
    chosen = recovery.select_existing(existing)
    assert chosen.data_root == existing / "data" and chosen.source == "pointer"
    assert recovery.check_default_root().state == "not-default"

    # "create fresh" on the default location
    paths.pointer_path().unlink()
    fresh = recovery.create_fresh_default()
    assert fresh.data_root.is_dir() and recovery.check_default_root().state == "present"


def test_a_pinned_root_is_outside_the_missing_root_flow(tmp_path, monkeypatch):
    monkeypatch.setenv(paths.ENV_DATA_DIR, str(tmp_path / "pinned"))
    assert recovery.check_default_root().state == "not-default"


@pytest.mark.parametrize(
    "command",
    [
        ["export", "{a}", "--format", "json"],
        ["import", "claude-code", "{empty}"],
        ["automations", "run-due"],
        ["chat", "--session", "{a}", "hello"],
        ["data", "repair"],
        ["--screenshot", "{shot}", "--session", "{a}"],
    ],
    ids=["export", "import", "automations", "chat", "data-repair", "window"],
)
def test_every_entry_point_finishes_a_pending_move_before_its_host_opens(tmp_path, command):
    """The stdio host has its own test above; the window without a screen runs the same recovery on stderr."""
    seeded = seed(paths.resolve(), tmp_path / "external")
    dest = tmp_path / "dest"
    crashed_move(seeded, dest)
    (tmp_path / "empty").mkdir()
    shot = tmp_path / "window.png"
    args = [part.format(a=seeded.a, empty=tmp_path / "empty", shot=shot) for part in command]
    run = subprocess.run(
        [sys.executable, "-m", "pidesktop", *args],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "QT_QPA_PLATFORM": "offscreen"},
    )
    assert "resuming the data folder move" in run.stderr, run.stderr
    assert journal.read() is None
    assert paths.resolve().data_root == dest / "data"
    # the command ran on the moved root: what it wrote or read is there, not in the old one
    assert (dest / "data" / "sessions" / f"{seeded.a}.jsonl").read_bytes() != b"half a fi"
    if command[0] == "export":
        assert run.returncode == 0 and orjson.loads(run.stdout)["session"]["id"] == seeded.a
    if command[0] == "data":
        assert run.returncode == 0 and run.stdout.startswith("ok: the database is sound"), run.stdout + run.stderr
    if command[0] == "--screenshot":
        assert run.returncode == 0 and shot.stat().st_size > 0, run.stderr
