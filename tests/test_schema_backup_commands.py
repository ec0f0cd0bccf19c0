"""The database copies schema migrations keep (pi.sqlite.v<n>.bak): data.schemaBackups, data.removeSchemaBackup
(in process and over stdio), and `pidesktop data status`."""

from __future__ import annotations

import os
import subprocess
import sys

import orjson
import pytest

from tests.support.repo import REPO


def plant(root, name: str, size: int = 3000, mtime: float = 1_700_000_000.0):
    path = root / name
    path.write_bytes(b"k" * size)
    os.utime(path, (mtime, mtime))
    return path


def test_the_backups_are_listed_oldest_version_first_and_nothing_else(host):
    root = host.location.data_root
    plant(root, "pi.sqlite.v14.bak", 4096)
    plant(root, "pi.sqlite.v9.bak", 2048, 1_600_000_000.5)
    plant(root, "pi.sqlite.vx.bak")  # not a version
    plant(root, "pi.sqlite.v14.bak.tmp")
    (root / "pi.sqlite.v3.bak").mkdir()  # a folder is not a backup
    (root / "pi.sqlite.v5.bak").symlink_to(root / "pi.sqlite")  # nor a link (to the live file, even)
    found = host.call("data.schemaBackups")["backups"]
    assert found == [
        {
            "name": "pi.sqlite.v9.bak",
            "path": str(root / "pi.sqlite.v9.bak"),
            "version": 9,
            "bytes": 2048,
            "modifiedAt": 1_600_000_000_500,
        },
        {
            "name": "pi.sqlite.v14.bak",
            "path": str(root / "pi.sqlite.v14.bak"),
            "version": 14,
            "bytes": 4096,
            "modifiedAt": 1_700_000_000_000,
        },
    ]


def test_removing_a_backup_deletes_that_file_only(host):
    root = host.location.data_root
    plant(root, "pi.sqlite.v14.bak", 4096)
    plant(root, "pi.sqlite.v9.bak")
    removed = host.call("data.removeSchemaBackup", {"name": "pi.sqlite.v14.bak"})
    assert removed == {"name": "pi.sqlite.v14.bak", "path": str(root / "pi.sqlite.v14.bak"), "bytes": 4096}
    assert not (root / "pi.sqlite.v14.bak").exists() and (root / "pi.sqlite.v9.bak").is_file()
    assert [b["name"] for b in host.call("data.schemaBackups")["backups"]] == ["pi.sqlite.v9.bak"]
    assert host.call("session.list")["sessions"] == []  # the live database still serves
    gone = host.error("data.removeSchemaBackup", {"name": "pi.sqlite.v14.bak"})
    assert gone.code == "NOT_FOUND" and gone.data["field"] == "name"


@pytest.mark.parametrize(
    "name",
    [
        "pi.sqlite",
        "pi.sqlite-wal",
        "../pi.sqlite.v14.bak",
        "sessions/pi.sqlite.v14.bak",
        "/tmp/pi.sqlite.v14.bak",
        "pi.sqlite.v14.bak/..",
        "pi.sqlite.v14.bak\n",
        "PI.SQLITE.V14.BAK",
        "pi.sqlite.v.bak",
        "",
        " ",
    ],
)
def test_anything_but_a_backup_name_is_refused_naming_the_field(host, tmp_path, name):
    root = host.location.data_root
    plant(root, "pi.sqlite.v14.bak")
    outside = tmp_path / "pi.sqlite.v14.bak"
    outside.write_bytes(b"outside")
    before = sorted(p.name for p in root.iterdir())
    error = host.error("data.removeSchemaBackup", {"name": name})
    assert error.code == "INVALID_PARAMS" and error.data["field"] == "name" and "name" in error.message
    assert sorted(p.name for p in root.iterdir()) == before and outside.is_file()
    assert (root / "pi.sqlite").is_file()


