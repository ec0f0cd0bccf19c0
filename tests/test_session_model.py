"""The sidebar's tree model: row changes made one at a time end where a whole relayout would."""

import gc
import random

import pytest
from PySide6.QtGui import QStandardItemModel
from PySide6.QtWidgets import QTreeView

from pidesktop.ui.kit import theme as themes
from pidesktop.ui.kit.prefs import Preferences
from pidesktop.ui.sidebar.session_model import SessionTreeModel
from pidesktop.ui.sidebar.sidebar import Sidebar


def layout(model):
    out = []
    for row in range(model.rowCount()):
        group = model.index(row, 0)
        rows = [model.index(r, 0, group) for r in range(model.rowCount(group))]
        out.append((group.data(), [(index.data(), model.session_at(index)["id"]) for index in rows]))
    return out


def whole(prefs, model):
    """The same sessions laid out at once."""
    again = SessionTreeModel(prefs)
    again.reset(list(model._sessions.values()))
    return layout(again)


def session(rng, number):
    return {
        "id": f"s{number:03d}",
        "title": rng.choice([f"t{number}", None, "alpha"]),
        "projectPath": rng.choice([None, "/a", "/b", "/c/d"]),
        "updatedAt": rng.randint(0, 400),
        "createdAt": rng.randint(0, 400),
        **({"lastTurn": {"status": "running"}} if rng.random() < 0.1 else {}),
    }


def test_the_tree_shape_is_answered_in_cpp():
    """A view walks every row through these after each page: a Python override costs a stall per page."""
    for name in ("index", "parent", "rowCount", "hasChildren", "flags"):
        assert getattr(SessionTreeModel, name) is getattr(QStandardItemModel, name), name


SORTS = ["recent", "created", "oldest", "name"]
PROJECT_SORTS = ["recent", "created", "oldest", "name", "manual"]


def view_state(model, view):
    """What a reorder must keep: the current chat and which groups are expanded, by key."""
    expanded = {
        model.group_at(model.index(r, 0)).key: view.isExpanded(model.index(r, 0)) for r in range(model.rowCount())
    }
    current = model.session_at(view.currentIndex())
    return (current or {}).get("id"), expanded


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(6))
def test_row_changes_match_a_whole_relayout(qtmodeltester, qapp, seed):
    rng = random.Random(seed)
    prefs = Preferences(None)
    prefs.sidebar["sessionView"]["sort"] = SORTS[seed % 4]
    prefs.sidebar["projectSort"] = PROJECT_SORTS[seed % 5]
    model = SessionTreeModel(prefs)
    relaid = []
    model.relaidOut.connect(lambda: relaid.append(1))
    view = QTreeView()
    view.setModel(model)
    sessions = sorted((session(rng, n) for n in range(120)), key=lambda s: -s["updatedAt"])
    model.reset(sessions[:30])
    for start in range(30, 120, 40):
        model.extend(sessions[start : start + 40])
    qtmodeltester.check(model)
    fresh = 200
    for step in range(160):
        if rng.random() < 0.3 and model.session_count():
            ids = list(model._sessions)
            view.setCurrentIndex(model.index_of(rng.choice(ids)))
        for row in range(model.rowCount()):
            if rng.random() < 0.2:
                view.setExpanded(model.index(row, 0), rng.random() < 0.5)
        before = view_state(model, view)
        del relaid[:]
        touched = None
        roll = rng.random()
        if roll < 0.35:
            touched = f"s{rng.randrange(140):03d}"
            model.upsert({**session(rng, int(touched[1:])), "id": touched})  # new, moved, or changed in place
        elif roll < 0.5:
            touched = f"s{rng.randrange(140):03d}"
            model.remove(touched)
        elif roll < 0.65:  # a further page: under "created"/"oldest" it can move projects
            page = [session(rng, fresh + n) for n in range(rng.randrange(1, 6))]
            fresh += len(page)
            model.extend(page)
        elif roll < 0.85:  # reorders groups and/or sessions only: sorted in place
            prefs.sidebar["sessionView"]["sort"] = rng.choice(SORTS)
            prefs.sidebar["projectSort"] = rng.choice(PROJECT_SORTS)
            if rng.random() < 0.3:
                paths = model.project_paths()
                rng.shuffle(paths)
                prefs.set_project_order(paths)
            model.relayout()
            assert not relaid, step
        else:
            prefs.set_session_flag(f"s{rng.randrange(120):03d}", rng.choice(["pinned", "archived"]), True)
            model.relayout()
        # Group by group: a removal leaves the groups' order as it was until the next change.
        assert dict(layout(model)) == dict(whole(prefs, model)), step
        if not 0.35 <= roll < 0.5:
            assert layout(model) == whole(prefs, model), step
        if not relaid:  # rows moved, not rebuilt: the view keeps its state
            current, expanded = view_state(model, view)
            if before[0] is not None and before[0] != touched:
                assert current == before[0], step
            assert {k: v for k, v in expanded.items() if k in before[1]} == {
                k: v for k, v in before[1].items() if k in expanded
            }, step
        running = {s["id"] for s in model._sessions.values() if (s.get("lastTurn") or {}).get("status") == "running"}
        assert model.has_running() == bool(running)
    gc.collect()  # rows must not depend on a Python wrapper staying alive
    assert dict(layout(model)) == dict(whole(prefs, model))
    view.deleteLater()


