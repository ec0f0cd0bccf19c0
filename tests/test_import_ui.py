"""The Import chats dialog and the Trash view, driven on a real host thread (pytest-qt, offscreen)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QMessageBox

from pidesktop.ui.data.host_jobs import run_job
from pidesktop.ui.data.import_dialog import ImportDialog
from pidesktop.ui.sidebar.trash_view import TrashDialog
from tests.support.waits import spin_until
from tests.support.windows import started_window
from tests.test_import_readers import CLAUDE, CODEX


@pytest.fixture
def tools_at_home(monkeypatch):
    """Claude Code and Codex sessions where those tools keep them; no pi folder."""
    for moved in ("PI_CODING_AGENT_DIR", "CLAUDE_CONFIG_DIR", "CODEX_HOME"):
        monkeypatch.delenv(moved, raising=False)
    home = Path(os.environ["HOME"])
    claude = home / ".claude" / "projects" / "-tmp"
    claude.mkdir(parents=True)
    shutil.copy(CLAUDE / "representative_messages.jsonl", claude)
    (claude / "broken.jsonl").write_bytes(b"\x00 not a session\n")
    codex = home / ".codex" / "sessions" / "2026" / "01" / "02"
    codex.mkdir(parents=True)
    shutil.copy(next(CODEX.glob("*.jsonl")), codex)
    return home


def darkest_text(tree, item) -> int:
    """The lightness of the darkest pixel of a row's first column: its text's colour on a light theme."""
    shot = tree.viewport().grab(tree.visualItemRect(item)).toImage()
    width = tree.columnWidth(0)
    return min(shot.pixelColor(x, y).lightness() for x in range(min(width, shot.width())) for y in range(shot.height()))


def test_the_dialog_finds_the_default_folders_imports_and_shows_a_summary_with_details(
    qtbot, qloop, host_client, tools_at_home, shots
):
    dialog = ImportDialog(host_client)
    qtbot.addWidget(dialog)
    dialog.resize(640, 420)
    dialog.open()
    spin_until(qloop, lambda: len(dialog.found) == 3 and dialog.import_button.isEnabled())
    spin_until(qloop, lambda: "Nothing in" in dialog.items["pi"].text(1))
    assert dialog.items["claude-code"].text(1) == "2 sessions, 2 new or changed"
    assert dialog.items["codex"].text(1) == "1 session, 1 new or changed"
    assert dialog.checked() == ["claude-code", "codex"]
    assert dialog.items["pi"].text(1) == "Nothing in ~/.pi/agent/sessions"
    # a source with nothing to import is greyed, as it cannot be ticked
    assert darkest_text(dialog.list, dialog.items["pi"]) > darkest_text(dialog.list, dialog.items["codex"]) + 40
    dialog.grab().save(str(shots / "import-found.png"))

    dialog.import_button.click()
    spin_until(qloop, lambda: dialog.report.isVisible() and len(dialog.summaries) == 2, timeout=30)
    assert dialog.report.text() == "Imported 2 chats. 1 file could not be read (see Details)."
    assert dialog.details_button.isVisible() and not dialog.details.isVisible()
    dialog.details_button.click()
    assert "broken.jsonl" in dialog.details.toPlainText() and dialog.details.isVisible()
    assert not dialog.cancel_button.isVisible() and dialog.checked() == []
    spin_until(qloop, lambda: dialog.items["codex"].text(1) == "1 session, all imported already")
    assert dialog.items["claude-code"].text(1) == "2 sessions, 1 new or changed"  # the broken file stays new
    dialog.grab().save(str(shots / "import-summary.png"))
    listed = qloop.run_until_complete(host_client.call("session.list", {}))["sessions"]
    assert sorted(s["source"] for s in listed) == ["claude-code", "codex"]


def test_cancel_stops_the_import_and_says_so(qtbot, qloop, host_client, tools_at_home):
    dialog = ImportDialog(host_client)
    qtbot.addWidget(dialog)
    dialog.open()
    spin_until(qloop, lambda: len(dialog.found) == 3)
    dialog.run()
    assert dialog.cancel_button.isVisible()
    dialog.cancel_button.click()
    assert not dialog.cancel_button.isVisible()
    assert dialog.report.text().startswith("Import stopped. What was already imported stays.")


def test_the_trash_restores_deletes_for_good_and_empties(qtbot, qloop, host_client, tools_at_home, monkeypatch, shots):
    def call(method, params=None):
        return qloop.run_until_complete(host_client.call(method, params or {}))

    for source in ("claude-code", "codex"):
        assert qloop.run_until_complete(run_job(host_client, "import.run", {"source": source}))["imported"] == 1
    chats = call("session.list")["sessions"]
    for chat in chats:
        call("session.delete", {"sessionId": chat["id"]})
    dialog = TrashDialog(host_client)
    qtbot.addWidget(dialog)
    dialog.resize(640, 360)
    dialog.open()
    spin_until(qloop, lambda: dialog.list.topLevelItemCount() == 2)
    assert not dialog.restore_button.isEnabled() and dialog.empty_button.isEnabled()
    dialog.grab().save(str(shots / "trash.png"))

    dialog.list.topLevelItem(0).setSelected(True)
    first = dialog.list.topLevelItem(0).data(0, Qt.ItemDataRole.UserRole)
    first_title = dialog.list.topLevelItem(0).text(0)
    dialog.restore_button.click()
    spin_until(qloop, lambda: dialog.list.topLevelItemCount() == 1)
    assert [s["id"] for s in call("session.list")["sessions"]] == [first]
    assert dialog.report.text() == f"“{first_title}” is back in the sidebar."

    answers = []

    def yes(box):
        answers.append(box.text())
        next(b for b in box.buttons() if b.text() in ("Delete for good", "Empty trash")).click()

    monkeypatch.setattr(QMessageBox, "open", yes)
    dialog.list.topLevelItem(0).setSelected(True)
    last_title = dialog.list.topLevelItem(0).text(0)
    dialog.purge_button.click()
    spin_until(qloop, lambda: dialog.list.topLevelItemCount() == 0)
    assert len(answers) == 1 and call("session.listTrash")["total"] == 0
    assert answers[0] == (
        f"Delete “{last_title}” for good? This cannot be undone. "
        "An imported chat comes back if you import it again from its source."
    )
    assert dialog.report.text() == "The trash is empty." and not dialog.empty_button.isEnabled()

    call("session.delete", {"sessionId": first})
    dialog.refresh()
    spin_until(qloop, lambda: dialog.list.topLevelItemCount() == 1)
    dialog.empty_button.click()
    spin_until(qloop, lambda: dialog.list.topLevelItemCount() == 0)
    assert len(answers) == 2
    assert call("session.listTrash")["total"] == 0 and call("session.list")["sessions"] == []


def test_the_window_offers_import_and_trash_and_a_deleted_import_goes_to_the_trash(
    qtbot, qloop, host_client, tools_at_home, shots
):
    window = started_window(qtbot, qloop, host_client, size=None)
    texts = [a.text() for a in window.sidebar.view_button.menu().actions()]
    assert texts[:3] == ["New project…", "Import chats…", "Trash"]

    window.import_action.trigger()
    dialog = window.import_dialog_open
    assert isinstance(dialog, ImportDialog) and dialog.isVisible()
    window.import_action.trigger()
    assert window.import_dialog_open is dialog  # one at a time
    spin_until(qloop, lambda: len(dialog.found) == 3 and dialog.import_button.isEnabled())
    dialog.import_button.click()
    spin_until(qloop, lambda: window.model.session_count() == 2, timeout=30)  # the sidebar follows the events
    spin_until(qloop, lambda: len(dialog.found) == 3 and not dialog.cancel_button.isVisible())
    dialog.close()

    imported = window.model.shown_sessions()[0]
    window.sidebar.select(imported["id"])
    window.sidebar.delete_action.trigger()
    box = window.chats.confirm_box
    assert "Trash" in box.informativeText()
    qtbot.mouseClick(next(b for b in box.buttons() if b.text() == "Delete"), Qt.MouseButton.LeftButton)
    spin_until(qloop, lambda: window.model.session_count() == 1)
    window.trash_action.trigger()
    trash = window.trash_dialog_open
    spin_until(qloop, lambda: trash.list.topLevelItemCount() == 1)
    trash.list.topLevelItem(0).setSelected(True)
    trash.restore_button.click()
    spin_until(qloop, lambda: window.model.session_count() == 2)
    trash.close()
    window.close()


def test_an_imported_claude_code_turn_folds_and_its_pasted_code_reads_as_code(qtbot, qloop, host_client, shots):
    from pidesktop.ui.kit import theme as themes

    source = CLAUDE / "326189cf-5676-4237-8cde-1ce80aae4a9f.jsonl"
    assert (
        qloop.run_until_complete(run_job(host_client, "import.run", {"source": "claude-code", "paths": [str(source)]}))[
            "imported"
        ]
        == 1
    )
    from PySide6.QtWidgets import QApplication

    themes.apply(QApplication.instance(), themes.DARK)
    window = started_window(qtbot, qloop, host_client, theme=themes.DARK, size=(1100, 900))
    chat = window.model.shown_sessions()[0]
    window.sidebar.select(chat["id"])
    spin_until(qloop, lambda: window.transcript_model.session_id == chat["id"] and window.transcript_model.rows)
    rows = [r for r in window.transcript_model.rows if r["kind"] == "message"]
    assert [r["message"]["role"] for r in rows] == ["user", "user", "user", "assistant"]  # one reply for the turn
    window.grab().save(str(shots / "imported-claude-folded-dark.png"))
    window.close()
    themes.apply(QApplication.instance(), themes.LIGHT)
