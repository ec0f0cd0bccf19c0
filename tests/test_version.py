"""What is running: the version, written once, shown by `pidesktop --version` and in Settings."""

from __future__ import annotations

import re
import subprocess
import sys
import tomllib
from pathlib import Path

import shiboken6

from pidesktop import __version__
from pidesktop.formats.index.schema import SCHEMA_VERSION
from pidesktop.ui.kit import theme as themes
from pidesktop.ui.settings.settings_dialog import SettingsDialog

REPO = Path(__file__).resolve().parents[1]


def test_the_version_is_written_in_one_place():
    project = tomllib.loads((REPO / "pyproject.toml").read_text())
    assert "version" not in project["project"] and "version" in project["project"]["dynamic"]
    assert project["tool"]["setuptools"]["dynamic"]["version"] == {"attr": "pidesktop.__version__"}
    assert re.fullmatch(r"\d+\.\d+\.\d+", __version__)


def test_version_flag_prints_the_version_and_the_schema_version(tmp_path):
    done = subprocess.run(
        [sys.executable, "-m", "pidesktop", "--version"], capture_output=True, text=True, timeout=120, cwd=tmp_path
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout == f"pidesktop {__version__} (data schema v{SCHEMA_VERSION})\n"


def test_settings_shows_the_version_and_the_schema_version(qtbot, qloop, host_client):
    dialog = SettingsDialog.ask(host_client, themes.LIGHT)
    try:
        dialog.open()
        qloop.run_until_complete(dialog.loading)
        assert dialog.about.text() == f"pidesktop {__version__} · data schema v{SCHEMA_VERSION}"
        assert dialog.about.isVisible()
    finally:
        if shiboken6.isValid(dialog):
            dialog.close()
