"""Settings > Data: the move wizard, the start-up move window and the maintenance dialogs, on real data roots."""

from __future__ import annotations

import stat

import pytest
from PySide6.QtWidgets import QMessageBox, QWizard

from pidesktop import paths
from pidesktop.storage import journal, old_roots
from pidesktop.storage.old_roots import KeptRoot
from pidesktop.ui.data import data_tools as maintenance
from pidesktop.ui.data.storage_wizard import StorageWizard, completed_move_notice, schedule_move
from pidesktop.ui.kit import theme as themes
from pidesktop.ui.startup.missing_root_window import MissingRootWindow
from pidesktop.ui.startup.move_window import MoveProgressWindow
from tests.support.hosts import InProcessHost
from tests.support.waits import spin_until, wait_until

pytestmark = pytest.mark.usefixtures("keep_running")  # dialogs that delete themselves on close


def text_of(message: str) -> dict:
    return {"type": "text", "text": message}


def populate(location: paths.StorageLocation) -> list[str]:
    """Two chats with messages through a real host; returns their ids (the host is stopped)."""
    host = InProcessHost(location)
    try:
        ids = []
        for title in ("Trip to Kyoto", "Groceries"):
            sid = host.call("session.create", {"title": title})["session"]["id"]
            host.call(
                "session.appendMessage",
                {
                    "sessionId": sid,
                    "message": {"id": f"{sid[:6]}-u", "role": "user", "blocks": [text_of(f"hello about {title}")]},
                },
            )
            host.call(
                "session.appendMessage",
                {
                    "sessionId": sid,
                    "message": {"id": f"{sid[:6]}-a", "role": "assistant", "blocks": [text_of("an answer " * 50)]},
                },
            )
            ids.append(sid)
        return sorted(ids)
    finally:
        host.stop()


def session_ids(location: paths.StorageLocation) -> list[str]:
    host = InProcessHost(location)
    try:
        return sorted(s["id"] for s in host.call("session.list")["sessions"])
    finally:
        host.stop()


@pytest.fixture
def default_location(isolated_home) -> paths.StorageLocation:
    """The installation's own (movable) data root, with two chats."""
    location = paths.resolve()
    assert location.source == "default"
    populate(location)
    return location


def press_yes(qtbot, action: str) -> None:
    """Press ``action`` in the confirmation box that is open now."""
    boxes = [w for w in qtbot_app_widgets() if isinstance(w, QMessageBox) and w.isVisible()]
    assert boxes, "no confirmation is open"
    box = boxes[-1]
    button = next(b for b in box.buttons() if b.text() == action)
    button.click()


def qtbot_app_widgets():
    from PySide6.QtWidgets import QApplication

    return QApplication.topLevelWidgets()


# -- the wizard ----------------------------------------------------------------------------------
def set_destination(qloop, wizard: StorageWizard, value: str) -> None:
    page = wizard.choose
    page.path_edit.setText(value)
    spin_until(qloop, lambda: page.checked_text == value.strip())


