"""Full, read-only and forbidden data folders: coded answers to every call, never a traceback or silence.

Real ``pidesktop host --stdio`` subprocesses on real file systems: a small
tmpfs filled to the last byte, a read-only bind mount, a 0500 folder opened by
an unprivileged user. Each needs root to set up and is skipped with the reason
otherwise.
"""

from __future__ import annotations

import errno
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import apsw
import orjson
import pytest

from pidesktop.host import storage_errors
from tests.support.disks import fill
from tests.support.hosts import StdioHost
from tests.support.repo import REPO

NOBODY = 65534


def needs_root() -> None:
    if os.geteuid() != 0:
        pytest.skip("mounting file systems and switching users needs root")


def mount(*args: str) -> None:
    done = subprocess.run(["mount", *args], capture_output=True)
    if done.returncode != 0:
        pytest.skip(f"cannot mount here: {done.stderr.decode(errors='replace').strip()}")


def answers(proc: subprocess.Popen, methods: list[str]) -> list[dict]:
    lines = b"".join(
        orjson.dumps({"jsonrpc": "2.0", "id": n, "method": method, "params": {}}) + b"\n"
        for n, method in enumerate(methods, start=1)
    )
    out, err = proc.communicate(lines, timeout=120)
    replies = [orjson.loads(line) for line in out.splitlines()]
    assert b"Traceback" not in err, err.decode(errors="replace")
    return replies


def host_process(data_root: Path, prefix: list[str] | None = None, env: dict | None = None) -> subprocess.Popen:
    return subprocess.Popen(
        [*(prefix or []), sys.executable, "-m", "pidesktop", "host", "--stdio", "--data-dir", str(data_root)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=REPO,
        env={**os.environ, **(env or {})},
    )


def test_a_read_only_mount_answers_every_call_with_storage_unavailable(stdio_host, tmp_path):
    needs_root()
    source, view = tmp_path / "source", tmp_path / "view"
    view.mkdir()
    h = stdio_host(source / "data")
    h.call("session.create", {"title": "kept"})
    assert h.close() == 0
    mount("--bind", str(source), str(view))
    try:
        mount("-o", "remount,ro,bind", str(view))
        proc = host_process(view / "data")
        replies = answers(proc, ["session.list", "app.handshake", "session.create"])
    finally:
        subprocess.run(["umount", "-l", str(view)], check=False)
    assert [reply["id"] for reply in replies] == [1, 2, 3]
    for reply in replies:
        assert reply["error"]["data"]["code"] == "STORAGE_UNAVAILABLE"
        assert "Read-only file system" in reply["error"]["data"]["reason"]
        assert reply["error"]["data"]["cause"] == "readOnly"  # what a client words its advice by
    assert proc.returncode == 2


def test_a_0500_data_folder_another_user_owns_answers_every_call(tmp_path):
    """A folder the host's user may not enter or change (their own 0500 folder it makes 0700 again)."""
    needs_root()
    base = Path(tempfile.mkdtemp(prefix="pidesktop-0500-", dir="/tmp"))  # reachable by another user
    try:
        os.chmod(base, 0o755)
        data = base / "data"
        data.mkdir()
        os.chmod(data, 0o500)  # root's: the unprivileged host can neither enter it nor make it writable
        home = base / "home"
        home.mkdir(mode=0o700)
        os.chown(home, NOBODY, NOBODY)
        prefix = ["setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups"]
        # The other user must reach this interpreter and checkout (a clone in a private folder is out of reach).
        probe = subprocess.run([*prefix, sys.executable, "-c", "import pidesktop"], capture_output=True, cwd=REPO)
        if probe.returncode != 0:
            reason = probe.stderr.decode(errors="replace").strip().splitlines()[-1:] or ["no reason given"]
            pytest.skip(f"an unprivileged user cannot run pidesktop from this checkout: {reason[0]}")
        proc = host_process(data, prefix, {"HOME": str(home)})
        replies = answers(proc, ["session.list", "session.create"])
    finally:
        subprocess.run(["rm", "-rf", str(base)], check=False)
    assert [reply["id"] for reply in replies] == [1, 2]
    for reply in replies:
        assert reply["error"]["data"]["code"] == "STORAGE_UNAVAILABLE"
        assert str(data) in reply["error"]["data"]["reason"]
        assert reply["error"]["data"]["cause"] == "permission"


def finished(h: StdioHost, job: str) -> dict:
    for event in h.events:
        if event["topic"] == "data.finished" and event["payload"]["job"] == job:
            return event["payload"]
    while True:
        message = h.read_message()
        if message.get("method") == "event":
            params = message["params"]
            if params["topic"] == "data.finished" and params["payload"]["job"] == job:
                return params["payload"]


def test_a_backup_onto_a_full_disk_says_the_disk_is_full(stdio_host, small_disk):
    h = stdio_host()
    sid = h.call("session.create", {"title": "backup"})["session"]["id"]
    h.call(
        "session.appendMessage",
        {"sessionId": sid, "message": {"id": "u1", "role": "user", "blocks": [{"type": "text", "text": "x" * 4000}]}},
    )
    fill(small_disk)
    job = h.call("data.backup", {"path": str(small_disk / "copy.sqlite")})["job"]
    outcome = finished(h, job)
    assert outcome["status"] == "failed"
    assert outcome["error"]["code"] == "STORAGE_FULL", outcome
    assert outcome["error"]["message"].startswith("The disk is full; nothing was written.")
    assert not (small_disk / "copy.sqlite").exists()
    assert h.call("session.get", {"sessionId": sid})["session"]["messageCount"] == 1  # still serving
    assert h.close() == 0


@pytest.mark.parametrize(
    ("error", "code", "cause"),
    [
        (OSError(errno.ENOSPC, "No space left on device"), "STORAGE_FULL", "full"),
        (OSError(errno.EDQUOT, "Disk quota exceeded"), "STORAGE_FULL", "full"),
        (PermissionError(errno.EACCES, "Permission denied"), "PERMISSION_DENIED", "permission"),
        (OSError(errno.EROFS, "Read-only file system"), "STORAGE_UNAVAILABLE", "readOnly"),
        (OSError(errno.EIO, "Input/output error"), "STORAGE_UNAVAILABLE", None),
        (apsw.FullError("database or disk is full"), "STORAGE_FULL", None),
        (apsw.ReadOnlyError("attempt to write a readonly database"), "STORAGE_UNAVAILABLE", None),
    ],
)
def test_each_disk_failure_gets_its_code_and_keeps_the_reason(error, code, cause):
    """A write the disk refused mid-run (the paths above meet them at open): its code, the system's words in
    data.reason, and for a folder that cannot be used, the cause the window words its advice by."""
    coded = storage_errors.classify(error)
    assert coded is not None and coded.code == code
    assert coded.data["reason"] == str(error) and "nothing was stored" in coded.message
    assert storage_errors.cause(error) == cause


def test_other_failures_stay_internal():
    assert storage_errors.classify(FileNotFoundError(errno.ENOENT, "gone")) is None
    assert storage_errors.classify(ValueError("a bug")) is None
