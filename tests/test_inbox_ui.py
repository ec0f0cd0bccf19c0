"""The inbox panel, its model and the bell, against a real host on the offscreen platform."""

import pytest
from PySide6.QtCore import Qt

from pidesktop.ui.inbox.inbox import EMPTY_TEXT, BellButton, InboxPanel, badge_text
from pidesktop.ui.kit import theme as themes
from tests.support.clock import TickingClock
from tests.support.hosts import InProcessHost
from tests.support.waits import spin_until


def finish_turn(call, title: str, n: int, status: str, error_code: str | None = None) -> str:
    sid = call("session.create", {"title": title} if title else {})["session"]["id"]
    call("session.startTurn", {"sessionId": sid, "turnId": f"turn-{n}"})
    params = {"sessionId": sid, "turnId": f"turn-{n}", "status": status, "createNotification": True}
    if error_code:
        params["errorCode"] = error_code
    call("session.endTurn", params)
    return sid


@pytest.fixture
def seeded(location):
    """A failed turn, then a completed one, stored before the window's host starts."""
    seed = InProcessHost(location, clock=TickingClock())  # distinct times: "newest first" is decided by time
    failed = finish_turn(seed.call, "Deploy the site", 1, "error", "rate_limited")
    done = finish_turn(seed.call, "Write the tests", 2, "completed")
    seed.stop()
    return {"failed": failed, "done": done}


@pytest.fixture
def inbox(qtbot, host_client):
    panel = InboxPanel(host_client, themes.LIGHT)
    bell = BellButton(themes.LIGHT)
    panel.model.unreadChanged.connect(bell.set_count)
    qtbot.addWidget(panel)
    qtbot.addWidget(bell)
    panel.resize(360, 480)
    panel.show()
    panel.bell = bell
    yield panel
    panel.close()


def host_inbox(panel) -> dict:
    return panel.client.call_blocking("notifications.list")


def click_row(qtbot, panel, row: int) -> None:
    index = panel.model.index(row)
    qtbot.mouseClick(panel.list.viewport(), Qt.MouseButton.LeftButton, pos=panel.list.visualRect(index).center())


def test_lists_newest_first_with_kinds_and_an_unread_badge(seeded, inbox, qloop, qtmodeltester):
    qloop.run_until_complete(inbox.refresh())
    model = inbox.model
    rows = [model.row_at(model.index(r)) for r in range(model.rowCount())]
    assert [(r["sessionId"], r["kind"]) for r in rows] == [
        (seeded["done"], "task.completed"),
        (seeded["failed"], "task.failed"),
    ]
    assert rows[1]["errorCode"] == "rate_limited"
    assert [model.index(r).data() for r in range(2)] == ["Write the tests", "Deploy the site"]
    assert model.unread_count == 2
    assert inbox.bell.badge() == "2"
    assert inbox.pages.currentWidget() is inbox.list
    assert not inbox.error_label.isVisible()
    qtmodeltester.check(model)


def test_clicking_a_row_opens_its_session_and_marks_it_read(seeded, inbox, qtbot, qloop):
    qloop.run_until_complete(inbox.refresh())
    with qtbot.waitSignal(inbox.openSession) as opened:
        click_row(qtbot, inbox, 1)
    assert opened.args == [seeded["failed"]]
    spin_until(qloop, lambda: inbox.model.unread_count == 1)
    assert inbox.model.rows[1]["readAt"] is not None and inbox.model.rows[0]["readAt"] is None
    assert inbox.bell.badge() == "1"
    stored = host_inbox(inbox)
    assert stored["unreadCount"] == 1
    assert [n["readAt"] is None for n in stored["notifications"]] == [True, False]