def test_the_wizard_checks_reviews_and_schedules_the_move(
    qtbot, qloop, loop_hosts, default_location, tmp_path, monkeypatch, theme, shot
):
    relaunched = []
    monkeypatch.setattr(StorageWizard, "relaunch", staticmethod(lambda: relaunched.append(True)))
    default_location.ui_root.mkdir(parents=True, exist_ok=True)
    (default_location.ui_root / "drafts.json").write_text('{"version": 1, "drafts": {}}')  # window state moves too
    wizard = StorageWizard(default_location, loop_hosts.start(default_location), theme)
    wizard.open()
    next_button = wizard.button(QWizard.WizardButton.NextButton)
    assert not next_button.isEnabled()

    set_destination(qloop, wizard, str(default_location.data_root / "inside"))
    assert not next_button.isEnabled()
    assert "overlaps the current data folder" in wizard.choose.verdict.text()
    set_destination(qloop, wizard, str(default_location.data_root.parent))  # the data root is inside it
    assert not next_button.isEnabled() and "overlaps" in wizard.choose.verdict.text()
    busy = tmp_path / "busy"
    busy.mkdir()
    (busy / "holiday.jpg").write_bytes(b"jpeg")
    set_destination(qloop, wizard, str(busy))
    assert not next_button.isEnabled() and "is not empty" in wizard.choose.verdict.text()
    shot(wizard, f"move-wizard-choose-error-{theme.name}")
    set_destination(qloop, wizard, "relative/folder")
    assert not next_button.isEnabled() and "full path" in wizard.choose.verdict.text()

    destination = tmp_path / "big-disk" / "pidesktop"
    set_destination(qloop, wizard, str(destination))
    assert next_button.isEnabled()
    assert "will be created" in wizard.choose.verdict.text()
    # the final place is said in words, before anything is confirmed: the folder typed, not a "data" below it
    assert f"Your data goes into {destination}" in wizard.choose.verdict.text()
    shot(wizard, f"move-wizard-choose-{theme.name}")

    wizard.next()
    review = wizard.review
    spin_until(qloop, lambda: review.ready)
    rows = {
        review.table.topLevelItem(i).text(0): review.table.topLevelItem(i).text(2)
        for i in range(review.table.topLevelItemCount())
    }
    assert "Chat database" in rows and "Transcripts" in rows
    assert all(size != "0 B" for size in rows.values())
    assert review.total_bytes > 0 and "2 chats, 4 messages" in review.total.text()
    files = {
        review.table.topLevelItem(i).text(0): review.table.topLevelItem(i).text(1)
        for i in range(review.table.topLevelItemCount())
    }
    assert "Window state" in files and all(count.isdigit() and int(count) > 0 for count in files.values()), files
    assert f"in {sum(int(count) for count in files.values())} files." in review.total.text()
    assert "free at the new place" in review.space.text()
    assert next_button.isEnabled()
    shot(wizard, f"move-wizard-review-{theme.name}")

    wizard.next()
    assert wizard.currentPage() is wizard.confirm
    summary = wizard.confirm.summary.text()
    assert summary.splitlines()[0] == f"Your data goes into {destination}"  # the first thing on the page
    assert summary.splitlines()[1].startswith(f"(chats and files in {destination / 'data'}")
    assert wizard.confirm.heading.subtitle.text() == "pidesktop will restart to move your data."
    shot(wizard, f"move-wizard-confirm-{theme.name}")
    wizard.button(QWizard.WizardButton.FinishButton).click()
    spin_until(qloop, lambda: relaunched)
    pending = journal.read()
    assert pending is not None and pending.destination == destination
    assert pending.source_data_root == default_location.data_root
    assert not destination.exists()  # nothing is copied until the next start
    assert paths.resolve().data_root == default_location.data_root


def test_a_pinned_root_cannot_be_moved(qtbot, qloop, host_client, location, tmp_path, monkeypatch):
    monkeypatch.setenv(paths.ENV_DATA_DIR, str(location.data_root))
    wizard = StorageWizard(location, host_client, themes.LIGHT)
    qtbot.addWidget(wizard)
    wizard.open()
    set_destination(qloop, wizard, str(tmp_path / "elsewhere"))
    assert not wizard.button(QWizard.WizardButton.NextButton).isEnabled()
    assert "PI_DESKTOP_DATA_DIR" in wizard.choose.verdict.text()


# -- start-up ------------------------------------------------------------------------------------
def test_the_startup_window_runs_a_pending_move(qtbot, default_location, tmp_path, theme):
    before = session_ids(default_location)
    destination = tmp_path / "new-home"
    schedule_move(destination)
    window = MoveProgressWindow(default_location, theme)
    qtbot.addWidget(window)
    window.show()
    window.begin()
    qtbot.waitUntil(lambda: window.result_location is not None or window.error is not None, timeout=60_000)
    assert window.error is None
    moved = window.result_location
    assert moved.data_root == destination / "data" and moved.source == "pointer"
    assert paths.resolve() == moved and journal.read() is None
    assert session_ids(moved) == before
    kept = old_roots.entries()
    assert kept and kept[0].paths[0] == default_location.data_root and default_location.data_root.is_dir()


