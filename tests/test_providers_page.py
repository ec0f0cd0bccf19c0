"""Settings > Providers as a new user meets it: the refused field, the model field, Refresh models,
the buttons that only show when they do something. A real host; models come from a real HTTP server."""

import pytest
import shiboken6
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

from pidesktop.bus import HostError
from pidesktop.ui.kit import theme as themes
from pidesktop.ui.settings.settings_dialog import SettingsDialog
from pidesktop.ui.settings.settings_providers import OFFLINE_ID
from tests.support.sse_server import Script
from tests.support.waits import spin_until

MODELS = b'{"data":[{"id":"m-1"},{"id":"m-2","context_length":32768}]}'


@pytest.fixture
def page(qloop, host_client):
    """The Providers page of a loaded, shown Settings dialog."""
    dialog = SettingsDialog.ask(host_client, themes.LIGHT)
    dialog.open()
    qloop.run_until_complete(dialog.loading)
    dialog.show_page("Providers")
    yield dialog.providers
    if shiboken6.isValid(dialog):
        dialog.close()


def click(qtbot, button):
    assert button.isEnabled() and button.isVisible(), button.text()
    qtbot.mouseClick(button, Qt.MouseButton.LeftButton)


def stored(client):
    return client.call_blocking("providers.list")


def serve_models(server, body=MODELS):
    server.serve("/v1/models", Script(headers={"Content-Type": "application/json"}, framing="length", chunks=[body]))


def draft(qtbot, page, name="Local", url="http://127.0.0.1:9/v1", preset="custom"):
    click(qtbot, page.add_button)
    page.preset_combo.setCurrentIndex(page.preset_combo.findData(preset))
    page.name_edit.setText(name)
    page.url_edit.setText(url)


def save(qtbot, qloop, page):
    """Save, and wait for all of it: the models fetched after it too (or the reason they were not)."""
    click(qtbot, page.save_button)
    qloop.run_until_complete(page.running)
    return page.selected_id


def test_a_refusal_marks_the_field_the_host_names_in_data(qtbot, qloop, host_client, page):
    draft(qtbot, page, url="htp:/x")
    save(qtbot, qloop, page)
    assert page.url_edit.property("invalid") is True and page.name_edit.property("invalid") is not True
    assert page.notice.property("severity") == "error"
    # a sentence for a person, not the host's field path; the host's words stay behind the tooltip
    assert page.notice.text().startswith("The base URL must start with http:// or https://, like http://localhost")
    assert "provider.baseUrl" not in page.notice.text() and "providers.upsert" not in page.notice.text()
    assert page.notice.toolTip() == (
        "The base URL must start with http:// or https://, like http://localhost:11434/v1."
    )
    assert stored(host_client)["providers"] == []

    # Only data.field decides which input is marked, whatever the message says.
    page.url_edit.setProperty("invalid", False)
    page._show_refusal(HostError("INVALID_PARAMS", "'provider.baseUrl' is wrong", {"field": "provider.name"}))
    assert page.name_edit.property("invalid") is True and page.url_edit.property("invalid") is False
    page._show_refusal(HostError("INVALID_PARAMS", "The name is wrong", {"field": "apiKey"}))
    assert page.key_edit.property("invalid") is True


def test_the_model_field_is_as_wide_as_the_fields_above_it(qtbot, qloop, page):
    draft(qtbot, page)
    QApplication.processEvents()
    assert page.model_combo.isEditable()
    assert page.model_combo.width() == page.url_edit.width()
    long_id = "accounts/fireworks/models/llama-v3p1-405b-instruct-long-context"
    page.model_combo.setEditText(long_id)
    # the form scrolls inside the page: its scroll area lays it out on the next events
    # (the box's own arrow and padding take a fixed part of its width, whatever the width)
    qtbot.waitUntil(lambda: page.model_combo.lineEdit().width() >= page.model_combo.width() - 80)


