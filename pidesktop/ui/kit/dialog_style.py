"""The look the app's dialogs share, and the small widgets they are built from.

Settings, the data tools, the move wizard, the start-up window, the error
details and every question box take their stylesheet and theme from here, so
none of them has to import another dialog to look like it. This module
imports only Qt, the theme and i18n.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from PySide6.QtCore import QCoreApplication, Qt
from PySide6.QtWidgets import (
    QAbstractItemView,
    QApplication,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QMessageBox,
    QPushButton,
    QTreeWidget,
    QTreeWidgetItem,
    QWidget,
)

from pidesktop.ui.kit import i18n
from pidesktop.ui.kit import theme as themes

log = logging.getLogger("pidesktop.ui.dialogs")


def path_row(placeholder: str, browse: Callable[[], None]) -> tuple[QLineEdit, QHBoxLayout]:
    """A path field with a "Choose…" button beside it that calls ``browse``."""
    edit = QLineEdit()
    edit.setPlaceholderText(placeholder)
    button = QPushButton(QCoreApplication.translate("Maintenance", "Choose…"))
    button.setAutoDefault(False)
    button.clicked.connect(browse)
    row = QHBoxLayout()
    row.addWidget(edit, 1)
    row.addWidget(button)
    return edit, row


def error_text(exc: BaseException, readable: tuple[type[BaseException], ...] = ()) -> str:
    """A sentence a person can act on for a local failure (not a host error).

    An exception of a ``readable`` type already is one (the storage and
    workflows layers write their messages for people); an ``OSError`` names
    what the file system refused; anything else is summarised and logged.
    """
    if readable and isinstance(exc, readable):
        return str(exc)
    if isinstance(exc, OSError):
        where = f" ({exc.filename})" if exc.filename else ""
        return i18n.arg(
            QCoreApplication.translate(
                "Maintenance",
                "The file system refused: %1%2. Check the folder's permissions and free space, then try again.",
            ),
            exc.strerror or exc,
            where,
        )
    log.error("maintenance task failed", exc_info=exc)
    return i18n.arg(
        QCoreApplication.translate(
            "Maintenance", "Something unexpected went wrong (%1). Nothing was changed; the details are in the log."
        ),
        type(exc).__name__,
    )


def current_theme(widget: QWidget | None = None) -> themes.Theme:
    owner = widget.window() if widget is not None else None
    theme = getattr(owner, "theme", None)
    if isinstance(theme, themes.Theme):
        return theme
    app = QApplication.instance()
    return themes.DARK if app is not None and app.property("pidesktopTheme") == "dark" else themes.LIGHT


def stylesheet(t: themes.Theme) -> str:
    """The settings look, plus progress bars, lists and wizard pages."""
    return (
        settings_stylesheet(t)
        + f"""
