"""Fixes from a first hour with the app: each test pins one thing a person saw go wrong."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from pidesktop.ui import data_tools
from pidesktop.ui import theme as themes

from .conftest import InProcessHost, started_window, wait_until


def shot(widget, name: str) -> None:
    """Saved only where $PIDESKTOP_SHOTS asks (to look at); otherwise just rendered."""
    folder = os.environ.get("PIDESKTOP_SHOTS")
    image = widget.grab()
    assert not image.isNull()
    if folder:
        Path(folder).mkdir(parents=True, exist_ok=True)
        image.save(str(Path(folder) / f"{name}.png"))


@pytest.fixture(params=[themes.LIGHT, themes.DARK], ids=["light", "dark"])
def theme(request, qapp):
    themes.apply(qapp, request.param)
    yield request.param
    themes.apply(qapp, themes.LIGHT)


def one_chat(location) -> str:
    host = InProcessHost(location)
    try:
        sid = host.call("session.create", {"title": "Trip"})["session"]["id"]
        host.call(
            "session.appendMessage",
            {"sessionId": sid, "message": {"id": "m-u", "role": "user", "blocks": [{"type": "text", "text": "hello"}]}},
        )
        return sid
    finally:
        host.stop()


def shows_whole_report(dialog) -> bool:
    label = dialog.report
    return label.isVisible() and label.height() >= label.heightForWidth(label.width())


# -- 2. the result line of Verify and Back up shows whole -------------------------------------
def test_verify_result_line_is_not_squeezed(qtbot, qloop, loop_hosts, location, theme, keep_running):
    one_chat(location)
    dialog = data_tools.VerifyDialog(loop_hosts.start(), theme)
    qtbot.addWidget(dialog)
    dialog.open()
    qloop.run_until_complete(wait_until(lambda: dialog.result is not None))
    qtbot.wait(20)
    assert dialog.report.text().startswith("No problems found.")
    assert shows_whole_report(dialog)
    shot(dialog, f"fixes-verify-{theme.name}")


def test_backup_result_line_is_not_squeezed(qtbot, qloop, loop_hosts, location, theme, keep_running, isolated_home):
    one_chat(location)
    dialog = data_tools.BackupDialog(loop_hosts.start(), theme)
    qtbot.addWidget(dialog)
    dialog.open()
    dialog.path_edit.setText(str(isolated_home / "pi-backup.sqlite"))
    dialog.backup_button.click()
    qloop.run_until_complete(wait_until(lambda: dialog.result is not None))
    qtbot.wait(20)
    assert dialog.report.text().startswith("Backed up and verified")
    assert shows_whole_report(dialog)
    shot(dialog, f"fixes-backup-{theme.name}")


# -- 3. the move wizard names the folder the data ends in, and the next start confirms it -----
@pytest.fixture
def movable(isolated_home):
    """The installation's own (movable) data root, with one chat."""
    from pidesktop import paths

    location = paths.resolve()
    one_chat(location)
    return location


def test_the_wizard_shows_the_final_data_folder(qtbot, qloop, loop_hosts, movable, tmp_path, monkeypatch, keep_running):
    from PySide6.QtWidgets import QWizard

    from pidesktop.ui.storage_wizard import StorageWizard

    monkeypatch.setattr(StorageWizard, "relaunch", staticmethod(lambda: None))
    wizard = StorageWizard(movable, loop_hosts.start(movable), themes.LIGHT)
    qtbot.addWidget(wizard)
    wizard.open()
    destination = tmp_path / "big-disk" / "moved"
    wizard.choose.path_edit.setText(str(destination))
    qloop.run_until_complete(wait_until(lambda: wizard.choose.plan is not None))
    wizard.next()
    qloop.run_until_complete(wait_until(lambda: wizard.review.ready))
    wizard.next()
    assert wizard.currentPage() is wizard.confirm
    summary = wizard.confirm.summary.text()
    assert f"(chats and files in {destination / 'data'}," in summary.splitlines()[1], summary
    assert f"From: {movable.data_root}\n" in summary
    assert wizard.button(QWizard.WizardButton.FinishButton).isEnabled()
    shot(wizard, "fixes-move-confirm-light")


