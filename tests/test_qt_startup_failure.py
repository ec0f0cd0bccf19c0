"""When Qt cannot start its platform plugin, the terminal says why and what to install, not only "Aborted".

Qt aborts the process after its fatal message; these tests start the real app
in a subprocess with the xcb platform made to fail honestly, and read stderr.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import PySide6
import pytest

from tests.support.repo import REPO

XCB_PLUGIN = Path(PySide6.__file__).parent / "Qt/plugins/platforms/libqxcb.so"
NOWHERE = ":4093"  # a display number no X server listens on

pytestmark = pytest.mark.skipif(
    not sys.platform.startswith("linux") or not XCB_PLUGIN.exists(),
    reason="Qt's xcb platform plugin exists on Linux only",
)


def start_app(tmp_path: Path, **env_extra: str) -> subprocess.CompletedProcess:
    if Path(f"/tmp/.X11-unix/X{NOWHERE[1:]}").exists():
        pytest.skip(f"an X server listens on {NOWHERE}")
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("QT_", "WAYLAND_")) and key not in ("PI_DESKTOP_DATA_DIR", "XAUTHORITY")
    }
    env.update(
        QT_QPA_PLATFORM="xcb",
        DISPLAY=NOWHERE,
        PYTHONPATH=str(REPO),
        HOME=str(tmp_path / "home"),
        XDG_CONFIG_HOME=str(tmp_path / "home/.config"),
        **env_extra,
    )
    return subprocess.run(
        [sys.executable, "-m", "pidesktop", "--data-dir", str(tmp_path / "data")],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )


def assert_says_qt_failed(stderr: str) -> None:
    assert (
        "pidesktop: Qt: This application failed to start because no Qt platform plugin could be initialized" in stderr
    ), stderr


def test_a_missing_xcb_cursor_library_is_named_with_only_its_package(tmp_path):
    # A libxcb-cursor.so.0 the dynamic loader finds first and cannot load: the xcb plugin fails to load
    # exactly as on a machine without libxcb-cursor0.
    broken = tmp_path / "lib"
    broken.mkdir()
    (broken / "libxcb-cursor.so.0").write_bytes(b"")
    result = start_app(tmp_path, LD_LIBRARY_PATH=str(broken))
    assert result.returncode == 2, result  # a plain exit status, not Qt's abort (make would print "Aborted")
    assert_says_qt_failed(result.stderr)
    assert 'Could not load the Qt platform plugin "xcb"' in result.stderr, result.stderr  # Qt's reason
    assert "Qt's xcb plugin cannot load libxcb-cursor.so.0 (file too short). Install:" in result.stderr, result.stderr
    assert "  Debian/Ubuntu: sudo apt-get install libxcb-cursor0\n" in result.stderr, result.stderr
    assert "  Fedora: sudo dnf install xcb-util-cursor\n" in result.stderr, result.stderr
    assert "libxkbcommon-x11-0" not in result.stderr  # only what is missing, not every package
    logged = "".join(path.read_text() for path in (tmp_path / "data/logs").rglob("*.ndjson"))
    assert "no Qt platform plugin could be initialized" in logged  # the log keeps it too


def test_a_display_that_cannot_be_opened_is_named(tmp_path):
    loads = subprocess.run(
        [sys.executable, "-c", f"import ctypes; ctypes.CDLL({str(XCB_PLUGIN)!r})"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    if loads.returncode != 0:
        pytest.skip(f"the xcb plugin's libraries are missing here: {loads.stderr.strip()[-200:]}")
    result = start_app(tmp_path)
    assert result.returncode == 2, result
    assert_says_qt_failed(result.stderr)
    assert "every system library Qt's xcb plugin loads is installed" in result.stderr, result.stderr
    assert "apt-get install" not in result.stderr, result.stderr
    assert f"could not connect to display {NOWHERE}" in result.stderr, result.stderr
    assert f"no X display could be opened (DISPLAY='{NOWHERE}')" in result.stderr, result.stderr


def test_the_readme_and_ci_name_the_same_packages():
    from pidesktop.system_libraries import DEBIAN_PACKAGES, install_commands

    readme = (REPO / "README.md").read_text()
    for system, command in install_commands().items():
        assert f"- {system}: `{command}`" in readme
    ci = (REPO / ".ci" / "system-packages").read_text()
    assert [package for package in DEBIAN_PACKAGES if package not in re.findall(r"[\w.+-]+", ci)] == []


def test_the_make_target_says_the_reason_without_an_error_line_under_it(tmp_path):
    # `make run` ends with pidesktop's own sentence: exit status 2 (a refusal already explained) is not an error.
    rule = (REPO / "Makefile").read_text().split("\nrun:", 1)[1].split("\n\n", 1)[0]
    fake = tmp_path / ".venv" / "bin"
    fake.mkdir(parents=True)
    (fake / "pidesktop").write_text("#!/bin/sh\necho 'pidesktop: the reason' >&2\nexit 2\n")
    (fake / "pidesktop").chmod(0o755)
    (tmp_path / ".venv" / ".installed").touch()
    (tmp_path / "Makefile").write_text(f"VENV := .venv\nSTAMP := .venv/.installed\nrun:{rule}\n")
    done = subprocess.run(["make", "-s", "run"], cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done
    assert done.stderr.strip().splitlines()[-1] == "pidesktop: the reason", done.stderr
