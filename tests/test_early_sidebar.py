"""A real start (``pidesktop --data-dir``, offscreen, a fresh process): the sidebar shows the newest chats before
the rest of the window is built and before the host has opened, with the typing box keeping the focus."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

from tests.support.hosts import InProcessHost

PROBE = textwrap.dedent("""
    import json, os, sys
    from pidesktop.commands import cli
    from pidesktop.ui.window.main_window import MainWindow

    seen = {}

    def show_chats_early(self, sessions, real=MainWindow.show_chats_early):
        real(self, sessions)
        model, sidebar = self._early_sidebar
        seen["early"] = {
            "titles": sorted(model.session(s["id"])["title"] for s in sessions),
            "built": self.built,
            "hostModules": "pidesktop.host.core" in sys.modules,
            "sidebarShown": sidebar.isVisible(),
            "focusInTheBox": self.focusWidget() is self.first_frame.prompt.edit,
        }
        seen["sidebar"] = id(sidebar)

    def build(self, *args, real=MainWindow.build):
        real(self, *args)
        seen["keptSidebar"] = id(self.sidebar) == seen.get("sidebar")
        seen["focusInTheComposer"] = self.focusWidget() is self.composer.edit
        print(json.dumps(seen), flush=True)
        os._exit(0)

    MainWindow.show_chats_early, MainWindow.build = show_chats_early, build
    sys.exit(cli.main(["--data-dir", sys.argv[1]]))
""")


def test_a_start_shows_the_newest_chats_before_the_window_is_built(tmp_path, location):
    host = InProcessHost(location)
    for i in range(3):
        host.call("session.create", {"title": f"Chat {i}", **({"projectPath": "/work/p"} if i else {})})
    host.stop()
    script = tmp_path / "probe.py"
    script.write_text(PROBE)
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "HOME": str(tmp_path), "XDG_CONFIG_HOME": str(tmp_path / "c")}
    result = subprocess.run(
        [sys.executable, str(script), str(location.data_root)], capture_output=True, text=True, env=env, timeout=120
    )
    assert result.returncode == 0, result.stderr[-3000:]
    seen = json.loads(result.stdout.strip().splitlines()[-1])
    assert seen["early"] == {
        "titles": ["Chat 0", "Chat 1", "Chat 2"],
        "built": False,
        "hostModules": False,  # read before the host thread even started
        "sidebarShown": True,
        "focusInTheBox": True,
    }
    assert seen["keptSidebar"] and seen["focusInTheComposer"]
