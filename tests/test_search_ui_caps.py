"""The search dialog with counts the host capped: "1,000+ matches" and "20+ chats"."""

from PySide6.QtCore import Qt

from pidesktop.host.search import commands as search
from pidesktop.ui.kit import theme as themes
from pidesktop.ui.search.search_dialog import SearchDialog, matches_text
from tests.support.clock import TickingClock
from tests.support.hosts import InProcessHost
from tests.support.waits import spin_until
from tests.test_search_pages import write_transcript
from tests.test_search_ui import rows, search_for, seed_session


def test_a_capped_count_reads_1000_plus(location, qtbot, qloop, loop_hosts, shots):
    write_transcript(location, "big", [f"the needle again, {i}" for i in range(search.COUNT_CAP + 3)])
    write_transcript(location, "small", ["one needle", "no"])
    found = SearchDialog.ask(loop_hosts.start(), themes.LIGHT, None)
    qtbot.addWidget(found)
    found.resize(640, 400)
    found.open()
    try:
        search_for(qtbot, qloop, found, "needle")
        texts = {r["sessionId"]: matches_text(r) for r in rows(found)}
        assert texts == {"big": "1,000+ matches", "small": "1 match"}
        assert found.status_label.text() == "2 chats"
        assert found.model.index(0).data(Qt.ItemDataRole.AccessibleTextRole).endswith("1,000+ matches")
        assert found.grab().save(str(shots / "search-capped.png"))
    finally:
        found.close()


def test_chats_not_counted_yet_read_as_a_lower_bound(location, qtbot, qloop, loop_hosts, monkeypatch):
    seed = InProcessHost(location, clock=TickingClock())  # distinct times: "newest first" is decided by time
    for n in range(25):
        seed_session(seed.call, f"Chat {n}", [f"a needle in haystack {n}"])
    seed.stop()
    monkeypatch.setattr(search, "SPARSE_LIMIT", 0)  # as for a phrase in most messages: walk the chats
    found = SearchDialog.ask(loop_hosts.start(), themes.DARK, None)
    qtbot.addWidget(found)
    found.open()
    try:
        search_for(qtbot, qloop, found, "needle")
        assert found.model.rowCount() == 20 and found.status_label.text() == "20+ chats"
        for _ in range(20):
            qtbot.keyClick(found.field, Qt.Key.Key_Down)
        spin_until(qloop, lambda: found.model.rowCount() == 25)
        spin_until(qloop, lambda: found.status_label.text() == "25 chats")
        assert not found.model.canFetchMore()
    finally:
        found.close()
