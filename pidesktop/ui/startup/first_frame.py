"""The main window's first frame: its layout in the theme's colours, painted before its widgets exist.

Start-up shows the window as soon as the application object is up, with this
frame as its content: the sidebar's column, the header's rule and the
composer's box where the real ones will be. The rest of the UI's modules load
and its widgets are built after that paint (``MainWindow.build``), then
replace the frame in place. It is plain frames and a style sheet, drawn by Qt
alone: no text (no font to load), and no call from Python that makes PySide
build its ``Qt`` namespace (``QPainter.fillRect``, a ``QBrush`` or a ``QPen``
from Python would: about 20 ms), so the window is on screen about as soon as
an empty one would be.
"""

from __future__ import annotations

from PySide6.QtWidgets import QFrame, QHBoxLayout, QVBoxLayout

from pidesktop.ui.kit.theme import Theme

# The window's layout, shared with MainWindow so the widgets land where the frame drew them.
SIDEBAR_WIDTH = 264
COMPOSER_WIDTH = 808
HEADER_HEIGHT = 56
COMPOSER_HEIGHT = 80
COMPOSER_BOTTOM = 16
MARGIN = 24


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
        )
        row = QHBoxLayout(self)
        row.setContentsMargins(0, 0, 0, 0)
        row.setSpacing(0)
        if sidebar_width:
            row.addWidget(_part("frameSidebar", width=sidebar_width))
        column = QVBoxLayout()
        column.setContentsMargins(0, 0, 0, COMPOSER_BOTTOM)
        column.setSpacing(0)
        column.addWidget(_part("frameHeader", height=HEADER_HEIGHT))
        column.addStretch(1)
        composer_row = QHBoxLayout()
        composer_row.setContentsMargins(MARGIN, 0, MARGIN, 0)
        composer_row.addStretch(1)
        composer = _part("frameComposer", height=COMPOSER_HEIGHT)
        composer.setMaximumWidth(COMPOSER_WIDTH)
        composer_row.addWidget(composer, 100)
        composer_row.addStretch(1)
        column.addLayout(composer_row)
        row.addLayout(column, 1)

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
