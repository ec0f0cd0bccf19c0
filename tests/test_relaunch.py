"""A restart (after a data move is scheduled) starts the same pidesktop again, also from the frozen bundle."""

from __future__ import annotations

import sys

from pidesktop.ui import relaunch


def test_a_restart_starts_the_same_program(monkeypatch):
    assert relaunch.own_command() == [sys.executable, "-m", "pidesktop"]
    monkeypatch.setattr(sys, "frozen", True, raising=False)  # as in the PyInstaller bundle: no "-m" to give
    assert relaunch.own_command() == [sys.executable]
