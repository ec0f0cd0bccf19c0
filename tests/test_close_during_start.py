"""Closing the window while the app is still starting ends the app then, not once the whole start is done.

The real app runs in a subprocess (offscreen), its window closed at two moments of the start: at its first
frame, before the widgets are built; and once built, while the window still waits for the host's list of
chats (here a list that never comes, as from a host slowed to a crawl). Both must exit 0, promptly, with the
host closed in order. Before, the first built every widget and read every chat before closing, and the
second waited for the list for ever.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.repo import REPO

DRIVER = """
import asyncio, sys
from PySide6.QtCore import QTimer
from pidesktop.ui.window import main_window

moment, data = sys.argv[1], sys.argv[2]
built = []
build = main_window.MainWindow.build
def counted_build(self, *args, **kwargs):
    built.append(True)
    return build(self, *args, **kwargs)
main_window.MainWindow.build = counted_build
if moment == "first-frame":
    show = main_window.MainWindow.show
    def show_then_close(self):
        show(self)
        QTimer.singleShot(0, self.close)  # delivered while the first frame is waited for
    main_window.MainWindow.show = show_then_close
else:
    async def list_that_never_comes(self):
        QTimer.singleShot(0, self.close)
        await asyncio.Event().wait()
    main_window.MainWindow.load_sessions = list_that_never_comes
from pidesktop.commands.cli import main
status = main(["--data-dir", data])
print("built" if built else "not built", flush=True)
raise SystemExit(status)
"""


def _run_closing_at(moment: str, tmp_path: Path) -> tuple[subprocess.CompletedProcess, list[str]]:
    data = tmp_path / "data"
    env = {key: value for key, value in os.environ.items() if not key.startswith("PI_DESKTOP")}
    env.update(QT_QPA_PLATFORM="offscreen", PYTHONPATH=str(REPO), HOME=str(tmp_path / "home"))
    (tmp_path / "home").mkdir()
    try:
        done = subprocess.run(
            [sys.executable, "-c", DRIVER, moment, str(data)],
            cwd=tmp_path,
            env=env,
            capture_output=True,
            text=True,
            timeout=120,  # a start under load takes seconds; a start that waits for the list never ends
        )
    except subprocess.TimeoutExpired:
        pytest.fail(f"the app did not exit after its window was closed at the {moment}")
    messages = []
    for log in sorted((data / "logs").rglob("*.ndjson")):
        messages += [json.loads(line)["msg"] for line in log.read_text().splitlines() if line.strip()]
    return done, messages


def test_a_close_at_the_first_frame_ends_the_app_without_building_the_window(tmp_path):
    done, messages = _run_closing_at("first-frame", tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "not built"
    assert "Traceback" not in done.stderr, done.stderr
    assert "closed before the window was built" in messages
    assert "host closed" in messages  # the host, started beside the build, is stopped in order


def test_a_close_while_the_chats_are_being_listed_ends_the_app(tmp_path):
    done, messages = _run_closing_at("chat-list", tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "built"
    assert "Traceback" not in done.stderr, done.stderr
    assert "closed while the window was asking for its chats" in messages
    assert "host closed" in messages