def chat(number, project, created, updated):
    return {
        "id": f"c{number:03d}",
        "title": f"chat {number}",
        "projectPath": project,
        "createdAt": created,
        "updatedAt": updated,
    }


@pytest.mark.parametrize("project_sort", ["created", "oldest"])
def test_a_page_that_moves_a_project_keeps_the_sidebar_state(qtbot, project_sort):
    prefs = Preferences(None)
    prefs.sidebar["projectSort"] = project_sort
    model = SessionTreeModel(prefs)
    relaid = []
    model.relaidOut.connect(lambda: relaid.append(1))
    bar = Sidebar(model, themes.LIGHT)
    qtbot.addWidget(bar)
    model.reset([chat(1, "/p/a", 60, 100), chat(6, "/p/a", 20, 95), chat(2, "/p/b", 40, 90), chat(3, None, 10, 80)])
    bar.select("c002")
    bar.tree.setExpanded(model.group_index("project:/p/a"), False)
    del relaid[:]
    activated = []
    bar.sessionActivated.connect(activated.append)
    order = model.project_paths()
    assert order == ["/p/a", "/p/b"]
    # /p/b gains the newest and the oldest chat: it moves, whichever end the sort reads
    model.extend([chat(4, "/p/b", 90, 70), chat(5, "/p/b", 5, 60)])
    assert model.project_paths() == order[::-1]
    assert not relaid and not activated
    assert bar.current_session_id() == "c002"
    assert bar.tree.selectionModel().isSelected(model.index_of("c002"))
    assert not bar.tree.isExpanded(model.group_index("project:/p/a"))
    assert bar.tree.isExpanded(model.group_index("project:/p/b"))
    # sort-mode changes reorder groups and rows in place too
    bar._set_view("sessionView.sort", "name")
    bar._set_view("projectSort", "name")
    assert model.project_paths() == ["/p/a", "/p/b"]
    assert not relaid and not activated
    assert bar.current_session_id() == "c002"
    assert not bar.tree.isExpanded(model.group_index("project:/p/a"))
    assert bar.tree.isExpanded(model.group_index("project:/p/b"))


def walked(model, session_id):
    """Where a session's row is, found by walking every row (what ``find`` must agree with)."""
    for group in model._groups:
        for row, shown in enumerate(group.sessions):
            if shown["id"] == session_id:
                return group, row
    return None


@pytest.mark.parametrize("seed", range(4))
def test_find_agrees_with_walking_every_row(qapp, seed):
    """``find`` looks where a session's group and sort key place it; it must still find a row
    the tree has not moved yet (a preference changed before the relayout) and never find a gone one."""
    rng = random.Random(100 + seed)
    prefs = Preferences(None)
    prefs.sidebar["sessionView"]["sort"] = SORTS[seed % 4]
    model = SessionTreeModel(prefs)
    sessions = sorted((session(rng, n) for n in range(80)), key=lambda s: -s["updatedAt"])
    model.reset(sessions[:20])
    model.extend(sessions[20:])
    for step in range(120):
        roll = rng.random()
        number = rng.randrange(100)
        if roll < 0.4:
            model.upsert({**session(rng, number), "id": f"s{number:03d}"})
        elif roll < 0.55:
            model.remove(f"s{number:03d}")
        elif roll < 0.75:  # the preference changes; the tree follows only sometimes
            prefs.set_session_flag(f"s{number:03d}", rng.choice(["pinned", "archived"]), rng.random() < 0.6)
            prefs.sidebar["sessionView"]["sort"] = rng.choice(SORTS)
            if rng.random() < 0.5:
                model.relayout()
        for candidate in [f"s{n:03d}" for n in range(100)]:
            assert model.find(candidate) == walked(model, candidate), (step, candidate)
            index = model.index_of(candidate)
            assert (model.session_at(index) or {}).get("id") == (candidate if walked(model, candidate) else None)


