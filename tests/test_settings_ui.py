"""The Settings dialog against a real host: General, Providers (with a real model server) and Data."""

import pytest
import shiboken6
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QLabel, QLineEdit

from pidesktop.ui.kit import theme as themes
from pidesktop.ui.settings.settings_providers import KEY_NOTE, OFFLINE_ID, STORED_KEY
from tests.support.sse_server import Script
from tests.support.waits import spin_until

KEY = "sk-test-9f8e7d6c5b4a"


def click(qtbot, button):
    assert button.isEnabled() and button.isVisible(), button.text()
    qtbot.mouseClick(button, Qt.MouseButton.LeftButton)


def stored_settings(client):
    return client.call_blocking("settings.get")["settings"]


def providers_list(client):
    return client.call_blocking("providers.list")


def row_ids(page):
    return [page.provider_list.item(i).data(Qt.ItemDataRole.UserRole) for i in range(page.provider_list.count())]


def providers_page(dialog):
    dialog.show_page("Providers")
    return dialog.providers


def select(page, provider_id):
    page.provider_list.setCurrentRow(row_ids(page).index(provider_id))


def add_provider(qtbot, qloop, page, preset="openai", name=None, url=None, key=None):
    click(qtbot, page.add_button)
    page.preset_combo.setCurrentIndex(page.preset_combo.findData(preset))
    if name is not None:
        page.name_edit.setText(name)
    if url is not None:
        page.url_edit.setText(url)
    if key is not None:
        qtbot.keyClicks(page.key_edit, key)
    before = len(page.providers)
    click(qtbot, page.save_button)
    qloop.run_until_complete(page.running)  # all of Save, the models it fetches included
    assert len(page.providers) == before + 1 or page.notice.property("severity") == "error"
    return page.selected_id


# -- General -----------------------------------------------------------------------


def test_general_changes_are_stored_at_once_and_shown_again(qtbot, qloop, client, open_settings):
    dialog = open_settings()
    page = dialog.general
    assert page.theme_combo.currentData() == "system"
    assert page.paste_spin.value() == 600
    emitted = []
    dialog.settingsChanged.connect(emitted.append)

    page.theme_combo.setCurrentIndex(page.theme_combo.findData("dark"))
    spin_until(qloop, lambda: stored_settings(client)["theme"] == "dark")
    page.language_combo.setCurrentIndex(page.language_combo.findData("zh_CN"))
    spin_until(qloop, lambda: stored_settings(client)["language"] == "zh_CN")
    click(qtbot, page.show_thinking_check)
    spin_until(qloop, lambda: stored_settings(client)["showThinking"] is False)
    page.display_mode_combo.setCurrentIndex(page.display_mode_combo.findData("command-first"))
    spin_until(qloop, lambda: stored_settings(client)["transcriptDisplayMode"] == "command-first")
    page.paste_spin.lineEdit().selectAll()
    qtbot.keyClicks(page.paste_spin.lineEdit(), "2500")
    qtbot.keyClick(page.paste_spin.lineEdit(), Qt.Key.Key_Return)
    spin_until(qloop, lambda: stored_settings(client)["largePasteThreshold"] == 2500)
    spin_until(qloop, lambda: emitted and emitted[-1]["largePasteThreshold"] == 2500)
    assert emitted[-1]["theme"] == "dark"
    assert not page.error_label.isVisible()
    dialog.close()

    again = open_settings().general
    assert again.theme_combo.currentData() == "dark"
    assert again.language_combo.currentData() == "zh_CN"
    assert again.show_thinking_check.isChecked() is False
    assert again.display_mode_combo.currentData() == "command-first"
    assert again.paste_spin.value() == 2500