QDialog, QWizard, QWizardPage {{ background: {t.background}; color: {t.text}; }}
QLabel#report {{ padding: 10px 12px; border-radius: 8px; background: {t.code_panel}; }}
QLabel#report[severity="ok"] {{ border-left: 3px solid #16A34A; }}
QLabel#report[severity="error"] {{ border-left: 3px solid {t.danger}; }}
QLabel#report[severity="info"] {{ border-left: 3px solid {t.accent}; }}
QLineEdit {{ border: 1px solid {t.border}; border-radius: 8px; padding: 6px 8px; background: {t.background}; }}
QProgressBar {{
    border: 1px solid {t.border}; border-radius: 6px; background: {t.code_panel}; height: 10px;
    max-height: 10px; text-align: center; color: transparent;
}}
QProgressBar::chunk {{ background: {t.accent}; border-radius: 5px; }}
QTreeWidget {{
    background: {t.background}; color: {t.text}; border: 1px solid {t.border}; border-radius: 8px;
    padding: 4px; outline: 0; alternate-background-color: {t.sidebar};
}}
QTreeWidget::item {{ padding: 4px 2px; }}
QTreeWidget::item:selected {{ background: {t.selected}; color: {t.text}; }}
QTreeWidget::item:disabled {{ color: {t.muted}; }}
QHeaderView::section {{
    background: {t.background}; color: {t.muted}; border: none; border-bottom: 1px solid {t.border};
    padding: 4px 6px; font-weight: 600;
}}
"""
    )


def set_severity(label: QLabel, severity: str) -> None:
    label.setProperty("severity", severity)
    label.style().unpolish(label)
    label.style().polish(label)


def confirm(parent: QWidget, title: str, text: str, action: str, on_yes: Callable[[], None]) -> QMessageBox:
    """A non-blocking question; ``on_yes`` runs only when the person presses ``action``."""
    box = QMessageBox(QMessageBox.Icon.Warning, title, text, QMessageBox.StandardButton.Cancel, parent)
    yes = box.addButton(action, QMessageBox.ButtonRole.AcceptRole)
    box.setDefaultButton(QMessageBox.StandardButton.Cancel)
    box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose, True)
    box.buttonClicked.connect(lambda button: on_yes() if button is yes else None)
    style_message_box(box)
    box.open()
    return box


def style_message_box(box: QMessageBox, theme: themes.Theme | None = None) -> QMessageBox:
    """Give a question box (Delete…, Clear inbox…) the look of the app's dialogs instead of Qt's default."""
    theme = theme or current_theme(box.parentWidget())
    for button in box.buttons():
        if box.buttonRole(button) == QMessageBox.ButtonRole.DestructiveRole:
            button.setObjectName("danger")
    # Qt sizes the box to its first line: a sentence of detail then wrapped to a column of one or two words.
    box.setStyleSheet(
        stylesheet(theme) + f"QMessageBox QLabel {{ color: {theme.text}; }}"
        "QLabel#qt_msgbox_informativelabel { min-width: 340px; }"
    )
    return box


def tree(headers: list[str]) -> QTreeWidget:
    tree = QTreeWidget()
    tree.setHeaderLabels(headers)
    tree.setRootIsDecorated(False)
    tree.setTextElideMode(Qt.TextElideMode.ElideMiddle)  # paths: keep both ends
    tree.setAlternatingRowColors(True)
    tree.setSelectionMode(QAbstractItemView.SelectionMode.NoSelection)
    tree.setFocusPolicy(Qt.FocusPolicy.NoFocus)
    header = tree.header()
    header.setStretchLastSection(False)
    header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
    for column in range(1, len(headers)):
        header.setSectionResizeMode(column, QHeaderView.ResizeMode.ResizeToContents)
    return tree


def right(item: QTreeWidgetItem, *columns: int) -> None:
    for column in columns:
        item.setTextAlignment(column, Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)


def settings_stylesheet(t: themes.Theme) -> str:
    """The Settings dialog's rules, on top of the application stylesheet; every other dialog builds on them."""
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
QLineEdit#proxyField {{
    border: 1px solid {t.border}; border-radius: 8px; padding: 5px 8px; background: {t.background};
}}
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
QPushButton#primary:disabled {{ background: {t.hover}; color: {t.muted}; border-color: {t.border}; }}
QPushButton#danger {{ color: {t.danger}; }}
QPushButton#danger:disabled {{ color: {t.muted}; }}
QListWidget#providerList, QListWidget#mcpServerList {{
    background: {t.background}; border: 1px solid {t.border}; border-radius: 8px; padding: 4px; outline: 0;
}}
QListWidget#providerList::item, QListWidget#mcpServerList::item {{ border-radius: 6px; }}
QListWidget#providerList::item:hover, QListWidget#mcpServerList::item:hover {{ background: {t.hover}; }}
QListWidget#providerList::item:selected, QListWidget#mcpServerList::item:selected {{ background: {t.selected}; }}
QLabel#serverDot {{ color: {t.muted}; font-size: 10px; }}
QLabel#serverDot[state="ready"] {{ color: {"#3FB950" if t.name == "dark" else "#1A7F37"}; }}
QLabel#serverDot[state="starting"] {{ color: {t.warning}; }}
QLabel#serverDot[state="failed"] {{ color: {t.danger}; }}
QTableWidget#usageTable {{
    background: {t.background}; color: {t.text}; border: 1px solid {t.border}; border-radius: 8px; outline: 0;
}}
QTableWidget#usageTable QHeaderView::section {{
    background: {t.background}; color: {t.muted}; border: none; border-bottom: 1px solid {t.border};
    padding: 4px 6px; font-weight: 600;
}}
QTableWidget#usageTable QLineEdit {{ padding: 1px 6px; border-radius: 6px; margin: 2px; }}
"""