def test_the_form_fits_the_dialog_at_its_own_size(qtbot, qloop, page):
    draft(qtbot, page)
    QApplication.processEvents()
    room = page.form_scroll.viewport().width()
    assert page.form_scroll.widget().minimumSizeHint().width() <= room  # nothing cut off at the right
    page.model_combo.setEditText("accounts/fireworks/models/llama-v3p1-405b-instruct-long-context")
    QApplication.processEvents()
    assert page.form_scroll.widget().minimumSizeHint().width() <= room


def test_refresh_models_says_in_words_why_it_waits_for_save(qtbot, qloop, page):
    draft(qtbot, page)
    assert not page.refresh_button.isEnabled()
    assert page.models_note.isVisible()
    assert page.models_note.text() == "Models are fetched when you save."


def test_save_fetches_the_models_and_picks_the_first_as_default(qtbot, qloop, host_client, page, sse_server):
    serve_models(sse_server)
    draft(qtbot, page, url=sse_server.base_url)
    provider_id = save(qtbot, qloop, page)
    spin_until(qloop, lambda: page.model_combo.count() == 2)  # no click on Refresh models
    assert [r.path for r in sse_server.requests] == ["/v1/models"]
    assert page.refresh_button.isEnabled() and not page.models_note.isVisible()
    spin_until(qloop, lambda: stored(host_client)["providers"][0]["defaultModelId"] == "m-1")
    assert page.model_combo.currentText() == "m-1" and page.model_combo.currentIndex() == 0
    assert page.model_combo.lineEdit().cursorPosition() == 0  # a long id shows its start
    assert page.notice.text() == "Provider added. 2 models available (2 new). New chats use Local with m-1."
    assert page.selected_id == provider_id


def test_refresh_shows_the_providers_own_default_model(qtbot, qloop, host_client, page, sse_server):
    serve_models(sse_server)
    draft(qtbot, page, url=sse_server.base_url)
    page.model_combo.setEditText("m-2")
    save(qtbot, qloop, page)
    spin_until(qloop, lambda: page.model_combo.count() == 2)
    assert page.model_combo.currentText() == "m-2"
    assert stored(host_client)["providers"][0]["defaultModelId"] == "m-2"

    # Cleared by hand and saved, the field is filled in again by the next refresh.
    page.model_combo.setEditText("")
    save_clicked = len(sse_server.requests)
    save(qtbot, qloop, page)
    assert len(sse_server.requests) == save_clicked + 1 and page.model_combo.currentText() == "m-1"
    spin_until(qloop, lambda: stored(host_client)["providers"][0]["defaultModelId"] == "m-1")
    click(qtbot, page.refresh_button)
    qloop.run_until_complete(page.running)
    assert len(sse_server.requests) == save_clicked + 2
    assert page.model_combo.currentText() == "m-1"


def test_remove_key_shows_only_when_a_key_is_stored(qtbot, qloop, host_client, page):
    draft(qtbot, page)
    assert not page.remove_key_button.isVisible()
    save(qtbot, qloop, page)
    assert not page.remove_key_button.isVisible()
    qtbot.keyClicks(page.key_edit, "sk-test-1234")
    click(qtbot, page.save_button)
    qloop.run_until_complete(page.running)
    assert stored(host_client)["providers"][0]["hasKey"] and page.remove_key_button.isVisible()
    click(qtbot, page.remove_key_button)
    qloop.run_until_complete(page.running)
    assert not stored(host_client)["providers"][0]["hasKey"] and not page.remove_key_button.isVisible()