def test_threshold_outside_the_host_range_cannot_be_entered(qtbot, qloop, client, open_settings):
    page = open_settings().general
    spin = page.paste_spin
    assert (spin.minimum(), spin.maximum()) == (1, 1_000_000)
    assert spin.suffix() == " characters"
    spin.setValue(0)
    assert spin.value() == 1
    spin.setValue(5_000_000)
    assert spin.value() == 1_000_000
    spin_until(qloop, lambda: stored_settings(client)["largePasteThreshold"] == 1_000_000)
    spin.lineEdit().selectAll()
    qtbot.keyClicks(spin.lineEdit(), "0")  # the validator refuses it: nothing changes
    qtbot.keyClick(spin.lineEdit(), Qt.Key.Key_Return)
    assert spin.value() in (1, 1_000_000)
    spin_until(qloop, lambda: 1 <= stored_settings(client)["largePasteThreshold"] <= 1_000_000)


# -- Providers ---------------------------------------------------------------------


def test_offline_demo_is_a_permanent_first_row(open_settings):
    page = providers_page(open_settings())
    assert row_ids(page) == [OFFLINE_ID]
    assert page.editor.currentWidget() is page.offline_panel
    row = page.provider_list.itemWidget(page.provider_list.item(0))
    assert row.name_label.text() == "Offline demo (no AI)"
    assert row.default_badge is not None  # the default with nothing stored


def test_adding_from_a_preset_stores_the_key_and_forgets_it(qtbot, qloop, client, open_settings):
    dialog = open_settings()
    page = providers_page(dialog)
    click(qtbot, page.add_button)
    assert page.name_edit.text() == "OpenAI"
    assert page.url_edit.text() == "https://api.openai.com/v1"
    assert page.key_edit.echoMode() == QLineEdit.EchoMode.Password
    assert page.key_note.isVisible() and page.key_note.text() == KEY_NOTE
    qtbot.keyClicks(page.key_edit, KEY)
    click(qtbot, page.save_button)
    spin_until(qloop, lambda: len(page.providers) == 1)

    [stored] = providers_list(client)["providers"]
    assert (stored["name"], stored["baseUrl"], stored["vendorKey"], stored["hasKey"]) == (
        "OpenAI",
        "https://api.openai.com/v1",
        "openai",
        True,
    )
    assert row_ids(page) == [OFFLINE_ID, stored["id"]]
    assert page.selected_id == stored["id"]
    assert page.key_edit.text() == ""
    assert page.key_edit.placeholderText() == STORED_KEY
    assert page.remove_key_button.isEnabled()
    texts = [w.text() for w in dialog.findChildren(QLineEdit)] + [w.text() for w in dialog.findChildren(QLabel)]
    texts += [w.placeholderText() for w in dialog.findChildren(QLineEdit)]
    assert not [text for text in texts if KEY in text]

    # empty key field on Save keeps the stored key; Remove key sends apiKey: null
    page.name_edit.setText("OpenAI (work)")
    click(qtbot, page.save_button)
    spin_until(qloop, lambda: providers_list(client)["providers"][0]["name"] == "OpenAI (work)")
    assert providers_list(client)["providers"][0]["hasKey"] is True
    click(qtbot, page.remove_key_button)
    spin_until(qloop, lambda: providers_list(client)["providers"][0]["hasKey"] is False)
    spin_until(qloop, lambda: page.key_edit.placeholderText() != STORED_KEY)
    assert not page.remove_key_button.isEnabled()


def test_a_bad_base_url_shows_the_host_message_and_stores_nothing(qtbot, qloop, client, open_settings):
    page = providers_page(open_settings())
    click(qtbot, page.add_button)
    page.preset_combo.setCurrentIndex(page.preset_combo.findData("custom"))
    assert page.name_edit.text() == "" and page.url_edit.text() == ""
    page.name_edit.setText("Mine")
    page.url_edit.setText("ftp://x")
    click(qtbot, page.save_button)
    spin_until(qloop, lambda: page.notice.isVisible())
    assert page.notice.property("severity") == "error"
    assert page.notice.text().startswith("The base URL must start with http:// or https://")
    assert page.url_edit.property("invalid") is True
    assert providers_list(client)["providers"] == []
    assert page.selected_id is None  # still drafting: the user can fix it


