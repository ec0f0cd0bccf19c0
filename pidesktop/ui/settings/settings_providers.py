"""Settings > Providers: the services chats can use, in display order, and an editor for one of them.

The list mirrors ``providers.list`` with the built-in offline demo pinned on
top. The editor writes nothing until Save, except the actions that say what
they do (Remove key, Use as default, Delete…, Refresh models). Save fetches
the provider's models; a refresh that finds models for a provider without a
default model stores the first one as its default, so the field never stays
empty while there is something to choose. An API key typed here goes to the
host with Save and is cleared from the field at once; the field never shows a
stored key, only that one exists. A refusal marks the field the host names in
``data.field``.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication, QSize, Qt, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QFrame,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QMessageBox,
    QPushButton,
    QScrollArea,
    QSizePolicy,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)

from pidesktop.agent.errors import ProviderError
from pidesktop.agent.model_refresh import refresh_models
from pidesktop.agent.presets import PRESETS
from pidesktop.bus import HostClient, HostError
from pidesktop.ui.kit import discard_question
from pidesktop.ui.kit.eliding_label import ElidingLabel
from pidesktop.ui.kit.i18n import arg
from pidesktop.ui.kit.ops import host_op, task_op
from pidesktop.ui.kit.plain_errors import PROVIDER_CALL, sentence
from pidesktop.ui.kit.tasks import spawn
from pidesktop.ui.settings.model_settings_form import ModelSettingsForm
from pidesktop.ui.settings.settings_general import ChoiceBox

OFFLINE_ID = "offline"
OFFLINE_MODEL = "offline-demo"
# English source texts, shown through ``_tr`` (translation context "ProvidersPage").
OFFLINE_NAME = QT_TRANSLATE_NOOP("ProvidersPage", "Offline demo (no AI)")
CUSTOM_PRESET = "custom"
PRESET_CHOICES = [(preset.id, preset.name) for preset in PRESETS.values()] + [
    (CUSTOM_PRESET, QT_TRANSLATE_NOOP("ProvidersPage", "Custom"))
]
KEY_NOTE = QT_TRANSLATE_NOOP(
    "ProvidersPage",
    "Keys are encrypted on this computer with a key stored next to them, "
    "so any program running as your user can read them.",
)
STORED_KEY = QT_TRANSLATE_NOOP("ProvidersPage", "•••••• stored")
LIST_WIDTH = 216
ROW_HEIGHT = 48
MODEL_CHARS = 12  # the model field's minimum width in characters; a long list must not widen the dialog
# What a person reads when the host refuses a field (``error.data["field"]``), in their language.
REFUSALS = {
    "provider.name": QT_TRANSLATE_NOOP("ProvidersPage", "Give the provider a name of at most 80 characters."),
    "provider.baseUrl": QT_TRANSLATE_NOOP(
        "ProvidersPage",
        "The base URL must start with http:// or https://, like "
        "http://localhost:11434/v1, with no spaces, user name or "
        "password in it.",
    ),
    "apiKey": QT_TRANSLATE_NOOP("ProvidersPage", "The API key was not accepted. Paste it again, without line breaks."),
    "provider.defaultModelId": QT_TRANSLATE_NOOP("ProvidersPage", "The model name must be at most 200 characters."),
}


class ProvidersPage(QWidget):
    providersChanged = Signal()  # something was stored: a provider, the order or the default

    def __init__(self, client: HostClient, parent: QWidget | None = None):
        super().__init__(parent)
        self.client = client
        self.providers: list[dict] = []
        self.default_provider_id = OFFLINE_ID
        self.default_model_id: str | None = OFFLINE_MODEL
        self.selected_id: str | None = OFFLINE_ID  # None while a new provider is being drafted
        self.confirm_box: QMessageBox | None = None
        self.question: QMessageBox | None = None  # Save / Discard / Keep editing, while it is open
        self.running: asyncio.Task | None = None  # the last operation a button started (tests wait for it)

        title = QLabel(self.tr("Providers"))
        title.setObjectName("pageTitle")
        self.add_button = QPushButton(self.tr("Add provider"))
        self.add_button.clicked.connect(lambda: self.leave_form(self.start_draft))
        header = QHBoxLayout()
        header.addWidget(title, 1)
        header.addWidget(self.add_button, 0, Qt.AlignmentFlag.AlignVCenter)
        body = QHBoxLayout()
        body.setSpacing(16)
        body.addLayout(self._build_list_column())
        self.editor = QStackedWidget()
        self.offline_panel = self._build_offline_panel()
        self.form_panel = self._build_form_panel()
        # The form is the page's tallest part: it scrolls by itself, so the list and its buttons stay whole.
        self.form_scroll = QScrollArea()
        self.form_scroll.setWidget(self.form_panel)
        self.form_scroll.setWidgetResizable(True)
        self.form_scroll.setFrameShape(QFrame.Shape.NoFrame)
        self.form_scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.editor.addWidget(self.offline_panel)
        self.editor.addWidget(self.form_scroll)
        body.addWidget(self.editor, 1)

        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(16)
        layout.addLayout(header)
        layout.addLayout(body, 1)

    # -- building ----------------------------------------------------------------
    def _build_list_column(self) -> QVBoxLayout:
        self.provider_list = QListWidget()
        self.provider_list.setObjectName("providerList")
        self.provider_list.setFixedWidth(LIST_WIDTH)
        self.provider_list.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.provider_list.currentRowChanged.connect(self._on_row_changed)
        self.up_button = QPushButton(self.tr("Up"))
        self.down_button = QPushButton(self.tr("Down"))
        self.up_button.setToolTip(self.tr("Move the selected provider up"))
        self.down_button.setToolTip(self.tr("Move the selected provider down"))
        self.up_button.clicked.connect(lambda: self._start(self.move_selected(-1)))
        self.down_button.clicked.connect(lambda: self._start(self.move_selected(1)))
        buttons = QHBoxLayout()
        buttons.setSpacing(8)
        buttons.addWidget(self.up_button)
        buttons.addWidget(self.down_button)
        buttons.addStretch(1)
        column = QVBoxLayout()
        column.setSpacing(8)
        column.addWidget(self.provider_list, 1)
        column.addLayout(buttons)
        return column

    def _build_offline_panel(self) -> QWidget:
        panel = QWidget()
        heading = QLabel(_tr(OFFLINE_NAME))
        heading.setObjectName("sectionTitle")
        about = QLabel(
            self.tr(
                "Built in. It answers with a demo reply made from your own message, without an AI "
                "model or the network, so you can try pidesktop before adding a provider. "
                "It cannot be edited or deleted."
            )
        )
        about.setObjectName("muted")
        about.setWordWrap(True)
        self.offline_default_button = QPushButton(self.tr("Use as default"))
        self.offline_default_button.clicked.connect(lambda: self._start(self.use_as_default(OFFLINE_ID)))
        self.offline_notice = _notice()
        row = QHBoxLayout()
        row.addWidget(self.offline_default_button)
        row.addStretch(1)
        layout = QVBoxLayout(panel)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(8)
        layout.addWidget(heading)
        layout.addWidget(about)
        layout.addSpacing(8)
        layout.addLayout(row)
        layout.addWidget(self.offline_notice)
        layout.addStretch(1)
        return panel

    def _build_form_panel(self) -> QWidget:
        panel = QWidget()
        self.editor_title = QLabel()
        self.editor_title.setObjectName("sectionTitle")
        self.preset_combo = ChoiceBox()
        for preset_id, name in PRESET_CHOICES:
            self.preset_combo.addItem(_tr(name), preset_id)
        self.preset_combo.currentIndexChanged.connect(self._apply_preset)
        self.name_edit = QLineEdit()
        self.name_edit.setMaxLength(80)
        self.url_edit = QLineEdit()
        self.url_edit.setPlaceholderText("https://…/v1")
        self.key_edit = QLineEdit()
        self.key_edit.setEchoMode(QLineEdit.EchoMode.Password)
        self.key_edit.setAttribute(Qt.WidgetAttribute.WA_InputMethodEnabled, False)
        self.remove_key_button = QPushButton(self.tr("Remove key"))
        self.remove_key_button.clicked.connect(lambda: self._start(self.remove_key()))
        key_row = QHBoxLayout()
        key_row.setSpacing(8)
        key_row.addWidget(self.key_edit, 1)
        key_row.addWidget(self.remove_key_button)
        self.key_note = QLabel(_tr(KEY_NOTE))
        self.key_note.setObjectName("muted")
        self.key_note.setWordWrap(True)
        self.enabled_check = QCheckBox(self.tr("Enabled"))
        # As wide as the fields above it, so a long model id stays in view; custom ids may be typed.
        self.model_combo = ChoiceBox()
        self.model_combo.setObjectName("modelCombo")
        self.model_combo.setEditable(True)
        self.model_combo.setInsertPolicy(QComboBox.InsertPolicy.NoInsert)
        self.model_combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.model_combo.setMinimumContentsLength(MODEL_CHARS)
        self.model_combo.lineEdit().setPlaceholderText(self.tr("None"))
        self.model_combo.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        self.model_combo.editTextChanged.connect(lambda _text: self._update_buttons())
        self.model_combo.editTextChanged.connect(lambda _text: _mark_invalid(self.model_combo, False))
        self.refresh_button = QPushButton(self.tr("Refresh models"))
        self.refresh_button.clicked.connect(lambda: self._start(self.refresh()))
        # Why Refresh models cannot run yet, in words rather than only in a tooltip.
        self.models_note = QLabel(self.tr("Models are fetched when you save."))
        self.models_note.setObjectName("muted")
        self.models_note.setWordWrap(True)
        refresh_row = QHBoxLayout()
        refresh_row.setSpacing(8)
        refresh_row.addWidget(self.refresh_button, 0, Qt.AlignmentFlag.AlignLeft)
        refresh_row.addWidget(self.models_note, 1)

        # A grid, not QFormLayout: it centres each label on its field.
        self.form = QGridLayout()
        self.form.setContentsMargins(0, 0, 0, 0)
        self.form.setHorizontalSpacing(16)
        self.form.setVerticalSpacing(8)
        self.form.setColumnStretch(1, 1)
        self.preset_label = _form_row(self.form, self.tr("Preset"), self.preset_combo)
        _form_row(self.form, self.tr("Name"), self.name_edit)
        _form_row(self.form, self.tr("Base URL"), self.url_edit)
        _form_row(self.form, self.tr("API key"), key_row)
        _form_row(self.form, "", self.key_note)
        _form_row(self.form, "", self.enabled_check)
        _form_row(self.form, self.tr("Default model"), self.model_combo)
        _form_row(self.form, "", refresh_row)
        # The model named above: its window, output, temperature and system prompt, stored with Save.
        self.model_rows: dict[str, dict] = {}
        self.model_form = ModelSettingsForm(self)
        for caption, field in self.model_form.rows():
            _form_row(self.form, caption, field)
        self.model_combo.editTextChanged.connect(lambda _text: self._show_model_settings())
        self.notice = _notice()

        self.save_button = QPushButton(self.tr("Save"))
        self.save_button.setObjectName("primary")
        self.save_button.clicked.connect(lambda: self._start(self.save()))
        self.default_button = QPushButton(self.tr("Use as default"))
        self.default_button.clicked.connect(lambda: self._start(self.use_as_default(self.selected_id)))
        self.delete_button = QPushButton(self.tr("Delete…"))
        self.delete_button.setObjectName("danger")
        self.delete_button.clicked.connect(self.confirm_delete)
        for edit in (self.name_edit, self.url_edit, self.key_edit):
            edit.returnPressed.connect(self.save_button.click)
            edit.textEdited.connect(lambda _text, e=edit: _mark_invalid(e, False))
        actions = QHBoxLayout()
        actions.setSpacing(8)
        actions.addWidget(self.save_button)
        actions.addWidget(self.default_button)
        actions.addStretch(1)
        actions.addWidget(self.delete_button)

        layout = QVBoxLayout(panel)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(8)
        layout.addWidget(self.editor_title)
        layout.addSpacing(8)
        layout.addLayout(self.form)
        layout.addWidget(self.notice)
        layout.addStretch(1)
        layout.addLayout(actions)
        return panel

    # -- host work -----------------------------------------------------------------
    # Each action is an operation (``ops``): its buttons are disabled while it runs and
    # a failure is shown on this page, in a sentence, with the host's own words in the tooltip.
    async def load(self) -> None:
        await host_op(self.client, "providers.list", parent=self, success=self._listed, failure=self._failed)
        if self.selected_id == OFFLINE_ID and self.default_provider_id:
            self.selected_id = self.default_provider_id  # the page opens on the provider new chats use
        self._rebuild_list()
        self._show_selected()

    def save(self):
        """Store the form; then fetch the provider's models, so the model field has something to offer."""
        params = self._upsert_params()
        created = self.selected_id is None

        model = self.model_form.model_params()
        row = self.model_rows.get(model["modelId"]) or {}
        # only a change is stored: a model row written here becomes the person's, which discovery leaves alone
        tokens_changed = (row.get("contextWindow"), row.get("maxOutputTokens")) != (
            model["contextWindow"],
            model["maxOutputTokens"],
        )

        async def saved(result: dict) -> None:
            self.key_edit.clear()  # the key lives in the host's store now, not here
            provider_id = result["provider"]["id"]
            self.selected_id = provider_id
            if model["modelId"] and tokens_changed:  # the model's token counts: its row (null: automatic)
                await host_op(self.client, "models.upsert", {"providerId": provider_id, "model": model}, parent=self)
            await self._reload()
            done = self.tr("Provider added.") if created else self.tr("Saved.")
            self.show_notice(done)
            self.providersChanged.emit()
            await self.refresh(before=done)
            if created:
                await self._default_if_first(provider_id)

        return host_op(
            self.client,
            "providers.upsert",
            params,
            parent=self,
            success=saved,
            failure=self._show_refusal,
            busy=[self.save_button],
        )

    def remove_key(self):
        provider = self._selected_provider() or {}
        # The stored name and URL go along unchanged, so unsaved edits in the form are not saved by accident.
        params = {
            "provider": {"id": provider.get("id"), "name": provider.get("name"), "baseUrl": provider.get("baseUrl")},
            "apiKey": None,
        }

        async def removed(_result: dict) -> None:
            self.key_edit.clear()
            await self._reload(keep_form=True)
            self.show_notice(self.tr("API key removed."))
            self.providersChanged.emit()

        return host_op(
            self.client,
            "providers.upsert",
            params,
            parent=self,
            success=removed,
            failure=self._failed,
            busy=[self.remove_key_button],
        )

    async def _default_if_first(self, provider_id: str) -> None:
        """The first real provider answers new chats at once, once it has a model (the offline demo was the
        default only for want of one); a later one never takes the default from it."""
        model = self.model_combo.currentText().strip()
        if self.default_provider_id != OFFLINE_ID or self.selected_id != provider_id or not model:
            return
        result = await host_op(
            self.client,
            "providers.setDefault",
            {"providerId": provider_id, "modelId": model},
            parent=self,
            failure=self._failed,
        )
        if result is None:
            return
        self.default_provider_id = result["defaultProviderId"]
        self.default_model_id = result["defaultModelId"]
        self._rebuild_list()
        self._update_buttons()
        chosen = arg(self.tr("New chats use %1 with %2."), self._name_of(provider_id), model)
        self.show_notice(_joined(self.notice.text(), chosen))
        self.providersChanged.emit()

    def use_as_default(self, provider_id: str | None):
        if provider_id == OFFLINE_ID or provider_id is None:
            params: dict = {"providerId": None}
        else:
            params = {"providerId": provider_id, "modelId": self.model_combo.currentText().strip() or None}

        def chosen(result: dict) -> None:
            self.default_provider_id = result["defaultProviderId"]
            self.default_model_id = result["defaultModelId"]
            self._rebuild_list()
            self._update_buttons()
            if self.default_model_id and self.default_provider_id != OFFLINE_ID:
                notice = arg(
                    self.tr("New chats use %1 with %2."), self._name_of(self.default_provider_id), self.default_model_id
                )
            else:
                notice = self.tr("New chats use %1.").replace("%1", self._name_of(self.default_provider_id))
            self.show_notice(notice)
            self.providersChanged.emit()

        return host_op(
            self.client,
            "providers.setDefault",
            params,
            parent=self,
            success=chosen,
            failure=self._failed,
            busy=[self.default_button, self.offline_default_button],
        )

    def move_selected(self, step: int):
        order = [p["id"] for p in self.providers]
        index = order.index(self.selected_id) if self.selected_id in order else -1
        target = index + step
        if index < 0 or not 0 <= target < len(order):
            return None
        order[index], order[target] = order[target], order[index]

        def moved(result: dict) -> None:
            self.providers = result["providers"]
            self._rebuild_list()
            self._update_buttons()
            self.providersChanged.emit()

        def refused(error: HostError) -> None:
            self._failed(error)
            self._update_buttons()

        return host_op(
            self.client,
            "providers.reorder",
            {"order": order},
            parent=self,
            success=moved,
            failure=refused,
            busy=[self.up_button, self.down_button],
        )

    def delete(self, provider_id: str):
        async def deleted(_result: dict) -> None:
            if self.selected_id == provider_id:
                self.selected_id = OFFLINE_ID
            await self._reload()
            self.show_notice(self.tr("Provider deleted."))
            self.providersChanged.emit()

        return host_op(
            self.client,
            "providers.delete",
            {"providerId": provider_id},
            parent=self,
            success=deleted,
            failure=self._failed,
            busy=[self.delete_button],
        )

    def refresh(self, before: str = ""):
        """Ask the selected provider for its models; ``before`` is a notice to keep in front of the outcome."""
        provider_id = self.selected_id

        async def fetch() -> dict | None:
            if provider_id is None or provider_id == OFFLINE_ID:
                return None
            self.refresh_button.setText(self.tr("Refreshing…"))
            try:
                return await refresh_models(self.client, provider_id)
            except ProviderError as exc:  # the provider's own sentence: it names the server and what to check
                raise HostError(exc.code, exc.message, {"status": exc.status} if exc.status else None) from exc
            finally:
                self.refresh_button.setText(self.tr("Refresh models"))

        async def fetched(result: dict | None) -> None:
            if result is None or self.selected_id != provider_id:
                return  # the user moved on while the list was on its way
            models = await self.load_models(provider_id)
            if models and not self.model_combo.currentText().strip():
                await self._choose_default_model(provider_id, models)
            self.show_notice(_joined(before, _discovery_summary(result, self.model_combo.count())))

        def failed(error: HostError) -> None:
            if self.selected_id == provider_id:
                reason = error.message if error.code in PROVIDER_CALL and error.message else sentence(error)
                self.show_notice(_joined(before, reason), error=True, details=error.message)

        return task_op(
            fetch,
            parent=self,
            name="providers-refresh-models",
            success=fetched,
            failure=failed,
            busy=[self.refresh_button],
        )

    async def load_models(self, provider_id: str) -> list[dict]:
        """Fill the model field with the provider's stored models, keeping what it shows."""
        result = await host_op(
            self.client, "models.list", {"providerId": provider_id}, parent=self, failure=self._failed
        )
        if result is None or provider_id != self.selected_id:
            return []  # failed, or the user moved on while the list was on its way
        self.model_rows = {model["modelId"]: model for model in result["models"]}
        shown = self.model_combo.currentText()
        self.model_combo.blockSignals(True)
        self.model_combo.clear()
        for model in result["models"]:
            self.model_combo.addItem(model["modelId"])
            if model.get("displayName") and model["displayName"] != model["modelId"]:
                self.model_combo.setItemData(
                    self.model_combo.count() - 1, model["displayName"], Qt.ItemDataRole.ToolTipRole
                )
        self.model_combo.setCurrentIndex(self.model_combo.findText(shown))
        self.model_combo.setEditText(shown)
        self.model_combo.lineEdit().setCursorPosition(0)  # the start of a long id, not its tail
        self.model_combo.blockSignals(False)
        self._show_model_settings()
        self._update_buttons()
        return result["models"]

    def _show_model_settings(self) -> None:
        model_id = self.model_combo.currentText().strip()
        provider = self._selected_provider() or {}
        self.model_form.show_for(model_id, self.model_rows.get(model_id), provider.get("config"))

    async def _choose_default_model(self, provider_id: str, models: list[dict]) -> None:
        """A provider without a default model gets one: the first model it lists. Stored at once, like the list."""
        provider = self._selected_provider()
        if provider is None:
            return
        listed = [m["modelId"] for m in models]
        stored = provider.get("defaultModelId")
        model_id = stored if stored in listed else listed[0]
        self.model_combo.setCurrentIndex(listed.index(model_id))
        self.model_combo.lineEdit().setCursorPosition(0)
        if stored == model_id:
            return
        params = {
            "provider": {
                "id": provider_id,
                "name": provider["name"],
                "baseUrl": provider["baseUrl"],
                "defaultModelId": model_id,
            }
        }
        if await host_op(self.client, "providers.upsert", params, parent=self, failure=self._failed) is not None:
            await self._reload(keep_form=True)
            self.providersChanged.emit()

    def _start(self, op) -> None:
        if op is not None:
            self.running = op.run()

    def _listed(self, result: dict) -> None:
        self.providers = result["providers"]
        self.default_provider_id = result["defaultProviderId"]
        self.default_model_id = result["defaultModelId"]

    async def _reload(self, keep_form: bool = False) -> None:
        if (
            await host_op(self.client, "providers.list", parent=self, success=self._listed, failure=self._failed)
            is None
        ):
            return
        if self.selected_id is not None and self._selected_provider() is None:
            self.selected_id = OFFLINE_ID
        self._rebuild_list()
        if keep_form:
            self._show_key_state(self._selected_provider())
            self._update_buttons()
        else:
            self._show_selected()

    def _failed(self, error: HostError) -> None:
        said = error.message if error.code in PROVIDER_CALL and error.message else sentence(error)
        self.show_notice(said, error=True, details=error.message)

    # -- confirmation ------------------------------------------------------------------
    def confirm_delete(self) -> None:
        """Ask first; the box is opened with ``open()``, so no event loop is nested."""
        provider = self._selected_provider()
        if provider is None:
            return
        box = QMessageBox(
            QMessageBox.Icon.Warning,
            self.tr("Delete provider"),
            self.tr("Delete “%1”?").replace("%1", provider["name"]),
            QMessageBox.StandardButton.Cancel,
            self,
        )
        box.setInformativeText(
            self.tr(
                "Its model list and stored API key are removed from this computer. "
                "Chats that used it keep their messages."
            )
        )
        delete_button = box.addButton(self.tr("Delete"), QMessageBox.ButtonRole.DestructiveRole)
        box.setDefaultButton(QMessageBox.StandardButton.Cancel)
        provider_id = provider["id"]

        def finished(_result: int) -> None:
            self.confirm_box = None
            if box.clickedButton() is delete_button:
                self._start(self.delete(provider_id))

        box.finished.connect(finished)
        self.confirm_box = box
        box.open()

    # -- view ------------------------------------------------------------------------------
    def start_draft(self) -> None:
        """A new provider in the editor; nothing is stored until Save."""
        self.selected_id = None
        self.provider_list.blockSignals(True)
        self.provider_list.setCurrentRow(-1)
        self.provider_list.blockSignals(False)
        self.preset_combo.blockSignals(True)
        self.preset_combo.setCurrentIndex(0)
        self.preset_combo.blockSignals(False)
        self._show_selected()
        self._apply_preset()
        self.name_edit.setFocus()

    def show_notice(self, message: str, error: bool = False, details: str = "") -> None:
        """One line under the form; ``details`` (the host's own words) is its tooltip."""
        for label in (self.notice, self.offline_notice):
            label.setText(message)
            label.setToolTip(details)
            label.setProperty("severity", "error" if error else "info")
            label.style().unpolish(label)
            label.style().polish(label)
            label.setVisible(bool(message))

    def clear_secrets(self) -> None:
        """Forget a typed, unsaved key (the dialog is closing)."""
        self.key_edit.clear()

    def _on_row_changed(self, row: int) -> None:
        item = self.provider_list.item(row)
        if item is None:
            return
        picked = item.data(Qt.ItemDataRole.UserRole)
        if picked == self.selected_id:
            return

        def show() -> None:
            self.selected_id = picked
            self._rebuild_list()  # the picked row current (a save in between rebuilt the list)
            self._show_selected()

        self.leave_form(show, stay=self._select_row_shown)

    def _select_row_shown(self) -> None:
        """Kept editing: the list points at the provider the form holds again (none while drafting)."""
        self.provider_list.blockSignals(True)
        ids = [self.provider_list.item(i).data(Qt.ItemDataRole.UserRole) for i in range(self.provider_list.count())]
        self.provider_list.setCurrentRow(ids.index(self.selected_id) if self.selected_id in ids else -1)
        self.provider_list.blockSignals(False)

    # -- typed text is never lost -----------------------------------------------------------------
    def unsaved(self) -> bool:
        """The form holds text a person typed and did not save: a key, a changed name or URL, a new provider's
        own name or URL, or the model's system prompt."""
        if self.selected_id == OFFLINE_ID:
            return False
        provider = self._selected_provider()
        if provider is None:
            preset = PRESETS.get(self.preset_combo.currentData())
            shown = (preset.name, preset.base_url) if preset else ("", "")
        else:
            shown = (provider["name"], provider["baseUrl"])
        typed = (self.name_edit.text(), self.url_edit.text())
        return bool(self.key_edit.text()) or typed != shown or self.model_form.prompt_typed()

    def leave_form(self, go: Callable[[], object], stay: Callable[[], object] | None = None) -> None:
        """Run ``go`` (show another provider, a new one, or close) once what was typed is saved or let go;
        ``stay`` when the person keeps editing."""
        if not self.unsaved():
            go()
            return
        name = self.name_edit.text().strip()
        drafting = self.selected_id is None
        what = (
            self.tr("the new provider")
            if drafting or not name
            else self.tr("your changes to the provider “%1”").replace("%1", name)
        )

        async def save_then_go() -> None:
            op = self.save()
            self.running = asyncio.ensure_future(op.run_async())
            await self.running
            if not self.unsaved():  # stored (a refusal keeps the form, and says why)
                go()
            elif stay is not None:
                stay()

        # Discard: what follows (another provider, a new one, closing) fills the form again or drops it.
        discard_question.ask(self, what, lambda: spawn(save_then_go(), name="provider-save"), go, stay)

    def _rebuild_list(self) -> None:
        self.provider_list.blockSignals(True)
        self.provider_list.clear()
        entries = [(OFFLINE_ID, _tr(OFFLINE_NAME), self.tr("Built in · no network"), True)]
        entries += [(p["id"], p["name"], p["baseUrl"], p["enabled"]) for p in self.providers]
        for provider_id, name, detail, enabled in entries:
            item = QListWidgetItem()
            item.setData(Qt.ItemDataRole.UserRole, provider_id)
            item.setSizeHint(QSize(0, ROW_HEIGHT))
            self.provider_list.addItem(item)
            self.provider_list.setItemWidget(
                item, _ProviderRow(name, detail, default=provider_id == self.default_provider_id, enabled=enabled)
            )
            if provider_id == self.selected_id:
                self.provider_list.setCurrentItem(item)
        self.provider_list.blockSignals(False)

    def _show_selected(self) -> None:
        for edit in (self.name_edit, self.url_edit, self.key_edit):
            _mark_invalid(edit, False)
        self.key_edit.clear()  # never carry a typed key over to another provider
        self.show_notice("")
        if self.selected_id == OFFLINE_ID:
            self.editor.setCurrentWidget(self.offline_panel)
            self._update_buttons()
            return
        self.editor.setCurrentWidget(self.form_scroll)
        provider = self._selected_provider()
        drafting = provider is None
        if provider is not None:  # presets stay reachable: the one this provider matches, or Custom
            self.preset_combo.blockSignals(True)
            self.preset_combo.setCurrentIndex(self.preset_combo.findData(_preset_of(provider)))
            self.preset_combo.blockSignals(False)
        self.delete_button.setVisible(not drafting)
        _mark_invalid(self.model_combo, False)
        self.model_rows = {}
        if drafting:
            self.editor_title.setText(self.tr("New provider"))
            self.enabled_check.setChecked(True)
            self.model_combo.clear()
            self.model_combo.setEditText("")
        else:
            self.editor_title.setText(provider["name"])
            self.name_edit.setText(provider["name"])
            self.url_edit.setText(provider["baseUrl"])
            self.enabled_check.setChecked(bool(provider["enabled"]))
            self.model_combo.clear()
            self.model_combo.setEditText(provider.get("defaultModelId") or "")
            self.model_combo.lineEdit().setCursorPosition(0)
            task_op(lambda: self.load_models(provider["id"]), parent=self, name="providers-models").run()
        self._show_key_state(provider)
        self._show_model_settings()
        self._update_buttons()

    def _show_key_state(self, provider: dict | None) -> None:
        has_key = bool(provider and provider.get("hasKey"))
        if has_key:
            self.key_edit.setPlaceholderText(_tr(STORED_KEY))
            self.key_edit.setToolTip(self.tr("Leave empty to keep the stored key; type a new one to replace it."))
        else:
            self.key_edit.setPlaceholderText(_key_placeholder(provider, PRESETS.get(self.preset_combo.currentData())))
            self.key_edit.setToolTip("")
        # Only a stored key can be removed; without one the button would do nothing.
        self.remove_key_button.setEnabled(has_key)
        self.remove_key_button.setVisible(has_key)

    def _update_buttons(self) -> None:
        ids = [p["id"] for p in self.providers]
        index = ids.index(self.selected_id) if self.selected_id in ids else -1
        self.up_button.setEnabled(index > 0)
        self.down_button.setEnabled(0 <= index < len(ids) - 1)
        saved = index >= 0
        # "Use as default" is offered unless it would change nothing: this provider with this model
        # already answers new chats (an empty model field means the provider's own default).
        model = self.model_combo.currentText().strip()
        provider = self._selected_provider() or {}
        is_default = (
            saved
            and self.selected_id == self.default_provider_id
            and (not model or model == (self.default_model_id or provider.get("defaultModelId")))
        )
        self.default_button.setEnabled(saved)
        self.default_button.setVisible(saved and not is_default)
        self.offline_default_button.setVisible(self.default_provider_id != OFFLINE_ID)
        self.refresh_button.setEnabled(saved)
        self.models_note.setVisible(not saved)

    def _apply_preset(self) -> None:
        """A preset fills in the name and URL (of a new provider, or of this one: Save stores them)."""
        preset = PRESETS.get(self.preset_combo.currentData())
        if self.selected_id is not None:
            if preset is not None:
                self.name_edit.setText(preset.name)
                self.url_edit.setText(preset.base_url)
            return
        self.name_edit.setText(preset.name if preset else "")
        self.url_edit.setText(preset.base_url if preset else "")
        self._show_key_state(None)

    def _upsert_params(self) -> dict:
        provider: dict = {
            "name": self.name_edit.text(),
            "baseUrl": self.url_edit.text(),
            "enabled": self.enabled_check.isChecked(),
            "defaultModelId": self.model_combo.currentText().strip() or None,
        }
        if self.selected_id is None:
            preset = PRESETS.get(self.preset_combo.currentData())
            provider["vendorKey"] = preset.vendor_key if preset else CUSTOM_PRESET
        else:
            provider["id"] = self.selected_id
        if self.model_form.model_id:
            provider["config"] = self.model_form.config_for((self._selected_provider() or {}).get("config"))
        params: dict = {"provider": provider}
        if self.key_edit.text():
            params["apiKey"] = self.key_edit.text()  # empty means: keep the stored key
        return params

    def _show_refusal(self, error: HostError) -> None:
        """Mark the field the host refused (``data.field``) and say in a sentence what it needs."""
        field = (error.data or {}).get("field")
        widget = {
            "provider.name": self.name_edit,
            "provider.baseUrl": self.url_edit,
            "apiKey": self.key_edit,
            "provider.defaultModelId": self.model_combo,
        }.get(field)
        if widget is None:
            self._failed(error)
            return
        _mark_invalid(widget, True)
        widget.setFocus()
        self.show_notice(_tr(REFUSALS[field]), error=True, details=error.message)

    def _selected_provider(self) -> dict | None:
        return next((p for p in self.providers if p["id"] == self.selected_id), None)

    def _name_of(self, provider_id: str) -> str:
        if provider_id == OFFLINE_ID:
            return _tr(OFFLINE_NAME)
        return next((p["name"] for p in self.providers if p["id"] == provider_id), provider_id)


