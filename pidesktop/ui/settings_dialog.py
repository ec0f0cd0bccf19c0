"""The Settings dialog: a list of pages on the left (General, Providers, Data), the page on the right.

Build it with ``SettingsDialog.ask(client, theme, parent)`` and show it with
``open()``: it loads every page from the host in the background and deletes
itself when closed. Changes are stored as they are made; the dialog has
nothing to apply or cancel.
"""

from __future__ import annotations

import asyncio

from PySide6.QtCore import QT_TRANSLATE_NOOP, QSize, Qt, Signal
from PySide6.QtGui import QColor, QPalette
from PySide6.QtWidgets import (QCheckBox, QDialog, QDialogButtonBox, QHBoxLayout, QListWidget, QListWidgetItem,
                               QPushButton, QStackedWidget, QVBoxLayout, QWidget)

from ..bus import HostClient
from . import theme as themes
from .settings_data import DataPage
from .settings_general import GeneralPage
from .settings_providers import ProvidersPage
from .tasks import spawn

DIALOG_SIZE = (820, 560)
NAV_WIDTH = 176
NAV_ROW_HEIGHT = 40
# Page names: the keys of ``show_page``, shown translated.
PAGES = (QT_TRANSLATE_NOOP("SettingsDialog", "General"), QT_TRANSLATE_NOOP("SettingsDialog", "Providers"),
         QT_TRANSLATE_NOOP("SettingsDialog", "Data"))


class SettingsDialog(QDialog):
    settingsChanged = Signal(dict)  # normalised settings after a General change
    providersChanged = Signal()  # a provider, the order or the default model was stored

    def __init__(self, client: HostClient, theme: themes.Theme, parent: QWidget | None = None):
        super().__init__(parent)
        self.client = client
        self.loading: asyncio.Task | None = None
        self.setObjectName("settingsDialog")
        self.setWindowTitle(self.tr("Settings"))
        self.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose, True)
        self.resize(*DIALOG_SIZE)

        self.general = GeneralPage(client)
        self.providers = ProvidersPage(client)
        self.data = DataPage(client)
        self.nav = QListWidget()
        self.nav.setObjectName("settingsNav")
        self.nav.setFixedWidth(NAV_WIDTH)
        for name in PAGES:
            item = QListWidgetItem(self.tr(name))
            item.setSizeHint(QSize(0, NAV_ROW_HEIGHT))
            self.nav.addItem(item)
        self.pages = QStackedWidget()
        for page in (self.general, self.providers, self.data):
            self.pages.addWidget(page)
        self.nav.currentRowChanged.connect(self.pages.setCurrentIndex)
        self.nav.setCurrentRow(0)

        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        content = QVBoxLayout()
        content.setContentsMargins(24, 24, 24, 16)
        content.setSpacing(16)
        content.addWidget(self.pages, 1)
        content.addWidget(buttons)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        layout.addWidget(self.nav)
        layout.addLayout(content, 1)

        # Enter in a field must not press whichever button happens to be the dialog's default.
        for button in self.findChildren(QPushButton):
            button.setAutoDefault(False)
            button.setDefault(False)
        self.general.settingsChanged.connect(self.settingsChanged)
        self.providers.providersChanged.connect(self.providersChanged)
        self.finished.connect(lambda _result: self.providers.clear_secrets())
        self.apply_theme(theme)

    @classmethod
    def ask(cls, client: HostClient, theme: themes.Theme, parent: QWidget | None = None) -> SettingsDialog:
        """The dialog, already loading its pages; the caller shows it with ``open()``."""
        dialog = cls(client, theme, parent)
        dialog.loading = spawn(dialog.load(), name="settings-load")
        return dialog

    async def load(self) -> None:
        await asyncio.gather(self.general.load(), self.providers.load(), self.data.load())

    def show_page(self, name: str) -> None:
        """Switch to ``"General"``, ``"Providers"`` or ``"Data"``."""
        self.nav.setCurrentRow(PAGES.index(name))

    def apply_theme(self, theme: themes.Theme) -> None:
        """Restyle for ``theme``; the owner calls it after applying a new theme to the application."""
        self.theme = theme
        self.setStyleSheet(stylesheet(theme))
        # Fusion outlines a check box with a darker shade of the window colour: invisible on a dark one.
        outline = QColor(theme.muted if theme.name == "dark" else theme.background)
        for box in self.findChildren(QCheckBox):
            palette = box.palette()
            palette.setColor(QPalette.ColorRole.Window, outline)
            box.setPalette(palette)


