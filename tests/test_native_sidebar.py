"""Native pi sessions in the sidebar: their groups, pi badge, fork mark, the filter, read-only actions.

Rows are shaped as ``session.list`` returns them (docs/rpc.md, "Native pi sessions").
"""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt

from pidesktop.ui.kit import theme as themes
from pidesktop.ui.kit.prefs import Preferences, normalise
from pidesktop.ui.sidebar import native_rows
from pidesktop.ui.sidebar.session_model import SessionTreeModel
from pidesktop.ui.sidebar.sidebar import Sidebar, is_fork

NOW = 1_796_134_600_000


def desktop(n: int, title: str, project: str | None = None) -> dict:
    return {
        "id": f"d{n}",
        "title": title,
        "updatedAt": NOW - n * 1000,
        "createdAt": NOW - n * 1000,
        "origin": "desktop",
        "readOnly": False,
        "projectPath": project,
        "messageCount": 2,
    }


def native(n: int, title: str, cwd: str, project: str | None = None, parent: str | None = None) -> dict:
    return {
        "id": f"native-pi:{n:04x}",
        "origin": "native-pi",
        "readOnly": True,
        "nativeId": f"01a2-{n}",
        "cwd": cwd,
        "title": title,
        "updatedAt": NOW - n * 1000,
        "createdAt": NOW - n * 1000,
        "messageCount": 4,
        "modelId": "fake-coder-1",
        "projectId": "p1" if project else None,
        "projectPath": project,
        "pinned": False,
        **({"parentSessionId": parent} if parent else {}),
    }


ROWS = [
    desktop(1, "Trip"),
    desktop(2, "Parser", "/home/ada/code/app"),
    native(3, "Fix CI", "/home/ada/code/app", "/home/ada/code/app"),
    native(4, "Branching demo", "/home/ada/code/work"),
    native(5, "RPC extras (clone)", "/home/ada/code/work", parent="native-pi:0006"),
    native(6, "RPC extras", "/home/ada/code/work"),
    native(7, "你好", "/home/ada/code/work2"),
]


def layout(model) -> list[tuple[str, list[str]]]:
    out = []
    for row in range(model.rowCount()):
        group = model.index(row, 0)
        out.append((group.data(), [model.index(r, 0, group).data() for r in range(model.rowCount(group))]))
    return out


@pytest.fixture
def sidebar(qtbot, tmp_path):
    prefs = Preferences(tmp_path / "ui")
    model = SessionTreeModel(prefs)
    bar = Sidebar(model, themes.LIGHT)
    qtbot.addWidget(bar)
    model.reset([dict(row) for row in ROWS])
    bar.resize(280, 520)
    bar.show()
    qtbot.waitExposed(bar)  # laid out at its size: a grab before that reads rows the view has not placed yet
    return bar


def test_native_rows_go_to_their_project_else_a_folder_group_after_the_chats(sidebar, qtmodeltester):
    assert layout(sidebar.model) == [
        ("app", ["Parser", "Fix CI"]),
        ("Chats", ["Trip"]),
        ("work · pi", ["Branching demo", "RPC extras (clone)", "RPC extras"]),
        ("work2 · pi", ["你好"]),
    ]
    tip = sidebar.model.group_index("pi:/home/ada/code/work").data(Qt.ItemDataRole.ToolTipRole)
    assert "/home/ada/code/work" in tip
    qtmodeltester.check(sidebar.model)


def test_show_pi_sessions_filter_hides_them_and_is_remembered(sidebar, tmp_path):
    sidebar.show_native_action.setChecked(False)
    assert layout(sidebar.model) == [("app", ["Parser"]), ("Chats", ["Trip"])]
    assert Preferences(tmp_path / "ui").sidebar["sessionView"]["native"] is False
    # a row arriving while the filter is off stays hidden; turning it on brings every one back
    sidebar.model.upsert(native(8, "Newest pi", "/home/ada/code/work"))
    assert "Newest pi" not in str(layout(sidebar.model))
    sidebar.show_native_action.setChecked(True)
    assert "Newest pi" in str(layout(sidebar.model)) and "你好" in str(layout(sidebar.model))
    assert Preferences(tmp_path / "ui").sidebar["sessionView"]["native"] is True


def test_filter_preference_defaults_on_and_drops_bad_values():
    assert normalise(None)["sidebar"]["sessionView"]["native"] is True
    assert normalise({"sidebar": {"sessionView": {"native": "no"}}})["sidebar"]["sessionView"]["native"] is True
    assert normalise({"sidebar": {"sessionView": {"native": False}}})["sidebar"]["sessionView"]["native"] is False


def test_fork_mark_only_for_a_pi_session_with_a_parent():
    assert is_fork(native(5, "x", "/w", parent="native-pi:0006"))
    assert not is_fork(native(6, "x", "/w"))
    assert not native_rows.is_fork(desktop(1, "x") | {"parentSessionId": "d2"})


def test_a_native_row_paints_a_pi_badge(sidebar):
    """The same title and time without the badge draws clearly fewer ink pixels."""

    def muted_pixels(session_id: str) -> int:
        rect = sidebar.tree.visualRect(sidebar.model.index_of(session_id))
        assert sidebar.tree.viewport().rect().contains(rect), (session_id, rect)  # a row on screen, not off it
        image = sidebar.tree.viewport().grab(rect).toImage()
        return sum(
            1 for x in range(image.width()) for y in range(image.height()) if image.pixelColor(x, y).lightness() < 200
        )

    sidebar.model.upsert(desktop(4, "Branching demo") | {"id": "plain"})  # same title and time, no badge
    assert muted_pixels("native-pi:0004") > muted_pixels("plain") + 20


def test_rename_delete_and_compact_are_off_for_a_pi_session(sidebar):
    sidebar.select("native-pi:0004")
    assert not sidebar.rename_action.isEnabled()
    assert not sidebar.delete_action.isEnabled() and not sidebar.compact_action.isEnabled()
    assert sidebar.fork_action.isEnabled() and sidebar.pin_action.isEnabled()
    index = sidebar.model.index_of("native-pi:0004")
    assert not sidebar.model.flags(index) & Qt.ItemFlag.ItemIsEditable
    with_deleted = []
    sidebar.deleteRequested.connect(with_deleted.append)
    sidebar.delete_action.trigger()
    assert with_deleted == []
    sidebar.select("d1")
    assert sidebar.rename_action.isEnabled() and sidebar.delete_action.isEnabled()
    assert sidebar.model.flags(sidebar.model.index_of("d1")) & Qt.ItemFlag.ItemIsEditable


def test_the_current_chat_stays_current_when_newer_activity_moves_it_up(sidebar):
    opened = []
    sidebar.sessionActivated.connect(opened.append)
    sidebar.select("native-pi:0006")
    assert opened == ["native-pi:0006"]
    sidebar.model.upsert(native(6, "RPC extras", "/home/ada/code/work") | {"updatedAt": NOW + 5000})
    assert layout(sidebar.model)[2] == ("work · pi", ["RPC extras", "Branching demo", "RPC extras (clone)"])
    assert sidebar.current_session_id() == "native-pi:0006" and opened == ["native-pi:0006"]
    # a move out of sight (the filter) leaves nothing current rather than opening a neighbour
    sidebar.show_native_action.setChecked(False)
    assert opened == ["native-pi:0006"]
