"""Moving the data folder: end to end, refusals that create nothing, a running host, cancel and retry."""

from __future__ import annotations

import os
import shutil
import subprocess
import threading
from pathlib import Path

import orjson
import pytest

from pidesktop import paths
from pidesktop.storage import journal, marker, move, old_roots, verify
from pidesktop.storage.errors import Cancelled, Refused
from tests.support.cli import run_cli
from tests.support.hosts import InProcessHost
from tests.test_storage_seed import seed, snapshot


def everything_under(*roots: Path) -> set[str]:
    found = set()
    for root in roots:
        for folder, dirs, files in os.walk(root):
            found |= {os.path.join(folder, name) for name in dirs + files}
    return found


@pytest.fixture
def seeded(tmp_path):
    return seed(paths.resolve(), tmp_path / "external")


def test_move_end_to_end_then_a_host_works_on_the_new_root(seeded, tmp_path):
    old = snapshot(seeded.root, seeded.location.ui_root)
    dest = tmp_path / "volume" / "missing-parent" / "pidesktop"
    done = run_cli("data", "move", str(dest))
    assert done.returncode == 0, done.stderr
    assert "copy" in done.stderr and "verify" in done.stderr and "publish" in done.stderr
    assert str(dest / "data") in done.stdout

    assert orjson.loads(paths.pointer_path().read_bytes()) == {"version": 1, "root": str(dest)}
    assert journal.read() is None
    assert marker.read(dest)["sourceDataRoot"] == str(seeded.root)
    [kept] = old_roots.entries()
    assert kept.paths == (seeded.root, seeded.location.ui_root) and kept.moved_to == dest
    assert snapshot(seeded.root, seeded.location.ui_root) == old  # the old root is a backup, untouched

    location = paths.resolve()
    assert location.source == "pointer" and location.data_root == dest / "data" and location.ui_root == dest / "ui"
    assert verify.verify(location.data_root).ok
    host = InProcessHost(location)
    try:
        listed = {s["id"]: s for s in host.call("session.list")["sessions"]}
        assert set(listed) == {seeded.a, seeded.b}
        assert listed[seeded.b]["projectPath"] == f"{dest}/data/scratch/projB"
        got = host.call("session.get", {"sessionId": seeded.a})
        assert [m["id"] for m in got["messages"]] == ["u1", "a1", "t1", "u2"]
        assert got["messages"][0]["blocks"][1]["ref"] == f"{dest}/data/attachments/{'ab' * 32}"
        hits = host.call("search.query", {"query": "zebra"})["results"]
        assert [h["messageId"] for h in hits] == ["b2"]
        host.call(
            "session.appendMessage",
            {
                "sessionId": seeded.b,
                "message": {"id": "b3", "role": "user", "blocks": [{"type": "text", "text": "written after the move"}]},
            },
        )
        assert [h["messageId"] for h in host.call("search.query", {"query": "after the move"})["results"]] == ["b3"]
    finally:
        host.stop()
    moved = (dest / "data" / "sessions" / f"{seeded.b}.jsonl").read_bytes()
    assert moved.count(b'{"type":"message"') == 3 and moved.endswith(b"\n")  # b1, b2 and the one written here
    assert snapshot(seeded.root, seeded.location.ui_root) == old


def _unwritable(folder: Path):
    folder.mkdir()
    if os.geteuid() != 0:
        folder.chmod(0o500)
        return lambda: folder.chmod(0o700)
    if shutil.which("chattr") is None or subprocess.run(["chattr", "+i", str(folder)]).returncode != 0:
        pytest.skip("running as root without chattr: no folder is unwritable")
    return lambda: subprocess.run(["chattr", "-i", str(folder)], check=True)


