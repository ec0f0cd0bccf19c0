"""Settings > General's network proxy control against a real host."""

from PySide6.QtCore import Qt

from tests.support.waits import spin_until
from tests.test_settings_ui import stored_settings


def test_the_proxy_control_stores_custom_direct_and_keeps_the_address(qtbot, qloop, client, open_settings, shots):
    dialog = open_settings()
    page = dialog.general
    proxy = page.proxy
    assert proxy.mode_combo.currentData() == "system"
    assert proxy.url_edit.isHidden() and proxy.bypass_edit.isHidden()

    proxy.mode_combo.setCurrentIndex(proxy.mode_combo.findData("custom"))
    assert proxy.url_edit.isVisible() and proxy.note.isVisible()  # it asks for the address first
    assert "networkProxy" not in stored_settings(client)
    qtbot.keyClicks(proxy.bypass_edit, "localhost, .corp")
    qtbot.keyClicks(proxy.url_edit, "http://proxy.example.com:3128")
    qtbot.keyClick(proxy.url_edit, Qt.Key.Key_Return)
    spin_until(qloop, lambda: stored_settings(client).get("networkProxy", {}).get("mode") == "custom")
    assert stored_settings(client)["networkProxy"] == {
        "mode": "custom",
        "url": "http://proxy.example.com:3128",
        "bypass": ["localhost", ".corp"],
    }
    assert not proxy.note.isVisible()
    dialog.resize(760, 620)
    dialog.grab().save(str(shots / "settings-proxy.png"))

    proxy.mode_combo.setCurrentIndex(proxy.mode_combo.findData("direct"))
    spin_until(qloop, lambda: stored_settings(client)["networkProxy"]["mode"] == "direct")
    assert stored_settings(client)["networkProxy"]["url"] == "http://proxy.example.com:3128"  # kept for later
    dialog.close()

    again = open_settings().general.proxy
    assert again.mode_combo.currentData() == "direct"
    again.mode_combo.setCurrentIndex(again.mode_combo.findData("custom"))
    assert again.url_edit.text() == "http://proxy.example.com:3128"
    spin_until(qloop, lambda: stored_settings(client)["networkProxy"]["mode"] == "custom")


def test_a_bad_proxy_address_is_refused_with_a_sentence(qtbot, qloop, client, open_settings):
    page = open_settings().general
    proxy = page.proxy
    proxy.mode_combo.setCurrentIndex(proxy.mode_combo.findData("custom"))
    qtbot.keyClicks(proxy.url_edit, "ftp://proxy:21")
    qtbot.keyClick(proxy.url_edit, Qt.Key.Key_Return)
    spin_until(qloop, lambda: page.error_label.isVisible())
    assert "networkProxy" not in stored_settings(client)
    assert proxy.mode_combo.currentData() == "system"  # back to what is stored