def test_mark_all_read_then_clear_after_confirming(seeded, inbox, qtbot, qloop):
    qloop.run_until_complete(inbox.refresh())
    qtbot.mouseClick(inbox.mark_all_button, Qt.MouseButton.LeftButton)
    spin_until(qloop, lambda: inbox.model.unread_count == 0)
    assert host_inbox(inbox)["unreadCount"] == 0
    assert inbox.bell.badge() == ""
    assert not inbox.mark_all_button.isEnabled()

    qtbot.mouseClick(inbox.clear_button, Qt.MouseButton.LeftButton)
    box = inbox.confirm_box
    assert box is not None and box.isVisible()
    confirm = next(b for b in box.buttons() if b.text() == "Clear")
    qtbot.mouseClick(confirm, Qt.MouseButton.LeftButton)
    spin_until(qloop, lambda: inbox.model.rowCount() == 0)
    assert host_inbox(inbox)["notifications"] == []
    assert inbox.empty_label.isVisible() and inbox.empty_label.text() == EMPTY_TEXT
    assert not inbox.clear_button.isEnabled()


def test_cancelling_clear_keeps_everything(seeded, inbox, qtbot, qloop):
    qloop.run_until_complete(inbox.refresh())
    qtbot.mouseClick(inbox.clear_button, Qt.MouseButton.LeftButton)
    box = inbox.confirm_box
    qtbot.mouseClick(box.button(box.StandardButton.Cancel), Qt.MouseButton.LeftButton)
    spin_until(qloop, lambda: inbox.confirm_box is None)
    assert inbox.model.rowCount() == 2 and len(host_inbox(inbox)["notifications"]) == 2


def test_a_created_event_inserts_the_row_without_a_reload(seeded, inbox, qloop):
    qloop.run_until_complete(inbox.refresh())
    unsubscribe = inbox.client.subscribe(inbox.model.handle_event)
    resets, inserted = [], []
    inbox.model.modelReset.connect(lambda: resets.append(1))
    inbox.model.rowsInserted.connect(lambda parent, first, last: inserted.append((first, last)))
    try:
        sid = finish_turn(inbox.client.call_blocking, "", 3, "completed")
        spin_until(qloop, lambda: inbox.model.rowCount() == 3)
    finally:
        unsubscribe()
    assert inbox.model.rows[0]["sessionId"] == sid
    assert inbox.model.index(0).data() == "Untitled task"
    assert inbox.model.unread_count == 3 and inbox.bell.badge() == "3"
    assert inserted == [(0, 0)] and resets == []


def test_a_read_elsewhere_updates_the_row_in_place(seeded, inbox, qloop):
    qloop.run_until_complete(inbox.refresh())
    unsubscribe = inbox.client.subscribe(inbox.handle_event)
    try:
        first = inbox.model.rows[0]["id"]
        inbox.client.call_blocking("notifications.markRead", {"id": first})
        spin_until(qloop, lambda: inbox.model.unread_count == 1)
        assert inbox.model.rows[0]["readAt"] is not None
        inbox.client.call_blocking("notifications.clear")
        spin_until(qloop, lambda: inbox.model.rowCount() == 0)  # a bulk change reloads
    finally:
        unsubscribe()
    assert inbox.bell.badge() == ""


def test_pages_load_by_cursor(location, qtbot, qloop, qtmodeltester, loop_hosts):
    seed = InProcessHost(location, clock=TickingClock())  # distinct times: "newest first" is decided by time
    for n in range(60):
        finish_turn(seed.call, f"Task {n}", n, "completed")
    seed.stop()
    panel = InboxPanel(loop_hosts.start(), themes.DARK)
    qtbot.addWidget(panel)
    try:
        qloop.run_until_complete(panel.refresh())
        model = panel.model
        assert model.rowCount() == 50 and model.canFetchMore()
        model.fetchMore()
        assert not model.canFetchMore()  # one page in flight at a time
        spin_until(qloop, lambda: model.rowCount() == 60)
        assert not model.canFetchMore()
        assert model.index(0).data() == "Task 59" and model.index(59).data() == "Task 0"
        assert model.unread_count == 60
        qtmodeltester.check(model)
    finally:
        panel.close()


