"""A data folder the host cannot write: the window says so where the chats would be, and what to do.

A read-only bind mount of a data folder a real host wrote (needs root to
mount; skipped with the reason otherwise), opened by the app's own host thread.
"""

from __future__ import annotations

import subprocess

from PySide6.QtCore import Qt

from pidesktop import paths
from tests.support.disks import fill
from tests.support.hosts import InProcessHost, LoopHosts
from tests.support.waits import spin_until
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


def test_a_prompt_sent_on_a_full_disk_says_so_and_stays_in_the_composer(keep_running, qtbot, qloop, small_disk, shot):
    """STORAGE_FULL reaches the person as its sentence; the prompt is neither stored nor lost; once there is
    space again the same prompt goes."""
    from pidesktop.agent.runner import TurnRunner

    hosts = LoopHosts(qloop, paths.resolve(data_dir=small_disk / "data"))
    try:
        client = hosts.start()
        win = started_window(qtbot, qloop, client, runner=TurnRunner(client, offline_delay=0.0))
        qloop.run_until_complete(win.chats.send_prompt("first"))
        sid = win.current_session_id
        spin_until(qloop, lambda: not win.runner.is_running(sid))
        before = client.call_blocking("session.get", {"sessionId": sid})["messages"]
        filler = fill(small_disk)
        prompt = "a prompt written while the disk was full " * 200
        win.composer.edit.setPlainText(prompt)
        qtbot.keyClick(win.composer.edit, Qt.Key.Key_Return)
        spin_until(qloop, lambda: win.notice.isVisible() and "full" in win.notice.label.text())
        shot(win, "full-disk-send")
        assert win.notice.label.text() == "Your disk is full: free some space; nothing you wrote is lost."
        assert win.notices.host_error.code == "STORAGE_FULL"
        assert win.composer.edit.toPlainText() == prompt
        assert client.call_blocking("session.get", {"sessionId": sid})["messages"] == before
        filler.unlink()
        qtbot.keyClick(win.composer.edit, Qt.Key.Key_Return)
        spin_until(
            qloop, lambda: len(client.call_blocking("session.get", {"sessionId": sid})["messages"]) > len(before)
        )
        stored = client.call_blocking("session.get", {"sessionId": sid})["messages"][len(before)]
        assert stored["blocks"][0]["text"] == prompt
        win.close()
    finally:
        hosts.stop_all()
