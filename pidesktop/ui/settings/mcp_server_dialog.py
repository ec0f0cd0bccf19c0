"""Add or edit one MCP server: a command to start (stdio) or a streamable-HTTP URL.

The command line is split like a shell would (quotes keep spaces). Environment
variables and headers are ``NAME=value`` lines; their values are secrets, so
when editing the dialog shows only the names (``NAME=``) and an empty value
keeps the stored one. What the host refuses is shown under the form, and
the dialog stays open with everything typed.
"""

from __future__ import annotations

import shlex
from typing import Any

from PySide6.QtWidgets import (
    QButtonGroup,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QLabel,
    QLineEdit,
    QMessageBox,
    QPlainTextEdit,
    QRadioButton,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from pidesktop.bus import HostClient, HostError
from pidesktop.ui.kit import discard_question
from pidesktop.ui.kit.dialog_style import current_theme
from pidesktop.ui.kit.tasks import spawn
from pidesktop.ui.kit.theme import outline_toggles

MAX_TIMEOUT_S = 3600


class McpServerDialog(QDialog):
    def __init__(self, client: HostClient, server: dict[str, Any] | None = None, parent: QWidget | None = None):
        super().__init__(parent)
        self.client = client
        self.server = server
        self.saved: dict[str, Any] | None = None
        self.setObjectName("mcpServerDialog")
        self.setWindowTitle(self.tr("Edit MCP server") if server else self.tr("Add MCP server"))
        self.resize(520, 460)
        self.name = QLineEdit(server["name"] if server else "")
        self.name.setPlaceholderText(self.tr("e.g. files or github"))
        self.name.setReadOnly(server is not None)
        self.stdio = QRadioButton(self.tr("Start a command (stdio)"))
        self.http = QRadioButton(self.tr("Connect to a URL (streamable HTTP)"))
        kinds = QButtonGroup(self)
        kinds.addButton(self.stdio)
        kinds.addButton(self.http)
        self.command = QLineEdit()
        self.command.setPlaceholderText("npx -y @modelcontextprotocol/server-filesystem ~/Documents")
        self.url = QLineEdit()
        self.url.setPlaceholderText("https://example.com/mcp")
        self.pairs = QPlainTextEdit()
        self.pairs.setFixedHeight(84)
        self.pairs_label = QLabel()
        self.timeout = QSpinBox()
        self.timeout.setRange(1, MAX_TIMEOUT_S)
        self.timeout.setSuffix(self.tr(" s"))
        self.timeout.setValue(int(server.get("timeoutSeconds", 60)) if server else 60)
        self.error = QLabel()
        self.error.setObjectName("notice")
        self.error.setWordWrap(True)
        self.error.hide()

        form = QFormLayout()
        form.addRow(self.tr("Name"), self.name)
        form.addRow("", self.stdio)
        form.addRow(self.tr("Command"), self.command)
        form.addRow("", self.http)
        form.addRow(self.tr("URL"), self.url)
        form.addRow(self.pairs_label, self.pairs)
        form.addRow(self.tr("Timeout"), self.timeout)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Save | QDialogButtonBox.StandardButton.Cancel)
        buttons.accepted.connect(lambda: spawn(self.save(), name="mcp-save"))
        buttons.rejected.connect(self.reject)
        self.save_button = buttons.button(QDialogButtonBox.StandardButton.Save)
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(self.error)
        layout.addStretch(1)
        layout.addWidget(buttons)

        if server and server.get("transport") == "http":
            self.http.setChecked(True)
            self.url.setText(server.get("url", ""))
            self.pairs.setPlainText("\n".join(f"{key}=" for key in server.get("headerKeys", [])))
        else:
            self.stdio.setChecked(True)
            if server:
                self.command.setText(shlex.join([server.get("command", ""), *server.get("args", [])]))
                self.pairs.setPlainText("\n".join(f"{key}=" for key in server.get("envKeys", [])))
        self.stdio.toggled.connect(self._kind_changed)
        self._kind_changed()
        outline_toggles(self, current_theme(parent))
        self.question: QMessageBox | None = None  # the Save / Discard / Keep editing box while it is open
        self._opened_with = self._typed()

    def _typed(self) -> tuple[str, ...]:
        return (self.name.text(), self.command.text(), self.url.text(), self.pairs.toPlainText())

    def reject(self) -> None:
        """Esc, Cancel or the window's x: with text typed and not saved, ask before it is lost."""
        if self._typed() == self._opened_with:
            super().reject()
            return
        what = self.tr("this MCP server") if self.server is None else self.tr("your changes to this MCP server")
        discard_question.ask(self, what, lambda: spawn(self.save(), name="mcp-save"), super().reject)

    def _kind_changed(self) -> None:
        stdio = self.stdio.isChecked()
        self.command.setEnabled(stdio)
        self.url.setEnabled(not stdio)
        self.pairs_label.setText(self.tr("Environment") if stdio else self.tr("Headers"))
        hint = self.tr("One NAME=value a line. Values are kept encrypted.")
        if self.server is not None:
            hint += " " + self.tr("Leave a value empty to keep the stored one.")
        self.pairs.setPlaceholderText(hint)
        self.pairs.setToolTip(hint)

    def params(self) -> dict[str, Any]:
        """What to send; raises ``ValueError`` with a sentence for input that cannot be read."""
        params: dict[str, Any] = {"name": self.name.text().strip(), "timeoutSeconds": self.timeout.value()}
        known = set((self.server or {}).get("envKeys" if self.stdio.isChecked() else "headerKeys", []))
        pairs: dict[str, str | None] = {}
        for number, line in enumerate(self.pairs.toPlainText().splitlines(), 1):
            if not line.strip():
                continue
            key, sep, value = line.partition("=")
            if not sep or not key.strip():
                raise ValueError(self.tr("Line %1 needs the form NAME=value.").replace("%1", str(number)))
            pairs[key.strip()] = None if value == "" and key.strip() in known else value
        if self.stdio.isChecked():
            try:
                words = shlex.split(self.command.text())
            except ValueError as exc:
                raise ValueError(self.tr("The command line could not be read: %1").replace("%1", str(exc))) from None
            if not words:
                raise ValueError(self.tr("Type the command that starts the server."))
            params.update({"command": words[0], "args": words[1:], "env": pairs})
        else:
            params.update({"url": self.url.text().strip(), "headers": pairs})
        return params

    async def save(self) -> None:
        try:
            params = self.params()
        except ValueError as exc:
            self._show_error(str(exc))
            return
        method = "mcp.update" if self.server else "mcp.add"
        self.save_button.setEnabled(False)
        try:
            self.saved = (await self.client.call(method, params))["server"]
        except HostError as exc:
            self._show_error(exc.message)
            return
        finally:
            self.save_button.setEnabled(True)
        self.accept()

    def _show_error(self, text: str) -> None:
        for method in ("mcp.add: ", "mcp.update: "):  # the command's name means nothing to a person
            text = text.removeprefix(method)
        self.error.setText(text[:1].upper() + text[1:])
        self.error.show()
