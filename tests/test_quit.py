"""Quitting runs the whole ordered shutdown on a live event loop and exits 0.

Qt ends its event loop on the first quit request, and the shutdown used to
continue after it without a loop: ``RuntimeError: no running event loop`` from
the outbox flush, exit status 1, and the outbox and host never closed. Each
test runs the real app (``python -m pidesktop``, offscreen) in a subprocess,
quits it the way a person or the data-move wizard does once the window is up,
and reads which shutdown steps ran from markers the driver prints.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tests.support.repo import REPO

DRIVER = textwrap.dedent("""
    import os
    import signal
    import sys
    from PySide6.QtCore import QTimer
    from pidesktop.commands import cli
    from pidesktop.agent.outbox import Outbox
    from pidesktop.bus import HostThread
    from pidesktop.ui.data import relaunch
    from pidesktop.ui.window import main_window

    how = sys.argv[1]

    def mark(step):
        print(step, flush=True)

    def recorded(cls, name, step):
        original = getattr(cls, name)
        if name in ("flush", "aclose"):
            async def wrapper(self, *args):
                result = await original(self, *args)
                mark(step)
                return result
        else:
            def wrapper(self, *args, **kwargs):
                result = original(self, *args, **kwargs)
                mark(step)
                return result
        setattr(cls, name, wrapper)

    recorded(Outbox, "flush", "outbox flushed")
    recorded(Outbox, "aclose", "outbox closed")
    recorded(HostThread, "stop", "host stopped")
    relaunch._start_again = lambda *args: mark("started again")

    def act(window):
        mark("window up")
        if how == "quit-action":
            window.quit_action.trigger()  # Ctrl+Q
        elif how == "close":
            window.close()  # the title bar's close button
        elif how == "relaunch":
            relaunch.relaunch_pidesktop()  # the data-move wizard's "Restart and move"
        elif how == "sigterm":
            os.kill(os.getpid(), signal.SIGTERM)  # a logout, a shutdown, `kill`

    started = main_window.MainWindow.start

    async def start(self):
        await started(self)
        QTimer.singleShot(200, lambda: act(self))

    main_window.MainWindow.start = start
    status = cli.main(["--data-dir", sys.argv[2]])
    mark(f"main returned {status}")
    sys.exit(status)
""")


def quit_app(tmp_path: Path, how: str) -> subprocess.CompletedProcess:
    env = {key: value for key, value in os.environ.items() if key != "PI_DESKTOP_DATA_DIR"}
    env.update(
        QT_QPA_PLATFORM="offscreen",
        PYTHONPATH=str(REPO),
        HOME=str(tmp_path / "home"),
        XDG_CONFIG_HOME=str(tmp_path / "home/.config"),
    )
    return subprocess.run(
        [sys.executable, "-c", DRIVER, how, str(tmp_path / "data")],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=90,
    )


@pytest.mark.parametrize("how", ["quit-action", "close", "relaunch", "sigterm"])
def test_quitting_runs_the_whole_shutdown_and_exits_0(tmp_path, how):
    result = quit_app(tmp_path, how)
    assert "Traceback" not in result.stderr, result.stderr
    assert "Exception ignored" not in result.stderr, result.stderr
    assert result.returncode == 0, result.stderr
    steps = result.stdout.split("\n")
    assert [step for step in steps if step] == (
        ["window up", "outbox flushed", "outbox closed", "host stopped", "main returned 0"]
        + (["started again"] if how == "relaunch" else [])
    )
