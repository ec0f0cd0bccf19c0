"""kill -9 during attachment imports: a blob name always holds the bytes it names, and no half copy survives a restart.

A real ``pidesktop host --stdio`` subprocess imports a 64 MiB file and is
SIGKILLed while the temporary copy grows, or just after it is complete; a new
host on the same data root then runs its boot pass.
"""

from __future__ import annotations

import hashlib
import os
import re
import resource
import signal
import subprocess
import sys
import time
from pathlib import Path

import orjson
import pytest

from tests.support.hosts import StdioHost
from tests.support.repo import REPO

pytestmark = pytest.mark.slow  # kill -9 during imports, many times

MiB = 1 << 20
SIZE = 64 * MiB
# Where each run is killed: a fraction of the copy written, or None for "the copy is complete".
KILL_POINTS = (0.05, 0.35, 0.7, 0.95, None)
_BLOB = re.compile(r"[0-9a-f]{64}")


def make_source(path: Path) -> None:
    with open(path, "wb") as out:
        for _ in range(SIZE // MiB):
            out.write(os.urandom(MiB))


def vary(path: Path, run: int) -> None:
    """Give each run different bytes, so every import makes a new blob."""
    with open(path, "r+b") as out:
        out.write(run.to_bytes(8, "big"))


def digest_of(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as blob:
        while chunk := blob.read(4 * MiB):
            digest.update(chunk)
    return digest.hexdigest()


def incoming(folder: Path) -> list[Path]:
    return sorted(folder.glob(".incoming-*")) if folder.is_dir() else []


def assert_blobs_hold_their_names(folder: Path) -> list[str]:
    names = sorted(p.name for p in folder.iterdir() if _BLOB.fullmatch(p.name))
    for name in names:
        assert digest_of(folder / name) == name, f"attachments/{name} does not hold the bytes it names"
    return names


def last_boot_report(root: Path) -> dict:
    lines = (root / "logs" / "host" / "boot.ndjson").read_bytes().splitlines()
    return [orjson.loads(line) for line in lines if b'"boot pass done"' in line][-1]


def send_import(host: StdioHost, request_id: int, path: Path) -> None:
    host.send_raw(
        orjson.dumps(
            {"jsonrpc": "2.0", "id": request_id, "method": "attachments.import", "params": {"path": str(path)}}
        )
    )


def kill_at(host: StdioHost, folder: Path, point: float | None, deadline: float) -> bool:
    """SIGKILL the host at ``point``; True when a temporary copy was there at that instant."""
    seen_copy = False
    while time.monotonic() < deadline:
        temps = incoming(folder)
        try:
            size = temps[0].stat().st_size if temps else -1
        except FileNotFoundError:  # renamed into place between the listing and the stat: it is gone
            temps, size = [], -1
        seen_copy |= bool(temps)
        if point is not None and size >= point * SIZE:
            break
        if point is None and seen_copy and not temps:  # renamed (or dropped): kill around the rename
            break
        time.sleep(0.0002)  # the copy's progress is the behaviour watched: poll it closely
    caught = bool(incoming(folder))
    host.kill()
    return caught


def test_kill_during_import_never_leaves_a_wrong_blob_or_a_stale_copy(tmp_path, stdio_host, data_root):
    source = tmp_path / "video.bin"
    make_source(source)
    folder = data_root / "attachments"
    caught = []
    for run, point in enumerate(KILL_POINTS):
        vary(source, run)
        host = stdio_host()
        host.call("app.handshake", {"protocolVersion": 1})
        assert incoming(folder) == [], "the boot pass left an interrupted copy behind"
        if run:
            assert last_boot_report(data_root)["incomingAttachmentsRemoved"] == int(caught[-1])
        send_import(host, 1, source)
        caught.append(kill_at(host, folder, point, time.monotonic() + 5))
        assert_blobs_hold_their_names(folder)
    assert sum(caught) >= 3, f"too few kills landed mid-copy: {caught}"

    vary(source, 99)
    host = stdio_host()
    host.call("app.handshake", {"protocolVersion": 1})
    assert incoming(folder) == []
    attachment = host.call("attachments.import", {"path": str(source)})["attachment"]
    assert attachment["sha256"] == digest_of(source) and attachment["size"] == SIZE
    assert attachment["sha256"] in assert_blobs_hold_their_names(folder)
    assert host.close() == 0
    assert incoming(folder) == []


class FileSizeLimitedHost(StdioHost):
    """``pidesktop host --stdio`` whose writes fail with EFBIG past ``limit`` bytes of any file."""

    def __init__(self, data_root: Path, limit: int):
        def limit_file_size() -> None:
            signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # EFBIG instead of a fatal signal
            resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

        self.data_root = data_root
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "pidesktop", "host", "--stdio", "--data-dir", str(data_root)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            cwd=REPO,
            preexec_fn=limit_file_size,
        )
        self._next_id = 0
        self.events = []
        self.raw_lines = []


def test_a_write_failure_midway_removes_the_copy_and_stores_nothing(tmp_path, data_root):
    source = tmp_path / "big.bin"
    with open(source, "wb") as out:
        out.write(os.urandom(24 * MiB))
    host = FileSizeLimitedHost(data_root, 16 * MiB)
    try:
        host.call("app.handshake", {"protocolVersion": 1})
        reply = host.request("attachments.import", {"path": str(source)})
        error = reply["error"]
        assert error["data"]["code"] == "STORAGE_UNAVAILABLE"
        assert error["message"] == (
            f"STORAGE_UNAVAILABLE: Could not store the attachment in {data_root / 'attachments'}: File too large."
        )
        assert os.listdir(data_root / "attachments") == []
        small = tmp_path / "small.txt"
        small.write_bytes(b"fits")
        assert host.call("attachments.import", {"path": str(small)})["attachment"]["size"] == 4
        assert host.close() == 0
    finally:
        if host.proc.poll() is None:
            host.kill()
