"""What a person sees when the data folder's database is from another version of pidesktop.

At start, before any host opens the folder: an older database is updated in a progress window (the cold
``storage.schema`` migration on a worker thread), a failure shows the reason, the backup's path, Quit and
Choose another folder; a newer database is named and left alone. Without a screen the same runs on stderr.
Settings > Data lists the kept ``pi.sqlite.v<n>.bak`` copies and removes one after two confirmations.

The windows are driven by a stand-in for ``storage.schema`` (the engine's own tests cover the migration
itself); the last tests run the real one on databases built by ``tests.schema_history``.
"""

from __future__ import annotations

import io
import threading
from types import SimpleNamespace

import pytest
from PySide6.QtWidgets import QApplication, QMessageBox

from pidesktop import paths
from pidesktop.storage import recovery, schema_update
from pidesktop.storage.schema import MigrationError
from pidesktop.ui.kit import theme as themes
from pidesktop.ui.startup import prepare
from pidesktop.ui.startup.migration_window import MigrationWindow, migration_note
from tests.support.cli import run_cli
from tests.support.hosts import InProcessHost
from tests.support.waits import spin_until

pytestmark = pytest.mark.usefixtures("keep_running")

WRONG_VALUE = (
    "step v14 -> v15: scheduled_tasks row 3 (id 'nightly'): config_json.mode is 'dream', not one of "
    "chat, plan, agent; the database was left at version 14"
)


class StandIn:
    """``storage.schema`` as the windows use it: ``schema_state`` and ``migrate(location, progress)``, with the
    real one's shapes (progress as the storage jobs' six values, bytes for ``backup``, steps for ``migrate``)."""

    SUPPORTED = 27

    def __init__(self, version: int, fail: str | None = None, gate: threading.Event | None = None):
        self.version, self.fail, self.gate = version, fail, gate
        self.halfway = threading.Event()
        self.migrated: list[paths.StorageLocation] = []

    def backups(self, location) -> list[str]:
        return sorted(str(p) for p in location.data_root.glob("pi.sqlite.v*.bak"))

    def schema_state(self, location) -> dict:
        newer = self.version > self.SUPPORTED
        return {
            "version": self.version,
            "needsMigration": self.version < self.SUPPORTED,
            "archive": self.version < 7,
            "supported": self.SUPPORTED,
            "backups": self.backups(location),
            "problem": f"{location.data_root / 'pi.sqlite'} is schema v{self.version}, newer than this "
            f"pidesktop (v27). Nothing was changed."
            if newer
            else None,
        }

    def migrate(self, location, progress):
        backup = location.data_root / f"pi.sqlite.v{self.version}.bak"
        progress("checkpoint", 0, 1, 0, 0, "")
        progress("backup", 0, 3_000_000, 0, 0, "")
        backup.write_bytes(b"old" * 1000)
        progress("backup", 3_000_000, 3_000_000, 0, 0, "")
        steps = self.SUPPORTED - self.version
        for done in range(1, steps + 1):
            if done == steps // 2:
                progress("migrate", 0, 0, done, steps, "")
                self.halfway.set()
                if self.gate is not None:
                    assert self.gate.wait(30)
                if self.fail:
                    raise MigrationError(self.fail, "SCHEMA_INCOMPATIBLE", {"backup": str(backup)})
            progress("migrate", 0, 0, done, steps, "")
        self.migrated.append(location)
        self.version = self.SUPPORTED
        return {"fromVersion": 14, "toVersion": 27, "backups": [str(backup)], "archived": None}


@pytest.fixture
def stand_in(monkeypatch):
    def install(version: int, **kwargs) -> StandIn:
        fake = StandIn(version, **kwargs)
        monkeypatch.setattr(schema_update, "_cold_schema", lambda: fake)
        return fake

    return install


def window_for(qtbot, location, theme) -> MigrationWindow:
    check = schema_update.schema_check(location)
    window = MigrationWindow(location, check, theme)
    qtbot.addWidget(window)
    window.show()
    return window


