"""Sidebar organisation: pin, archive, sort, manual project order, collapse; presentation only."""

import hashlib

import orjson
import pytest

from pidesktop.ui.kit import theme as themes
from pidesktop.ui.kit.prefs import Preferences, normalise
from pidesktop.ui.window.main_window import MainWindow
from tests.support.clock import TickingClock
from tests.support.hosts import InProcessHost
from tests.support.waits import spin_until
from tests.support.windows import started_window


def seed(location):
    host = InProcessHost(location, clock=TickingClock())  # distinct times: ties would order by random id
    ids = {}
    for title, project in (("alpha", "/p/zeta"), ("bravo", "/p/alpha-proj"), ("charlie", None), ("delta", None)):
        ids[title] = host.call("session.create", {"title": title} | ({"projectPath": project} if project else {}))[
            "session"
        ]["id"]
    host.stop()
    return ids


@pytest.fixture
def sidebar_window(qtbot, qloop, location, tmp_path, loop_hosts):
    ids = seed(location)
    prefs = Preferences(tmp_path / "ui")
    win = started_window(qtbot, qloop, loop_hosts.start(), prefs=prefs, size=None)
    yield win, ids, prefs
    win.close()


def layout(model):
    out = []
    for row in range(model.rowCount()):
        group = model.index(row, 0)
        out.append((group.data(), [model.index(r, 0, group).data() for r in range(model.rowCount(group))]))
    return out


def test_default_layout_projects_then_chats(sidebar_window):
    win, _ids, _prefs = sidebar_window
    assert layout(win.model) == [("alpha-proj", ["bravo"]), ("zeta", ["alpha"]), ("Chats", ["delta", "charlie"])]


def test_pin_archive_and_show_archived(sidebar_window):
    win, ids, prefs = sidebar_window
    win.sidebar.select(ids["charlie"])
    win.sidebar.pin_action.trigger()
    assert layout(win.model)[0] == ("Pinned", ["charlie"])
    win.sidebar.select(ids["delta"])
    win.sidebar.archive_action.trigger()
    assert "delta" not in str(layout(win.model))
    win.sidebar.show_archived_action.setChecked(True)
    assert "delta" in str(layout(win.model))
    again = Preferences(prefs.path.parent)
    assert again.session_meta(ids["charlie"]) == {"pinned": True}
    assert again.sidebar["sessionView"]["archived"] is True


def test_sort_by_name_and_manual_project_order(sidebar_window):
    win, ids, prefs = sidebar_window
    win.sidebar._set_view("sessionView.sort", "name")
    assert layout(win.model)[-1] == ("Chats", ["charlie", "delta"])
    win.sidebar._set_view("projectSort", "name")
    assert [g for g, _ in layout(win.model)][:2] == ["alpha-proj", "zeta"]
    win.sidebar.tree.setCurrentIndex(win.model.group_index("project:/p/alpha-proj"))
    win.sidebar.move_down_action.trigger()
    assert [g for g, _ in layout(win.model)][:2] == ["zeta", "alpha-proj"]
    assert prefs.sidebar["projectSort"] == "manual"
    assert prefs.project_meta("/p/zeta")["order"] == 0 and prefs.project_meta("/p/alpha-proj/")["order"] == 1


def test_collapse_survives_a_relayout(sidebar_window, qtbot):
    win, ids, prefs = sidebar_window
    tree = win.sidebar.tree
    index = win.model.group_index("project:/p/zeta")
    rect = tree.visualRect(index)
    qtbot.mouseClick(tree.viewport(), __import__("PySide6.QtCore").QtCore.Qt.MouseButton.LeftButton, pos=rect.center())
    assert not tree.isExpanded(win.model.group_index("project:/p/zeta"))
    assert prefs.project_meta("/p/zeta")["collapsed"] is True
    win.model.relayout()
    assert not tree.isExpanded(win.model.group_index("project:/p/zeta"))
    assert tree.isExpanded(win.model.group_index("chats"))