def stylesheet(t: themes.Theme) -> str:
    """The dialog's own rules, on top of the application stylesheet."""
    on_accent = t.background if t.name == "dark" else "#FFFFFF"
    return f"""
QDialog#settingsDialog {{ background: {t.background}; color: {t.text}; }}
QListWidget#settingsNav {{
    background: {t.sidebar}; border: none; border-right: 1px solid {t.border}; padding: 16px 8px; outline: 0;
}}
QListWidget#settingsNav::item {{ padding: 0px 12px; margin-bottom: 4px; border-radius: 8px; color: {t.text}; }}
QListWidget#settingsNav::item:hover {{ background: {t.hover}; }}
QListWidget#settingsNav::item:selected {{ background: {t.selected}; color: {t.text}; font-weight: 600; }}
QLabel {{ color: {t.text}; }}
QLabel#pageTitle {{ font-size: 20px; font-weight: 600; }}
QLabel#sectionTitle {{ font-size: 15px; font-weight: 600; }}
QLabel#rowTitle {{ font-weight: 600; }}
QLabel#muted, QLabel#notice {{ color: {t.muted}; }}
QLabel#notice[severity="error"], QLabel#formError {{ color: {t.danger}; }}
QLabel#badge {{ color: {t.accent}; border: 1px solid {t.accent}; border-radius: 8px; padding: 0px 6px; }}
QLabel#offBadge {{ color: {t.muted}; border: 1px solid {t.border}; border-radius: 8px; padding: 0px 6px; }}
QLabel#path {{ font-family: monospace; padding: 8px; background: {t.code_panel}; border-radius: 8px; }}
QLineEdit {{ color: {t.text}; }}
QLineEdit[invalid="true"], QComboBox[invalid="true"] {{ border-color: {t.danger}; }}
QComboBox, QSpinBox {{
    border: 1px solid {t.border}; border-radius: 8px; padding: 6px 8px; background: {t.background}; color: {t.text};
}}
QComboBox {{ padding-right: 32px; }}
QComboBox::drop-down {{ border: none; width: 32px; }}
QComboBox::down-arrow {{ image: none; }}
/* Steps of one are of no use for a character count (arrow keys and the wheel still step);
   NoButtons would collapse the text field under a stylesheet. */
QSpinBox::up-button, QSpinBox::down-button {{ width: 0px; border: none; }}
QComboBox QLineEdit, QSpinBox QLineEdit {{ border: none; padding: 0px; background: transparent; }}
QSpinBox {{ padding: 0px 8px; min-height: 28px; max-height: 28px; }}
QComboBox QAbstractItemView {{
    background: {t.background}; color: {t.text}; border: 1px solid {t.border};
    selection-background-color: {t.selected}; selection-color: {t.text};
}}
QPushButton {{
    background: {t.background}; color: {t.text}; border: 1px solid {t.border}; border-radius: 8px; padding: 6px 12px;
}}
QPushButton:hover {{ background: {t.hover}; }}
QPushButton:disabled {{ color: {t.muted}; }}
QPushButton#primary {{ background: {t.accent}; color: {on_accent}; border-color: {t.accent}; font-weight: 600; }}
QPushButton#danger {{ color: {t.danger}; }}
QListWidget#providerList {{
    background: {t.background}; border: 1px solid {t.border}; border-radius: 8px; padding: 4px; outline: 0;
}}
QListWidget#providerList::item {{ border-radius: 6px; }}
QListWidget#providerList::item:hover {{ background: {t.hover}; }}
QListWidget#providerList::item:selected {{ background: {t.selected}; }}
"""
