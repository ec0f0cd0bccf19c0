"""A change's Revert in its tool row and the "Files changed" window, against a real host's file tools."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QPoint, Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication

from pidesktop.ui.kit.tasks import spawn
from tests.support.waits import spin_until
from tests.support.windows import started_window

BEFORE = b"def greet(name):\n    return 'hi ' + name\n"
AFTER = b"def greet(name):\n    return f'Hello, {name}!'\n"


@pytest.fixture
def edited(qloop, host_client, tmp_path):
    """A chat in a project whose reply edited greet.py through ``tools.run``: (session id, the file)."""
    project = tmp_path / "proj"
    project.mkdir()
    target = project / "greet.py"
    target.write_bytes(BEFORE)

    def call(method, params):
        return qloop.run_until_complete(host_client.call(method, params))

    sid = call("session.create", {"projectPath": str(project)})["session"]["id"]
    user = {"id": "u1", "role": "user", "blocks": [{"type": "text", "text": "Make the greeting friendlier"}]}
    call("session.appendMessage", {"sessionId": sid, "message": user})
    args = {"path": "greet.py", "oldText": "'hi ' + name", "newText": "f'Hello, {name}!'"}
    answer = call("tools.run", {"sessionId": sid, "turnId": "t1", "callId": "c1", "tool": "edit", "args": args})
    assert answer["ok"] and target.read_bytes() == AFTER
    block = {
        "type": "tool_call",
        "callId": "c1",
        "name": "edit",
        "args": args,
        "status": "ok",
        "result": answer["result"],
        "details": answer["details"],
        "audit": answer["audit"],  # as the runner stores it: its artifacts row is written with the result
    }
    reply = {"id": "a1", "role": "assistant", "blocks": [{"type": "text", "text": "Done."}, block]}
    call("session.appendMessage", {"sessionId": sid, "message": reply})
    return sid, target


def open_chat(qtbot, qloop, host_client, sid):
    win = started_window(qtbot, qloop, host_client)
    win.sidebar.select(sid)
    spin_until(qloop, lambda: win.transcript_model.row_of("a1") >= 0 and win.file_changes.reviews.snapshots)
    return win


def revert_button(win):
    """The Revert of the edit's unfolded row, with where to click it."""
    view = win.transcript
    index = win.transcript_model.index(win.transcript_model.row_of("a1"))
    view.scrollTo(index)
    action = next(a for a in view.delegate.rendered(index).actions if a.name.startswith("revert:"))
    rect = view.visualRect(index)
    return action, QPoint(int(rect.left() + action.rect.center().x()), int(rect.top() + action.rect.center().y()))


def test_the_rows_revert_puts_the_exact_bytes_back(qtbot, qloop, host_client, edited):
    sid, target = edited
    win = open_chat(qtbot, qloop, host_client, sid)
    win.transcript.toggle("tool:a1:0")
    action, spot = revert_button(win)
    assert action.enabled and action.label == "Revert"
    rendered = win.transcript.delegate.rendered(win.transcript_model.index(win.transcript_model.row_of("a1")))
    shown = "\n".join(p.doc.toPlainText() for p in rendered.parts)
    assert "- def greet" not in shown and "-     return 'hi ' + name" in shown and "+1 −1" in shown
    QTest.mouseClick(win.transcript.viewport(), Qt.MouseButton.LeftButton, pos=spot)
    spin_until(qloop, lambda: target.read_bytes() == BEFORE)
    spin_until(qloop, lambda: not revert_button(win)[0].enabled)
    assert revert_button(win)[0].label == "Reverted"
    win.close()


def test_a_file_changed_since_is_not_reverted_and_the_row_says_why(qtbot, qloop, host_client, edited):
    sid, target = edited
    win = open_chat(qtbot, qloop, host_client, sid)
    target.write_bytes(AFTER + b"# changed by hand\n")
    win.transcript.toggle("tool:a1:0")
    _action, spot = revert_button(win)
    QTest.mouseClick(win.transcript.viewport(), Qt.MouseButton.LeftButton, pos=spot)
    spin_until(qloop, lambda: "The file changed since; nothing was reverted." in win.notice.label.text())
    assert target.read_bytes() == AFTER + b"# changed by hand\n"
    assert not win.file_changes.reviews.snapshots[0]["reverted"]
    win.close()