def test_the_startup_window_shows_a_failure_and_retries(qtbot, default_location, tmp_path, theme, shot):
    destination = tmp_path / "stick"
    schedule_move(destination)
    destination.mkdir()
    (destination / "someone-elses.txt").write_text("not pidesktop's")  # the move must refuse to mix
    window = MoveProgressWindow(default_location, theme)
    qtbot.addWidget(window)
    window.show()
    window.begin()
    qtbot.waitUntil(lambda: window.error is not None, timeout=30_000)
    assert "is not empty" in window.error_label.text()
    assert window.retry_button.isVisible() and window.quit_button.isVisible()
    assert not window.cancel_button.isVisible()
    assert paths.resolve().data_root == default_location.data_root  # the old root stays active
    window.resize(620, window.sizeHint().height())
    shot(window, f"move-wizard-startup-error-{theme.name}")

    (destination / "someone-elses.txt").unlink()
    window.retry_button.click()
    qtbot.waitUntil(lambda: window.result_location is not None, timeout=60_000)
    assert window.result_location.data_root == destination / "data"


def test_the_startup_window_paints_progress(qtbot, default_location, tmp_path, theme, shot):
    window = MoveProgressWindow.__new__(MoveProgressWindow)
    schedule_move(tmp_path / "dest")
    window = MoveProgressWindow(default_location, theme)
    qtbot.addWidget(window)
    window.show()
    window._phase, window._phase_started = "copy", __import__("time").monotonic() - 30
    window.show_progress(
        "copy", 420_000_000, 1_300_000_000, 2100, 6400, str(default_location.data_root / "attachments" / ("ab" * 32))
    )
    assert window.bar.value() == 323
    assert "420 MB of 1.3 GB" in window.detail.text() and "min left" in window.detail.text()
    window.resize(620, window.sizeHint().height())
    shot(window, f"move-wizard-startup-{theme.name}")
    journal.clear()


def test_a_missing_default_root_offers_fresh_or_existing(qtbot, default_location, tmp_path, theme, shot):
    from pidesktop.storage import recovery

    recovery.before_host_start(default_location)  # records that the default root is in use
    moved_away = tmp_path / "usb" / "data"
    moved_away.parent.mkdir()
    default_location.data_root.rename(moved_away)
    check = recovery.check_default_root()
    assert check.state == "missing"
    window = MissingRootWindow(check, theme)
    qtbot.addWidget(window)
    window.show()
    window.select_folder(str(tmp_path))
    qtbot.waitUntil(lambda: window.error_label.isVisible())
    assert "not a pidesktop storage location" in window.error_label.text()
    shot(window, f"move-wizard-missing-root-{theme.name}")
    window.select_folder(str(moved_away))
    qtbot.waitUntil(lambda: window.result_location is not None)
    assert window.result_location.data_root == moved_away and paths.resolve().source == "pointer"


# -- maintenance: every tool works through the host --------------------------------------------------
def test_verify_counts_one_chat_and_one_message_in_the_singular(qtbot, qloop, loop_hosts, location, theme):
    host = InProcessHost(location)
    try:
        sid = host.call("session.create", {"title": "Only one"})["session"]["id"]
        message = {"id": "only-u", "role": "user", "blocks": [text_of("hello")]}
        host.call("session.appendMessage", {"sessionId": sid, "message": message})
    finally:
        host.stop()
    dialog = maintenance.VerifyDialog(loop_hosts.start(), theme)
    qtbot.addWidget(dialog)
    dialog.open()
    spin_until(qloop, lambda: dialog.report.isVisible())
    assert dialog.report.text() == "No problems found. 1 chat, 1 message checked."


