"""The start-up sweep of stale scratch folders (spec 004, section 2, L.12): by age, never a live chat's."""

import os

from pidesktop.host import boot
from tests.support.hosts import InProcessHost

DAY_MS = 86_400_000
NOW = 1_800_000_000_000


def aged(path, days):
    stamp = (NOW - days * DAY_MS) / 1000
    for root, dirs, files in os.walk(path):
        for name in dirs + files:
            os.utime(os.path.join(root, name), (stamp, stamp))
    os.utime(path, (stamp, stamp))


def chat_folder(root, sid, days, *, workspace_file=True):
    folder = root / "scratch" / sid
    (folder / "tool-output").mkdir(parents=True)
    (folder / "tool-output" / "bash-1.txt").write_text("long output")
    (folder / "replayed").mkdir()
    (folder / "replayed" / "image.png").write_bytes(b"\x89PNG")
    (folder / "pasted").mkdir()
    (folder / "pasted" / "paste-1.txt").write_text("pasted text a message points to")
    if workspace_file:
        (folder / "notes.md").write_text("the person's file")
    aged(folder, days)
    return folder


def test_an_idle_chat_loses_only_its_disposable_folders(tmp_path):
    idle = chat_folder(tmp_path, "idle", 40)
    swept = boot.sweep_stale_scratch(tmp_path, [("idle", NOW - 40 * DAY_MS)], NOW)
    assert swept == 2
    assert sorted(p.name for p in idle.iterdir()) == ["notes.md", "pasted"]


def test_a_live_chat_or_a_recent_file_keeps_everything(tmp_path):
    recent_chat = chat_folder(tmp_path, "recent-chat", 40)
    recent_file = chat_folder(tmp_path, "recent-file", 40)
    (recent_file / "tool-output" / "bash-2.txt").write_text("written yesterday")
    aged(recent_file / "tool-output" / "bash-2.txt", 1)
    chats = [("recent-chat", NOW - 2 * DAY_MS), ("recent-file", NOW - 40 * DAY_MS)]
    assert boot.sweep_stale_scratch(tmp_path, chats, NOW) == 1  # only recent-file's replayed/
    assert (recent_chat / "tool-output" / "bash-1.txt").exists() and (recent_chat / "replayed").exists()
    assert (recent_file / "tool-output" / "bash-2.txt").exists() and not (recent_file / "replayed").exists()


def test_a_folder_left_empty_goes_and_a_symlink_is_never_followed(tmp_path):
    chat_folder(tmp_path, "empty-after", 40, workspace_file=False)
    (tmp_path / "scratch" / "empty-after" / "pasted" / "paste-1.txt").unlink()
    (tmp_path / "scratch" / "empty-after" / "pasted").rmdir()
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "keep.txt").write_text("not ours")
    (tmp_path / "scratch" / "linked").mkdir()
    (tmp_path / "scratch" / "linked" / "tool-output").symlink_to(outside)
    chats = [("empty-after", NOW - 40 * DAY_MS), ("linked", NOW - 40 * DAY_MS)]
    boot.sweep_stale_scratch(tmp_path, chats, NOW)
    assert not (tmp_path / "scratch" / "empty-after").exists()
    assert (outside / "keep.txt").exists()


def test_the_boot_pass_keeps_a_recently_used_chats_folders(location):
    host = InProcessHost(location)
    sid = host.call("session.create", {})["session"]["id"]
    host.stop()
    folder = chat_folder(location.data_root, sid, 400)  # old files, but the chat was just used
    again = InProcessHost(location)
    try:
        again.call("app.handshake", {"protocolVersion": 1})
    finally:
        again.stop()
    assert (folder / "tool-output" / "bash-1.txt").exists() and (folder / "replayed" / "image.png").exists()