def test_the_files_changed_window_lists_opens_and_reverts(qtbot, qloop, host_client, edited, keep_running):
    sid, target = edited
    win = open_chat(qtbot, qloop, host_client, sid)
    spin_until(qloop, lambda: win.file_changes.button.isVisible())
    assert win.file_changes.button.text() == "Files changed · 1"
    QTest.keyClick(win, Qt.Key.Key_E, Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier)
    spin_until(qloop, lambda: win.file_changes.panel is not None and win.file_changes.panel.isVisible())
    panel = win.file_changes.panel
    opened = []
    panel.opener = lambda url: opened.append(url.toLocalFile()) or True
    path = str(target.resolve())
    open_button, revert = panel.buttons[path]
    assert panel.rows.findChildren(type(panel.heading))[0].text() == "greet.py"  # shown inside its project
    open_button.click()
    assert opened == [path]
    assert revert.isEnabled()
    revert.setFocus()
    QTest.keyClick(revert, Qt.Key.Key_Space)  # keyboard reachable
    spin_until(qloop, lambda: target.read_bytes() == BEFORE)
    spin_until(qloop, lambda: not panel.buttons[path][1].isEnabled())
    # the host's review.changed can redraw the rows before the revert's own reply is handled: wait for its note
    spin_until(qloop, lambda: "back as it was" in panel.note.text())
    texts = [label.text() for label in panel.rows.findChildren(type(panel.heading))]
    assert any(text.startswith("reverted") for text in texts), texts
    panel.close()
    win.close()


def test_closing_the_window_while_its_revert_runs_leaves_no_error(qtbot, qloop, host_client, edited, keep_running):
    """The panel is deleted on close; the revert's reply and the review.changed it brings come after."""
    sid, target = edited
    win = open_chat(qtbot, qloop, host_client, sid)
    spin_until(qloop, lambda: win.file_changes.button.isVisible())
    panel = win.file_changes.open_panel()
    spin_until(qloop, lambda: panel.buttons)
    task = spawn(panel.revert(str(target.resolve())), name="files-revert")
    panel.close()
    spin_until(qloop, lambda: win.file_changes.panel is None)  # deleted, with the revert still running
    spin_until(qloop, task.done)
    assert task.result() is True and target.read_bytes() == BEFORE
    spin_until(qloop, lambda: win.file_changes.reviews.snapshots[0]["reverted"])  # review.changed came after
    win.close()


def test_a_change_to_a_file_over_1_mib_cannot_be_reverted_and_both_places_say_why(
    qtbot, qloop, host_client, tmp_path, keep_running
):
    project = tmp_path / "big"
    project.mkdir()
    target = project / "data.txt"
    target.write_bytes(b"x" * (1024 * 1024 + 10))

    def call(method, params):
        return qloop.run_until_complete(host_client.call(method, params))

    sid = call("session.create", {"projectPath": str(project)})["session"]["id"]
    args = {"path": "data.txt", "content": "small now\n"}
    answer = call("tools.run", {"sessionId": sid, "turnId": "t1", "callId": "c1", "tool": "write", "args": args})
    assert answer["ok"] and answer["details"]["review"]["reversible"] is False
    block = {"type": "tool_call", "callId": "c1", "name": "write", "args": args, "status": "ok", **answer}
    block.pop("ok")
    user = {"id": "u1", "role": "user", "blocks": [{"type": "text", "text": "Shrink it"}]}
    call("session.appendMessage", {"sessionId": sid, "message": user})
    call("session.appendMessage", {"sessionId": sid, "message": {"id": "a1", "role": "assistant", "blocks": [block]}})
    win = open_chat(qtbot, qloop, host_client, sid)
    win.transcript.toggle("tool:a1:0")
    action, spot = revert_button(win)
    assert not action.enabled
    QTest.mouseClick(win.transcript.viewport(), Qt.MouseButton.LeftButton, pos=spot)
    assert "tool:a1:0" in win.transcript.expanded  # a switched-off button does not fold the row
    rendered = win.transcript.delegate.rendered(win.transcript_model.index(win.transcript_model.row_of("a1")))
    assert "larger than 1 MiB" in "\n".join(p.doc.toPlainText() for p in rendered.parts)
    panel = win.file_changes.open_panel()
    spin_until(qloop, lambda: panel.buttons)
    revert = panel.buttons[str(target.resolve())][1]
    assert not revert.isEnabled() and "1 MiB" in revert.toolTip()
    panel.close()
    win.close()


@pytest.mark.parametrize("theme_name", ["light", "dark"])
def test_screenshots(qtbot, qloop, host_client, edited, shots, theme_name, keep_running):
    from pidesktop.ui.kit import theme as themes

    sid, _target = edited
    theme = themes.LIGHT if theme_name == "light" else themes.DARK
    win = started_window(qtbot, qloop, host_client, theme=theme, size=(1100, 720))
    themes.apply(QApplication.instance(), theme)
    win.dialogs.set_theme(theme)
    win.sidebar.select(sid)
    spin_until(qloop, lambda: win.transcript_model.row_of("a1") >= 0 and win.file_changes.button.isVisible())
    win.transcript.toggle("tool:a1:0")
    spin_until(qloop, lambda: revert_button(win)[0].enabled)
    win.transcript.scroll_to_end()
    assert win.grab().save(str(shots / f"tool-row-diff-{theme_name}.png"))
    panel = win.file_changes.open_panel()
    spin_until(qloop, lambda: panel.buttons)
    assert panel.grab().save(str(shots / f"files-changed-{theme_name}.png"))
    panel.close()
    win.close()
    themes.apply(QApplication.instance(), themes.LIGHT)