def test_verify_reports_a_healthy_root_and_a_planted_problem(qtbot, qloop, loop_hosts, location, theme, shot):
    ids = populate(location)
    dialog = maintenance.VerifyDialog(loop_hosts.start(), theme)
    qtbot.addWidget(dialog)
    dialog.open()
    spin_until(qloop, lambda: dialog.report.isVisible())
    assert dialog.report.text().startswith("No problems found.") and "2 chats, 4 messages" in dialog.report.text()
    shot(dialog, f"maintenance-verify-{theme.name}")

    (location.data_root / "sessions" / f"{ids[0]}.jsonl").write_bytes(b"")
    dialog.again_button.click()
    spin_until(qloop, lambda: dialog.report.isVisible() and dialog.result is not None and not dialog.result["ok"])
    assert "Problems found: 1." in dialog.report.text()
    assert ids[0] in dialog.details.text() and "indexed messages" in dialog.details.text()
    shot(dialog, f"maintenance-verify-problem-{theme.name}")


def test_backup_refuses_a_relative_path_and_writes_a_verified_private_copy(
    qtbot, qloop, loop_hosts, location, tmp_path, theme, shot
):
    populate(location)
    dialog = maintenance.BackupDialog(loop_hosts.start(), theme)
    qtbot.addWidget(dialog)
    dialog.open()
    dialog.path_edit.setText("backups/pi.sqlite")
    dialog.backup_button.click()
    spin_until(qloop, lambda: dialog.report.isVisible())
    assert "must be absolute" in dialog.report.text() and dialog.result is None
    assert dialog.backup_button.isEnabled()
    shot(dialog, f"maintenance-backup-refused-{theme.name}")
    target = tmp_path / "pi-backup.sqlite"
    dialog.path_edit.setText(str(target))
    dialog.backup_button.click()
    spin_until(qloop, lambda: dialog.result is not None)
    assert target.is_file() and stat.S_IMODE(target.stat().st_mode) == 0o600
    assert dialog.report.text().startswith("Backed up and verified") and str(target) in dialog.report.text()
    assert dialog.result["rows"]["sessions"] == 2
    shot(dialog, f"maintenance-backup-{theme.name}")


def test_clean_caches_shows_sizes_and_cleans_them_at_the_next_start(qtbot, qloop, loop_hosts, monkeypatch, theme, shot):
    """The running host holds the folder: the host records the request, the app restarts, start-up cleans."""
    from pidesktop.storage import cache_request, recovery

    location = paths.resolve()  # the default root: settings-driven maintenance applies to it
    populate(location)
    root = location.data_root
    (root / "cache" / "thumbs").mkdir(parents=True, exist_ok=True)
    (root / "cache" / "thumbs" / "a.png").write_bytes(b"x" * 150_000)
    (root / "cache" / "index.bin").write_bytes(b"y" * 50_000)
    (root / "attachments" / "keep.bin").write_bytes(b"keep")
    restarts = []
    monkeypatch.setattr(maintenance.CacheDialog, "relaunch", staticmethod(lambda: restarts.append(True)))
    dialog = maintenance.CacheDialog(loop_hosts.start(location), theme)
    qtbot.addWidget(dialog)
    dialog.open()
    spin_until(qloop, lambda: dialog.folders and dialog.clean_button.isEnabled())
    first = dialog.table.topLevelItem(0)
    assert first.text(0) == "cache/" and first.text(1) == "2" and first.text(2) == "200 KB"
    assert "200 KB" in dialog.total.text() and "restarts" in dialog.report.text()
    assert dialog.clean_button.text().startswith("Restart")
    shot(dialog, f"maintenance-caches-{theme.name}")
    dialog.clean_button.click()
    press_yes(qtbot, "Clean")
    spin_until(qloop, lambda: restarts)
    assert cache_request.pending(location) and dialog.scheduled["scheduled"] is True
    assert (root / "cache" / "index.bin").exists()  # nothing is removed while the host runs
    loop_hosts.stop_all()
    recovery.before_host_start(location)  # what the next launch does before its host starts
    assert list((root / "cache").iterdir()) == []
    assert (root / "attachments" / "keep.bin").read_bytes() == b"keep"
    assert not cache_request.pending(location)
    assert cache_request.last_report()["freedBytes"] == 200_000

    dialog = maintenance.CacheDialog(loop_hosts.start(location), theme)  # the next start shows the report
    qtbot.addWidget(dialog)
    dialog.open()
    spin_until(qloop, lambda: dialog.caches is not None and dialog.report.isVisible())
    assert "The last cleanup freed 200 KB (2 files)." in dialog.report.text()
    assert not dialog.clean_button.isEnabled()


