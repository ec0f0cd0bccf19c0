"""Settings > General: look, language, transcript options, what the agent may do, the network proxy.

Every control writes its one key with ``settings.set`` the moment it changes,
so there is no Save button and nothing to lose. The host normalises and
validates; when it refuses, a sentence shows under the form (the host's words
in its tooltip) and the control goes back to the stored value. A new language
needs a restart, which the page offers next to the note that says so.
"""

from __future__ import annotations

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication, QPointF, Qt, Signal
from PySide6.QtGui import QPainter, QPalette, QPen
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from pidesktop.bus import HostClient, HostError
from pidesktop.ui.chat import permission_modes
from pidesktop.ui.data.relaunch import relaunch_pidesktop
from pidesktop.ui.kit import i18n
from pidesktop.ui.kit.ops import host_op
from pidesktop.ui.kit.plain_errors import sentence
from pidesktop.ui.settings.proxy_fields import ProxyFields

# Labels are English source texts, shown translated (context "GeneralPage"); a language keeps its own name.
THEMES = (
    ("system", QT_TRANSLATE_NOOP("GeneralPage", "System")),
    ("light", QT_TRANSLATE_NOOP("GeneralPage", "Light")),
    ("dark", QT_TRANSLATE_NOOP("GeneralPage", "Dark")),
)
LANGUAGES = (("system", QT_TRANSLATE_NOOP("GeneralPage", "System")), ("en", "English"), ("zh_CN", "简体中文"))
DISPLAY_MODES = (
    ("flat", QT_TRANSLATE_NOOP("GeneralPage", "Flat")),
    ("command-first", QT_TRANSLATE_NOOP("GeneralPage", "Commands first")),
    ("fully-folded", QT_TRANSLATE_NOOP("GeneralPage", "Fully folded")),
)
PASTE_MIN, PASTE_MAX = 1, 1_000_000
AUDIT_DAYS_MIN, AUDIT_DAYS_MAX = 1, 3650  # the host's range for auditRetentionDays
FIELD_WIDTH = 280  # the longest choice ("Use the system's proxy settings") fits whole
CHEVRON_INSET = 16  # from the right edge to the chevron's centre


