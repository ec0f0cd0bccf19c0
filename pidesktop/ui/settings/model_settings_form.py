"""The model's own settings in Settings > Providers: context window, most output tokens, temperature, system prompt.

They belong to the model named in the provider's model field. The two token
counts are the model's row (``models.upsert``); the temperature and the system
prompt go in the provider's ``config`` (``agent.model_settings``). Left at
"Automatic" or "Server's default", a setting is not stored and the runner
leaves it to the known window or to the server.
"""

from __future__ import annotations

from PySide6.QtCore import QObject
from PySide6.QtWidgets import QDoubleSpinBox, QLabel, QPlainTextEdit, QSpinBox, QWidget

from pidesktop.agent import context as budget
from pidesktop.agent import model_settings
from pidesktop.ui.chat.usage_format import short_tokens

TOKENS_MAX = 100_000_000
NO_TEMPERATURE = -0.1  # the spin box's lowest value, shown as "Server's default"


class ModelSettingsForm(QObject):
    """The fields, laid out by the page in its own grid (``rows``) so they line up with the fields above."""

    def __init__(self, parent: QObject | None = None):
        super().__init__(parent)
        self.model_id = ""
        self.shown_prompt = ""  # the system prompt as the fields were filled: typed text differs from it
        self.window_spin = QSpinBox()
        self.window_spin.setRange(0, TOKENS_MAX)
        self.window_spin.setSingleStep(1000)
        self.window_spin.setGroupSeparatorShown(True)
        self.window_spin.setToolTip(
            self.tr("How many tokens the model reads at once; the chat header's meter measures against it.")
        )
        self.output_spin = QSpinBox()
        self.output_spin.setRange(0, TOKENS_MAX)
        self.output_spin.setSingleStep(256)
        self.output_spin.setGroupSeparatorShown(True)
        self.output_spin.setSpecialValueText(self.tr("Server’s limit"))
        self.temperature_spin = QDoubleSpinBox()
        self.temperature_spin.setRange(NO_TEMPERATURE, model_settings.TEMPERATURE_MAX)
        self.temperature_spin.setSingleStep(0.1)
        self.temperature_spin.setDecimals(1)
        self.temperature_spin.setSpecialValueText(self.tr("Server’s default"))
        self.temperature_spin.setToolTip(self.tr("Lower answers more predictably, higher more varied (0 to 2)."))
        self.prompt_edit = QPlainTextEdit()
        self.prompt_edit.setPlaceholderText(self.tr("Instructions the model reads before every chat (optional)"))
        self.prompt_edit.setFixedHeight(72)
        self.title = QLabel()
        self.title.setObjectName("muted")
        # Wrapped, and never wider than the page: unwrapped it held the form wider than the dialog's own size,
        # and the scroll area (no horizontal bar) cut every field and note at the right. A long model id is
        # one word: it may be clipped, the fields are not.
        self.title.setWordWrap(True)
        self.title.setMinimumWidth(1)

    def rows(self) -> list[tuple[str, QWidget]]:
        """(caption, field) in order; an empty caption is a note under the field above."""
        return [
            ("", self.title),
            (self.tr("Context window"), self.window_spin),
            (self.tr("Output limit"), self.output_spin),
            (self.tr("Temperature"), self.temperature_spin),
            (self.tr("System prompt"), self.prompt_edit),
        ]

    def show_for(self, model_id: str, row: dict | None, config: dict | None) -> None:
        """Fill the fields with what ``model_id`` is set to (nothing set: automatic and the server's own)."""
        self.model_id = model_id
        settings = model_settings.read(row, config, model_id)
        window = (row or {}).get("contextWindow")
        automatic = budget.window_for(model_id or None, None)
        self.window_spin.setSpecialValueText(self.tr("Automatic (%1)").replace("%1", short_tokens(automatic)))
        self.window_spin.setValue(window if isinstance(window, int) else 0)
        self.output_spin.setValue(settings.max_output_tokens or 0)
        self.temperature_spin.setValue(NO_TEMPERATURE if settings.temperature is None else settings.temperature)
        self.prompt_edit.setPlainText(settings.system_prompt)
        self.shown_prompt = settings.system_prompt
        self.title.setText(
            self.tr("Settings for %1, stored with Save:").replace("%1", model_id)
            if model_id
            else self.tr("Choose a model to set its context window, output, temperature and system prompt.")
        )
        for _caption, field in self.rows()[1:]:
            field.setEnabled(bool(model_id))

    def prompt_typed(self) -> bool:
        """The system prompt holds text other than what was shown for the model."""
        return self.prompt_edit.toPlainText() != self.shown_prompt

    def temperature(self) -> float | None:
        value = self.temperature_spin.value()
        return None if value < 0 else value

    def config_for(self, config: dict | None) -> dict:
        """The provider's config with this model's temperature and system prompt as the fields say."""
        return model_settings.with_settings(config, self.model_id, self.temperature(), self.prompt_edit.toPlainText())

    def model_params(self) -> dict:
        """``models.upsert``'s ``model``: the two token counts, null where left automatic."""
        return {
            "modelId": self.model_id,
            "contextWindow": self.window_spin.value() or None,
            "maxOutputTokens": self.output_spin.value() or None,
        }
