"""The sidebar's tree model: row changes made one at a time end where a whole relayout would."""

import gc
import random

import pytest
from PySide6.QtGui import QStandardItemModel
from PySide6.QtWidgets import QTreeView

from pidesktop.ui.prefs import Preferences
from pidesktop.ui.session_model import SessionTreeModel


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
    return {"id": f"s{number:03d}", "title": rng.choice([f"t{number}", None, "alpha"]),
            "projectPath": rng.choice([None, "/a", "/b", "/c/d"]), "updatedAt": rng.randint(0, 400),
            "createdAt": rng.randint(0, 400),
            **({"lastTurn": {"status": "running"}} if rng.random() < 0.1 else {})}


def test_the_tree_shape_is_answered_in_cpp():
    """A view walks every row through these after each page: a Python override costs a stall per page."""
    for name in ("index", "parent", "rowCount", "hasChildren", "flags"):
        assert getattr(SessionTreeModel, name) is getattr(QStandardItemModel, name), name


@pytest.mark.parametrize("seed", range(3))
def test_row_changes_match_a_whole_relayout(qtmodeltester, qapp, seed):
    rng = random.Random(seed)
    prefs = Preferences(None)
    model = SessionTreeModel(prefs)
    view = QTreeView()
    view.setModel(model)
    sessions = sorted((session(rng, n) for n in range(120)), key=lambda s: -s["updatedAt"])
    model.reset(sessions[:30])
    for start in range(30, 120, 40):
        model.extend(sessions[start:start + 40])
    qtmodeltester.check(model)
    for step in range(120):
        roll = rng.random()
        if roll < 0.5:
            model.upsert(session(rng, rng.randrange(140)))  # new, moved, or changed in place
        elif roll < 0.7:
            model.remove(f"s{rng.randrange(140):03d}")
        elif roll < 0.8:
            prefs.sidebar["sessionView"]["sort"] = rng.choice(["recent", "created", "oldest", "name"])
            prefs.sidebar["projectSort"] = rng.choice(["recent", "created", "oldest", "name", "manual"])
            model.relayout()
        else:
            prefs.set_session_flag(f"s{rng.randrange(120):03d}", rng.choice(["pinned", "archived"]), True)
            model.relayout()
        # Group by group: a removal leaves the groups' order as it was until the next change.
        assert dict(layout(model)) == dict(whole(prefs, model)), step
        if not 0.5 <= roll < 0.7:
            assert layout(model) == whole(prefs, model), step
        running = {s["id"] for s in model._sessions.values() if (s.get("lastTurn") or {}).get("status") == "running"}
        assert model.has_running() == bool(running)
    gc.collect()  # rows must not depend on a Python wrapper staying alive
    assert dict(layout(model)) == dict(whole(prefs, model))
    view.deleteLater()