class GeneralPage(QWidget):
    settingsChanged = Signal(dict)  # the normalised settings the host returned

    # Replaceable (tests): how "Restart now" quits and starts pidesktop again, as the data-move wizard does.
    relaunch = staticmethod(relaunch_pidesktop)

    def __init__(self, client: HostClient, parent: QWidget | None = None):
        super().__init__(parent)
        self.client = client
        self.settings: dict = {}

        title = QLabel(self.tr("General"))
        title.setObjectName("pageTitle")
        self.theme_combo = _choices(THEMES)
        self.language_combo = _choices(LANGUAGES)
        self.display_mode_combo = _choices(DISPLAY_MODES)
        self.show_thinking_check = QCheckBox(self.tr("Show thinking"))
        self.permission_combo = ChoiceBox()
        for value, _label, _tip in permission_modes.MODES:
            self.permission_combo.addItem(permission_modes.label(value), value)
            self.permission_combo.setItemData(
                self.permission_combo.count() - 1, permission_modes.tip(value), Qt.ItemDataRole.ToolTipRole
            )
        self.permission_combo.setFixedWidth(FIELD_WIDTH)
        self.permission_combo.setToolTip(self.tr("What the agent may do without asking, in chats that follow this"))
        self.network_check = QCheckBox(self.tr("Commands may use the network"))
        self.network_check.setToolTip(self.tr("Turn off to run the agent's commands without network access"))
        sandbox = permission_modes.sandbox_sentence()
        self.sandbox_label = QLabel(sandbox[1] if sandbox else "")
        self.sandbox_label.setObjectName("muted" if sandbox and sandbox[0] else "formError")
        self.sandbox_label.setWordWrap(True)
        self.sandbox_label.setMaximumWidth(2 * FIELD_WIDTH)
        if sandbox is None:  # hide() only: showing a widget before it is in a layout flashes it as a window
            self.sandbox_label.hide()
        if sandbox is not None and not sandbox[0]:
            self.network_check.setEnabled(False)  # the network switch is the sandbox's: unconfined, it has none
            self.network_check.setToolTip(self.tr("Only commands in the sandbox can be kept off the network"))
        self.proxy = ProxyFields(ChoiceBox(), FIELD_WIDTH)
        self.audit_spin = QSpinBox()
        self.audit_spin.setRange(AUDIT_DAYS_MIN, AUDIT_DAYS_MAX)
        self.audit_spin.setSuffix(self.tr(" days"))
        self.audit_spin.setFixedWidth(FIELD_WIDTH)
        self.audit_spin.lineEdit().setTextMargins(7, 0, 0, 0)
        self.audit_spin.setKeyboardTracking(False)
        self.audit_spin.setToolTip(self.tr("How long the record of what the agent's tools did is kept"))
        self.paste_spin = QSpinBox()
        self.paste_spin.setRange(PASTE_MIN, PASTE_MAX)
        self.paste_spin.setSuffix(self.tr(" characters"))
        self.paste_spin.setGroupSeparatorShown(True)
        self.paste_spin.setFixedWidth(FIELD_WIDTH)
        # A styled spin box ignores its horizontal padding; line the number up with the combo texts.
        self.paste_spin.lineEdit().setTextMargins(7, 0, 0, 0)
        # Save once the number is finished, not on every keystroke.
        self.paste_spin.setKeyboardTracking(False)
        self.error_label = QLabel()
        self.error_label.setObjectName("formError")
        self.error_label.setWordWrap(True)
        self.error_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.error_label.hide()
        self.language_note = QLabel(self.tr("The new language is used the next time pidesktop starts."))
        self.language_note.setObjectName("muted")
        self.language_note.setWordWrap(True)
        self.restart_button = QPushButton(self.tr("Restart now"))
        self.restart_button.setToolTip(self.tr("Quit pidesktop and start it again in the new language"))
        self.restart_button.clicked.connect(self.restart)
        self.language_row = QWidget()
        note_row = QHBoxLayout(self.language_row)
        note_row.setContentsMargins(0, 0, 0, 4)
        note_row.setSpacing(16)
        self.language_note.setFixedWidth(FIELD_WIDTH)  # as wide as the fields, the button beside it
        note_row.addWidget(self.language_note)
        note_row.addWidget(self.restart_button, 0, Qt.AlignmentFlag.AlignVCenter)
        note_row.addStretch(1)
        self.language_row.hide()

        # A grid, not QFormLayout: it centres each label on its field.
        form = QGridLayout()
        form.setContentsMargins(0, 0, 0, 0)
        form.setHorizontalSpacing(16)
        form.setVerticalSpacing(8)
        form.setColumnStretch(1, 1)
        rows = (
            (self.tr("Theme"), self.theme_combo),
            (self.tr("Language"), self.language_combo),
            ("", self.language_row),
            (self.tr("Replies"), self.show_thinking_check),
            (self.tr("Transcript"), self.display_mode_combo),
            (self.tr("Large paste threshold"), self.paste_spin),
            (self.tr("Agent permissions"), self.permission_combo),
            (self.tr("Commands"), self.network_check),
            ("", self.sandbox_label),
            (self.tr("Keep the tool log"), self.audit_spin),
            (self.tr("Network proxy"), self.proxy),
        )
        for row, (label, field) in enumerate(rows):
            if not label:  # a note under the field above, as wide as the column
                form.addWidget(field, row, 1)
                continue
            # a field of several lines keeps its label beside its first line
            vertical = Qt.AlignmentFlag.AlignTop if field is self.proxy else Qt.AlignmentFlag.AlignVCenter
            caption = QLabel(label)
            if field is self.proxy:
                caption.setMinimumHeight(self.proxy.mode_combo.sizeHint().height())
            form.addWidget(caption, row, 0, Qt.AlignmentFlag.AlignRight | vertical)
            form.addWidget(field, row, 1, Qt.AlignmentFlag.AlignLeft | vertical)

        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(16)
        layout.addWidget(title)
        layout.addLayout(form)
        layout.addWidget(self.error_label)
        layout.addStretch(1)

        self.theme_combo.currentIndexChanged.connect(lambda: self._changed("theme", self.theme_combo.currentData()))
        self.language_combo.currentIndexChanged.connect(
            lambda: self._changed("language", self.language_combo.currentData())
        )
        self.display_mode_combo.currentIndexChanged.connect(
            lambda: self._changed("transcriptDisplayMode", self.display_mode_combo.currentData())
        )
        self.show_thinking_check.toggled.connect(lambda on: self._changed("showThinking", bool(on)))
        self.paste_spin.valueChanged.connect(lambda value: self._changed("largePasteThreshold", int(value)))
        self.permission_combo.currentIndexChanged.connect(
            lambda: self._changed(permission_modes.SETTINGS_KEY, self.permission_combo.currentData())
        )
        self.network_check.toggled.connect(lambda on: self._changed("sandboxNetwork", bool(on)))
        self.audit_spin.valueChanged.connect(lambda value: self._changed("auditRetentionDays", int(value)))
        self.proxy.changed.connect(lambda value: self._changed("networkProxy", value))

    # -- host work ---------------------------------------------------------------
    async def load(self) -> None:
        await host_op(
            self.client,
            "settings.get",
            parent=self,
            success=lambda result: self._show(result["settings"]),
            failure=self._failed,
        )

    def save(self, key: str, value):
        def saved(result: dict) -> None:
            self.show_error("")
            self._show(result["settings"])
            self.settingsChanged.emit(result["settings"])

        def refused(error: HostError) -> None:
            self._failed(error)
            self._show(self.settings)  # back to what is stored

        return host_op(
            self.client, "settings.set", {"patch": {key: value}}, parent=self, success=saved, failure=refused
        )

    def restart(self) -> None:
        """Quit and start again, so the new language is used; the setting is stored already."""
        self.restart_button.setEnabled(False)
        type(self).relaunch()

    # -- view --------------------------------------------------------------------
    def show_error(self, message: str, details: str = "") -> None:
        self.error_label.setText(message)
        self.error_label.setToolTip(details)
        self.error_label.setVisible(bool(message))

    def _failed(self, error: HostError) -> None:
        self.show_error(sentence(error), error.message)

    def _changed(self, key: str, value) -> None:
        if self.settings.get(key) != value:
            self.save(key, value).run()

    def _show(self, settings: dict) -> None:
        """Put ``settings`` into the controls without writing them back."""
        self.settings = dict(settings)
        controls = (
            self.theme_combo,
            self.language_combo,
            self.display_mode_combo,
            self.show_thinking_check,
            self.paste_spin,
            self.permission_combo,
            self.network_check,
            self.audit_spin,
        )
        for control in controls:
            control.blockSignals(True)
        try:
            _select(self.theme_combo, settings.get("theme"))
            _select(self.language_combo, settings.get("language"))
            # Texts are read when widgets are built: a new language shows after a restart.
            self.language_row.setVisible(i18n.resolve(settings.get("language")) != i18n.active())
            _select(self.display_mode_combo, settings.get("transcriptDisplayMode"))
            self.show_thinking_check.setChecked(bool(settings.get("showThinking", True)))
            _select(self.permission_combo, settings.get(permission_modes.SETTINGS_KEY, permission_modes.DEFAULT_MODE))
            self.network_check.setChecked(settings.get("sandboxNetwork", True) is not False)
            self.proxy.show_value(settings.get("networkProxy"))
            days = settings.get("auditRetentionDays")
            if isinstance(days, int):
                self.audit_spin.setValue(days)
            threshold = settings.get("largePasteThreshold")
            if isinstance(threshold, int):
                self.paste_spin.setValue(threshold)
        finally:
            for control in controls:
                control.blockSignals(False)


class ChoiceBox(QComboBox):
    """A combo box that draws its own chevron.

    A styled combo box (rounded border) loses the platform's arrow, and an
    image would not follow the theme, so the chevron is painted in the text
    colour over the space the stylesheet keeps free on the right.
    """

    def paintEvent(self, event) -> None:
        super().paintEvent(event)
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        role = QPalette.ColorRole.Text if self.isEnabled() else QPalette.ColorRole.PlaceholderText
        color = self.palette().color(role)
        painter.setPen(QPen(color, 1.5))
        x = self.width() - CHEVRON_INSET
        y = self.height() / 2
        painter.drawPolyline([QPointF(x - 4, y - 2), QPointF(x, y + 2), QPointF(x + 4, y - 2)])


def _choices(options: tuple[tuple[str, str], ...]) -> QComboBox:
    combo = ChoiceBox()
    for value, label in options:
        combo.addItem(QCoreApplication.translate("GeneralPage", label), value)
    combo.setFixedWidth(FIELD_WIDTH)
    return combo


def _select(combo: QComboBox, value) -> None:
    index = combo.findData(value)
    if index >= 0:
        combo.setCurrentIndex(index)
