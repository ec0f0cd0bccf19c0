"""Settings > Data: Back up everything… (the host's data.snapshot job) and Restore… (a cold restore)."""

from __future__ import annotations

import pytest

from pidesktop.storage import vault
from pidesktop.storage.verify import verify

from .conftest import spin_until

CHEAP = 2**10


@pytest.fixture(autouse=True)
def cheap_scrypt(monkeypatch: pytest.MonkeyPatch) -> None:
    original = vault.create
    monkeypatch.setattr(vault, "create", lambda passphrase, n=CHEAP, r=8, p=1: original(passphrase, n, r, p))


def test_back_up_everything_then_restore_into_a_new_folder(qtbot, qloop, loop_hosts, tmp_path, keep_running):
    from pidesktop.ui.backup_dialogs import RestoreDialog, SnapshotDialog

    client = loop_hosts.start()
    sid = qloop.run_until_complete(client.call("session.create", {"title": "Keep me"}))["session"]["id"]
    message = {"id": "m1", "role": "user", "blocks": [{"type": "text", "text": "remember this"}]}
    qloop.run_until_complete(client.call("session.appendMessage", {"sessionId": sid, "message": message}))

    dialog = SnapshotDialog(client)
    qtbot.addWidget(dialog)
    dialog.open()
    dialog.folder_edit.setText(str(tmp_path / "backups"))
    dialog.passphrase.setText("pass one")
    dialog.again.setText("pass two")
    dialog.backup_button.click()
    assert dialog.report.text() == "The two passphrases differ; type the same one twice."
    dialog.again.setText("pass one")
    dialog.backup_button.click()
    spin_until(qloop, lambda: dialog.report.isVisible())
    assert dialog.result is not None, dialog.report.text()
    assert dialog.report.text().startswith("Backed up ") and str(tmp_path / "backups") in dialog.report.text()
    dialog.grab().save(str(tmp_path / "snapshot-dialog.png"))

    restore = RestoreDialog()
    qtbot.addWidget(restore)
    restore.open()
    restore.source_edit.setText(str(tmp_path / "backups"))
    restore.target_edit.setText(str(tmp_path / "restored"))
    restore.passphrase.setText("wrong")
    restore.restore_button.click()
    spin_until(qloop, lambda: restore.report.isVisible())
    assert "passphrase is wrong" in restore.report.text() and not (tmp_path / "restored").exists()
    restore.passphrase.setText("pass one")
    restore.restore_button.click()
    spin_until(qloop, lambda: restore.restored is not None)
    assert "pidesktop --data-dir" in restore.report.text()
    assert verify(tmp_path / "restored").ok
    restore.grab().save(str(tmp_path / "restore-dialog.png"))
    print(tmp_path)


def test_the_data_page_names_each_backup_for_what_it_does(qtbot, qloop, host_client, tmp_path):
    from pidesktop.ui.backup_dialogs import RestoreDialog, SnapshotDialog
    from pidesktop.ui.settings_data import DataPage

    page = DataPage(host_client)
    qtbot.addWidget(page)
    qloop.run_until_complete(page.load())
    assert page.snapshot_button.text() == "Back up everything…" and page.snapshot_button.isEnabled()
    assert page.backup_button.text() == "Copy database file…"
    assert page.restore_button.text() == "Restore…" and page.restore_button.isEnabled()
    page.resize(760, 620)
    page.grab().save(str(tmp_path / "data-page.png"))
    snapshot = page.open_snapshot()
    assert isinstance(snapshot, SnapshotDialog)
    snapshot.close()
    restore = page.open_restore()
    assert isinstance(restore, RestoreDialog)
    restore.close()
    print(tmp_path)
