"""The sidebar's first rows read from ``pi.sqlite`` read-only before the host has opened it (start-up)."""

from __future__ import annotations

import shutil

import apsw

from pidesktop import paths
from pidesktop.storage.newest_chats import newest_chats
from tests.support.hosts import InProcessHost


def _seed(host) -> None:
    ids = [
        host.call("session.create", {"title": f"Chat {i}", **({"projectPath": f"/work/p{i % 2}"} if i % 3 else {})})[
            "session"
        ]["id"]
        for i in range(8)
    ]
    host.call("session.rename", {"sessionId": ids[1], "title": "Renamed, so newer"})
    host.call("session.delete", {"sessionId": ids[6]})  # in the Trash: not listed


def test_they_are_the_host_s_first_page_beside_it_and_after_it_closed(location):
    host = InProcessHost(location)
    try:
        _seed(host)
        listed = host.call("session.list", {"limit": 5, "native": False})["sessions"]
        assert newest_chats(location, 5) == listed  # beside the running host (a WAL reader)
    finally:
        host.stop()
    assert [(s["updatedAt"], s["id"]) for s in listed] == sorted(
        ((s["updatedAt"], s["id"]) for s in listed), reverse=True
    )
    assert any(s["projectPath"] == "/work/p1" for s in listed) and any(s["projectPath"] is None for s in listed)
    assert newest_chats(location, 5) == listed
    titles = [s["title"] for s in newest_chats(location, 100) or []]
    assert len(titles) == 7 and "Renamed, so newer" in titles and "Chat 6" not in titles  # the deleted one


def test_nothing_when_they_cannot_be_read_at_once(location, tmp_path):
    assert newest_chats(location, 10) is None  # no database yet
    host = InProcessHost(location)
    _seed(host)
    host.stop()
    db = location.data_root / "pi.sqlite"
    older = tmp_path / "older"
    older.mkdir()
    shutil.copy(db, older / "pi.sqlite")
    conn = apsw.Connection(str(older / "pi.sqlite"))
    conn.execute("PRAGMA user_version = 26")  # another version: the host migrates it first
    conn.close()
    assert newest_chats(paths.resolve(data_dir=older), 10) is None
    damaged = tmp_path / "damaged"
    damaged.mkdir()
    (damaged / "pi.sqlite").write_bytes(b"not a database" * 100)
    assert newest_chats(paths.resolve(data_dir=damaged), 10) is None
