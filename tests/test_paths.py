"""Data-root resolution, owner-only modes, and refusing a missing selected root."""

import os
import stat
import subprocess
import sys

import orjson
import pytest

from pidesktop import paths
from pidesktop.locks import FileLock


def mode(path):
    return stat.S_IMODE(os.stat(path).st_mode)


def test_default_root_is_home_pi_desktop(isolated_home):
    location = paths.resolve()
    assert location.source == "default"
    assert location.data_root == isolated_home / ".pi-desktop"
    assert location.uses_installation_lock


def test_env_root_wins_and_is_trimmed_and_made_absolute(tmp_path, monkeypatch):
    paths.write_pointer(tmp_path / "selected")
    (tmp_path / "selected").mkdir()
    monkeypatch.chdir(tmp_path)
    location = paths.resolve({paths.ENV_DATA_DIR: "  relative/root \n"})
    assert location.source == "env"
    assert location.data_root == tmp_path / "relative" / "root"
    assert not location.uses_installation_lock


def test_blank_env_value_falls_through_to_the_pointer(tmp_path):
    selected = tmp_path / "selected"
    selected.mkdir()
    paths.write_pointer(selected)
    location = paths.resolve({paths.ENV_DATA_DIR: "   "})
    assert location.source == "pointer"
    assert location.data_root == selected / "data"
    assert location.ui_root == selected / "ui"


def test_pointer_beats_default(tmp_path):
    selected = tmp_path / "disk"
    selected.mkdir()
    paths.write_pointer(selected)
    assert mode(paths.pointer_path()) == 0o600
    assert paths.resolve({}).data_root == selected / "data"


def test_pointer_to_a_missing_root_is_refused_and_creates_nothing(tmp_path, isolated_home):
    missing = tmp_path / "unmounted" / "volume"
    paths.write_pointer(missing)
    with pytest.raises(paths.StorageLocationError, match="not available"):
        paths.resolve({})
    assert not missing.exists()
    assert not (isolated_home / ".pi-desktop").exists()


def test_damaged_pointer_is_refused(isolated_home):
    paths.ensure_private_dir(paths.anchor_dir())
    paths.pointer_path().write_text("{not json")
    with pytest.raises(paths.StorageLocationError, match="damaged"):
        paths.resolve({})


def test_data_root_and_folders_are_owner_only(tmp_path):
    old = os.umask(0o022)
    try:
        location = paths.resolve(data_dir=tmp_path / "a" / "b")
        root = paths.prepare_data_root(location)
    finally:
        os.umask(old)
    assert mode(root) == 0o700
    for name in paths.DATA_SUBDIRS:
        assert mode(root / name) == 0o700, name


def test_database_file_is_owner_only(host):
    db = host.location.data_root / "pi.sqlite"
    assert mode(db) == 0o600


def run_gui(args, env_extra=None, timeout=60):
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", **(env_extra or {})}
    return subprocess.run(
        [sys.executable, "-m", "pidesktop", *args], capture_output=True, text=True, env=env, timeout=timeout
    )


def test_gui_refuses_a_missing_selected_root(tmp_path, isolated_home):
    missing = tmp_path / "gone"
    paths.write_pointer(missing)
    result = run_gui([])
    assert result.returncode == 2
    assert "not available" in result.stderr
    assert not missing.exists()
    assert not (isolated_home / ".pi-desktop").exists()


def test_second_gui_launch_says_so_and_exits(isolated_home):
    paths.ensure_private_dir(paths.anchor_dir())
    lock = FileLock(paths.anchor_dir() / "instance.lock", "pidesktop GUI").acquire()
    try:
        result = run_gui([])
    finally:
        lock.release()
    assert result.returncode == 2
    assert "already running" in result.stderr
    assert f"pid {os.getpid()}" in result.stderr


def test_pointer_file_records_the_selected_root(tmp_path):
    paths.write_pointer(tmp_path)
    assert orjson.loads(paths.pointer_path().read_bytes())["root"] == str(tmp_path)