def test_an_older_database_is_updated_with_progress_then_a_note_names_the_backup(qtbot, host, theme, stand_in, shot):
    host.stop()
    location = host.location
    gate = threading.Event()
    fake = stand_in(14, gate=gate)
    window = window_for(qtbot, location, theme)
    assert window.headline.text() == "Updating your data from version 14 to version 27…"
    window.begin()
    qtbot.waitUntil(lambda: fake.halfway.is_set() and window.bar.value() == 1000 * 6 // 13)
    assert window.phase_label.text() == "Updating the database…" and window.detail.text() == "Step 6 of 13"
    assert not window.quit_button.isVisible() and not window.choose_button.isVisible()  # nothing to press yet
    window.resize(620, window.sizeHint().height())
    shot(window, f"migration-progress-{theme.name}")
    gate.set()
    qtbot.waitUntil(lambda: window.result_location is not None)
    assert window.result_location == location and fake.migrated == [location]
    backup = location.data_root / "pi.sqlite.v14.bak"
    assert window.done.backups == [str(backup)]
    assert migration_note(window.done) == (
        f"Your data was updated from version 14 to 27. The old database is kept at {backup}."
    )


def test_a_failed_update_shows_the_reason_the_backup_and_two_choices(qtbot, host, tmp_path, theme, stand_in, shot):
    host.stop()
    other = InProcessHost(paths.resolve(data_dir=tmp_path / "other" / "data"))  # another real data folder
    other.stop()
    location = host.location
    stand_in(14, fail=WRONG_VALUE)
    window = window_for(qtbot, location, theme)
    window.begin()
    qtbot.waitUntil(lambda: window.error is not None)
    backup = location.data_root / "pi.sqlite.v14.bak"
    assert window.title.text() == "Your data could not be updated"
    assert window.error_label.text() == WRONG_VALUE and window.error_label.property("severity") == "error"
    assert str(backup) in window.note.text()
    assert window.quit_button.isVisible() and window.choose_button.isVisible() and not window.bar.isVisible()
    window.resize(620, window.heightForWidth(620))
    shot(window, f"migration-failed-{theme.name}")

    (tmp_path / "empty").mkdir()
    window.select_folder(str(tmp_path / "empty"))  # not a data folder: said on the same window
    qtbot.waitUntil(lambda: "not a pidesktop storage location" in window.error_label.text())
    assert window.result_location is None and window.choose_button.isEnabled()
    window.select_folder(str(tmp_path / "other"))
    qtbot.waitUntil(lambda: window.result_location is not None)
    # A folder pinned with --data-dir is replaced for this run only; the installation's choice is untouched.
    assert window.result_location.data_root == tmp_path / "other" / "data"
    assert window.result_location.source == "env" and not paths.pointer_path().exists()


def test_quit_ends_the_failed_update_with_nothing_chosen(qtbot, host, stand_in):
    host.stop()
    stand_in(14, fail=WRONG_VALUE)
    window = window_for(qtbot, host.location, themes.LIGHT)
    window.begin()
    qtbot.waitUntil(lambda: window.error is not None)
    window.quit_button.click()
    assert window.result_location is None and not window.isVisible()


def test_the_installations_own_folder_is_switched_by_choosing_another(qtbot, isolated_home, tmp_path, stand_in):
    location = paths.resolve()
    InProcessHost(location).stop()
    elsewhere = tmp_path / "usb"
    InProcessHost(paths.resolve(data_dir=elsewhere / "data")).stop()
    stand_in(14, fail=WRONG_VALUE)
    window = window_for(qtbot, location, themes.LIGHT)
    assert not window.pinned
    window.select_folder(str(elsewhere))
    qtbot.waitUntil(lambda: window.result_location is not None)
    assert window.result_location.data_root == elsewhere / "data" and paths.resolve().source == "pointer"


def test_a_newer_database_is_named_and_left_alone(qtbot, host, theme, stand_in, shot):
    host.stop()
    fake = stand_in(31)
    before = (host.location.data_root / "pi.sqlite").read_bytes()
    check = schema_update.schema_check(host.location)
    assert check.newer and "v31" in check.reason
    window = window_for(qtbot, host.location, theme)
    window.begin()
    assert window.title.text() == "This data is from a newer pidesktop"
    assert window.headline.text() == "The database is version 31; this pidesktop opens versions up to 27."
    assert window.where.text() == str(host.location.data_root)
    assert "Nothing was changed" in window.note.text() and not window.bar.isVisible()
    assert window.choose_button.isVisible() and window.quit_button.isVisible()
    assert fake.migrated == [] and (host.location.data_root / "pi.sqlite").read_bytes() == before
    window.resize(620, window.heightForWidth(620))
    shot(window, f"migration-newer-{theme.name}")


def test_a_newer_version_in_the_state_names_both_versions(qtbot, host, monkeypatch):
    host.stop()
    fake = SimpleNamespace(
        schema_state=lambda location: {
            "version": 30,
            "needsMigration": False,
            "supported": 27,
            "backups": [],
            "problem": None,
        }
    )
    monkeypatch.setattr(schema_update, "_cold_schema", lambda: fake)
    window = window_for(qtbot, host.location, themes.LIGHT)
    window.begin()
    assert window.headline.text() == "The database is version 30; this pidesktop opens versions up to 27."


def test_prepare_updates_a_pinned_folder_and_hands_the_note_over(qtbot, host, stand_in):
    host.stop()
    fake = stand_in(14)
    notes: list[str] = []
    assert prepare.needs_window(host.location)
    assert prepare.prepare(host.location, "light", notes) == host.location
    assert fake.migrated == [host.location] and len(notes) == 1 and "pi.sqlite.v14.bak" in notes[0]
    assert not prepare.needs_window(host.location)  # now current: nothing to show next time
    assert prepare.prepare(host.location, "light", notes) == host.location and len(notes) == 1


def test_prepare_shows_nothing_for_a_current_database(qtbot, host, stand_in):
    host.stop()
    stand_in(27)
    before = set(QApplication.topLevelWidgets())
    assert prepare.prepare(host.location, "light", notes := []) == host.location and notes == []
    assert not [w for w in set(QApplication.topLevelWidgets()) - before if isinstance(w, MigrationWindow)]


# -- without a screen ----------------------------------------------------------------------------------
def test_without_a_screen_the_update_prints_its_progress(host, stand_in):
    host.stop()
    stand_in(14)
    err = io.StringIO()
    done = schema_update.migrate_on_stderr(host.location, err)
    lines = err.getvalue().splitlines()
    assert lines[0] == f"pidesktop: updating your data from version 14 to 27 ({host.location.data_root})"
    for line in ("checkpoint", "backup 0%", "backup 100%", "migrate 1/13", "migrate 13/13"):
        assert f"pidesktop: updating the database: {line}" in lines
    assert lines[-1] == (
        f"pidesktop: updated the database from version 14 to 27; the old one is kept at "
        f"{host.location.data_root / 'pi.sqlite.v14.bak'}"
    )
    assert done.from_version == 14 and schema_update.migrate_on_stderr(host.location, err) is None


def test_without_a_screen_a_failure_or_a_newer_database_is_a_refusal(host, stand_in):
    host.stop()
    stand_in(14, fail=WRONG_VALUE)
    with pytest.raises(recovery.RecoveryError) as failed:
        schema_update.migrate_on_stderr(host.location, io.StringIO())
    words = str(failed.value)
    assert WRONG_VALUE in words and str(host.location.data_root / "pi.sqlite.v14.bak") in words
    assert "still at version 14" in words
    stand_in(31)
    with pytest.raises(recovery.RecoveryError) as newer:
        schema_update.migrate_on_stderr(host.location, io.StringIO())
    assert "v31" in str(newer.value) and "Nothing was changed" in str(newer.value)


# -- Settings > Data: the kept copies -------------------------------------------------------------------
def plant(root, name: str, size: int, mtime: float = 1_700_000_000.0):
    import os

    path = root / name
    path.write_bytes(b"k" * size)
    os.utime(path, (mtime, mtime))
    return path


def open_boxes() -> list[QMessageBox]:
    return [w for w in QApplication.topLevelWidgets() if isinstance(w, QMessageBox) and w.isVisible()]


def press(action: str) -> QMessageBox:
    box = open_boxes()[-1]
    next(b for b in box.buttons() if b.text() == action).click()
    return box


def test_old_database_copies_are_listed_and_removed_after_two_confirmations(
    qtbot, qloop, loop_hosts, location, theme, shot
):
    from pidesktop.ui.data.data_tools import SchemaBackupsDialog

    client = loop_hosts.start()
    root = location.data_root
    spin_until(qloop, lambda: (root / "pi.sqlite").is_file())
    plant(root, "pi.sqlite.v14.bak", 3 * 1024 * 1024, 1_700_000_000)
    plant(root, "pi.sqlite.v25.bak", 900 * 1024, 1_710_000_000)
    dialog = SchemaBackupsDialog(client, theme)
    qtbot.addWidget(dialog)
    dialog.open()
    spin_until(qloop, lambda: dialog.backups is not None and dialog.remove_button.isEnabled())
    rows = [[dialog.table.topLevelItem(i).text(c) for c in (0, 1, 3)] for i in range(dialog.table.topLevelItemCount())]
    assert rows == [["pi.sqlite.v14.bak", "14", "3.1 MB"], ["pi.sqlite.v25.bak", "25", "922 KB"]]
    status = run_cli("data", "--data-dir", str(root), "status")  # `pidesktop data status` says the same sizes
    listed = [line for line in status.stdout.splitlines() if line.startswith("schema backup")]
    assert [(line.split()[2:4], line.split()[4]) for line in listed] == [
        (["3.1", "MB"], str(root / "pi.sqlite.v14.bak")),
        (["922", "KB"], str(root / "pi.sqlite.v25.bak")),
    ], status.stderr
    assert dialog.table.topLevelItem(0).toolTip(0) == str(root / "pi.sqlite.v14.bak")
    dialog.resize(680, dialog.sizeHint().height())
    shot(dialog, f"schema-backups-{theme.name}")

    dialog.remove_button.click()
    first = open_boxes()[-1]
    assert "pi.sqlite.v14.bak" in first.text() and first.styleSheet()  # styled like the app's dialogs
    press("Remove")
    assert (root / "pi.sqlite.v14.bak").is_file()  # one confirmation is not enough
    second = open_boxes()[-1]
    remove = next(b for b in second.buttons() if b.text() == "Remove for good")
    assert second.styleSheet() and remove.objectName() == "danger" and "version 14" in second.text()
    shot(second, f"schema-backups-confirm-{theme.name}")
    remove.click()
    spin_until(qloop, lambda: dialog.result is not None and dialog.report.isVisible())
    assert not (root / "pi.sqlite.v14.bak").exists() and (root / "pi.sqlite.v25.bak").is_file()
    assert (root / "pi.sqlite").is_file()
    assert dialog.report.text() == "Removed pi.sqlite.v14.bak (3.1 MB)."
    assert dialog.table.topLevelItemCount() == 1


def test_cancel_keeps_the_copy_and_an_empty_list_says_so(qtbot, qloop, loop_hosts, location):
    from pidesktop.ui.data.data_tools import SchemaBackupsDialog

    client = loop_hosts.start()
    root = location.data_root
    spin_until(qloop, lambda: (root / "pi.sqlite").is_file())
    dialog = SchemaBackupsDialog(client)
    qtbot.addWidget(dialog)
    dialog.open()
    spin_until(qloop, lambda: dialog.backups is not None)
    assert dialog.empty.isVisible() and not dialog.table.isVisible() and not dialog.remove_button.isEnabled()
    plant(root, "pi.sqlite.v20.bak", 10)
    qloop.run_until_complete(dialog.refresh())
    assert dialog.backups and dialog.remove_button.isEnabled()
    dialog.remove_button.click()
    press("Cancel")
    assert open_boxes() == [] and (root / "pi.sqlite.v20.bak").is_file()


def test_a_copy_removed_meanwhile_is_reported_and_the_list_refreshed(qtbot, qloop, loop_hosts, location):
    from pidesktop.ui.data.data_tools import SchemaBackupsDialog

    client = loop_hosts.start()
    root = location.data_root
    spin_until(qloop, lambda: (root / "pi.sqlite").is_file())
    copy = plant(root, "pi.sqlite.v20.bak", 10)
    dialog = SchemaBackupsDialog(client)
    qtbot.addWidget(dialog)
    dialog.open()
    spin_until(qloop, lambda: dialog.backups)
    copy.unlink()
    dialog.remove("pi.sqlite.v20.bak")
    spin_until(qloop, lambda: dialog.report.isVisible())
    assert "There is no database backup pi.sqlite.v20.bak" in dialog.report.text()
    assert dialog.report.property("severity") == "error" and dialog.backups == []


def test_the_data_page_opens_the_copies(qtbot, qloop, host_client):
    from pidesktop.ui.data.data_tools import SchemaBackupsDialog
    from pidesktop.ui.data.settings_data import DataPage

    page = DataPage(host_client)
    qtbot.addWidget(page)
    qloop.run_until_complete(page.load())
    assert page.schema_backups_button.isEnabled()  # also for a pinned folder: they are in it
    dialog = page.open_schema_backups()
    assert isinstance(dialog, SchemaBackupsDialog)
    spin_until(qloop, lambda: dialog.backups is not None)
    dialog.close()


# -- the real cold migration ------------------------------------------------------------------------------
def real_engine():
    try:
        from pidesktop.storage import schema
    except ImportError:
        pytest.skip("pidesktop.storage.schema (the cold migration) is not in this tree yet")
    try:
        from tests.support.schema_history import build
    except ImportError:
        pytest.skip("tests/support/schema_history.py (old database builders) is not in this tree yet")
    return schema, build


def test_the_real_migration_runs_in_the_window(qtbot, location, tmp_path):
    schema, build = real_engine()
    location.data_root.mkdir(parents=True)
    build(location.data_root / "pi.sqlite", 14)
    window = window_for(qtbot, location, themes.LIGHT)
    assert window.check.version == 14 and window.check.needs_migration
    window.begin()
    qtbot.waitUntil(lambda: window.result_location is not None or window.error is not None, timeout=60_000)
    assert window.error is None and window.done.from_version == 14 and window.done.to_version == 27
    assert (location.data_root / "pi.sqlite.v14.bak").is_file()
    assert "pi.sqlite.v14.bak" in migration_note(window.done)
    assert schema_update.schema_check(location) is None
    host = InProcessHost(location)
    try:
        backups = host.call("data.schemaBackups")["backups"]
        assert "pi.sqlite.v14.bak" in [b["name"] for b in backups]
    finally:
        host.stop()


def test_the_real_migration_on_stderr_and_a_newer_database(location):
    schema, build = real_engine()
    location.data_root.mkdir(parents=True)
    build(location.data_root / "pi.sqlite", 20)
    err = io.StringIO()
    done = schema_update.migrate_on_stderr(location, err)
    assert done.from_version == 20 and "updating your data from version 20 to 27" in err.getvalue()
    import apsw

    conn = apsw.Connection(str(location.data_root / "pi.sqlite"))
    conn.execute("PRAGMA user_version = 31")
    conn.close()
    before = (location.data_root / "pi.sqlite").read_bytes()
    check = schema_update.schema_check(location)
    assert check is not None and check.newer
    with pytest.raises(recovery.RecoveryError):
        schema_update.migrate_on_stderr(location, io.StringIO())
    assert (location.data_root / "pi.sqlite").read_bytes() == before
