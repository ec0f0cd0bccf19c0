"""The restart after Settings' "Restart now" or the move wizard's "Restart and move"."""

from __future__ import annotations

import sys

from pidesktop.ui import relaunch


def test_the_restart_keeps_the_command_line_options():
    command = relaunch.restart_command("/opt/py/bin/python3", ["/opt/py/bin/pidesktop", "--data-dir", "/srv/pi"])
    assert command == ["/opt/py/bin/python3", "-m", "pidesktop", "--data-dir", "/srv/pi"]


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