def test_remove_old_copies_after_a_second_confirmation(qtbot, qloop, loop_hosts, tmp_path, theme, shot):
    old_data, old_ui = tmp_path / "old" / "data", tmp_path / "old" / "ui"
    for folder in (old_data, old_ui):
        (folder / "sessions").mkdir(parents=True)
        (folder / "sessions" / "s.jsonl").write_bytes(b"z" * 30_000)
    old_roots.add(KeptRoot("job-1", (old_data, old_ui), None, tmp_path / "new", 1_700_000_000_000))
    dialog = maintenance.OldCopiesDialog(loop_hosts.start(paths.resolve()), theme)
    qtbot.addWidget(dialog)
    dialog.open()
    spin_until(qloop, lambda: dialog.kept and dialog.delete_button.isEnabled())
    item = dialog.table.topLevelItem(0)
    assert str(old_data) in item.text(0) and item.text(2) == "60 KB"
    shot(dialog, f"maintenance-old-copies-{theme.name}")
    dialog.delete_button.click()
    press_yes(qtbot, "Delete")
    assert old_data.is_dir()  # one confirmation is not enough
    press_yes(qtbot, "Delete for good")
    spin_until(qloop, lambda: dialog.result is not None and dialog.report.isVisible())
    assert not old_data.exists() and not old_ui.exists()
    assert old_roots.entries() == []
    assert dialog.empty.isVisible() and "Deleted 2 folders" in dialog.report.text()


def test_remove_old_copies_shows_a_partial_failure_with_retry(qtbot, qloop, loop_hosts, tmp_path, monkeypatch, shot):
    from pidesktop.storage import cleanup

    old_data, old_ui = tmp_path / "old" / "data", tmp_path / "old" / "ui"
    for folder in (old_data, old_ui):
        folder.mkdir(parents=True)
    old_roots.add(KeptRoot("job-2", (old_data, old_ui), None, tmp_path / "new", 1_700_000_000_000))
    real_remove = cleanup.remove_entry

    def busy_ui(path):
        if path == old_ui:
            raise PermissionError(13, "Permission denied", str(path))
        real_remove(path)

    monkeypatch.setattr(cleanup, "remove_entry", busy_ui)  # the in-process host runs in this process
    dialog = maintenance.OldCopiesDialog(loop_hosts.start(paths.resolve()), themes.LIGHT)
    qtbot.addWidget(dialog)
    dialog.open()
    spin_until(qloop, lambda: dialog.delete_button.isEnabled())
    dialog.delete(dialog.kept[0]["id"])
    spin_until(qloop, lambda: dialog.result is not None and dialog.report.isVisible())
    assert "could not be deleted" in dialog.report.text() and "Permission denied" in dialog.report.text()
    spin_until(qloop, lambda: dialog.delete_button.isEnabled())
    assert dialog.delete_button.text() == "Retry…"
    assert not old_data.exists() and old_roots.entries()
    shot(dialog, "maintenance-old-copies-retry-light")

    monkeypatch.setattr(cleanup, "remove_entry", real_remove)
    dialog.delete(dialog.kept[0]["id"])
    spin_until(qloop, lambda: not old_roots.entries())
    assert not old_ui.exists()


