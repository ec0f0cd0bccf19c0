"""Start-up: the window's first paint waits only for what it draws; the rest is loaded right after.

The real app runs in a fresh process (``pidesktop --data-dir``, offscreen) and
reports the modules it had imported when the main window first painted (its
first frame), when its widgets were built (the host thread starts just before
they are), and again once the warm-up after the session list finished. Speed itself is
measured in bench/startup.py; this guards what the first paint waits for.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import pytest

# The host's modules: imported on the host thread, which starts after the first paint (beside the build).
HOST = ["pidesktop.host.core", "pidesktop.host.handlers", "pidesktop.host.boot"]
# Imported after the first frame is painted: asyncio and the event loop, the window's own widgets, the host
# bus; then, after the session list, the providers with httpx, markdown and pygments, and the dialogs.
NOT_BEFORE_THE_FIRST_PAINT = [
    "asyncio",
    "qasync",
    "pidesktop.bus.inprocess",
    "pidesktop.ui.sidebar.sidebar",
    "pidesktop.ui.chat.composer",
    "pidesktop.ui.chat.transcript_view",
    "pidesktop.ui.chat.chat_controller",
    "httpx",
    "markdown_it",
    "pygments",
    "pidesktop.agent.openai_compat",
    "pidesktop.ui.settings.settings_dialog",
    "pidesktop.ui.search.search_dialog",
    "pidesktop.ui.automations.automations",
    "pidesktop.ui.data.import_dialog",
    "pidesktop.ui.sidebar.trash_view",
    "pidesktop.ui.chat.export_dialog",
    "pidesktop.ui.startup.prepare",
    "pidesktop.ui.startup.migration_window",
    "pidesktop.ui.data.storage_wizard",
    # the commands' own modules (the window's start reads only its options) and the migration engine (a
    # current database is known by its version number)
    "pidesktop.commands.data_cli",
    "pidesktop.commands.automations_cli",
    "pidesktop.commands.mcp_cli",
    "pidesktop.formats.index.migrations",
    "pidesktop.formats.index.db",
    # orjson (with datetime, uuid, platform) and the log files' handlers (with socket, pickle, queue): the
    # small files of the start are read with the standard json, and nothing is logged before the paint
    "orjson",
    "uuid",
    "logging.handlers",
]
# Loaded by the warm-up, so the first click on a menu or the first message does not wait for an import.
WARMED_UP = [
    "httpx",
    "markdown_it",
    "pygments.lexers",
    "pidesktop.agent.openai_compat",
    "pidesktop.ui.settings.settings_dialog",
    "pidesktop.ui.search.search_dialog",
    "pidesktop.ui.automations.automations",
    "pidesktop.ui.data.import_dialog",
    "pidesktop.ui.sidebar.trash_view",
    "pidesktop.ui.chat.export_dialog",
]

PROBE = textwrap.dedent("""
    import json, os, sys, time
    from PySide6.QtCore import QEvent, QObject, QTimer
    from pidesktop import app as bootstrap
    from pidesktop.commands import cli
    from pidesktop.ui.window.main_window import MainWindow

    WARMED_UP = json.loads(sys.argv[2])
    make = bootstrap._qt_application
    seen = {}

    def report():
        print(json.dumps(seen), flush=True)
        os._exit(0)

    def poll():
        if all(name in sys.modules for name in WARMED_UP) or time.monotonic() > seen["deadline"]:
            seen["later"] = sorted(sys.modules)
            QTimer.singleShot(200, report)  # the last import's module is complete, not half-run
            return
        QTimer.singleShot(20, poll)

    class FirstPaint(QObject):
        def eventFilter(self, obj, event):
            if (event.type() == QEvent.Type.Paint and obj.isWidgetType() and "paint" not in seen
                    and type(obj.window()).__name__ == "MainWindow"):
                seen["paint"] = sorted(sys.modules)
                seen["deadline"] = time.monotonic() + 30
                QTimer.singleShot(0, poll)
            return False

    def watched():
        app = make()
        if not hasattr(app, "_probe"):
            app._probe = FirstPaint()
            app.installEventFilter(app._probe)
        return app

    def build(self, *args, real=MainWindow.build):
        real(self, *args)
        seen["built"] = {"modules": sorted(sys.modules), "windowShown": self.isVisible()}

    MainWindow.build = build
    bootstrap._qt_application = watched
    sys.exit(cli.main(["--data-dir", sys.argv[1]]))
""")


def test_the_first_paint_waits_only_for_what_it_draws_and_the_rest_follows(tmp_path):
    script = tmp_path / "probe.py"
    script.write_text(PROBE)
    env = {
        **os.environ,
        "QT_QPA_PLATFORM": "offscreen",
        "HOME": str(tmp_path),
        "XDG_CONFIG_HOME": str(tmp_path / "config"),
    }
    result = subprocess.run(
        [sys.executable, str(script), str(tmp_path / "data"), json.dumps(WARMED_UP)],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    seen = json.loads(result.stdout.strip().splitlines()[-1])
    assert seen["built"]["windowShown"]
    at_paint = set(seen["paint"])
    assert [name for name in HOST if name in at_paint] == []
    assert "pidesktop.ui.window.main_window" in at_paint and "pidesktop.ui.startup.first_frame" in at_paint
    assert [name for name in NOT_BEFORE_THE_FIRST_PAINT if name in at_paint] == []
    assert "pidesktop.ui.sidebar.sidebar" in seen["built"]["modules"]
    assert [name for name in WARMED_UP if name not in seen["later"]] == []
    assert "pidesktop.host.core" in seen["later"]  # the host opened meanwhile, on its own thread


WINDOWLESS_PROBE = textwrap.dedent("""
    import atexit, json, pathlib, sys
    from pidesktop.commands import cli

    out = pathlib.Path(sys.argv.pop(1))  # a file: the stdio host's stdout carries protocol lines only
    atexit.register(lambda: out.write_text(json.dumps(sorted(
        m for m in sys.modules if m.split(".")[0] in ("PySide6", "qasync") or m.startswith("pidesktop.ui")
    ))))
    sys.exit(cli.main(sys.argv[1:]))
""")


@pytest.mark.parametrize(
    "command",
    [
        ["host", "--stdio"],
        ["export", "no-such-chat", "--format", "json"],
        ["data", "repair"],
        ["automations", "run-due"],
    ],
    ids=["stdio", "export", "data-repair", "automations"],
)
def test_a_command_without_a_window_loads_no_qt(tmp_path, command):
    """Window-less starts print their progress through storage/progress.py, not a module of the window."""
    script = tmp_path / "probe.py"
    script.write_text(WINDOWLESS_PROBE)
    result = subprocess.run(
        [sys.executable, str(script), str(tmp_path / "loaded.json"), "--data-dir", str(tmp_path / "data"), *command],
        capture_output=True,
        text=True,
        input="",
        env={**os.environ, "HOME": str(tmp_path), "XDG_CONFIG_HOME": str(tmp_path / "config")},
        timeout=120,
    )
    assert (tmp_path / "loaded.json").is_file(), result.stderr[-2000:]
    assert json.loads((tmp_path / "loaded.json").read_text()) == [], result.stderr[-2000:]