def test_reorder_with_up_and_down(qtbot, qloop, client, open_settings):
    page = providers_page(open_settings())
    first = add_provider(qtbot, qloop, page, "ollama")
    second = add_provider(qtbot, qloop, page, "lmstudio")
    assert [p["id"] for p in providers_list(client)["providers"]] == [first, second]
    assert page.selected_id == second
    assert not page.down_button.isEnabled()
    click(qtbot, page.up_button)
    spin_until(qloop, lambda: [p["id"] for p in providers_list(client)["providers"]] == [second, first])
    spin_until(qloop, lambda: row_ids(page) == [OFFLINE_ID, second, first])
    assert page.provider_list.currentRow() == 1  # the moved row stays selected
    click(qtbot, page.down_button)
    spin_until(qloop, lambda: [p["id"] for p in providers_list(client)["providers"]] == [first, second])


def test_delete_asks_first(qtbot, qloop, client, open_settings):
    page = providers_page(open_settings())
    provider_id = add_provider(qtbot, qloop, page, "openrouter", key=KEY)
    click(qtbot, page.delete_button)
    box = page.confirm_box
    assert box is not None and "OpenRouter" in box.text()
    qtbot.mouseClick(box.button(box.StandardButton.Cancel), Qt.MouseButton.LeftButton)
    spin_until(qloop, lambda: page.confirm_box is None)
    assert len(providers_list(client)["providers"]) == 1

    click(qtbot, page.delete_button)
    box = page.confirm_box
    qtbot.mouseClick(next(b for b in box.buttons() if b.text() == "Delete"), Qt.MouseButton.LeftButton)
    spin_until(qloop, lambda: providers_list(client)["providers"] == [])
    spin_until(qloop, lambda: row_ids(page) == [OFFLINE_ID])
    assert page.selected_id == OFFLINE_ID and page.editor.currentWidget() is page.offline_panel
    assert provider_id not in row_ids(page)


def test_use_as_default_for_a_provider_and_for_the_offline_demo(qtbot, qloop, client, open_settings):
    dialog = open_settings()
    page = providers_page(dialog)
    changed = []
    dialog.providersChanged.connect(lambda: changed.append(True))
    provider_id = add_provider(qtbot, qloop, page, "ollama")
    page.model_combo.setEditText("llama3.2")
    click(qtbot, page.default_button)
    spin_until(qloop, lambda: providers_list(client)["defaultProviderId"] == provider_id)
    assert providers_list(client)["defaultModelId"] == "llama3.2"
    spin_until(qloop, lambda: page.provider_list.itemWidget(page.provider_list.item(1)).default_badge is not None)
    assert page.provider_list.itemWidget(page.provider_list.item(0)).default_badge is None

    select(page, OFFLINE_ID)
    assert page.editor.currentWidget() is page.offline_panel
    click(qtbot, page.offline_default_button)
    spin_until(qloop, lambda: providers_list(client)["defaultProviderId"] == OFFLINE_ID)
    assert providers_list(client)["defaultModelId"] == "offline-demo"
    spin_until(qloop, lambda: page.provider_list.itemWidget(page.provider_list.item(0)).default_badge is not None)
    assert changed


def test_the_page_opens_on_the_provider_new_chats_use(qtbot, qloop, client, open_settings):
    page = providers_page(open_settings())
    assert page.selected_id == OFFLINE_ID  # nothing added yet: the offline demo is the default
    provider_id = add_provider(qtbot, qloop, page, "ollama")
    page.model_combo.setEditText("llama3.2")
    click(qtbot, page.default_button)
    spin_until(qloop, lambda: providers_list(client)["defaultProviderId"] == provider_id)
    again = providers_page(open_settings())
    assert again.selected_id == provider_id
    assert row_ids(again)[again.provider_list.currentRow()] == provider_id
    assert again.editor.currentWidget() is not again.offline_panel and again.name_edit.text() == "Ollama"


def closed(dialog) -> bool:
    return not shiboken6.isValid(dialog) or not dialog.isVisible()  # deleted on close, or hidden


