"""A flat list model filled a page at a time from a host command with a cursor.

Holds the loaded rows (``row_at`` gives a row's dict: views never get a dict
through ``data()``), asks for the next page when a view reaches the end
(``canFetchMore``/``fetchMore``), and reports a failed background load through
``failed`` instead of raising into Qt.
"""

from __future__ import annotations

from PySide6.QtCore import QAbstractListModel, QModelIndex, QObject, QPersistentModelIndex, Qt, Signal

from pidesktop.bus import HostClient
from pidesktop.ui.kit.ops import task_op
from pidesktop.ui.kit.tasks import spawn

_Index = QModelIndex | QPersistentModelIndex
ROW_FLAGS = Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable | Qt.ItemFlag.ItemNeverHasChildren


class PagedListModel(QAbstractListModel):
    failed = Signal(object)  # a HostError from a load started in the background
    task_name = "load-more"

    def __init__(self, client: HostClient, parent: QObject | None = None):
        super().__init__(parent)
        self.client = client
        self.rows: list[dict] = []
        self.next_cursor: str | None = None
        self._loading_more = False
        self._generation = 0  # bumps on every reload: a late page of an older listing is dropped

    async def load_more(self) -> None:  # pragma: no cover - every subclass defines its next page
        raise NotImplementedError

    async def _next_page(self, method: str, params: dict, items_key: str, id_key: str) -> dict | None:
        """Fetch the page after ``next_cursor`` and append the rows not loaded yet.

        Returns the reply for the caller's own extras, or None when there was
        no next page or the listing was reloaded meanwhile.
        """
        generation, cursor = self._generation, self.next_cursor
        if cursor is None:
            self._loading_more = False
            return None
        self._loading_more = True
        try:
            reply = await self.client.call(method, {**params, "cursor": cursor})
        finally:
            if generation == self._generation:
                self._loading_more = False
        if generation != self._generation:
            return None
        known = {row[id_key] for row in self.rows}
        fresh = [item for item in reply[items_key] if item[id_key] not in known]
        if fresh:
            self.beginInsertRows(QModelIndex(), len(self.rows), len(self.rows) + len(fresh) - 1)
            self.rows.extend(fresh)
            self.endInsertRows()
        self.next_cursor = reply.get("nextCursor")
        return reply

    def rowCount(self, parent: _Index = QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self.rows)

    def flags(self, index: _Index) -> Qt.ItemFlag:
        return Qt.ItemFlag.NoItemFlags if self.row_at(index) is None else ROW_FLAGS

    def canFetchMore(self, parent: _Index = QModelIndex()) -> bool:
        return not parent.isValid() and self.next_cursor is not None and not self._loading_more

    def fetchMore(self, parent: _Index = QModelIndex()) -> None:
        if self.canFetchMore(parent):
            self._loading_more = True  # set now: views ask again before the task starts
            spawn(self._background(self.load_more()), name=self.task_name)

    def row_at(self, index: _Index) -> dict | None:
        if not index.isValid() or index.parent().isValid() or not 0 <= index.row() < len(self.rows):
            return None
        return self.rows[index.row()]

    async def _background(self, work) -> None:
        await task_op(lambda: work, parent=self, name=self.task_name, failure=self.failed.emit)
