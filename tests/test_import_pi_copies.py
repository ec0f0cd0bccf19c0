"""pi sessions are live in the sidebar: import leaves them out unless asked, and a copy says it is one."""

from __future__ import annotations

from PySide6.QtCore import Qt

from pidesktop.ui.data.import_dialog import ImportDialog
from pidesktop.ui.kit.session_rows import display_title, is_native
from pidesktop.ui.sidebar import native_rows
from tests import test_native_ui
from tests.support.waits import spin_until

agent_dir = test_native_ui.agent_dir  # the pi fixture sessions, live in the sidebar
window = test_native_ui.window


def test_the_import_dialog_leaves_pi_sessions_out_by_default_and_says_why(qtbot, qloop, window, shots):
    dialog = ImportDialog(window.client)
    qtbot.addWidget(dialog)
    dialog.resize(640, 420)
    dialog.open()
    spin_until(qloop, lambda: "pi" in dialog.found)
    assert dialog.items["pi"].text(1) == "10 sessions, 10 new or changed"
    assert dialog.items["pi"].checkState(0) == Qt.CheckState.Unchecked  # they are already in the sidebar
    assert "pi" not in dialog.checked()
    assert dialog.pi_note.isVisible()
    assert "already in the sidebar" in dialog.pi_note.text() and "copy" in dialog.pi_note.text()
    dialog.grab().save(str(shots / "import-pi-unticked.png"))


def test_an_imported_copy_of_a_pi_session_is_marked_as_the_copy(qtbot, qloop, window, shots):
    dialog = ImportDialog(window.client)  # deletes itself when closed
    dialog.open()
    spin_until(qloop, lambda: "pi" in dialog.found)
    dialog.items["pi"].setCheckState(0, Qt.CheckState.Checked)  # asked for on purpose
    dialog.import_button.click()
    spin_until(qloop, lambda: len(window.model.shown_sessions()) == 20, timeout=60)
    dialog.close()

    rows = window.model.shown_sessions()
    copies = [s for s in rows if not is_native(s)]
    live = [s for s in rows if is_native(s)]
    assert len(copies) == len(live) == 10
    assert {native_rows.badge(s) for s in live} == {"pi"}
    assert {native_rows.badge(s) for s in copies} == {"pi copy"}
    tip = window.model.data(window.model.index_of(copies[0]["id"]), Qt.ItemDataRole.ToolTipRole)
    assert display_title(copies[0]) in tip and "copy" in tip and "pi" in tip
    window.sidebar.grab().save(str(shots / "sidebar-pi-copies.png"))


def test_ctrl_k_finds_pi_sessions_by_text_and_a_hit_opens_the_pi_session(qloop, window, shots):
    window.search_action.trigger()
    search = window.search_dialog
    search.field.setText("What is a JSONL file")
    qloop.run_until_complete(search.model.search(search.field.text()))
    assert [r.get("native") for r in search.model.rows] == [True]
    hit = search.model.rows[0]
    search.grab().save(str(shots / "search-pi-session.png"))
    search.choose_current()
    spin_until(qloop, lambda: window.current_session_id == hit["sessionId"])
    spin_until(qloop, lambda: window.transcript_model.session_id == hit["sessionId"] and window.transcript_model.rows)
    wanted = hit["snippets"][0]["messageId"]
    spin_until(qloop, lambda: window.transcript_model.row_of(wanted) >= 0)
    assert window.native.banner.isVisible()  # read-only pi session, as from the sidebar
