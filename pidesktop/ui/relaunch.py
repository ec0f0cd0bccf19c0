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
    atexit.register(_start_again, own_command(), os.getcwd())
    app = QApplication.instance()
    if app is not None:
        app.quit()


def own_command() -> list[str]:
    """How to start this pidesktop: the bundle's own program when frozen (PyInstaller), else its Python's module."""
    if getattr(sys, "frozen", False):
        return [sys.executable]
    return [sys.executable, "-m", "pidesktop"]


def _start_again(command: list[str], cwd: str) -> None:
    try:
        subprocess.Popen(
            command,
            cwd=cwd,
            start_new_session=True,
            close_fds=True,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
    except OSError as exc:  # the move is journalled: it runs whenever pidesktop is started next
        print(f"pidesktop: could not restart ({exc}); start pidesktop to move the data folder.", file=sys.stderr)
