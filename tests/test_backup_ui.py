"""Settings > Data: Back up everything… (the host's data.snapshot job) and Restore… (a cold restore)."""

from __future__ import annotations

import pytest

from pidesktop.storage import vault
from pidesktop.storage.verify import verify
from tests.support.waits import spin_until

CHEAP = 2**10


@pytest.fixture(autouse=True)
def cheap_scrypt(monkeypatch: pytest.MonkeyPatch) -> None:
    original = vault.create
    monkeypatch.setattr(vault, "create", lambda passphrase, n=CHEAP, r=8, p=1: original(passphrase, n, r, p))


def test_back_up_everything_then_restore_into_a_new_folder(qtbot, qloop, loop_hosts, tmp_path, keep_running):
    from pidesktop.ui.data.backup_dialogs import RestoreDialog, SnapshotDialog

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
    assert dialog.summary is not None, dialog.report.text()
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
    from pidesktop.ui.data.backup_dialogs import RestoreDialog, S3BackupDialog, S3RestoreDialog, SnapshotDialog
    from pidesktop.ui.data.settings_data import DataPage

    page = DataPage(host_client)
    qtbot.addWidget(page)
    qloop.run_until_complete(page.load())
    assert page.snapshot_button.text() == "Back up everything…" and page.snapshot_button.isEnabled()
    assert page.backup_button.text() == "Copy database file…"
    assert page.restore_button.text() == "Restore…" and page.restore_button.isEnabled()
    assert page.s3_backup_button.text() == "Back up to S3…" and page.s3_backup_button.isEnabled()
    assert page.s3_restore_button.text() == "Restore from S3…" and page.s3_restore_button.isEnabled()
    page.resize(760, 620)
    page.grab().save(str(tmp_path / "data-page.png"))
    snapshot = page.open_snapshot()
    assert isinstance(snapshot, SnapshotDialog)
    snapshot.close()
    restore = page.open_restore()
    assert isinstance(restore, RestoreDialog)
    restore.close()
    s3_backup = page.open_s3_backup()
    assert isinstance(s3_backup, S3BackupDialog)
    qloop.run_until_complete(s3_backup.loading)
    s3_backup.close()
    s3_restore = page.open_s3_restore()
    assert isinstance(s3_restore, S3RestoreDialog)
    qloop.run_until_complete(s3_restore.loading)
    assert "not set up" in s3_restore.where.text() and not s3_restore.list_button.isEnabled()
    s3_restore.close()
    print(tmp_path)


def test_the_missing_data_folder_page_restores_from_s3(qtbot, isolated_home, tmp_path):
    from moto.server import ThreadedMotoServer

    from pidesktop import paths
    from pidesktop.storage import recovery
    from pidesktop.storage.blobstore import S3Store
    from pidesktop.storage.snapshot_backup import backup
    from pidesktop.storage.snapshot_format import open_repository
    from pidesktop.ui.startup.missing_root_window import MissingRootWindow
    from tests.support.hosts import InProcessHost
    from tests.support.s3_server import CREDENTIALS, S3Server, _free_port

    location = paths.resolve()
    host = InProcessHost(location)
    try:
        sid = host.call("session.create", {"title": "From the old laptop"})["session"]["id"]
        message = {"id": "m1", "role": "user", "blocks": [{"type": "text", "text": "hello from before"}]}
        host.call("session.appendMessage", {"sessionId": sid, "message": message})
    finally:
        host.stop()
    recovery.before_host_start(location)
    port = _free_port()
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=port, verbose=False)
    server.start()
    try:
        bucket = S3Server(f"http://127.0.0.1:{port}").new_bucket(prefix="laptop")
        from pidesktop.storage import s3

        repo = open_repository(S3Store(s3.connect(bucket, CREDENTIALS), bucket), "pass", create=True)
        backup(repo, location.data_root)
        transcript = (location.data_root / "sessions" / f"{sid}.jsonl").read_bytes()
        location.data_root.rename(tmp_path / "gone")
        check = recovery.check_default_root()
        assert check.state == "missing"

        window = MissingRootWindow(check)
        qtbot.addWidget(window)
        window.show()
        window.s3_button.click()
        form = window.s3_form
        form.endpoint.setText(str(bucket.endpoint))
        form.bucket.setText(bucket.bucket)
        form.prefix.setText("laptop")
        form.access_key.setText(CREDENTIALS.access_key)
        form.secret_key.setText(CREDENTIALS.secret_key)
        form.passphrase.setText("wrong")
        window.s3_restore_button.click()
        qtbot.waitUntil(lambda: window.error_label.isVisible(), timeout=20000)
        assert "passphrase is wrong" in window.error_label.text() and not check.data_root.exists()
        window.grab().save(str(tmp_path / "missing-root-s3.png"))
        form.passphrase.setText("pass")
        window.s3_restore_button.click()
        qtbot.waitUntil(lambda: window.result_location is not None, timeout=20000)
        assert window.result_location.data_root == check.data_root
        assert (check.data_root / "sessions" / f"{sid}.jsonl").read_bytes() == transcript
        print(tmp_path)
    finally:
        server.stop()


