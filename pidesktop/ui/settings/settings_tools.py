"""Settings > Tools: the MCP servers whose tools the model gets, with their state and switches.

The list shows each server with what the app last knew of it: not started
yet, starting, ready with N tools, failed (the reason, and the last lines it
wrote to stderr behind Details), or disabled. The panel on the right has the
server's switch, a switch per tool (once the server has listed them), Edit
and Remove. Add and Import (a Claude Desktop / Cursor ``mcpServers`` file)
are under the list. The page follows ``mcp.changed`` from the host, so a
server starting in a chat shows up here as it happens.
"""

from __future__ import annotations

import json
from typing import Any

from PySide6.QtCore import QSize, Qt
from PySide6.QtWidgets import (
    QCheckBox,
    QFileDialog,
    QHBoxLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QMessageBox,
    QPlainTextEdit,
    QPushButton,
    QScrollArea,
    QVBoxLayout,
    QWidget,
)

from pidesktop.bus import HostClient, HostError, topics
from pidesktop.ui.kit.eliding_label import ElidingLabel
from pidesktop.ui.kit.tasks import spawn
from pidesktop.ui.settings.mcp_server_dialog import McpServerDialog

ROW_HEIGHT = 48
LIST_WIDTH = 220


class ToolsPage(QWidget):
    def __init__(self, client: HostClient, parent: QWidget | None = None):
        super().__init__(parent)
        self.client = client
        self.servers: list[dict[str, Any]] = []
        self.selected_name: str | None = None
        title = QLabel(self.tr("Tools"))
        title.setObjectName("pageTitle")
        hint = QLabel(
            self.tr(
                "MCP servers give the model more tools in every chat. A server starts when a chat first needs it. "
                "Tools not marked read-only ask before they run, unless the chat allows everything."
            )
        )
        hint.setObjectName("muted")
        hint.setWordWrap(True)
        self.list = QListWidget()
        self.list.setObjectName("mcpServerList")
        self.list.setFixedWidth(LIST_WIDTH)
        self.list.currentRowChanged.connect(self._on_row_changed)
        self.add_button = QPushButton(self.tr("Add…"))
        self.add_button.clicked.connect(lambda: self.edit(None))
        self.import_button = QPushButton(self.tr("Import…"))
        self.import_button.setToolTip(self.tr("Read the mcpServers of a Claude Desktop or Cursor settings file"))
        self.import_button.clicked.connect(self.choose_import)
        self.empty = QLabel(self.tr("No MCP servers yet. Add one, or import the file of another app."))
        self.empty.setObjectName("muted")
        self.empty.setWordWrap(True)
        self.notice = QLabel()
        self.notice.setObjectName("notice")
        self.notice.setWordWrap(True)
        self.notice.hide()

        # the selected server
        self.server_title = QLabel()
        self.server_title.setObjectName("sectionTitle")
        self.target = QLabel()
        self.target.setObjectName("muted")
        self.target.setWordWrap(True)
        self.target.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.enabled = QCheckBox(self.tr("Use this server's tools"))
        self.enabled.toggled.connect(self._enabled_toggled)
        self.state = QLabel()
        self.state.setWordWrap(True)
        self.details_button = QPushButton(self.tr("Details"))
        self.details_button.setCheckable(True)
        self.details = QPlainTextEdit()
        self.details.setReadOnly(True)
        self.details.setFixedHeight(110)
        self.details.hide()
        self.details_button.toggled.connect(self.details.setVisible)
        self.tools_title = QLabel(self.tr("Tools"))
        self.tools_title.setObjectName("sectionTitle")
        self.tools_box = QWidget()
        self.tools_layout = QVBoxLayout(self.tools_box)
        self.tools_layout.setContentsMargins(0, 0, 0, 0)
        self.tools_layout.setSpacing(4)
        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QScrollArea.Shape.NoFrame)
        scroll.setWidget(self.tools_box)
        self.edit_button = QPushButton(self.tr("Edit…"))
        self.edit_button.clicked.connect(lambda: self.edit(self.selected()))
        self.remove_button = QPushButton(self.tr("Remove"))
        self.remove_button.clicked.connect(self.confirm_remove)

        left = QVBoxLayout()
        left.addWidget(self.list, 1)
        row = QHBoxLayout()
        row.addWidget(self.add_button)
        row.addWidget(self.import_button)
        left.addLayout(row)
        self.panel = QWidget()
        right = QVBoxLayout(self.panel)
        right.setContentsMargins(0, 0, 0, 0)
        right.addWidget(self.server_title)
        right.addWidget(self.target)
        right.addWidget(self.enabled)
        state_row = QHBoxLayout()
        state_row.addWidget(self.state, 1)
        state_row.addWidget(self.details_button, 0, Qt.AlignmentFlag.AlignTop)
        right.addLayout(state_row)
        right.addWidget(self.details)
        right.addWidget(self.tools_title)
        right.addWidget(scroll, 1)
        buttons = QHBoxLayout()
        buttons.addStretch(1)
        buttons.addWidget(self.edit_button)
        buttons.addWidget(self.remove_button)
        right.addLayout(buttons)
        body = QHBoxLayout()
        body.addLayout(left)
        body.addSpacing(16)
        body.addWidget(self.panel, 1)
        body.addWidget(self.empty, 1, Qt.AlignmentFlag.AlignTop)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(8)
        layout.addWidget(title)
        layout.addWidget(hint)
        layout.addWidget(self.notice)
        layout.addLayout(body, 1)
        self._unsubscribe = client.subscribe(self._on_event)
        self.destroyed.connect(lambda *_: self._unsubscribe())
        self._show_selected()

    def state_line(self, server: dict[str, Any]) -> str:
        """One line a person reads about a server's state."""
        state = server.get("state") or {}
        kind = state.get("state")
        if kind == "disabled":
            return self.tr("Off")
        if kind == "starting":
            return self.tr("Starting…")
        if kind == "ready":
            count = len(state.get("tools") or [])
            return self.tr("Ready · 1 tool") if count == 1 else self.tr("Ready · %1 tools").replace("%1", str(count))
        if kind == "failed":
            return self.tr("Failed: %1").replace("%1", state.get("reason") or self.tr("unknown reason"))
        return self.tr("Starts when a chat needs it")

    # -- loading ---------------------------------------------------------------------------
    async def load(self) -> None:
        try:
            self.servers = (await self.client.call("mcp.list", {}))["servers"]
        except HostError as exc:
            self.show_notice(self.tr("The MCP servers could not be read: %1").replace("%1", exc.message))
            return
        self._rebuild()

    def _on_event(self, topic: str, payload: dict[str, Any]) -> None:
        if topic == topics.MCP_CHANGED:
            spawn(self.load(), name="tools-page-reload")

    def _rebuild(self) -> None:
        keep = self.selected_name
        self.list.blockSignals(True)
        self.list.clear()
        for server in self.servers:
            item = QListWidgetItem()
            item.setSizeHint(QSize(0, ROW_HEIGHT))
            item.setData(Qt.ItemDataRole.UserRole, server["name"])
            item.setToolTip(self.state_line(server))
            self.list.addItem(item)
            state = (server.get("state") or {}).get("state") or "stopped"
            self.list.setItemWidget(item, ServerRow(server["name"], self.state_line(server), state))
        names = [s["name"] for s in self.servers]
        row = names.index(keep) if keep in names else (0 if names else -1)
        self.list.setCurrentRow(row)
        self.list.blockSignals(False)
        self.selected_name = names[row] if row >= 0 else None
        self._show_selected()

    def selected(self) -> dict[str, Any] | None:
        return next((s for s in self.servers if s["name"] == self.selected_name), None)

    def _on_row_changed(self, row: int) -> None:
        item = self.list.item(row)
        self.selected_name = item.data(Qt.ItemDataRole.UserRole) if item is not None else None
        self._show_selected()

    def _show_selected(self) -> None:
        server = self.selected()
        self.panel.setVisible(server is not None)
        self.empty.setVisible(not self.servers)
        if server is None:
            return
        self.server_title.setText(server["name"])
        if server["transport"] == "http":
            self.target.setText(self.tr("Streamable HTTP: %1").replace("%1", server.get("url", "")))
        else:
            command = " ".join([server.get("command", ""), *server.get("args", [])])
            self.target.setText(self.tr("Command: %1").replace("%1", command))
        self.enabled.blockSignals(True)
        self.enabled.setChecked(bool(server["enabled"]))
        self.enabled.blockSignals(False)
        state = server.get("state") or {}
        self.state.setText(self.state_line(server))
        details = "\n\n".join(part for part in (state.get("reason"), state.get("stderrTail")) if part)
        self.details.setPlainText(details)
        self.details_button.setVisible(bool(details) and state.get("state") == "failed")
        if not self.details_button.isVisible():
            self.details_button.setChecked(False)
        self._fill_tools(server)

    def _fill_tools(self, server: dict[str, Any]) -> None:
        while self.tools_layout.count():
            item = self.tools_layout.takeAt(0)
            child = item.widget() if item is not None else None
            if child is not None:
                child.deleteLater()
        tools = (server.get("state") or {}).get("tools")
        if not tools:
            note = QLabel(self.tr("The tools are listed here once the server has started in a chat."))
            note.setObjectName("muted")
            note.setWordWrap(True)
            self.tools_layout.addWidget(note)
            self.tools_layout.addStretch(1)
            return
        off = set(server.get("disabledTools") or [])
        for tool in tools:
            label = tool["name"] + ("  " + self.tr("(read-only)") if tool.get("readOnly") else "")
            box = QCheckBox(label)
            box.setObjectName("mcpToolSwitch")
            box.setPalette(self.enabled.palette())  # the dialog's outline fix for dark themes, for boxes added later
            box.setToolTip(tool.get("description") or "")
            box.setChecked(tool["name"] not in off)
            box.toggled.connect(lambda on, name=tool["name"]: self._tool_toggled(name, on))
            self.tools_layout.addWidget(box)
        self.tools_layout.addStretch(1)

    # -- changes ---------------------------------------------------------------------------
    def _update(self, params: dict[str, Any]) -> None:
        async def run() -> None:
            try:
                await self.client.call("mcp.update", params)
            except HostError as exc:
                self.show_notice(exc.message)
                await self.load()

        spawn(run(), name="mcp-update")

    def _enabled_toggled(self, on: bool) -> None:
        if self.selected_name:
            self._update({"name": self.selected_name, "enabled": on})

    def _tool_toggled(self, tool: str, on: bool) -> None:
        server = self.selected()
        if server is None:
            return
        off = set(server.get("disabledTools") or [])
        (off.discard if on else off.add)(tool)
        server["disabledTools"] = sorted(off)
        self._update({"name": server["name"], "disabledTools": sorted(off)})

    def edit(self, server: dict[str, Any] | None) -> McpServerDialog:
        dialog = McpServerDialog(self.client, server, self)

        def done(result: int) -> None:
            if result and dialog.saved is not None:
                self.selected_name = dialog.saved["name"]
                spawn(self.load(), name="tools-page-reload")

        dialog.finished.connect(done)
        dialog.open()
        return dialog

    def confirm_remove(self) -> None:
        server = self.selected()
        if server is None:
            return
        answer = QMessageBox.question(
            self,
            self.tr("Remove MCP server"),
            self.tr("Remove %1 and its stored keys? Chats keep the results of its past calls.").replace(
                "%1", server["name"]
            ),
        )
        if answer == QMessageBox.StandardButton.Yes:
            spawn(self.remove(server["name"]), name="mcp-remove")

    async def remove(self, name: str) -> None:
        try:
            await self.client.call("mcp.remove", {"name": name})
        except HostError as exc:
            self.show_notice(exc.message)
        await self.load()

    def choose_import(self) -> None:
        path, _ = QFileDialog.getOpenFileName(
            self, self.tr("Import MCP servers"), "", self.tr("Settings files (*.json);;All files (*)")
        )
        if path:
            spawn(self.import_file(path), name="mcp-import")

    async def import_file(self, path: str) -> None:
        try:
            with open(path, encoding="utf-8") as f:
                document = json.load(f)
        except (OSError, ValueError) as exc:
            self.show_notice(self.tr("%1 could not be read: %2").replace("%1", path).replace("%2", str(exc)))
            return
        try:
            result = await self.client.call("mcp.import", {"config": document})
        except HostError as exc:
            self.show_notice(exc.message)
            return
        added = [s["name"] for s in result["added"]]
        lines = [self.tr("Imported: %1").replace("%1", ", ".join(added))] if added else []
        lines += [
            self.tr("Skipped %1: %2").replace("%1", s["name"]).replace("%2", s["reason"]) for s in result["skipped"]
        ]
        self.show_notice("\n".join(lines) or self.tr("The file lists no MCP servers."))
        if added:
            self.selected_name = added[0]
        await self.load()

    def show_notice(self, text: str) -> None:
        self.notice.setText(text)
        self.notice.setVisible(bool(text))


class ServerRow(QWidget):
    """One row of the list: the server's name, and its state after a dot (grey stopped or off, amber
    starting, green ready, red failed), as UX.md's Tools page has them."""

    def __init__(self, name: str, state_line: str, state: str):
        super().__init__()
        self.name_label = ElidingLabel(name)
        self.name_label.setObjectName("rowTitle")
        self.dot = QLabel("●")
        self.dot.setObjectName("serverDot")
        self.dot.setProperty("state", state)
        self.state_label = ElidingLabel(state_line)
        self.state_label.setObjectName("muted")
        state_row = QHBoxLayout()
        state_row.setContentsMargins(0, 0, 0, 0)
        state_row.setSpacing(4)
        state_row.addWidget(self.dot)
        state_row.addWidget(self.state_label, 1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(8, 4, 8, 4)
        layout.setSpacing(0)
        layout.addWidget(self.name_label)
        layout.addLayout(state_row)

    def text(self) -> str:
        return f"{self.name_label.text()}\n{self.state_label.text()}"
