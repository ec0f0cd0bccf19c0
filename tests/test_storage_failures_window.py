"""A data folder the host cannot write: the window says so where the chats would be, and what to do.

A read-only bind mount of a data folder a real host wrote (needs root to
mount; skipped with the reason otherwise), opened by the app's own host thread.
"""

from __future__ import annotations

import subprocess

from pidesktop import paths
from tests.support.hosts import InProcessHost, LoopHosts
from tests.support.windows import started_window
from tests.test_storage_failures import mount, needs_root


def test_a_read_only_data_folder_is_shown_on_the_start_page_with_what_to_do(qtbot, qloop, tmp_path, shot):
    needs_root()
    source, view = tmp_path / "source", tmp_path / "view"
    view.mkdir()
    seed = InProcessHost(paths.resolve(data_dir=source / "data"))
    try:
        seed.call("session.create", {"title": "kept"})
    finally:
        seed.stop()
    mount("--bind", str(source), str(view))
    hosts = LoopHosts(qloop, paths.resolve(data_dir=view / "data"))
    try:
        mount("-o", "remount,ro,bind", str(view))
        win = started_window(qtbot, qloop, hosts.start(), size=None)
        shown, banner, notice = win.banner.isVisible(), win.banner_text.text(), win.notice.label.text()
        new_chat = win.sidebar.new_chat_button.isEnabled()
        shot(win, "read-only-data-folder")
        win.close()
    finally:
        hosts.stop_all()
        subprocess.run(["umount", "-l", str(view)], check=False)
    assert shown and not new_chat
    advice = "Your data folder is on a read-only disk, so pidesktop can’t save anything. Make it writable"
    assert advice in banner and notice.startswith(advice)
    assert "disk is attached" not in banner  # the general advice would ask for what is already there
    assert "Read-only file system" in banner  # the system's words, small, under the sentence