def test_use_as_default_is_not_offered_where_it_would_change_nothing(qtbot, qloop, host_client, page):
    page.provider_list.setCurrentRow(0)
    assert page.editor.currentWidget() is page.offline_panel
    assert not page.offline_default_button.isVisible()  # the offline demo is the default to begin with

    draft(qtbot, page)
    assert not page.default_button.isVisible()  # nothing to make default before Save
    provider_id = save(qtbot, qloop, page)
    page.model_combo.setEditText("m-1")
    click(qtbot, page.default_button)
    spin_until(qloop, lambda: stored(host_client)["defaultProviderId"] == provider_id)
    spin_until(qloop, lambda: not page.default_button.isVisible())
    page.model_combo.setEditText("m-2")  # another model for new chats: offered again
    assert page.default_button.isVisible()
    page.model_combo.setEditText("m-1")
    assert not page.default_button.isVisible()

    page.provider_list.setCurrentRow(0)
    assert page.offline_default_button.isVisible()
    click(qtbot, page.offline_default_button)
    spin_until(qloop, lambda: stored(host_client)["defaultProviderId"] == OFFLINE_ID)
    spin_until(qloop, lambda: not page.offline_default_button.isVisible())


def test_buttons_are_disabled_while_their_operation_runs(qtbot, qloop, page):
    draft(qtbot, page)
    seen = []
    page.client.call, real = None, page.client.call

    async def watched(method, params=None):
        seen.append((method, page.save_button.isEnabled()))
        return await real(method, params)

    page.client.call = watched
    try:
        click(qtbot, page.save_button)
        qloop.run_until_complete(page.running)
    finally:
        page.client.call = real
    assert ("providers.upsert", False) in seen
    assert page.save_button.isEnabled()


@pytest.mark.parametrize("theme", [themes.LIGHT, themes.DARK], ids=["light", "dark"])
def test_screenshots(qtbot, qloop, host_client, theme, sse_server, shots):
    serve_models(sse_server, b'{"data":[{"id":"accounts/example/models/a-rather-long-model-name-v2"},{"id":"m-2"}]}')
    app = QApplication.instance()
    themes.apply(app, theme)
    dialog = SettingsDialog.ask(host_client, theme)
    try:
        dialog.open()
        qloop.run_until_complete(dialog.loading)
        dialog.show_page("Providers")
        page = dialog.providers
        draft(qtbot, page)
        QApplication.processEvents()
        assert dialog.grab().save(str(shots / f"providers-draft-{theme.name}.png"))
        page.url_edit.setText(sse_server.base_url)
        save(qtbot, qloop, page)
        spin_until(qloop, lambda: page.model_combo.count() == 2 and "models available" in page.notice.text())
        QApplication.processEvents()
        assert dialog.grab().save(str(shots / f"providers-saved-{theme.name}.png"))
        draft(qtbot, page, url="htp:/x")
        save(qtbot, qloop, page)
        QApplication.processEvents()
        assert dialog.grab().save(str(shots / f"providers-refused-{theme.name}.png"))
    finally:
        dialog.close()
        app.setStyleSheet("")
        app.setPalette(app.style().standardPalette())


def test_the_first_real_provider_becomes_the_default_and_presets_stay_reachable(
    qtbot,
    qloop,
    host_client,
    page,
    sse_server,
):
    serve_models(sse_server)
    draft(qtbot, page, name="Local server", url=sse_server.base_url)
    first = save(qtbot, qloop, page)
    listed = stored(host_client)
    assert (listed["defaultProviderId"], listed["defaultModelId"]) == (first, "m-1")  # no "Use as default" needed
    assert "New chats use Local server with m-1." in page.notice.text()
    assert page.preset_label.isVisible() and page.preset_combo.isVisible()  # still there after Save
    assert page.preset_combo.currentData() == "custom"

    # a second provider does not take the default from the first
    draft(qtbot, page, name="Another", url=sse_server.base_url)
    second = save(qtbot, qloop, page)
    assert second != first and stored(host_client)["defaultProviderId"] == first

    # a preset chosen for a saved provider fills its form; Save stores it
    page.preset_combo.setCurrentIndex(page.preset_combo.findData("openrouter"))
    assert page.url_edit.text().startswith("https://openrouter.ai")
    assert page.name_edit.text() == "OpenRouter"
