"""The main window's first frame: its layout in the theme's colours, painted before its widgets exist.

Start-up shows the window as soon as the application object is up, with this
frame as its content: the sidebar's column, the header's rule and the
composer's box where the real ones will be. The rest of the UI's modules load
and its widgets are built after that paint (``MainWindow.build``), then
replace the frame in place. It is plain frames and a style sheet, drawn by Qt
alone: no text (no font to load), and no call from Python that makes PySide
build its ``Qt`` namespace (``QPainter.fillRect``, a ``QBrush`` or a ``QPen``
from Python would: about 20 ms), so the window is on screen about as soon as
an empty one would be. Once it is painted, the composer's text box goes into
its place with the focus (``take_typing``, ``early_prompt``): typing is taken
from then on, while the rest of the window is built. Then the sidebar, built
ahead of the rest with the newest chats read from the database, goes into its
column (``show_sidebar``, ``MainWindow.show_chats_early``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtWidgets import QFrame, QHBoxLayout, QVBoxLayout, QWidget

from pidesktop.ui.kit.theme import Theme

if TYPE_CHECKING:
    from pidesktop.ui.startup.early_prompt import EarlyPrompt

# The window's layout, shared with MainWindow so the widgets land where the frame drew them.
SIDEBAR_WIDTH = 264
COMPOSER_WIDTH = 808
HEADER_HEIGHT = 56
COMPOSER_HEIGHT = 80
COMPOSER_BOTTOM = 16
MARGIN = 24
PROMPT_MARGINS = (12, 10, 10)  # the composer's text box in its box: left, top, right


class FirstFrame(QFrame):
    def __init__(self, theme: Theme, sidebar_width: int):
        super().__init__()
        self.sidebar_width = sidebar_width  # 0: the sidebar is hidden
        self.painted = None  # called once, after the first paint (start-up waits for it)
        self.setObjectName("firstFrame")
        background, border = theme.background, f"1px solid {theme.border}"
        self.setStyleSheet(
            f"QFrame#firstFrame {{ background: {background}; border: none; }}"
            f"QFrame#frameSidebar {{ background: {theme.sidebar}; border: none; border-right: {border}; }}"
            f"QFrame#frameHeader {{ background: {background}; border: none; border-bottom: {border}; }}"
            f"QFrame#frameComposer {{ background: {background}; border: {border}; border-radius: 10px; }}"
            f"QPlainTextEdit#promptEdit {{ background: transparent; border: none; color: {theme.text}; }}"
        )
        row = QHBoxLayout(self)
        row.setContentsMargins(0, 0, 0, 0)
        row.setSpacing(0)
        self.sidebar_part = _part("frameSidebar", width=sidebar_width) if sidebar_width else None
        if self.sidebar_part is not None:
            row.addWidget(self.sidebar_part)
        column = QVBoxLayout()
        column.setContentsMargins(0, 0, 0, COMPOSER_BOTTOM)
        column.setSpacing(0)
        column.addWidget(_part("frameHeader", height=HEADER_HEIGHT))
        column.addStretch(1)
        composer_row = QHBoxLayout()
        composer_row.setContentsMargins(MARGIN, 0, MARGIN, 0)
        composer_row.addStretch(1)
        self.composer = composer = _part("frameComposer", height=COMPOSER_HEIGHT)
        composer.setMaximumWidth(COMPOSER_WIDTH)
        composer_row.addWidget(composer, 100)
        self.prompt: EarlyPrompt | None = None  # the composer's text box, once the frame is painted
        composer_row.addStretch(1)
        column.addLayout(composer_row)
        row.addLayout(column, 1)

    def take_typing(self) -> EarlyPrompt:
        """The composer's text box, in its place in the frame and with the focus (after the first paint: its
        font is the first text the window loads)."""
        from pidesktop.ui.startup.early_prompt import EarlyPrompt

        self.prompt = EarlyPrompt(self.composer)
        box = QVBoxLayout(self.composer)
        box.setContentsMargins(PROMPT_MARGINS[0], PROMPT_MARGINS[1], PROMPT_MARGINS[2], 0)
        box.addWidget(self.prompt.edit)
        self.prompt.edit.show()  # now, not when the layout would (a hidden widget cannot take the focus)
        self.prompt.edit.setFocus()
        return self.prompt

    def show_sidebar(self, sidebar: QWidget) -> None:
        """The sidebar, built before the rest of the window with the newest chats in it, in its column (the
        built window moves it into its splitter)."""
        if self.sidebar_part is None:
            return
        box = QVBoxLayout(self.sidebar_part)
        box.setContentsMargins(0, 0, 0, 0)
        box.addWidget(sidebar)
        sidebar.show()

    def paintEvent(self, event) -> None:
        super().paintEvent(event)
        if self.painted is not None:
            done, self.painted = self.painted, None
            done()


def _part(name: str, width: int = 0, height: int = 0) -> QFrame:
    part = QFrame()
    part.setObjectName(name)
    if width:
        part.setFixedWidth(width)
    if height:
        part.setFixedHeight(height)
    return part
