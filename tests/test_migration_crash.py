"""kill -9 while ``pidesktop host --stdio`` migrates a v14 database full of chats.

After every kill ``pi.sqlite`` is v14 or v27, never a version in between,
``integrity_check`` is ok, a backup that exists is the exact pre-migration
file, and the next open finishes the walk with every message there.
"""

import random
import shutil
import signal
import subprocess
import sys
import time

import apsw
import pytest

from pidesktop.formats.index import migrations
from pidesktop.formats.index.db import open_database
from tests.support.migration_support import build
from tests.support.repo import REPO

pytestmark = pytest.mark.slow  # kill -9 during migrations, many times

MESSAGES = 20_000
KILLS = 14


def state_of(db):
    """(version, integrity) as the next open would see them (the -wal read, nothing written back)."""
    conn = apsw.Connection(f"file:{db}?mode=ro", flags=apsw.SQLITE_OPEN_READONLY | apsw.SQLITE_OPEN_URI)
    try:
        return (
            conn.execute("PRAGMA user_version").fetchone()[0],
            [row[0] for row in conn.execute("PRAGMA integrity_check")],
        )
    finally:
        conn.close()


def reset(db, pristine):
    for path in db.parent.glob("*pi.sqlite*"):
        path.unlink()
    shutil.copyfile(pristine, db)


def start_host(root):
    return subprocess.Popen(
        [sys.executable, "-m", "pidesktop", "host", "--stdio", "--data-dir", str(root)],
        stdin=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        cwd=REPO,
    )


def wait_for_migration_start(root, proc, timeout=20.0):
    """Until the backup copy appears (the migration has begun) or the process ends."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and proc.poll() is None:
        if any(root.glob(".pi.sqlite.v14*.tmp")) or any(root.glob("pi.sqlite.v14*.bak")):
            return
        time.sleep(0.001)  # poll interval of a wait on the files


def test_kill_9_during_migration_leaves_v14_or_v27_and_the_next_open_finishes(tmp_path, data_root):
    pristine = build(tmp_path / "pristine.sqlite", 14, sessions=50, messages=MESSAGES)
    original = pristine.read_bytes()
    db = data_root / "pi.sqlite"
    data_root.mkdir(mode=0o700, parents=True, exist_ok=True)
    reset(db, pristine)
    rng = random.Random(2027)
    outcomes = []
    for attempt in range(KILLS):
        proc = start_host(data_root)
        try:
            if attempt % 5 == 0:
                time.sleep(rng.uniform(0.0, 0.3))  # some kills during start-up and the checkpoint
            else:
                wait_for_migration_start(data_root, proc)
                time.sleep(rng.uniform(0.0, 1.0))  # the rest across backup, steps, commit and after
            proc.send_signal(signal.SIGKILL)
        finally:
            proc.wait(30)
            proc.stdin.close()
        version, integrity = state_of(db)
        outcomes.append(version)
        assert version in (14, 27), f"kill {attempt}: the file is at v{version}"
        assert integrity == ["ok"], f"kill {attempt}: {integrity}"
        for backup in migrations.list_backups(db):
            assert backup.read_bytes() == original, f"kill {attempt}: {backup.name} is not the exact v14 file"
        assert not list(data_root.glob("pi.sqlite.v1[5-9]*.bak")) and not list(data_root.glob("pi.sqlite.v2*.bak"))
        if version == 27:
            reset(db, pristine)  # start over from v14 for the next kill
    assert 14 in outcomes, outcomes  # at least one kill landed before the commit

    conn = open_database(db)  # the next open finishes whatever the last kill left
    try:
        assert conn.execute("PRAGMA user_version").fetchone()[0] == 27
        assert conn.execute("SELECT count(*) FROM messages").fetchone()[0] == MESSAGES
        assert conn.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
        assert (
            conn.execute("SELECT count(*) FROM messages_fts WHERE messages_fts MATCH '\"checkpoint\"'").fetchone()[0]
            > 0
        )
    finally:
        conn.close()
    assert [p.name for p in migrations.list_backups(db)] == ["pi.sqlite.v14.bak"]