def test_missing_or_wrong_kinds_are_refused(host):
    root = host.location.data_root
    for params in ({}, {"name": 14}, {"name": None}):
        error = host.error("data.removeSchemaBackup", params)
        assert error.code == "INVALID_PARAMS" and error.data["field"] == "name"
    (root / "pi.sqlite.v3.bak").mkdir()
    (root / "pi.sqlite.v5.bak").symlink_to(root / "pi.sqlite")
    for name in ("pi.sqlite.v3.bak", "pi.sqlite.v5.bak"):
        error = host.error("data.removeSchemaBackup", {"name": name})
        assert error.code == "INVALID_PARAMS" and "not a regular file" in error.message
    assert (root / "pi.sqlite.v3.bak").is_dir() and (root / "pi.sqlite.v5.bak").is_symlink()
    assert (root / "pi.sqlite").is_file()


def test_the_backup_commands_over_stdio(stdio_host, data_root):
    host = stdio_host()
    host.call("app.handshake", {"protocolVersion": 1})
    plant(data_root, "pi.sqlite.v22.bak", 1234)
    assert [(b["name"], b["version"], b["bytes"]) for b in host.call("data.schemaBackups")["backups"]] == [
        ("pi.sqlite.v22.bak", 22, 1234)
    ]
    bad = host.request("data.removeSchemaBackup", {"name": "../pi.sqlite"})["error"]
    assert bad["data"] == {"code": "INVALID_PARAMS", "field": "name"}
    assert host.call("data.removeSchemaBackup", {"name": "pi.sqlite.v22.bak"})["bytes"] == 1234
    assert host.call("data.schemaBackups") == {"backups": []}
    assert (data_root / "pi.sqlite").is_file()
    assert host.close() == 0


# -- pidesktop data status ------------------------------------------------------------------------------
def data_status(data_root, *extra: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "pidesktop", "data", "--data-dir", str(data_root), "status", *extra],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_status_reports_the_schema_and_its_backups(host, data_root):
    plant(data_root, "pi.sqlite.v14.bak", 3 * 1024 * 1024)
    plant(data_root, "pi.sqlite.v25.bak", 900 * 1024)
    host.stop()
    report = orjson.loads(data_status(data_root, "--json").stdout)
    assert report["schemaVersion"] == 27 and report["schemaSupported"] == 27
    assert [(b["name"], b["version"], b["bytes"]) for b in report["schemaBackups"]] == [
        ("pi.sqlite.v14.bak", 14, 3 * 1024 * 1024),
        ("pi.sqlite.v25.bak", 25, 900 * 1024),
    ]
    text = data_status(data_root)
    assert text.returncode == 0, text.stderr
    lines = [" ".join(line.split()) for line in text.stdout.splitlines()]  # the columns' widths aside
    assert "schema v27" in lines
    # the sizes Settings > Data shows for the same files (tests/test_migration_ui.py): decimal units
    assert f"schema backup 3.1 MB {data_root / 'pi.sqlite.v14.bak'} (v14)" in lines
    assert f"schema backup 922 KB {data_root / 'pi.sqlite.v25.bak'} (v25)" in lines


@pytest.mark.parametrize(
    "version, words",
    [
        (14, "v14; updated to v27 the next time pidesktop opens it"),
        (31, "v31, newer than this pidesktop (v27); it will not open it"),
    ],
)
def test_status_says_what_an_older_or_newer_schema_means(data_root, version, words):
    import apsw

    data_root.mkdir(parents=True)
    conn = apsw.Connection(str(data_root / "pi.sqlite"))
    conn.execute(f"CREATE TABLE sessions (id TEXT); INSERT INTO sessions VALUES ('a');PRAGMA user_version = {version}")
    conn.close()
    text = data_status(data_root)
    assert text.returncode == 0, text.stderr
    assert f"schema        {words}" in text.stdout.splitlines()
    report = orjson.loads(data_status(data_root, "--json").stdout)
    assert report["schemaVersion"] == version and report["counts"] == {"sessions": 1}
