"""The restart after Settings' "Restart now" or the move wizard's "Restart and move": the same pidesktop
(also from the frozen bundle), with the same options, writing where the first one wrote."""

from __future__ import annotations

import sys

from pidesktop.ui.data import relaunch


def test_a_restart_starts_the_same_program(monkeypatch):
    assert relaunch.own_command() == [sys.executable, "-m", "pidesktop"]
    monkeypatch.setattr(sys, "frozen", True, raising=False)  # as in the PyInstaller bundle: no "-m" to give
    assert relaunch.own_command() == [sys.executable]


def test_the_restart_keeps_the_command_line_options():
    program = ["/opt/py/bin/python3", "-m", "pidesktop"]
    command = relaunch.restart_command(program, ["/opt/py/bin/pidesktop", "--data-dir", "/srv/pi"])
    assert command == ["/opt/py/bin/python3", "-m", "pidesktop", "--data-dir", "/srv/pi"]
    bundle = relaunch.restart_command(["/opt/pidesktop/pidesktop"], ["/usr/bin/pidesktop", "--theme", "dark"])
    assert bundle == ["/opt/pidesktop/pidesktop", "--theme", "dark"]


def test_the_restarted_app_writes_where_the_first_one_wrote(capfd, tmp_path):
    """Started from a terminal, the new process keeps its output there (it was thrown away)."""
    started = relaunch._start_again(
        [sys.executable, "-c", "import sys; print('restarted out'); print('restarted err', file=sys.stderr)"],
        str(tmp_path),
    )
    assert started is not None and started.wait(30) == 0
    out, err = capfd.readouterr()
    assert "restarted out" in out and "restarted err" in err
    assert f"pidesktop: started again (process {started.pid})" in err