def test_back_up_to_s3_with_the_sync_connection(qtbot, qloop, loop_hosts, s3_server, bucket, tmp_path, shots):
    from pidesktop.storage import s3
    from pidesktop.storage.blobstore import S3Store
    from pidesktop.storage.snapshot_format import open_repository
    from pidesktop.ui.data.backup_dialogs import S3BackupDialog
    from pidesktop.ui.data.host_jobs import run_job
    from tests.support.s3_server import CREDENTIALS

    client = loop_hosts.start()
    unset = S3BackupDialog(client)
    qtbot.addWidget(unset)
    unset.open()
    qloop.run_until_complete(unset.loading)
    assert "not set up" in unset.where.text() and not unset.backup_button.isEnabled()
    unset.close()

    connection = {
        "endpoint": bucket.endpoint,
        "region": bucket.region,
        "bucket": bucket.bucket,
        "prefix": bucket.prefix,
        "accessKey": CREDENTIALS.access_key,
        "secretKey": CREDENTIALS.secret_key,
        "passphrase": "sync pass",
    }
    qloop.run_until_complete(run_job(client, "sync.configure", connection))
    qloop.run_until_complete(client.call("session.create", {"title": "Keep me"}))
    store = S3Store(s3.connect(bucket, CREDENTIALS), bucket)
    open_repository(store, "older pass", create=True)  # backups made earlier with another passphrase

    dialog = S3BackupDialog(client)
    qtbot.addWidget(dialog)
    dialog.resize(620, 300)
    dialog.open()
    qloop.run_until_complete(dialog.loading)
    assert bucket.bucket in dialog.where.text() and dialog.backup_button.isEnabled()
    dialog.grab().save(str(shots / "s3-backup-dialog.png"))
    dialog.backup_button.click()
    spin_until(qloop, lambda: dialog.report.isVisible())
    assert "another passphrase" in dialog.report.text() and dialog.details_button.isVisible()
    dialog.grab().save(str(shots / "s3-backup-refused.png"))
    dialog.passphrase.setText("older pass")
    dialog.backup_button.click()
    spin_until(qloop, lambda: dialog.summary is not None)
    assert dialog.report.text().startswith("Backed up ") and bucket.bucket in dialog.report.text()
    assert not dialog.details_button.isVisible()
    dialog.grab().save(str(shots / "s3-backup-done.png"))
    assert open_repository(store, "older pass").snapshot_ids() == [dialog.summary["snapshot"]]
    print(shots)


def test_a_failed_daily_backup_is_told_in_words_with_details(qloop, chat, host_client, bucket, shots):
    from pidesktop.ui.data.host_jobs import run_job
    from tests.test_backup_s3_saved import connection_params, deny_writes

    qloop.run_until_complete(run_job(host_client, "sync.configure", connection_params(bucket)))
    host_client.call_blocking("data.setDailyBackup", {"enabled": True})
    deny_writes(bucket)
    started = host_client.call_blocking("data.dailyBackup", {"now": 1_780_000_000_000})
    assert started["started"] is True
    spin_until(qloop, lambda: "daily backup" in chat.notice.label.text())
    assert chat.notice.label.text().startswith("The daily backup to S3 failed: ")
    assert "refused" in chat.notice.label.text() and not chat.banner.isVisible()
    assert "writes_refused" in chat.notices.error_log.text() or "credentials_refused" in chat.notices.error_log.text()
    chat.grab().save(str(shots / "daily-backup-failed.png"))


def test_restore_from_s3_lists_the_backups_and_rebuilds_the_chosen_one(
    qtbot, qloop, loop_hosts, bucket, tmp_path, shots
):
    from pidesktop.ui.data.backup_dialogs import S3RestoreDialog
    from pidesktop.ui.data.host_jobs import run_job
    from tests.test_backup_s3_saved import connection_params

    client = loop_hosts.start()
    qloop.run_until_complete(run_job(client, "sync.configure", connection_params(bucket)))
    qloop.run_until_complete(client.call("session.create", {"title": "First"}))
    first = qloop.run_until_complete(run_job(client, "data.snapshotS3", {}))
    qloop.run_until_complete(client.call("session.create", {"title": "Second"}))
    second = qloop.run_until_complete(run_job(client, "data.snapshotS3", {}))

    dialog = S3RestoreDialog(client)
    qtbot.addWidget(dialog)
    dialog.resize(620, 360)
    dialog.open()
    qloop.run_until_complete(dialog.loading)
    assert bucket.bucket in dialog.where.text() and not dialog.restore_button.isEnabled()
    qloop.run_until_complete(dialog.list_snapshots())
    assert [dialog.snapshots.itemData(i) for i in range(dialog.snapshots.count())] == [
        second["snapshot"],
        first["snapshot"],
    ]
    assert dialog.restore_button.isEnabled()
    dialog.snapshots.setCurrentIndex(1)
    dialog.target_edit.setText(str(tmp_path / "restored"))
    dialog.grab().save(str(shots / "s3-restore-dialog.png"))
    dialog.restore_button.click()
    spin_until(qloop, lambda: dialog.restored is not None or dialog.error is not None)
    assert dialog.restored == tmp_path / "restored", dialog.report.text()
    assert "pidesktop --data-dir" in dialog.report.text() and verify(tmp_path / "restored").ok
    dialog.grab().save(str(shots / "s3-restore-done.png"))
    dialog.restore_button.click()  # the folder is not empty now: refused in words
    spin_until(qloop, lambda: dialog.error is not None)
    assert "not empty" in dialog.report.text() and dialog.details_button.isVisible()