def test_the_first_start_after_a_move_says_where_the_data_lives_once(qtbot, movable, tmp_path):
    from pidesktop import paths
    from pidesktop.ui.startup_progress import MoveProgressWindow
    from pidesktop.ui.storage_wizard import completed_move_notice, schedule_move

    assert completed_move_notice(movable) is None  # nothing was moved
    destination = tmp_path / "moved"
    schedule_move(destination)
    window = MoveProgressWindow(movable, themes.LIGHT)
    qtbot.addWidget(window)
    window.begin()
    qtbot.waitUntil(lambda: window.result_location is not None or window.error is not None, timeout=60_000)
    assert window.error is None
    moved = paths.resolve()
    assert moved.data_root == destination / "data"
    assert completed_move_notice(moved) == f"Your data now lives in {destination / 'data'}."
    assert completed_move_notice(moved) is None  # once
    assert completed_move_notice(paths.resolve()) is None


# -- 4. search snippets read as text, not markdown ------------------------------------------
def test_snippets_drop_markdown_markers_and_keep_the_hit_marked():
    from pidesktop.ui.search_dialog import plain_snippet, snippet_segments

    text = "…ready. **Links:** none; see [the notes](https://x.example/n) and `pip install` *now*"
    hit = text.index("Links")
    plain, marks = plain_snippet(text, [[hit, hit + 5]])
    assert plain == "…ready. Links: none; see the notes and pip install now"
    assert snippet_segments(plain, marks) == [
        ("…ready. ", False),
        ("Links", True),
        (": none; see the notes and pip install now", False),
    ]
    # markers cut by the snippet window, and what only looks like markup
    assert plain_snippet("an unclosed **bold tail", [])[0] == "an unclosed bold tail"
    assert plain_snippet("2 * 3 * 4, snake_case_name, a_b", [])[0] == "2 * 3 * 4, snake_case_name, a_b"
    assert plain_snippet("# Plan\n> quoted\n* item", [])[0] == "Plan\nquoted\nitem"


def test_search_results_paint_plain_snippets(qtbot, theme):
    from pidesktop.ui.search_dialog import SearchDialog

    dialog = SearchDialog(None, theme)
    qtbot.addWidget(dialog)
    text = "**Status:** done. **Links:** none. The `deploy` step is *manual*."
    hit = text.index("deploy")
    dialog.model._apply(
        dialog.model._generation,
        "deploy",
        {
            "results": [
                {
                    "sessionId": "s1",
                    "title": "Release checklist",
                    "matchCount": 1,
                    "updatedAt": 0,
                    "snippets": [
                        {"messageId": "m1", "role": "assistant", "text": text, "highlights": [[hit, hit + 6]]}
                    ],
                }
            ],
            "nextCursor": None,
            "totalSessions": 1,
        },
    )
    dialog.resize(640, 300)
    dialog.show()
    qtbot.wait(30)
    shot(dialog, f"fixes-search-{theme.name}")


# -- 5. the offline demo thinks only when asked; a streaming reply never shows raw markers ---
def test_the_offline_demo_thinks_only_when_thinking_is_on():
    import asyncio

    from pidesktop.agent.events import TextDelta, ThinkingDelta
    from pidesktop.agent.offline import OfflineDemoProvider

    messages = [{"id": "u", "role": "user", "blocks": [{"type": "text", "text": "hello there"}]}]

    async def kinds(level: str) -> set:
        return {type(event) async for event in OfflineDemoProvider(delay=0).stream(messages, thinking_level=level)}

    assert ThinkingDelta not in asyncio.run(kinds("off")) and TextDelta in asyncio.run(kinds("off"))
    assert ThinkingDelta in asyncio.run(kinds("medium"))


def _row_text(message: dict, live: bool) -> str:
    from PySide6.QtGui import QFont

    from pidesktop.ui.message_layout import layout_row

    rendered = layout_row(
        {"kind": "message", "message": message, "live": live}, 800, themes.LIGHT, QFont(), frozenset()
    )
    return "\n".join(part.doc.toPlainText() for part in rendered.parts)


@pytest.mark.parametrize(
    "partial", ["- **Size:** 15 words\n- **First sen", "Run `pip inst", "It is *very", "Done **", "Say __hi"]
)
def test_a_streaming_reply_does_not_flash_unclosed_markers(qapp, partial):
    message = {"id": "a1", "role": "assistant", "blocks": [{"type": "text", "text": partial}]}
    shown = _row_text(message, live=True)
    assert not any(marker in shown for marker in ("**", "`", "*", "__")), shown
    assert "▍" in shown


def test_a_finished_reply_keeps_its_text_as_written(qapp):
    from pidesktop.ui.markdown import close_open_markers

    message = {"id": "a1", "role": "assistant", "blocks": [{"type": "text", "text": "a lone ** stays"}]}
    assert "**" in _row_text(message, live=False)
    fenced = "Code:\n\n```python\nprint('**')"
    assert close_open_markers(fenced) == fenced  # an open fence runs to the end by itself
    assert close_open_markers("2 * 3 and snake_case") == "2 * 3 and snake_case"


