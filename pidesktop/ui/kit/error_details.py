"""What went wrong, in full: the host errors the status line announced.

The status line shows one line for 15 seconds; "Details" opens this list
(newest first: time, code, message, and any data the host attached), which a
person can copy into a bug report.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from datetime import datetime

import orjson
from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QApplication,
    QDialog,
    QDialogButtonBox,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from pidesktop.bus import HostError

KEPT = 50


@dataclass(frozen=True)
class ShownError:
    when: datetime
    code: str
    message: str
    data: dict = field(default_factory=dict)

    def text(self) -> str:
        lines = [f"{self.when:%Y-%m-%d %H:%M:%S}  {self.code}", self.message]
        if self.data:
            lines.append(orjson.dumps(self.data, option=orjson.OPT_INDENT_2, default=str).decode())
        return "\n".join(lines)


class ErrorLog:
    """The last ``KEPT`` errors shown, newest first."""

    def __init__(self) -> None:
        self._errors: deque[ShownError] = deque(maxlen=KEPT)

    def add(self, error: HostError) -> ShownError:
        shown = ShownError(datetime.now(), error.code, error.message, dict(error.data))
        self._errors.appendleft(shown)
        return shown

    def entries(self) -> list[ShownError]:
        return list(self._errors)

    def text(self) -> str:
        return "\n\n".join(entry.text() for entry in self._errors)


class ErrorDetailsDialog(QDialog):
    def __init__(self, log: ErrorLog, parent: QWidget | None = None):
        super().__init__(parent)
        self.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose, True)  # one per click on Details: none kept
        self.setObjectName("errorDetails")
        self.setWindowTitle(self.tr("Error details"))
        self.resize(640, 420)
        heading = QLabel(self.tr("Error details"))
        heading.setObjectName("pageTitle")
        intro = QLabel(
            self.tr(
                "What went wrong, newest first. Nothing here was sent anywhere; copy it into a bug report if you like."
            )
        )
        intro.setObjectName("muted")
        intro.setWordWrap(True)
        self.text = QPlainTextEdit(log.text())
        self.text.setReadOnly(True)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        copy = QPushButton(self.tr("Copy"))
        copy.clicked.connect(lambda: QApplication.clipboard().setText(self.text.toPlainText()))
        buttons.addButton(copy, QDialogButtonBox.ButtonRole.ActionRole)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(24, 20, 24, 16)
        layout.setSpacing(10)
        layout.addWidget(heading)
        layout.addWidget(intro)
        layout.addWidget(self.text, 1)
        layout.addWidget(buttons)
        from pidesktop.ui.kit.dialog_style import current_theme, stylesheet  # the look of the other dialogs

        theme = current_theme(parent)
        self.setStyleSheet(
            stylesheet(theme) + f"QPlainTextEdit {{ background: {theme.code_panel}; "
            f"color: {theme.text}; border: 1px solid {theme.border}; border-radius: 8px; }}"
        )