@pytest.mark.parametrize("seed", range(8))
def test_a_list_read_again_merges_to_what_a_reset_would_show(qtmodeltester, qapp, seed):
    """``merge``: rows changed, added and gone end where a whole reset would put them, with no reset."""
    rng = random.Random(seed)
    prefs = Preferences(None)
    before = [session(rng, n) for n in range(60)]
    model = SessionTreeModel(prefs)
    model.reset(before)
    resets = []
    model.modelReset.connect(lambda: resets.append(1))
    after = [
        dict(s, updatedAt=rng.randint(0, 400)) if rng.random() < 0.2 else s for s in before if rng.random() > 0.15
    ] + [session(rng, n) for n in range(60, 60 + rng.randint(0, 12))]
    after[0] = dict(after[0], scheduledRun=True)  # an automation's run chat: no row
    rng.shuffle(after)
    assert model.merge(after) is True
    qtmodeltester.check(model)
    expected = SessionTreeModel(prefs)
    expected.reset([s for s in after if not s.get("scheduledRun")])
    assert layout(model) == layout(expected) and resets == []


def test_a_large_change_is_left_to_a_reset(qapp):
    prefs = Preferences(None)
    model = SessionTreeModel(prefs)
    model.reset([])
    rng = random.Random(3)
    assert model.merge([session(rng, n) for n in range(500)]) is False
    assert model.session_count() == 0


# -- the sidebar marks forks; a row's time label is the same in every partial repaint -------------------
def _sidebar(qtbot, theme, sessions):
    from pidesktop.ui.sidebar.session_model import SessionTreeModel
    from pidesktop.ui.sidebar.sidebar import Sidebar

    model = SessionTreeModel()
    sidebar = Sidebar(model, theme)
    sidebar.setStyleSheet(themes.stylesheet(theme))
    qtbot.addWidget(sidebar)
    model.reset(sessions)
    sidebar.resize(260, 200)
    sidebar.show()
    qtbot.waitExposed(sidebar)
    return sidebar


def _session(sid: str, title: str, minutes_ago: float) -> dict:
    import time

    return {
        "id": sid,
        "title": title,
        "titleSource": "manual",
        "projectId": None,
        "projectPath": None,
        "pinned": False,
        "messageCount": 2,
        "createdAt": 0,
        "updatedAt": int(time.time() * 1000 - minutes_ago * 60_000),
    }


def test_a_fork_is_marked_in_the_sidebar(qtbot, theme, shot):
    from pidesktop.ui.sidebar.sidebar import is_fork

    title = "Planning the long summer holiday in the mountains"
    sidebar = _sidebar(qtbot, theme, [_session("a", title, 3), _session("b", title + " (fork)", 1)])
    assert is_fork(sidebar.model.session("b")) and not is_fork(sidebar.model.session("a"))
    assert is_fork({"title": "renamed", "forkedFrom": "a"})
    sidebar.select("b")
    shot(sidebar, f"sidebar-fork-{theme.name}")
    # the two rows differ where it shows: the fork's row has the mark at the start of its title
    tree = sidebar.tree
    rows = [tree.visualRect(sidebar.model.index_of(sid)) for sid in ("a", "b")]
    image = tree.viewport().grab().toImage()

    def left_strip(rect):
        return [
            image.pixel(x, y)
            for x in range(rect.left() + 20, rect.left() + 34)
            for y in range(rect.top() + 8, rect.bottom() - 8)
        ]

    assert left_strip(rows[0]) != left_strip(rows[1])


def test_the_time_label_does_not_change_between_partial_repaints(qtbot, monkeypatch):
    import time

    from pidesktop.ui.sidebar import sidebar as sidebar_module

    sidebar = _sidebar(qtbot, themes.LIGHT, [_session("a", "Groceries", 59.9 / 60)])  # "now" for 0.1 s more
    delegate = sidebar.delegate
    painted = []
    real = sidebar_module.relative
    monkeypatch.setattr(sidebar_module, "relative", lambda then, now: painted.append(real(then, now)) or painted[-1])
    later = time.time() + 5
    monkeypatch.setattr(time, "time_ns", lambda: int(later * 1e9))  # the clock the delegate reads (clock.now_ms)
    index = sidebar.model.index_of("a")

    def paint_row():  # what the view does for each (partial) repaint of the row
        from PySide6.QtCore import QRect
        from PySide6.QtGui import QPainter, QPixmap
        from PySide6.QtWidgets import QStyleOptionViewItem

        pixmap = QPixmap(260, 34)
        painter = QPainter(pixmap)
        option = QStyleOptionViewItem()
        option.rect = QRect(0, 0, 260, 34)
        option.font = sidebar.tree.font()
        delegate.paint(painter, option, index)
        painter.end()

    paint_row()  # five seconds later, e.g. half the row exposed by a closing popup
    assert painted == ["now"]  # the same text as the rest of the row shows
    delegate.tick()
    painted.clear()
    paint_row()
    assert set(painted) == {"1m"}  # a tick moves every row on at once