def test_preferences_change_nothing_the_host_owns(sidebar_window, location):
    win, ids, prefs = sidebar_window
    win.client.call_blocking("session.list")
    before = hashlib.sha256(repr(win.client.call_blocking("session.list")["sessions"]).encode()).hexdigest()
    projects = win.client.call_blocking("projects.list")
    win.sidebar.select(ids["alpha"])
    win.sidebar.pin_action.trigger()
    win.sidebar.archive_action.trigger()
    win.sidebar._set_view("projectSort", "oldest")
    after = hashlib.sha256(repr(win.client.call_blocking("session.list")["sessions"]).encode()).hexdigest()
    assert before == after and projects == win.client.call_blocking("projects.list")


@pytest.mark.parametrize(
    "content", [b"{not json", b"[1,2,3]", b'{"sidebar": {"sessionMeta": 5, "projectSort": "wat"}}', b"\xff\xfe"]
)
def test_a_corrupted_preferences_file_falls_back_to_defaults(tmp_path, content):
    folder = tmp_path / "ui"
    folder.mkdir()
    (folder / "preferences.json").write_bytes(content)
    prefs = Preferences(folder)
    assert prefs.data == normalise(None)
    prefs.set_session_flag("s1", "pinned", True)  # and it can be written again
    assert Preferences(folder).session_meta("s1") == {"pinned": True}


def test_slash_variants_of_a_project_path_are_one_entry():
    prefs = normalise(
        {
            "sidebar": {
                "projectMeta": {"/a/b/": {"pinned": True}, "/a/b": {"archived": True}, "\\a\\b": {"collapsed": True}},
                "openProjectPaths": ["/x/", "/x", "\\x"],
            }
        }
    )
    assert prefs["sidebar"]["projectMeta"] == {"/a/b": {"pinned": True}}
    assert prefs["sidebar"]["openProjectPaths"] == ["/x"]


def test_window_geometry_and_splitter_are_remembered(qtbot, qloop, tmp_path, host_client):
    prefs = Preferences(tmp_path / "ui")
    win = MainWindow(host_client, themes.LIGHT, prefs=prefs)
    qtbot.addWidget(win)
    win.resize(900, 600)
    win.show()
    win.splitter.setSizes([300, 600])
    win.close()
    stored = Preferences(tmp_path / "ui").data["window"]
    assert stored["splitter"][0] == 300
    again = MainWindow(host_client, themes.LIGHT, prefs=Preferences(tmp_path / "ui"))
    qtbot.addWidget(again)
    again.show()
    spin_until(qloop, lambda: again.splitter.sizes()[0] == 300)
    again.close()


def test_pages_extend_the_tree_like_one_reset_would(qtmodeltester):
    from pidesktop.ui.sidebar.session_model import SessionTreeModel

    sessions = [
        {
            "id": f"s{i:05d}",
            "title": f"t{i}",
            "projectPath": [None, "/a", "/b", f"/p{i % 7}"][i % 4],
            "updatedAt": 10_000 - i,
            "createdAt": i,
        }
        for i in range(900)
    ]
    whole = SessionTreeModel()
    whole.reset(sessions)
    paged = SessionTreeModel()
    paged.reset(sessions[:100])
    for start in range(100, 900, 250):
        paged.extend(sessions[start : start + 250])
    qtmodeltester.check(paged)
    assert layout(paged) == layout(whole)
    assert paged.session_count() == 900


def test_session_order_and_a_manual_session_sort_survive_a_rewrite(tmp_path):
    # Compatibility fields another client wrote (spec 004, SP.4): kept, never used here.
    folder = tmp_path / "ui"
    folder.mkdir()
    stored = {"sidebar": {"sessionMeta": {"s1": {"order": 3, "pinned": True}}, "sessionView": {"sort": "manual"}}}
    (folder / "preferences.json").write_bytes(orjson.dumps(stored))
    prefs = Preferences(folder)
    prefs.set_session_flag("s2", "archived", True)
    again = orjson.loads((folder / "preferences.json").read_bytes())["sidebar"]
    assert again["sessionMeta"]["s1"] == {"order": 3, "pinned": True}
    assert again["sessionView"]["sort"] == "manual"
    prefs.set_session_flag("s1", "pinned", False)  # the order stays with the chat
    assert Preferences(folder).session_meta("s1") == {"order": 3}