def test_workflows_shows_missing_then_the_status(qtbot, qloop, tmp_path, monkeypatch, theme, shot):
    monkeypatch.setenv("PI_CODING_AGENT_DIR", str(tmp_path / "agent"))
    dialog = maintenance.WorkflowsDialog(theme)
    qtbot.addWidget(dialog)
    dialog.open()
    spin_until(qloop, lambda: dialog.report.isVisible())
    assert "no workflows database yet" in dialog.report.text()
    assert not dialog.verify_button.isEnabled()
    shot(dialog, f"maintenance-workflows-missing-{theme.name}")

    from pidesktop.workflows import db
    from pidesktop.workflows import paths as wf_paths

    db.open_writer(wf_paths.resolve(None), create=True).close()  # `pi-workflows state init`
    dialog = maintenance.WorkflowsDialog(theme)
    qtbot.addWidget(dialog)
    dialog.open()
    spin_until(qloop, lambda: dialog.verify_button.isEnabled())
    assert "ready" in dialog.report.text() and dialog.table.topLevelItemCount() >= 4
    dialog.verify_button.click()
    spin_until(qloop, lambda: "Verified" in dialog.report.text())
    shot(dialog, f"maintenance-workflows-{theme.name}")
    dialog.backup_button.click()
    target = tmp_path / "wf-backup.sqlite"
    dialog.backup_edit.setText(str(target))
    dialog.backup_button.click()
    spin_until(qloop, lambda: "Backed up" in dialog.report.text())
    assert target.is_file()


def test_the_data_page_opens_each_tool_and_explains_a_pinned_root(qtbot, qloop, host_client, theme, shot):
    from pidesktop.ui.settings.settings_dialog import SettingsDialog

    dialog = SettingsDialog.ask(host_client, theme)
    qtbot.addWidget(dialog)
    dialog.open()
    qloop.run_until_complete(dialog.loading)
    dialog.show_page("Data")
    page = dialog.data
    assert page.location.source == "env"
    assert not page.move_button.isEnabled() and not page.cache_button.isEnabled()
    assert not page.old_copies_button.isEnabled()
    assert page.verify_button.isEnabled() and page.backup_button.isEnabled()
    assert "PI_DESKTOP_DATA_DIR" in page.note.text()
    shot(dialog, f"maintenance-data-page-{theme.name}")
    tool = page.open_verify()
    spin_until(qloop, lambda: tool.report.isVisible())
    tool.close()
    dialog.close()


# -- the result line of Verify and Back up shows whole ------------------------------------------------------
def shows_whole_report(dialog) -> bool:
    label = dialog.report
    return label.isVisible() and label.height() >= label.heightForWidth(label.width())


def test_verify_result_line_is_not_squeezed(qtbot, qloop, loop_hosts, location, theme, keep_running, shot):
    populate(location)
    dialog = maintenance.VerifyDialog(loop_hosts.start(), theme)
    qtbot.addWidget(dialog)
    dialog.open()
    qloop.run_until_complete(wait_until(lambda: dialog.result is not None))
    assert dialog.report.text().startswith("No problems found.")
    qtbot.waitUntil(lambda: shows_whole_report(dialog))  # once the layout has made room for it
    shot(dialog, f"verify-{theme.name}")


def test_backup_result_line_is_not_squeezed(
    qtbot, qloop, loop_hosts, location, theme, keep_running, isolated_home, shot
):
    populate(location)
    dialog = maintenance.BackupDialog(loop_hosts.start(), theme)
    qtbot.addWidget(dialog)
    dialog.open()
    dialog.path_edit.setText(str(isolated_home / "pi-backup.sqlite"))
    dialog.backup_button.click()
    qloop.run_until_complete(wait_until(lambda: dialog.result is not None))
    assert dialog.report.text().startswith("Backed up and verified")
    qtbot.waitUntil(lambda: shows_whole_report(dialog))
    shot(dialog, f"backup-{theme.name}")


# -- the move wizard names the folder the data ends in, and the next start confirms it -------------------
@pytest.fixture
def movable(isolated_home):
    """The installation's own (movable) data root, with two chats."""
    location = paths.resolve()
    populate(location)
    return location


def test_the_wizard_confirms_the_final_data_folder(
    qtbot, qloop, loop_hosts, movable, tmp_path, monkeypatch, keep_running, shot
):
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
    shot(wizard, "move-confirm-light")


def test_the_first_start_after_a_move_says_where_the_data_lives_once(qtbot, movable, tmp_path):
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
    assert completed_move_notice(moved) == f"Your data now lives in {destination}."  # the folder chosen
    assert completed_move_notice(moved) is None  # once
    assert completed_move_notice(paths.resolve()) is None
