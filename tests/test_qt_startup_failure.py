"""When Qt cannot start its platform plugin, the terminal says why and what to install, not only "Aborted".

Qt aborts the process after its fatal message; these tests start the real app
in a subprocess with the xcb platform made to fail honestly, and read stderr.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import PySide6
import pytest

from .support.repo import REPO

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


def assert_names_the_packages(stderr: str) -> None:
    assert (
        "pidesktop: Qt: This application failed to start because no Qt platform plugin could be initialized" in stderr
    ), stderr
    assert "Debian/Ubuntu: sudo apt-get install libxcb-cursor0 libxkbcommon-x11-0" in stderr, stderr
    assert "Fedora: sudo dnf install xcb-util-cursor libxkbcommon-x11" in stderr, stderr


def test_a_missing_xcb_cursor_library_is_named_with_the_packages_to_install(tmp_path):
    # A libxcb-cursor.so.0 the dynamic loader finds first and cannot load: the xcb plugin fails to load
    # exactly as on a machine without libxcb-cursor0.
    broken = tmp_path / "lib"
    broken.mkdir()
    (broken / "libxcb-cursor.so.0").write_bytes(b"")
    result = start_app(tmp_path, LD_LIBRARY_PATH=str(broken))
    assert result.returncode != 0
    assert_names_the_packages(result.stderr)
    assert 'Could not load the Qt platform plugin "xcb"' in result.stderr, result.stderr  # Qt's reason
    assert "xcb-cursor0 or libxcb-cursor0 is needed" in result.stderr, result.stderr
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
    assert result.returncode != 0
    assert_names_the_packages(result.stderr)
    assert f"could not connect to display {NOWHERE}" in result.stderr, result.stderr
    assert f"no X display could be opened (DISPLAY='{NOWHERE}')" in result.stderr, result.stderr


def test_the_readme_names_the_same_packages():
    from pidesktop.app import XCB_PACKAGES

    readme = (REPO / "README.md").read_text()
    for system, command in XCB_PACKAGES.items():
        assert f"- {system}: `{command}`" in readme
