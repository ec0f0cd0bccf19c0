"""The composer's "allowed for this chat" chip: what the person let run without asking, and a way back.

When the person answers a permission card with "Allow for this chat", the host
keeps that with the chat (``permissions.grants``), across restarts. This chip
says so next to the permission chip ("Edits allowed for this chat"); its menu
names each tool and "Ask me again" forgets them all (``permissions.reset``).
It is hidden while nothing is allowed, and follows ``permissions.changed``.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication, Qt
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QMenu, QToolButton, QWidget

from pidesktop.bus import HostClient, HostError, topics
from pidesktop.ui.kit.session_rows import is_native_id
from pidesktop.ui.kit.tasks import spawn

# What each kind of tool is to a person (context "GrantsChip"), as the chip's sentence uses them.
EDITS = QT_TRANSLATE_NOOP("GrantsChip", "edits")
COMMANDS = QT_TRANSLATE_NOOP("GrantsChip", "commands")
MCP_TOOLS = QT_TRANSLATE_NOOP("GrantsChip", "MCP tools")
KINDS = {"write": EDITS, "edit": EDITS, "bash": COMMANDS}
TOOL_TEXTS = {
    "write": QT_TRANSLATE_NOOP("GrantsChip", "Create and replace files (write)"),
    "edit": QT_TRANSLATE_NOOP("GrantsChip", "Edit files (edit)"),
    "bash": QT_TRANSLATE_NOOP("GrantsChip", "Run commands (bash)"),
}


def _tr(text: str) -> str:
    return QCoreApplication.translate("GrantsChip", text)


def kinds(tools: list[str]) -> list[str]:
    """The kinds of the allowed tools, in a fixed order, each once: edits, commands, MCP tools."""
    found = {KINDS.get(tool, MCP_TOOLS) for tool in tools}
    return [_tr(str(kind)) for kind in (EDITS, COMMANDS, MCP_TOOLS) if kind in found]


def tool_text(tool: str) -> str:
    if tool in TOOL_TEXTS:
        return _tr(str(TOOL_TEXTS[tool]))
    parts = tool.split("__")
    if len(parts) == 3 and parts[0] == "mcp":
        said = QCoreApplication.translate("GrantsChip", "%1 from the MCP server %2")
        return said.replace("%1", parts[2]).replace("%2", parts[1])
    return tool


class GrantsChip(QToolButton):
    def __init__(self, client: HostClient, parent: QWidget | None = None):
        super().__init__(parent)
        self.client = client
        self.setObjectName("grantsChip")
        self.setCursor(Qt.CursorShape.PointingHandCursor)
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        self.menu_ = QMenu(self)
        self.setMenu(self.menu_)
        self.session_id: str | None = None
        self.tools: list[str] = []
        self.unconfined = False
        self.reset_action: QAction | None = None
        self.hide()
        self._unsubscribe = client.subscribe(self._on_event)
        self.destroyed.connect(lambda *_: self._unsubscribe())

    def show_for(self, session: dict[str, Any] | None) -> None:
        """Show the grants of ``session`` (None: no chat shown)."""
        self.session_id = (session or {}).get("id")
        self._show({"tools": [], "unconfined": False})
        if self.session_id and not is_native_id(self.session_id):  # a pi session's calls are pi's, no grants here
            spawn(self.refresh(), name="grants-chip")

    async def refresh(self) -> None:
        asked_for = self.session_id
        if asked_for is None:
            return
        try:
            grants = await self.client.call("permissions.grants", {"sessionId": asked_for})
        except HostError:
            grants = {"tools": [], "unconfined": False}
        if asked_for == self.session_id:  # another chat may be shown by now
            self._show(grants)

    def reset(self) -> None:
        """Forget what was allowed for this chat: its calls ask again."""
        session_id = self.session_id
        if session_id is None:
            return

        async def run() -> None:
            try:
                await self.client.call("permissions.reset", {"sessionId": session_id})
            except HostError:
                pass  # the refresh below shows what is stored
            await self.refresh()

        spawn(run(), name="grants-reset")

    def _show(self, grants: dict[str, Any]) -> None:
        self.tools = [str(t) for t in grants.get("tools") or []]
        self.unconfined = bool(grants.get("unconfined"))
        self.setVisible(bool(self.tools) or self.unconfined)
        self.menu_.clear()
        self.reset_action = None
        if not self.tools and not self.unconfined:
            return
        named = kinds(self.tools) or [self.tr("commands without a sandbox")]
        joined = named[0] if len(named) == 1 else self.tr("%1 and %2").replace("%1", ", ".join(named[:-1]))
        joined = joined.replace("%2", named[-1])
        text = self.tr("%1 allowed for this chat").replace("%1", joined)
        text = text[:1].upper() + text[1:]  # "Edits and commands allowed for this chat"
        self.setText(text)
        self.setAccessibleName(text)
        self.setToolTip(self.tr("You allowed these to run without asking, for the rest of this chat. Click to change."))
        heading = self.menu_.addAction(self.tr("Runs without asking in this chat:"))
        heading.setEnabled(False)
        for tool in self.tools:
            item = self.menu_.addAction("  " + tool_text(tool))
            item.setEnabled(False)
        if self.unconfined:
            item = self.menu_.addAction("  " + self.tr("Commands, without a sandbox (none is installed)"))
            item.setEnabled(False)
        self.menu_.addSeparator()
        again = self.menu_.addAction(self.tr("Ask me again before each of these"))
        again.triggered.connect(self.reset)
        self.reset_action = again

    def _on_event(self, topic: str, payload: dict[str, Any]) -> None:
        if topic == topics.PERMISSIONS_CHANGED and payload.get("sessionId") == self.session_id:
            self._show(payload)