class _ProviderRow(QWidget):
    """One list row: name and base URL, with Default and Off marks on the right."""

    def __init__(self, name: str, detail: str, default: bool, enabled: bool):
        super().__init__()
        self.name_label = ElidingLabel(name)
        self.name_label.setObjectName("rowTitle")
        self.detail_label = ElidingLabel(detail)
        self.detail_label.setObjectName("muted")
        text = QVBoxLayout()
        text.setContentsMargins(0, 0, 0, 0)
        text.setSpacing(0)
        text.addWidget(self.name_label)
        text.addWidget(self.detail_label)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(8, 4, 8, 4)
        layout.setSpacing(8)
        layout.addLayout(text, 1)
        translate = QCoreApplication.translate
        self.default_badge = _badge(translate("ProvidersPage", "Default"), "badge") if default else None
        self.off_badge = _badge(translate("ProvidersPage", "Off"), "offBadge") if not enabled else None
        for badge in (self.off_badge, self.default_badge):
            if badge is not None:
                layout.addWidget(badge, 0, Qt.AlignmentFlag.AlignVCenter)


def _form_row(grid: QGridLayout, label: str, field) -> QLabel | None:
    """Add ``label: field`` as the grid's next row; a row without a label is a note under the field above."""
    row = grid.rowCount()
    caption = None
    if label:
        caption = QLabel(label)
        grid.addWidget(caption, row, 0, Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
    if isinstance(field, QWidget):
        grid.addWidget(field, row, 1)
    else:
        grid.addLayout(field, row, 1)
    return caption


def _key_placeholder(provider: dict | None, preset) -> str:
    if provider is not None:
        return QCoreApplication.translate("ProvidersPage", "Not set")
    if preset is not None and not preset.needs_key:
        return QCoreApplication.translate("ProvidersPage", "Optional for local servers")
    return QCoreApplication.translate("ProvidersPage", "Paste your API key")


def _badge(text: str, name: str) -> QLabel:
    badge = QLabel(text)
    badge.setObjectName(name)
    return badge


def _notice() -> QLabel:
    label = QLabel()
    label.setObjectName("notice")
    label.setWordWrap(True)
    label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    label.hide()
    return label


def _mark_invalid(edit: QWidget, invalid: bool) -> None:
    if bool(edit.property("invalid")) == invalid:
        return
    edit.setProperty("invalid", invalid)
    edit.style().unpolish(edit)
    edit.style().polish(edit)


def _tr(text: str) -> str:
    return QCoreApplication.translate("ProvidersPage", text)


def _joined(*sentences: str) -> str:
    return " ".join(text for text in sentences if text)


def _discovery_summary(result: dict, listed: int) -> str:
    translate = QCoreApplication.translate
    parts = [arg(translate("ProvidersPage", "%1 new"), len(result["added"]))] if result["added"] else []
    if result["unlisted"]:
        parts.append(arg(translate("ProvidersPage", "%1 no longer listed"), len(result["unlisted"])))
    if listed == 1:
        available = translate("ProvidersPage", "1 model available")
    else:
        available = arg(translate("ProvidersPage", "%1 models available"), listed)
    if not parts:
        return arg(translate("ProvidersPage", "%1."), available)
    separator = translate("ProvidersPage", ", ", "between the items of a short list")
    return arg(translate("ProvidersPage", "%1 (%2)."), available, separator.join(parts))


def _preset_of(provider: dict) -> str:
    """The preset a stored provider matches by its URL, else Custom."""
    url = (provider.get("baseUrl") or "").rstrip("/")
    return next((p.id for p in PRESETS.values() if p.base_url.rstrip("/") == url), CUSTOM_PRESET)
