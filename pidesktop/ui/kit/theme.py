"""Light and dark themes (UX.md "Look"), following the system by default."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from PySide6.QtGui import QColor, QGuiApplication, QPalette
from PySide6.QtWidgets import QApplication

if TYPE_CHECKING:
    from PySide6.QtWidgets import QWidget


@dataclass(frozen=True)
class Theme:
    name: str
    background: str
    sidebar: str
    text: str
    muted: str
    accent: str
    user_bubble: str
    code_panel: str
    border: str
    hover: str
    selected: str
    danger: str
    warning: str = "#B45309"  # amber: near a limit (the context meter)


LIGHT = Theme(
    "light",
    "#FFFFFF",
    "#F7F7F8",
    "#1F2328",
    "#6B7280",
    "#2563EB",
    "#EEF2FF",
    "#F6F8FA",
    "#E5E7EB",
    "#ECECEF",
    "#E3E8F5",
    "#DC2626",
    "#B45309",
)
DARK = Theme(
    "dark",
    "#1E1F22",
    "#17181A",
    "#E6E6E6",
    "#9CA3AF",
    "#60A5FA",
    "#2B3245",
    "#26282C",
    "#2F3136",
    "#25272B",
    "#2B3245",
    "#F87171",
    "#FBBF24",
)


def system_prefers_dark() -> bool:
    from PySide6.QtCore import Qt  # the Qt namespace takes ~20 ms to load: not before the first frame

    hints = QGuiApplication.styleHints()
    return hints.colorScheme() == Qt.ColorScheme.Dark


def pick(preference: str | None) -> Theme:
    """``light``, ``dark``, or ``system``/None (follow the platform)."""
    if preference == "dark":
        return DARK
    if preference == "light":
        return LIGHT
    return DARK if system_prefers_dark() else LIGHT


def apply(app: QApplication, theme: Theme) -> None:
    palette = QPalette()
    colors = {
        QPalette.ColorRole.Window: theme.background,
        QPalette.ColorRole.Base: theme.background,
        QPalette.ColorRole.AlternateBase: theme.sidebar,
        QPalette.ColorRole.Text: theme.text,
        QPalette.ColorRole.WindowText: theme.text,
        QPalette.ColorRole.ButtonText: theme.text,
        QPalette.ColorRole.Button: theme.sidebar,
        QPalette.ColorRole.Highlight: theme.selected,
        QPalette.ColorRole.HighlightedText: theme.text,
        QPalette.ColorRole.PlaceholderText: theme.muted,
        QPalette.ColorRole.ToolTipBase: theme.background,
        QPalette.ColorRole.ToolTipText: theme.text,
        QPalette.ColorRole.Link: theme.accent,
    }
    for role, value in colors.items():
        palette.setColor(role, QColor(value))
    app.setPalette(palette)
    app.setStyleSheet(stylesheet(theme))
    app.setProperty("pidesktopTheme", theme.name)
    from pidesktop.ui.kit import focus_ring  # the keyboard's place, in every window

    focus_ring.install(app, theme.accent, theme.background)


def outline_toggles(root: QWidget, theme: Theme) -> None:
    """Fusion outlines a check box or a radio button with a darker shade of the window colour, invisible on a
    dark one: those under ``root`` get the muted text colour as theirs there, so the darker shade shows.
    (An application palette for their class would do it once, but PySide does not pass the class name on.)"""
    from PySide6.QtWidgets import QCheckBox, QRadioButton  # not before the first frame, which has neither

    outline = QColor(theme.muted if theme.name == "dark" else theme.background)
    for kind in (QCheckBox, QRadioButton):
        for box in root.findChildren(kind):
            palette = box.palette()
            palette.setColor(QPalette.ColorRole.Window, outline)
            box.setPalette(palette)


def stylesheet(t: Theme) -> str:
    # Dialog buttons carry no icons: on X11 the style's Close ✗ (and Save, Cancel) icons are drawn dark,
    # nearly invisible on the dark theme, and every other button of the app is text only.
    return f"""
