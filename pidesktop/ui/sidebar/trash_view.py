"""Trash: deleted chats wait here until they are restored or removed for good.

Deleting a chat only moves it here (``session.delete`` sets its
``deleted_at``); this dialog lists them (``session.listTrash``), restores
one (``session.restore``), removes one for good (``session.purge``, after a
question) or empties the trash (``session.emptyTrash``). The sidebar
follows the host's ``session.changed`` events, so a restored chat shows up
there by itself.
"""

from __future__ import annotations

from datetime import datetime

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QAbstractItemView, QTreeWidgetItem, QWidget

from pidesktop.bus import HostClient
from pidesktop.ui.data.data_tools import ToolDialog
from pidesktop.ui.data.import_dialog import source_name
from pidesktop.ui.kit import i18n
from pidesktop.ui.kit import theme as themes
from pidesktop.ui.kit.dialog_style import confirm
from pidesktop.ui.kit.dialog_style import tree as _tree
from pidesktop.ui.kit.ops import host_op, task_op
from pidesktop.ui.kit.session_rows import display_title

ID_ROLE = Qt.ItemDataRole.UserRole


class TrashDialog(ToolDialog):
    def __init__(self, client: HostClient, theme: themes.Theme | None = None, parent: QWidget | None = None):
        super().__init__(
            self.tr("Trash"),
            self.tr("Chats you deleted. Restore one to bring it back to the sidebar, or delete it for good."),
            theme,
            parent,
            client,
        )
        self.sessions: list[dict] = []
        self._done = ""  # what the last action did, said once the list is read again
        self.list = _tree([self.tr("Chat"), self.tr("From"), self.tr("Deleted")])
        self.list.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        self.list.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.list.setTextElideMode(Qt.TextElideMode.ElideRight)
        self.list.setMinimumHeight(180)
        self.list.itemSelectionChanged.connect(self._update_buttons)
        self.body.addWidget(self.list)
        self.empty_button = self.add_button(self.tr("Empty trash…"), self.ask_empty)
        self.purge_button = self.add_button(self.tr("Delete for good…"), self.ask_purge)
        self.restore_button = self.add_button(self.tr("Restore"), self.restore, "primary")
        self._update_buttons()

    @classmethod
    def ask(cls, client: HostClient, parent: QWidget | None = None) -> TrashDialog:
        dialog = cls(client, parent=parent)
        dialog.open()
        return dialog

    def open(self) -> None:
        super().open()
        self.refresh()

    def refresh(self) -> None:
        self.start(
            host_op(
                self.client, "session.listTrash", {}, parent=self, success=self._show, failure=self.failed
            ).run_async(),
            "trash-list",
        )

    def _show(self, result: dict) -> None:
        self.sessions = result["sessions"]
        self.list.clear()
        for session in self.sessions:
            deleted = datetime.fromtimestamp((session.get("deletedAt") or 0) / 1000).strftime("%Y-%m-%d %H:%M")
            origin = source_name(session["source"]) if session.get("source") else self.tr("pidesktop")
            item = QTreeWidgetItem([display_title(session), origin, deleted])
            item.setData(0, ID_ROLE, session["id"])
            item.setToolTip(0, display_title(session))
            self.list.addTopLevelItem(item)
        done, self._done = self._done, ""
        if done:
            self.show_report(done, "ok")
        elif not self.sessions:
            self.show_report(self.tr("The trash is empty."), "ok")
        else:
            self.report.hide()
        self._update_buttons()

    def selected_ids(self) -> list[str]:
        return [item.data(0, ID_ROLE) for item in self.list.selectedItems()]

    def _update_buttons(self) -> None:
        chosen = bool(self.selected_ids())
        self.restore_button.setEnabled(chosen)
        self.purge_button.setEnabled(chosen)
        self.empty_button.setEnabled(bool(self.sessions))

    def _naming(self, ids: list[str], one: str, many: str) -> str:
        """``one`` with the chat's title when ``ids`` is one chat, else ``many`` with how many there are."""
        titles = [display_title(s) for s in self.sessions if s["id"] in ids]
        return i18n.arg(one, titles[0]) if len(titles) == 1 else i18n.arg(many, len(ids))

    def restore(self) -> None:
        ids = self.selected_ids()
        done = self._naming(ids, self.tr("“%1” is back in the sidebar."), self.tr("%1 chats are back in the sidebar."))
        self._each("session.restore", ids, done)

    def ask_purge(self) -> None:
        ids = self.selected_ids()
        if not ids:
            return
        question = self._naming(
            ids,
            self.tr("Delete “%1” for good? This cannot be undone."),
            self.tr("Delete %1 chats for good? This cannot be undone."),
        )
        if any(s.get("source") for s in self.sessions if s["id"] in ids):
            question += " " + self.tr("An imported chat comes back if you import it again from its source.")
        confirm(
            self,
            self.tr("Delete for good"),
            question,
            self.tr("Delete for good"),
            lambda: self._each("session.purge", ids),
        )

    def ask_empty(self) -> None:
        confirm(
            self,
            self.tr("Empty trash"),
            i18n.counted(
                len(self.sessions),
                self.tr("Delete the chat in the trash for good? This cannot be undone."),
                self.tr("Delete all %1 chats in the trash for good? This cannot be undone."),
            ),
            self.tr("Empty trash"),
            self.empty,
        )

    def empty(self) -> None:
        self.start(
            host_op(
                self.client,
                "session.emptyTrash",
                {},
                parent=self,
                failure=self.failed,
                success=lambda _r: self.refresh(),
                busy=(self.empty_button, self.purge_button, self.restore_button),
            ).run_async(),
            "trash-empty",
        )

    def _each(self, method: str, ids: list[str], done: str = "") -> None:
        async def call() -> None:
            for session_id in ids:
                await self.client.call(method, {"sessionId": session_id})
            self._done = done

        self.start(
            task_op(
                call,
                parent=self,
                name=method,
                failure=self.failed,
                success=lambda _r: self.refresh(),
                busy=(self.empty_button, self.purge_button, self.restore_button),
            ).run_async(),
            method,
        )


def ask(client: HostClient, parent: QWidget | None = None) -> TrashDialog:
    return TrashDialog.ask(client, parent)