@pytest.mark.parametrize(
    "case",
    ["inside-data", "contains-data", "inside-anchor", "non-empty", "under-a-file", "unwritable", "selected-inside-old"],
)
def test_refusals_create_nothing(seeded, tmp_path, isolated_home, case):
    restore = None
    if case == "inside-data":
        dest, words = seeded.root / "moved", "overlaps the current data folder"
    elif case == "contains-data":
        dest, words = seeded.root.parent, "overlaps the current data folder"
    elif case == "inside-anchor":
        dest, words = paths.anchor_dir() / "moved", "overlaps"
    elif case == "non-empty":
        dest, words = tmp_path / "busy", "is not empty"
        dest.mkdir()
        (dest / "someone-elses.txt").write_text("mine")
    elif case == "under-a-file":
        (tmp_path / "a-file").write_text("x")
        dest, words = tmp_path / "a-file" / "sub" / "dest", "is not a folder"
    elif case == "unwritable":
        restore = _unwritable(tmp_path / "locked")
        dest, words = tmp_path / "locked" / "deeper" / "dest", "is not writable"
    else:  # a move away from a selected location may not land inside it
        first = move.run(tmp_path / "first")
        dest, words = first.destination / "second", "overlaps"
    before = everything_under(isolated_home, tmp_path)
    try:
        with pytest.raises(Refused, match=words):
            move.run(dest)
        after = everything_under(isolated_home, tmp_path)
    finally:
        if restore:
            restore()
    assert after == before
    assert journal.read() is None


def test_a_pinned_root_is_not_moved(tmp_path, location, monkeypatch):
    monkeypatch.setenv(paths.ENV_DATA_DIR, str(location.data_root))
    with pytest.raises(Refused, match=paths.ENV_DATA_DIR):
        move.run(tmp_path / "dest")
    done = run_cli("data", "--data-dir", str(location.data_root), "move", str(tmp_path / "dest"))
    assert done.returncode == 2 and paths.ENV_DATA_DIR in done.stderr
    assert not (tmp_path / "dest").exists()


def test_a_running_host_refuses_the_move(seeded, tmp_path):
    host = InProcessHost(paths.resolve())
    try:
        with pytest.raises(Refused, match="Close pidesktop first"):
            move.run(tmp_path / "dest")
        done = run_cli("data", "move", str(tmp_path / "dest"))
        assert done.returncode == 2 and "Close pidesktop first" in done.stderr
    finally:
        host.stop()
    assert not (tmp_path / "dest").exists() and journal.read() is None
    assert not paths.pointer_path().exists()


def test_cancel_mid_copy_keeps_the_old_root_and_a_retry_finishes(tmp_path):
    seeded = seed(paths.resolve(), tmp_path / "external", bulk_mb=6)
    old = snapshot(seeded.root, seeded.location.ui_root)
    cancel = threading.Event()
    seen = []

    def progress(phase, bytes_done, bytes_total, files_done, files_total, current):
        seen.append(phase)
        if phase == "copy" and files_done >= 10:
            cancel.set()

    dest = tmp_path / "dest"
    with pytest.raises(Cancelled):
        move.run(dest, progress=progress, cancel=cancel)
    assert "verify" not in seen
    assert paths.resolve().data_root == seeded.root and not paths.pointer_path().exists()
    assert journal.read() is None
    assert marker.read(dest) is not None and any((dest / "data").rglob("*"))
    assert snapshot(seeded.root, seeded.location.ui_root) == old

    (dest / "data" / "left-by-nobody.tmp").write_text("debris the retry removes")
    result = move.run(dest)
    assert result.job_id == marker.read(dest)["jobId"]
    assert paths.resolve().data_root == dest / "data"
    assert not (dest / "data" / "left-by-nobody.tmp").exists()
    assert verify.verify(dest / "data").ok
    assert snapshot(seeded.root, seeded.location.ui_root) == old


def test_another_sources_partial_copy_is_not_reused(seeded, tmp_path):
    dest = tmp_path / "dest"
    dest.mkdir()
    (dest / marker.MARKER).write_bytes(
        orjson.dumps(
            {"version": 1, "jobId": "x", "anchor": "/elsewhere", "sourceDataRoot": "/another/root", "createdAt": 1}
        )
    )
    with pytest.raises(Refused, match="not empty"):
        move.run(dest)


def test_a_pending_move_elsewhere_must_be_finished_first(seeded, tmp_path):
    journal.write(
        journal.PendingMove(
            "job", seeded.root, seeded.location.ui_root, "default", None, tmp_path / "first", "copy", 1, 1
        )
    )
    with pytest.raises(Refused, match="still pending"):
        move.run(tmp_path / "second")
    done = run_cli("data", "move", "--abandon")
    assert done.returncode == 0 and "abandoned" in done.stdout
    assert journal.read() is None
    move.run(tmp_path / "second")
    assert paths.resolve().data_root == tmp_path / "second" / "data"