def answer(qloop, page, text):
    question = spin_until(qloop, lambda: page.question)
    next(b for b in question.buttons() if b.text() == text).click()
    spin_until(qloop, lambda: page.question is None)


def test_what_was_typed_for_a_provider_is_saved_or_let_go_never_just_lost(qtbot, qloop, client, open_settings):
    dialog = open_settings()
    page = providers_page(dialog)
    click(qtbot, page.add_button)
    page.preset_combo.setCurrentIndex(page.preset_combo.findData("ollama"))
    dialog.reject()  # a preset picked, nothing typed: it just closes
    assert page.question is None and closed(dialog)

    dialog = open_settings()
    page = providers_page(dialog)
    click(qtbot, page.add_button)
    qtbot.keyClicks(page.key_edit, KEY)
    dialog.reject()  # Close, Esc or the window's x
    assert spin_until(qloop, lambda: page.question).text() == "Save the new provider?"
    answer(qloop, page, "Keep editing")
    assert dialog.isVisible() and page.key_edit.text() == KEY
    dialog.reject()
    answer(qloop, page, "Discard")
    assert closed(dialog) and providers_list(client)["providers"] == []

    dialog = open_settings()
    page = providers_page(dialog)
    provider_id = add_provider(qtbot, qloop, page, "ollama")
    page.name_edit.setText("Ollama at home")
    select(page, OFFLINE_ID)  # another row while the name is not saved: asked first
    assert spin_until(qloop, lambda: page.question).text() == "Save your changes to the provider “Ollama at home”?"
    answer(qloop, page, "Keep editing")
    assert page.selected_id == provider_id and row_ids(page)[page.provider_list.currentRow()] == provider_id
    assert page.name_edit.text() == "Ollama at home"
    select(page, OFFLINE_ID)
    answer(qloop, page, "Save")
    spin_until(qloop, lambda: page.selected_id == OFFLINE_ID)
    assert providers_list(client)["providers"][0]["name"] == "Ollama at home"
    assert page.editor.currentWidget() is page.offline_panel

    select(page, provider_id)
    page.model_combo.setEditText("llama3.2")
    page._show_model_settings()
    page.model_form.prompt_edit.setPlainText("Answer in French.")
    click(qtbot, page.add_button)  # a new provider while a system prompt is typed: asked too
    answer(qloop, page, "Discard")
    assert page.selected_id is None and not page.unsaved()


def test_refresh_models_from_a_real_server(qtbot, qloop, client, open_settings, sse_server):
    sse_server.serve(
        "/v1/models",
        Script(
            headers={"Content-Type": "application/json"},
            framing="length",
            chunks=[b'{"data":[{"id":"m-1"},{"id":"m-2","context_length":32768}]}'],
        ),
    )
    page = providers_page(open_settings())
    provider_id = add_provider(qtbot, qloop, page, "custom", name="Local", url=sse_server.base_url, key=KEY)
    assert providers_list(client)["providers"][0]["baseUrl"] == sse_server.base_url
    assert page.model_combo.count() == 2  # Save has fetched the models once already; Refresh models asks again
    click(qtbot, page.refresh_button)
    qloop.run_until_complete(page.running)
    models = client.call_blocking("models.list", {"providerId": provider_id})["models"]
    assert [(m["modelId"], m["source"], m["contextWindow"]) for m in models] == [
        ("m-1", "discovered", None),
        ("m-2", "discovered", 32768),
    ]
    assert [page.model_combo.itemText(i) for i in range(2)] == ["m-1", "m-2"]
    assert "2 models available" in page.notice.text()
    requests = [r for r in sse_server.requests if r.path == "/v1/models"]
    assert len(requests) == 2 and {r.headers["authorization"] for r in requests} == {f"Bearer {KEY}"}
    assert not [w for w in page.findChildren(QLineEdit) if KEY in w.text()]


