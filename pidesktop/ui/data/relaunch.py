"""Restarting pidesktop after a cold maintenance job was recorded (a move, a cache cleanup)."""

from __future__ import annotations

import atexit
import os
import subprocess
import sys

from PySide6.QtWidgets import QApplication


def relaunch_pidesktop() -> None:
    """Quit (the ordered shutdown drains and joins the host), then start pidesktop again.

    The new process is started once this one has released the installation
    lock, from an exit handler, so it never meets "pidesktop is already running".
    """
    atexit.register(_start_again, restart_command(own_command(), sys.argv), os.getcwd())
    app = QApplication.instance()
    if app is not None:
        app.quit()


def own_command() -> list[str]:
    """How to start this pidesktop: the bundle's own program when frozen (PyInstaller), else its Python's module."""
    if getattr(sys, "frozen", False):
        return [sys.executable]
    return [sys.executable, "-m", "pidesktop"]


def restart_command(program: list[str], argv: list[str]) -> list[str]:
    """``program`` (``own_command()``) with the options this run was given (``--data-dir`` among them)."""
    return [*program, *argv[1:]]


def _start_again(command: list[str], cwd: str) -> subprocess.Popen | None:
    """Start the new process in a session of its own (closing a terminal does not stop it), writing to the
    same output as this one: started from a terminal, what it says still shows there."""
    try:
        started = subprocess.Popen(command, cwd=cwd, start_new_session=True, close_fds=True, stdin=subprocess.DEVNULL)
    except OSError as exc:  # the move is journalled: it runs whenever pidesktop is started next
        print(f"pidesktop: could not restart ({exc}); start pidesktop to move the data folder.", file=sys.stderr)
        return None
    print(f"pidesktop: started again (process {started.pid})", file=sys.stderr, flush=True)
    return started
