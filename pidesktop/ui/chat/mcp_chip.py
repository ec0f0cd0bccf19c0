"""The composer's MCP chip: which servers' tools are on for the chat shown, and the project's switches.

It reads ``mcp.list`` for the chat's project and says "MCP: files, github"
(hidden while no server is configured). Its menu lists the enabled servers,
each checked when it is on for the chat; in a project's chat, unchecking turns
the server off for every chat of that project (``mcp.setProjectServer``). A
chat without a project gets every enabled server, and the menu says where to
change that (Settings > Tools). It follows ``mcp.changed``.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QMenu, QToolButton, QWidget

from pidesktop.bus import HostClient, HostError, topics
from pidesktop.ui.kit.tasks import spawn

MAX_NAMES = 3


class McpChip(QToolButton):
    def __init__(self, client: HostClient, parent: QWidget | None = None):
        super().__init__(parent)
        self.client = client
        self.setObjectName("mcpChip")
        self.setCursor(Qt.CursorShape.PointingHandCursor)
        self.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        self.menu_ = QMenu(self)
        self.setMenu(self.menu_)
        self.project_id: int | None = None
        self.servers: list[dict[str, Any]] = []
        self.hide()
        self._unsubscribe = client.subscribe(self._on_event)
        self.destroyed.connect(lambda *_: self._unsubscribe())

    def show_for(self, session: dict[str, Any] | None) -> None:
        """Show the servers of ``session`` (None: no chat shown)."""
        self.project_id = (session or {}).get("projectId")
        spawn(self.refresh(), name="mcp-chip")

    async def refresh(self) -> None:
        params = {"projectId": self.project_id} if self.project_id else {}
        try:
            self.servers = (await self.client.call("mcp.list", params))["servers"]
        except HostError:
            self.servers = []
        self._fill()

    def on_servers(self) -> list[str]:
        return [s["name"] for s in self.servers if s["enabled"] and s.get("onForProject", True)]

    def _fill(self) -> None:
        on = self.on_servers()
        enabled = [s for s in self.servers if s["enabled"]]
        self.setVisible(bool(self.servers))
        if not on:
            self.setText(self.tr("MCP: off"))
        else:
            shown = ", ".join(on[:MAX_NAMES]) + (f" +{len(on) - MAX_NAMES}" if len(on) > MAX_NAMES else "")
            self.setText(self.tr("MCP: %1").replace("%1", shown))
        self.setToolTip(
            self.tr("The tools of these MCP servers are on for this chat")
            if on
            else self.tr("No MCP server's tools are on for this chat")
        )
        self.menu_.clear()
        for server in enabled:
            action = self.menu_.addAction(server["name"])
            action.setCheckable(True)
            action.setChecked(server.get("onForProject", True))
            action.setEnabled(self.project_id is not None)
            action.toggled.connect(lambda checked, name=server["name"]: self._switch(name, checked))
        self.menu_.addSeparator()
        note = (
            self.tr("Checked servers are on for every chat of this project")
            if self.project_id is not None
            else self.tr("Chats without a project use every enabled server (Settings > Tools)")
        )
        hint = self.menu_.addAction(note)
        hint.setEnabled(False)

    def _switch(self, name: str, on: bool) -> None:
        if self.project_id is None:
            return
        params = {"projectId": self.project_id, "name": name, "enabled": on}

        async def run() -> None:
            try:
                await self.client.call("mcp.setProjectServer", params)
            except HostError:
                pass  # the refresh below shows what is stored
            await self.refresh()

        spawn(run(), name="mcp-project-switch")

    def _on_event(self, topic: str, payload: dict[str, Any]) -> None:
        if topic == topics.MCP_CHANGED and payload.get("reason") != "state":
            spawn(self.refresh(), name="mcp-chip")
