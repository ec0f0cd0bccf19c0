"""Settings > Sync against a real S3 on 127.0.0.1: Test connection in words, Save, Sync now."""

import shiboken6

from pidesktop.ui.kit import theme as themes
from pidesktop.ui.settings.settings_dialog import SettingsDialog
from tests.support.s3_server import CREDENTIALS, S3Server
from tests.support.waits import spin_until
from tests.test_config_sync import Machine, connection


def fill(page, location, passphrase="a long passphrase"):
    page.endpoint.setText(location.endpoint)
    page.region.setText(location.region)
    page.bucket.setText(location.bucket)
    page.prefix.setText(location.prefix)
    page.access_key.setText(CREDENTIALS.access_key)
    page.secret_key.setText(CREDENTIALS.secret_key)
    page.passphrase.setText(passphrase)


def test_the_sync_page_tests_saves_and_syncs(
    qloop, host_client, keep_running, s3_server: S3Server, bucket, shots, tmp_path
):
    dialog = SettingsDialog.ask(host_client, themes.LIGHT)
    dialog.resize(900, 640)
    dialog.open()
    try:
        qloop.run_until_complete(dialog.loading)
        dialog.show_page("Sync")
        page = dialog.sync
        assert page.state.text() == "Not set up yet." and not page.sync_button.isEnabled()

        fill(page, s3_server.location("no-such-bucket"))
        page.test_button.click()
        spin_until(qloop, lambda: page.message.text())
        assert "does not exist" in page.message.text()

        fill(page, bucket)
        page.machine_name.setText("Laptop")
        page.test_button.click()
        spin_until(qloop, lambda: "accepts data" in page.message.text())
        page.save_button.click()
        spin_until(qloop, lambda: page.sync_button.isEnabled())
        assert page.passphrase.text() == "" and page.secret_key.text() == ""
        assert host_client.call_blocking("sync.status")["machineName"] == "Laptop"
        assert page.machine_name.text() == "Laptop"
        host_client.call_blocking("settings.set", {"patch": {"theme": "dark"}})
        page.sync_button.click()
        spin_until(qloop, lambda: page.message.text().startswith("Synced:"))
        spin_until(qloop, lambda: "revision 1" in page.state.text())

        # A second version, then back to the first through the versions list.
        host_client.call_blocking("settings.set", {"patch": {"theme": "light"}})
        page.sync_button.click()
        spin_until(qloop, lambda: "revision 2" in page.state.text())
        page.versions_button.click()
        spin_until(qloop, lambda: page.versions.count() == 2)
        assert page.versions.itemText(0).startswith("Version 2") and page.versions.itemText(0).endswith(" 1 change")
        assert page.daily.isEnabled() and not page.daily.isChecked()
        page.daily.click()
        spin_until(qloop, lambda: host_client.call_blocking("sync.status")["dailyBackup"]["enabled"])
        assert page.daily.isChecked()
        dialog.grab().save(str(shots / "settings-sync.png"))
        page.versions.setCurrentIndex(1)
        page.restore_button.click()
        spin_until(qloop, lambda: "revision 3" in page.state.text())
        assert "Version 1 restored" in page.message.text()
        assert host_client.call_blocking("settings.get")["settings"]["theme"] == "dark"

        # Another computer changes the same setting: the page lists the conflict and which change it kept.
        desk = Machine(tmp_path / "desk")
        try:
            desk.call("sync.configure", connection(bucket, passphrase="a long passphrase"))
            desk.call("sync.run")
            desk.call("settings.set", {"patch": {"theme": "system"}})
            desk.call("sync.run")
        finally:
            desk.close()
        host_client.call_blocking("settings.set", {"patch": {"theme": "light"}})
        page.sync_button.click()
        spin_until(qloop, lambda: "Changed on two computers" in page.state.text())
        assert "Changed on two computers: the setting “Theme”; the newer change was kept." in page.state.text()
        assert host_client.call_blocking("settings.get")["settings"]["theme"] == "light"  # this one is newer
        dialog.grab().save(str(shots / "settings-sync-conflict.png"))
    finally:
        if shiboken6.isValid(dialog):
            dialog.close()