# -- 6. a reply cut off by a crash says so, unlike one the person stopped -------------------
def _crash_mid_reply(location) -> str:
    """A turn that started, checkpointed part of its reply and never ended (the process died)."""
    host = InProcessHost(location)
    try:
        sid = host.call("session.create", {"title": "Story"})["session"]["id"]
        host.call(
            "session.appendMessage",
            {
                "sessionId": sid,
                "message": {"id": "u1", "role": "user", "blocks": [{"type": "text", "text": "write me a story"}]},
            },
        )
        host.call("session.startTurn", {"sessionId": sid, "turnId": "t1"})
        host.call(
            "session.saveInflightMessage",
            {
                "sessionId": sid,
                "turnId": "t1",
                "message": {
                    "id": "a1",
                    "role": "assistant",
                    "blocks": [{"type": "text", "text": "Once upon a"}],
                    "meta": {"status": "streaming"},
                },
            },
        )
        return sid
    finally:
        host.stop()  # no endTurn, no final append: what a kill -9 leaves


def test_the_boot_pass_marks_a_reply_cut_off_by_a_crash(location):
    sid = _crash_mid_reply(location)
    host = InProcessHost(location)  # reopening runs the boot pass
    try:
        got = host.call("session.get", {"sessionId": sid})
        assert got["session"]["lastTurn"]["status"] == "aborted"
        recovered = got["messages"][-1]
        assert recovered["id"] == "a1" and recovered["blocks"][0]["text"] == "Once upon a"
        assert recovered["meta"]["status"] == "aborted" and recovered["meta"]["stopReason"] == "crash"
        assert "error" not in recovered["meta"]  # aborted, not failed
        # Spec 004 (4.14, acceptance list): aborted turns are never a notification source.
        assert host.call("notifications.list")["notifications"] == []
    finally:
        host.stop()


def test_a_stopped_reply_is_not_marked_as_a_crash(location):
    host = InProcessHost(location)
    try:
        sid = host.call("session.create", {"title": "Story"})["session"]["id"]
        host.call("session.startTurn", {"sessionId": sid, "turnId": "t1"})
        host.call(
            "session.appendMessage",
            {
                "sessionId": sid,
                "turnId": "t1",
                "message": {
                    "id": "a1",
                    "role": "assistant",
                    "blocks": [{"type": "text", "text": "Once"}],
                    "meta": {"status": "aborted"},
                },
            },
        )
        host.call(
            "session.endTurn", {"sessionId": sid, "turnId": "t1", "status": "aborted", "createNotification": False}
        )
    finally:
        host.stop()
    again = InProcessHost(location)
    try:
        meta = again.call("session.get", {"sessionId": sid})["messages"][-1]["meta"]
        assert meta["status"] == "aborted" and "stopReason" not in meta
        assert again.call("notifications.list")["notifications"] == []
    finally:
        again.stop()


def test_the_transcript_labels_a_crash_apart_from_a_stop(qapp):
    crashed = {
        "id": "a1",
        "role": "assistant",
        "blocks": [{"type": "text", "text": "Once upon a"}],
        "meta": {"status": "aborted", "recoveredFrom": "inflight", "stopReason": "crash"},
    }
    stopped = {
        "id": "a2",
        "role": "assistant",
        "blocks": [{"type": "text", "text": "Once upon a"}],
        "meta": {"status": "aborted"},
    }
    assert "Interrupted — pidesktop quit or crashed while this reply was being written." in _row_text(crashed, False)
    assert "Stopped — the reply above is partial." in _row_text(stopped, False)
    assert "Interrupted" not in _row_text(stopped, False)


def test_inbox_rows_read_as_sentences_not_codes(qapp):
    from pidesktop.ui.inbox import status_of

    crash = status_of({"kind": "task.failed", "errorCode": "aborted_by_crash"})
    assert crash == "The reply was cut off because pidesktop quit or crashed while it was being written."
    assert status_of({"kind": "task.failed", "errorCode": "rate_limited"}).startswith("The provider is limiting")
    assert status_of({"kind": "task.failed", "errorCode": "something_new"}) == "The reply failed."
    assert "·" not in crash and "_" not in status_of({"kind": "task.failed", "errorCode": "outbox_full"})
    assert status_of({"kind": "task.completed"}) == "Completed"


# -- 7/8. the sidebar marks forks, and a row's time label is the same in every partial repaint ----
def _sidebar(qtbot, theme, sessions):
    from pidesktop.ui.session_model import SessionTreeModel
    from pidesktop.ui.sidebar import Sidebar

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