def test_refresh_shows_a_provider_error(qtbot, qloop, client, open_settings, sse_server):
    page = providers_page(open_settings())
    add_provider(qtbot, qloop, page, "custom", name="Nowhere", url=f"{sse_server.url}/nothing/v1")
    assert page.notice.property("severity") == "error"  # Save's own fetch failed the same way
    page.show_notice("")
    click(qtbot, page.refresh_button)
    spin_until(qloop, lambda: page.notice.property("severity") == "error" and page.notice.isVisible())
    assert "404" in page.notice.text() and "base URL" in page.notice.text()
    assert page.refresh_button.isEnabled() and page.refresh_button.text() == "Refresh models"


# -- Data ------------------------------------------------------------------------------


def test_the_dialog_opens_at_its_size_and_a_page_scrolls_when_it_is_made_smaller(open_settings, qloop):
    """The tallest page does not set the dialog's height: the dialog opens at its design size, and on a small
    screen (or made smaller) a page scrolls instead of the dialog not fitting."""
    import asyncio

    from pidesktop.ui.settings.settings_dialog import DIALOG_SIZE

    dialog = open_settings()
    assert (dialog.width(), dialog.height()) == DIALOG_SIZE
    assert dialog.minimumSizeHint().height() < 480
    dialog.resize(DIALOG_SIZE[0], 480)
    dialog.show_page("Sync")
    qloop.run_until_complete(asyncio.sleep(0.01))
    area = dialog.pages.currentWidget()
    assert dialog.height() == 480 and area.widget() is dialog.sync and area.verticalScrollBar().maximum() > 0


def test_data_page_shows_the_data_folder(open_settings, location):
    dialog = open_settings()
    dialog.show_page("Data")
    assert dialog.pages.currentWidget().widget() is dialog.data
    assert dialog.data.path_label.text() == str(location.data_root)
    assert dialog.data.open_button.isEnabled()


def test_the_workflows_tool_sits_under_advanced_and_says_what_it_is_for(open_settings):
    dialog = open_settings()
    dialog.show_page("Data")
    QApplication.processEvents()
    page = dialog.data
    assert page.advanced_title.text() == "Advanced" and page.advanced_title.isVisible()
    below = page.workflows_button.mapTo(page, page.workflows_button.rect().topLeft()).y()
    assert below > page.advanced_title.mapTo(page, page.advanced_title.rect().topLeft()).y()
    hint = page.workflows_hint.text()
    assert "pi-workflows" in hint and "nothing to do here" in hint  # who it is for, and who can skip it
    assert "Pi Workflows state" not in hint


# -- Screenshots -----------------------------------------------------------------------


@pytest.mark.parametrize("theme", [themes.LIGHT, themes.DARK], ids=["light", "dark"])
def test_screenshots_of_every_page(qtbot, qloop, client, open_settings, theme, shot):
    app = QApplication.instance()
    themes.apply(app, theme)
    try:
        dialog = open_settings(theme)
        page = providers_page(dialog)
        add_provider(qtbot, qloop, page, "openai", key=KEY)
        add_provider(qtbot, qloop, page, "ollama")
        page.enabled_check.setChecked(False)
        click(qtbot, page.save_button)
        spin_until(qloop, lambda: page.providers[-1]["enabled"] is False)
        select(page, page.providers[0]["id"])
        qloop.run_until_complete(page.use_as_default(page.providers[0]["id"]))
        for name in ("General", "Providers", "Data"):
            dialog.show_page(name)
            shot(dialog, f"settings-{name.lower()}-{theme.name}")
        dialog.show_page("Providers")
        select(page, OFFLINE_ID)
        shot(dialog, f"settings-offline-{theme.name}")
        click(qtbot, page.add_button)
        shot(dialog, f"settings-new-provider-{theme.name}")
        page.preset_combo.setCurrentIndex(page.preset_combo.findData("custom"))
        page.name_edit.setText("Mine")
        page.url_edit.setText("ftp://x")
        click(qtbot, page.save_button)
        spin_until(qloop, lambda: page.notice.isVisible())
        shot(dialog, f"settings-error-{theme.name}")
    finally:
        app.setStyleSheet("")
        app.setPalette(app.style().standardPalette())