def test_a_host_failure_is_one_line_in_the_panel(seeded, loop_hosts, inbox, qloop):
    loop_hosts.thread_of(inbox.client).stop()  # the host goes away: every call now fails
    qloop.run_until_complete(inbox.refresh())
    assert inbox.error_label.isVisible()
    assert inbox.error_label.text() == "The host is shutting down."
    assert "\n" not in inbox.error_label.text() and "Traceback" not in inbox.error_label.text()


def test_escape_closes_the_panel(inbox, qtbot):
    closed = []
    inbox.closeRequested.connect(lambda: closed.append(1))
    qtbot.keyClick(inbox.list, Qt.Key.Key_Escape)
    assert closed == [1] and not inbox.isVisible()


def test_slides_in_docked_to_the_right_of_its_parent(seeded, qtbot, qloop, loop_hosts):
    from PySide6.QtWidgets import QWidget

    area = QWidget()
    qtbot.addWidget(area)
    area.resize(900, 600)
    area.show()
    panel = InboxPanel(loop_hosts.start(), themes.LIGHT, area)
    assert not panel.isVisible()
    try:
        panel.slide_in()
        spin_until(qloop, lambda: panel.model.rowCount() == 2 and panel.x() == 900 - panel.width())
        assert panel.height() == 600 and panel.isVisible()
        area.resize(1000, 700)
        spin_until(qloop, lambda: panel.geometry().right() == 999 and panel.height() == 700)
    finally:
        area.close()


def test_bell_badge_text():
    assert [badge_text(n) for n in (1, 9, 99, 100, 5000)] == ["1", "9", "99", "99+", "99+"]


def test_bell_hides_its_badge_at_zero(qtbot):
    bell = BellButton(themes.DARK)
    qtbot.addWidget(bell)
    bell.set_count(150)
    assert bell.badge() == "99+" and bell.toolTip() == "Inbox (Ctrl+Shift+I)"
    bell.set_count(0)
    assert bell.badge() == ""
    bell.set_theme(themes.LIGHT)
    assert not bell.grab().isNull()


@pytest.mark.parametrize("theme", [themes.LIGHT, themes.DARK], ids=["light", "dark"])
def test_paints_in_both_themes(seeded, inbox, qloop, theme, tmp_path):
    inbox.set_theme(theme)
    inbox.bell.set_theme(theme)
    qloop.run_until_complete(inbox.refresh())
    inbox.list.setCurrentIndex(inbox.model.index(0))
    assert inbox.grab().save(str(tmp_path / f"inbox-{theme.name}.png"))
    assert inbox.bell.grab().save(str(tmp_path / f"bell-{theme.name}.png"))


def test_a_chats_newer_outcome_replaces_its_unread_row(host_client):
    from pidesktop.ui.inbox.inbox import InboxModel

    model = InboxModel(host_client)
    old = {"id": "n1", "kind": "task.completed", "sessionId": "s", "sessionTitle": "Chat", "readAt": None}
    other = {"id": "n2", "kind": "task.completed", "sessionId": "t", "sessionTitle": "Other", "readAt": None}
    new = {"id": "n3", "kind": "task.failed", "sessionId": "s", "sessionTitle": "Chat", "readAt": None}
    model.handle_event("notification.created", {"notification": old, "unreadCount": 1})
    model.handle_event("notification.created", {"notification": other, "unreadCount": 2})
    model.handle_event("notification.created", {"notification": new, "unreadCount": 2, "replaces": ["n1"]})
    assert [row["id"] for row in model.rows] == ["n3", "n2"] and model.unread_count == 2


def test_inbox_rows_read_as_sentences_not_codes(qapp):
    from pidesktop.ui.inbox.inbox import status_of

    full = status_of({"kind": "task.failed", "errorCode": "outbox_full"})
    assert full.startswith("Too many replies were waiting to be saved")
    assert status_of({"kind": "task.failed", "errorCode": "rate_limited"}).startswith("The provider is limiting")
    assert status_of({"kind": "task.failed", "errorCode": "something_new"}) == "The reply failed."
    assert "·" not in full and "_" not in full
    assert status_of({"kind": "task.completed"}) == "Completed"