def test_a_fork_is_marked_in_the_sidebar(qtbot, theme):
    from pidesktop.ui.sidebar import is_fork

    title = "Planning the long summer holiday in the mountains"
    sidebar = _sidebar(qtbot, theme, [_session("a", title, 3), _session("b", title + " (fork)", 1)])
    assert is_fork(sidebar.model.session("b")) and not is_fork(sidebar.model.session("a"))
    assert is_fork({"title": "renamed", "forkedFrom": "a"})
    sidebar.select("b")
    qtbot.wait(30)
    shot(sidebar, f"fixes-sidebar-fork-{theme.name}")
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

    from pidesktop.ui import sidebar as sidebar_module

    sidebar = _sidebar(qtbot, themes.LIGHT, [_session("a", "Groceries", 59.9 / 60)])  # "now" for 0.1 s more
    delegate = sidebar.delegate
    painted = []
    real = sidebar_module.relative
    monkeypatch.setattr(sidebar_module, "relative", lambda then, now: painted.append(real(then, now)) or painted[-1])
    later = time.time() + 5
    monkeypatch.setattr(time, "time", lambda: later)
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


# -- 9. the attach-files picker opens at home (then the last folder), at a useful size ------
def test_the_file_picker_opens_at_home_then_the_last_folder(qapp, isolated_home, monkeypatch, tmp_path):
    from PySide6.QtWidgets import QFileDialog

    from pidesktop.ui.attachment_tray import PICKER_SIZE, FilePicker

    monkeypatch.setattr(FilePicker, "last_folder", None)
    seen = []
    picked = tmp_path / "photos" / "cat.png"
    picked.parent.mkdir()
    picked.write_bytes(b"png")

    def fake_exec(dialog):
        seen.append((dialog.directory().absolutePath(), (dialog.width(), dialog.height())))
        monkeypatch.setattr(QFileDialog, "selectedFiles", lambda self: [str(picked)])
        return 1

    monkeypatch.setattr(QFileDialog, "exec", fake_exec)
    assert FilePicker.choose(None, "Attach files")[0] == [str(picked)]
    assert seen[0] == (str(isolated_home), PICKER_SIZE)
    FilePicker.choose(None, "Attach files")
    assert seen[1][0] == str(picked.parent)


def test_error_details_and_question_boxes_use_the_app_look(qtbot, theme):
    from PySide6.QtWidgets import QMessageBox

    from pidesktop.bus import HostError
    from pidesktop.ui.dialog_style import style_message_box
    from pidesktop.ui.error_details import ErrorDetailsDialog, ErrorLog

    log = ErrorLog()
    log.add(HostError("storage_unavailable", "disk gone")) if hasattr(log, "add") else None
    dialog = ErrorDetailsDialog(log)
    qtbot.addWidget(dialog)
    assert "QPushButton#primary" in dialog.styleSheet() or "pageTitle" in dialog.styleSheet()
    dialog.show()
    qtbot.wait(20)
    shot(dialog, f"fixes-error-details-{theme.name}")
    box = QMessageBox(
        QMessageBox.Icon.Warning, "Delete chat", "Delete “Trip” for good?", QMessageBox.StandardButton.Cancel
    )
    delete = box.addButton("Delete", QMessageBox.ButtonRole.DestructiveRole)
    style_message_box(box, theme)
    qtbot.addWidget(box)
    assert delete.objectName() == "danger" and box.styleSheet()
    box.show()
    qtbot.wait(20)
    shot(box, f"fixes-delete-box-{theme.name}")


def test_the_next_start_is_told_which_replies_a_crash_cut_off(location):
    sid = _crash_mid_reply(location)
    host = InProcessHost(location)
    try:
        hello = host.call("app.handshake", {"protocolVersion": 1})
        assert hello["interruptedReplies"] == [{"sessionId": sid, "sessionTitle": "Story", "messageId": "a1"}]
    finally:
        host.stop()
    again = InProcessHost(location)  # told once: the start after that has nothing to say
    try:
        assert again.call("app.handshake", {"protocolVersion": 1})["interruptedReplies"] == []
    finally:
        again.stop()


def test_the_window_says_a_reply_was_cut_off_by_a_crash(qtbot, qloop, location, loop_hosts):
    _crash_mid_reply(location)  # before the window's host starts
    win = started_window(qtbot, qloop, loop_hosts.start(), size=None)
    assert win.notice.isVisible()
    assert "“Story” was cut off" in win.notice.label.text()
    assert not win.notice.details_button.isVisible()  # news, not an error
    win.close()
