"""The Settings dialog: the pages on the left (General, Providers, Tools, Usage, Data, Sync), one on the right.

Build it with ``SettingsDialog.ask(client, theme, parent)`` and show it with
``open()``: it loads every page from the host in the background and deletes
itself when closed. Changes are stored as they are made; the dialog has
nothing to apply or cancel.
"""

from __future__ import annotations

import asyncio

from PySide6.QtCore import QT_TRANSLATE_NOOP, QSize, Qt, Signal
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QFrame,
    QHBoxLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QScrollArea,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)

from pidesktop import __version__
from pidesktop.bus import HostClient
from pidesktop.ui.data.settings_data import DataPage
from pidesktop.ui.kit import i18n
from pidesktop.ui.kit import theme as themes
from pidesktop.ui.kit.dialog_style import settings_stylesheet
from pidesktop.ui.kit.ops import host_op
from pidesktop.ui.kit.tasks import spawn
from pidesktop.ui.settings.settings_general import GeneralPage
from pidesktop.ui.settings.settings_providers import ProvidersPage
from pidesktop.ui.settings.settings_sync import SyncPage
from pidesktop.ui.settings.settings_tools import ToolsPage
from pidesktop.ui.settings.settings_usage import UsagePage

# Every page but Data's list of tools fits without scrolling; on a smaller screen the pages scroll.
DIALOG_SIZE = (820, 620)
NAV_WIDTH = 176
NAV_ROW_HEIGHT = 40
# Page names: the keys of ``show_page``, shown translated.
PAGES = (
    QT_TRANSLATE_NOOP("SettingsDialog", "General"),
    QT_TRANSLATE_NOOP("SettingsDialog", "Providers"),
    QT_TRANSLATE_NOOP("SettingsDialog", "Tools"),
    QT_TRANSLATE_NOOP("SettingsDialog", "Usage"),
    QT_TRANSLATE_NOOP("SettingsDialog", "Data"),
    QT_TRANSLATE_NOOP("SettingsDialog", "Sync"),
)


def _scrolling(page: QWidget) -> QScrollArea:
    """A page that scrolls when it is taller than the dialog, so the tallest page does not set every page's
    height (the dialog opens at ``DIALOG_SIZE`` on a small screen too)."""
    area = QScrollArea()
    area.setObjectName("settingsPage")
    area.setWidget(page)
    area.setWidgetResizable(True)
    area.setFrameShape(QFrame.Shape.NoFrame)
    area.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
    area.setViewportMargins(0, 0, 12, 0)  # the text keeps clear of the scroll bar
    return area


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
        self.tools = ToolsPage(client)
        self.usage = UsagePage(client)
        self.data = DataPage(client)
        self.sync = SyncPage(client)
        self.nav = QListWidget()
        self.nav.setObjectName("settingsNav")
        self.nav.setFixedWidth(NAV_WIDTH)
        for name in PAGES:
            item = QListWidgetItem(self.tr(name))
            item.setSizeHint(QSize(0, NAV_ROW_HEIGHT))
            self.nav.addItem(item)
        self.pages = QStackedWidget()
        for page in (self.general, self.providers, self.tools, self.usage, self.data, self.sync):
            self.pages.addWidget(_scrolling(page))
        self.nav.currentRowChanged.connect(self.pages.setCurrentIndex)
        self.nav.setCurrentRow(0)

        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        self.about = QLabel(self.about_line(None))
        self.about.setObjectName("muted")
        self.about.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        footer = QHBoxLayout()
        footer.addWidget(self.about, 0, Qt.AlignmentFlag.AlignVCenter)
        footer.addWidget(buttons, 1)
        content = QVBoxLayout()
        content.setContentsMargins(24, 24, 24, 16)
        content.setSpacing(16)
        content.addWidget(self.pages, 1)
        content.addLayout(footer)
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
        await asyncio.gather(
            self.general.load(),
            self.providers.load(),
            self.tools.load(),
            self.usage.load(),
            self.data.load(),
            self.sync.load(),
            self.load_about(),
        )

    def about_line(self, schema_version: int | None) -> str:
        """What is running: this pidesktop's version and, once the host said it, the data schema it uses."""
        if schema_version is None:
            return i18n.arg(self.tr("pidesktop %1"), __version__)
        return i18n.arg(self.tr("pidesktop %1 · data schema v%2"), __version__, schema_version)

    async def load_about(self) -> None:
        # Without an answer the line keeps the version alone; the pages report a host that does not answer.
        hello = await host_op(
            self.client, "app.handshake", {"protocolVersion": 1}, parent=self, failure=lambda _error: None
        )
        if hello is not None:
            self.about.setText(self.about_line(hello["schemaVersion"]))

    def reject(self) -> None:
        """Close, Esc or the window's x: a provider's typed text is saved or let go first, not lost."""
        if self.providers.unsaved():
            self.show_page("Providers")
            self.providers.leave_form(lambda: QDialog.reject(self))
            return
        super().reject()

    def show_page(self, name: str) -> None:
        """Switch to ``"General"``, ``"Providers"``, ``"Tools"``, ``"Usage"``, ``"Data"`` or ``"Sync"``."""
        self.nav.setCurrentRow(PAGES.index(name))

    def apply_theme(self, theme: themes.Theme) -> None:
        """Restyle for ``theme``; the owner calls it after applying a new theme to the application."""
        self.theme = theme
        self.setStyleSheet(settings_stylesheet(theme))
        themes.outline_toggles(self, theme)