QDialogButtonBox {{ dialogbuttonbox-buttons-have-icons: 0; }}
QPushButton:focus, QCheckBox:focus, QRadioButton:focus {{ outline: none; }}
QMainWindow, QWidget#conversation {{ background: {t.background}; color: {t.text}; }}
QWidget#sidebar {{ background: {t.sidebar}; border-right: 1px solid {t.border}; }}
QTreeView#sessionTree {{ background: {t.sidebar}; border: none; outline: 0; }}
QTreeView#sessionTree::item {{ padding: 0px; border-radius: 8px; }}
QTreeView#sessionTree::branch {{ background: transparent; image: none; border: none; }}
QPushButton#newChat {{
    background: {t.background}; color: {t.text}; border: 1px solid {t.border};
    border-radius: 8px; padding: 8px 12px; text-align: left; font-weight: 600;
}}
QPushButton#newChat:hover {{ background: {t.hover}; }}
QLabel#headerTitle {{ font-size: 15px; font-weight: 600; }}
QLineEdit#headerTitleEdit {{ font-size: 15px; font-weight: 600; padding: 2px 6px; }}
QWidget#header {{ border-bottom: 1px solid {t.border}; }}
QLabel#emptyTitle {{ font-size: 22px; font-weight: 600; color: {t.text}; }}
QLabel#emptyHint {{ color: {t.muted}; font-size: 14px; }}
QLabel#muted {{ color: {t.muted}; }}
QFrame#banner {{ background: {t.user_bubble}; border: 1px solid {t.border}; border-radius: 8px; }}
QFrame#banner[severity="error"] {{ border-color: {t.danger}; }}
QFrame#noticeLine {{ background: {t.user_bubble}; border: 1px solid {t.border}; border-radius: 8px; }}
QFrame#noticeLine[kind="error"] {{ border-color: {t.danger}; }}
QLabel#noticeText {{ color: {t.text}; }}
QPushButton#noticeDetails {{ color: {t.accent}; border: none; padding: 0 4px; text-decoration: underline; }}
QToolButton#noticeClose {{ border: none; color: {t.muted}; padding: 0 4px; }}
QToolButton#noticeClose:hover {{ color: {t.text}; }}
QFrame#editBar {{ background: {t.user_bubble}; border-radius: 8px; }}
QPushButton#editCancel {{ color: {t.accent}; border: none; padding: 0 4px; text-decoration: underline; }}
QLineEdit {{ border: 1px solid {t.border}; border-radius: 8px; padding: 6px 8px; background: {t.background}; }}
QMenu {{ background: {t.background}; border: 1px solid {t.border}; padding: 4px; }}
QMenu::item {{ padding: 6px 20px; border-radius: 6px; }}
QMenu::item:selected {{ background: {t.hover}; color: {t.text}; }}
QSplitter::handle {{ background: {t.border}; }}
QToolButton#viewButton {{ border: 1px solid {t.border}; border-radius: 8px; padding: 6px 10px; color: {t.text}; }}
QToolButton#viewButton::menu-indicator {{ image: none; width: 0; }}
QComboBox#thinkingPicker {{
    border: 1px solid {t.border}; border-radius: 10px; padding: 2px 10px; color: {t.muted}; background: {t.background};
}}
QComboBox#thinkingPicker:hover {{ color: {t.text}; background: {t.hover}; }}
QComboBox#thinkingPicker::drop-down {{ border: none; width: 0px; }}
QLabel#chip {{ color: {t.muted}; border: 1px solid {t.border}; border-radius: 10px; padding: 2px 10px; }}
QLineEdit#sidebarSearch {{ background: {t.background}; color: {t.text}; padding: 7px 10px; }}
QLineEdit#sidebarSearch:hover {{ background: {t.hover}; }}
QToolButton#contextMeter, QToolButton#modelChip {{
    color: {t.muted}; border: 1px solid {t.border}; border-radius: 10px; padding: 2px 10px; background: transparent;
}}
QToolButton#contextMeter:hover, QToolButton#modelChip:hover {{ color: {t.text}; background: {t.hover}; }}
QToolButton#contextMeter[level="high"] {{ color: {t.warning}; border-color: {t.warning}; }}
QToolButton#contextMeter::menu-indicator {{ image: none; width: 0; }}
QToolButton#filesChangedButton {{
    color: {t.muted}; border: 1px solid {t.border}; border-radius: 10px; padding: 2px 10px; background: transparent;
}}
QToolButton#filesChangedButton:hover, QToolButton#filesChangedButton:focus {{ color: {t.text}; background: {t.hover}; }}
QToolButton#projectPicker {{
    color: {t.muted}; border: 1px solid {t.border}; border-radius: 10px; padding: 2px 10px; background: transparent;
}}
QToolButton#projectPicker:hover {{ color: {t.text}; background: {t.hover}; }}
QToolButton#projectPicker:disabled {{ color: {t.muted}; border-style: dashed; }}
QToolButton#projectPicker::menu-indicator {{ image: none; width: 0; }}
QToolButton#branchSwitcher {{
    color: {t.muted}; border: 1px solid {t.border}; border-radius: 10px; padding: 2px 10px; background: transparent;
}}
QToolButton#branchSwitcher:hover {{ color: {t.text}; background: {t.hover}; }}
QToolButton#branchSwitcher::menu-indicator {{ image: none; width: 0; }}
QFrame#nativeBanner {{ background: {t.code_panel}; border: 1px solid {t.border}; border-radius: 8px; }}
QLabel#nativeBannerText {{ color: {t.muted}; }}
QPushButton#nativeFork {{
    border: 1px solid {t.border}; border-radius: 8px; padding: 4px 12px; background: {t.background}; color: {t.text};
}}
QPushButton#nativeFork:hover {{ background: {t.hover}; }}
QListView#transcript {{ background: {t.background}; border: none; }}
QFrame#composerFrame {{ background: {t.background}; border: 1px solid {t.border}; border-radius: 12px; }}
QPlainTextEdit#promptEdit {{ background: transparent; border: none; color: {t.text}; }}
QFrame#attachmentChip {{ background: {t.code_panel}; border: 1px solid {t.border}; border-radius: 8px; }}
QLabel#chipLabel {{ color: {t.text}; }}
QToolButton#chipRemove {{ border: none; color: {t.muted}; padding: 0 4px; }}
QToolButton#chipRemove:hover {{ color: {t.text}; }}
QToolButton#attachButton {{ border: 1px solid {t.border}; border-radius: 10px; padding: 1px 8px; color: {t.muted}; }}
QToolButton#attachButton:hover {{ background: {t.hover}; color: {t.text}; }}
QToolButton#mcpChip {{ border: 1px solid {t.border}; border-radius: 10px; padding: 2px 10px; color: {t.muted}; }}
QToolButton#mcpChip:hover {{ background: {t.hover}; color: {t.text}; }}
QToolButton#mcpChip::menu-indicator {{ image: none; width: 0; }}
QToolButton#grantsChip {{ border: 1px solid {t.border}; border-radius: 10px; padding: 2px 10px; color: {t.muted}; }}
QToolButton#grantsChip:hover, QToolButton#grantsChip:focus {{ background: {t.hover}; color: {t.text}; }}
QToolButton#grantsChip::menu-indicator {{ image: none; width: 0; }}
QPushButton#sendButton {{
    background: {t.accent}; color: #FFFFFF; border: none; border-radius: 8px; padding: 6px 16px; font-weight: 600;
}}
QPushButton#stopButton {{
    background: {t.text}; color: {t.background}; border: none; border-radius: 8px; padding: 6px 16px; font-weight: 600;
}}
QPushButton#steerButton {{
    background: {t.background}; color: {t.text}; border: 1px solid {t.border}; border-radius: 8px; padding: 6px 14px;
}}
QPushButton#steerButton:hover {{ background: {t.hover}; }}
QPushButton#jumpToLatest {{
    background: {t.background}; color: {t.text}; border: 1px solid {t.border}; border-radius: 14px; padding: 6px 14px;
}}
QScrollBar:vertical {{ background: transparent; width: 10px; margin: 0; }}
QScrollBar::handle:vertical {{ background: {t.border}; border-radius: 5px; min-height: 32px; }}
QScrollBar::add-line:vertical, QScrollBar::sub-line:vertical {{ height: 0; }}
QScrollBar::add-page:vertical, QScrollBar::sub-page:vertical {{ background: transparent; }}
"""
