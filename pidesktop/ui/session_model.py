"""The sidebar's model: sessions grouped by project, newest first.

Two levels: group rows (one per project, then "Chats" for sessions without a
project) and session rows. Groups carry a stable id in their indexes'
``internalId`` so a session row's parent survives groups being added or
removed around it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import count

from PySide6.QtCore import QAbstractItemModel, QModelIndex, QPersistentModelIndex, Qt, Signal

# Roles carry plain values; views read whole rows with ``session_at`` rather
# than converting a dict through a QVariant on every paint.
SessionIdRole = Qt.ItemDataRole.UserRole + 1
IsGroupRole = Qt.ItemDataRole.UserRole + 2
UPDATED_ROLE = Qt.ItemDataRole.UserRole + 3

UNTITLED = "New chat"
NO_PROJECT = "Chats"

_Index = QModelIndex | QPersistentModelIndex


@dataclass
class _Group:
    uid: int
    path: str | None  # the project path; None for sessions without a project
    sessions: list[dict] = field(default_factory=list)

    @property
    def label(self) -> str:
        if self.path is None:
            return NO_PROJECT
        return self.path.rstrip("/").rsplit("/", 1)[-1] or self.path

    @property
    def newest(self) -> tuple[int, str]:
        return _recency(self.sessions[0]) if self.sessions else (0, "")


class SessionTreeModel(QAbstractItemModel):
    renameRequested = Signal(str, str)  # session id, new title

    def __init__(self, parent=None):
        super().__init__(parent)
        self._groups: list[_Group] = []
        self._uids = count(1)

    # -- filling ---------------------------------------------------------
    def reset(self, sessions: list[dict]) -> None:
        self.beginResetModel()
        self._groups = []
        for session in sorted(sessions, key=_recency, reverse=True):
            group = self._group_for(session.get("projectPath"))
            if group is None:
                group = _Group(next(self._uids), session.get("projectPath"))
                self._groups.append(group)
            group.sessions.append(session)
        self._sort_groups_in_place()
        self.endResetModel()

    def upsert(self, session: dict) -> None:
        """Insert a new session or update one in place (moving it if its recency changed)."""
        found = self.find(session["id"])
        if found is not None:
            group, row = found
            old = group.sessions[row]
            if old.get("projectPath") == session.get("projectPath") and _recency(old) == _recency(session):
                group.sessions[row] = session
                index = self.index(row, 0, self._group_index(group))
                self.dataChanged.emit(index, index)
                return
            self.remove(session["id"])
        group = self._group_for(session.get("projectPath"))
        if group is None:
            group = _Group(next(self._uids), session.get("projectPath"))
            position = self._group_position(group, _recency(session))
            self.beginInsertRows(QModelIndex(), position, position)
            self._groups.insert(position, group)
            self.endInsertRows()
        row = 0
        while row < len(group.sessions) and _recency(group.sessions[row]) > _recency(session):
            row += 1
        self.beginInsertRows(self._group_index(group), row, row)
        group.sessions.insert(row, session)
        self.endInsertRows()

    def remove(self, session_id: str) -> None:
        found = self.find(session_id)
        if found is None:
            return
        group, row = found
        self.beginRemoveRows(self._group_index(group), row, row)
        del group.sessions[row]
        self.endRemoveRows()
        if not group.sessions:
            position = self._groups.index(group)
            self.beginRemoveRows(QModelIndex(), position, position)
            del self._groups[position]
            self.endRemoveRows()

    # -- lookups -----------------------------------------------------------
    def find(self, session_id: str) -> tuple[_Group, int] | None:
        for group in self._groups:
            for row, session in enumerate(group.sessions):
                if session["id"] == session_id:
                    return group, row
        return None

    def index_of(self, session_id: str) -> QModelIndex:
        found = self.find(session_id)
        if found is None:
            return QModelIndex()
        group, row = found
        return self.index(row, 0, self._group_index(group))

    def session_at(self, index: _Index) -> dict | None:
        if not index.isValid() or index.internalId() == 0:
            return None
        group = self._group_by_uid(index.internalId())
        if group is None or not 0 <= index.row() < len(group.sessions):
            return None
        return group.sessions[index.row()]

    def session_count(self) -> int:
        return sum(len(g.sessions) for g in self._groups)

    # -- QAbstractItemModel ------------------------------------------------
    def index(self, row: int, column: int, parent: _Index = QModelIndex()) -> QModelIndex:
        if column != 0 or row < 0:
            return QModelIndex()
        if not parent.isValid():
            if row >= len(self._groups):
                return QModelIndex()
            return self.createIndex(row, 0, 0)
        if parent.internalId() != 0 or parent.row() >= len(self._groups):
            return QModelIndex()
        group = self._groups[parent.row()]
        if row >= len(group.sessions):
            return QModelIndex()
        return self.createIndex(row, 0, group.uid)

    def parent(self, child: _Index = QModelIndex()) -> QModelIndex:  # type: ignore[override]
        if not child.isValid() or child.internalId() == 0:
            return QModelIndex()
        group = self._group_by_uid(child.internalId())
        if group is None:
            return QModelIndex()
        return self.createIndex(self._groups.index(group), 0, 0)

    def rowCount(self, parent: _Index = QModelIndex()) -> int:
        if not parent.isValid():
            return len(self._groups)
        if parent.column() != 0 or parent.internalId() != 0 or parent.row() >= len(self._groups):
            return 0
        return len(self._groups[parent.row()].sessions)

    def columnCount(self, parent: _Index = QModelIndex()) -> int:
        return 1

    def hasChildren(self, parent: _Index = QModelIndex()) -> bool:
        return self.rowCount(parent) > 0

    def flags(self, index: _Index) -> Qt.ItemFlag:
        if not index.isValid():
            return Qt.ItemFlag.NoItemFlags
        if index.internalId() == 0:
            return Qt.ItemFlag.ItemIsEnabled
        return Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable | Qt.ItemFlag.ItemIsEditable

    def data(self, index: _Index, role: int = Qt.ItemDataRole.DisplayRole):
        if not index.isValid():
            return None
        if index.internalId() == 0:
            if index.row() >= len(self._groups):
                return None
            group = self._groups[index.row()]
            if role == Qt.ItemDataRole.DisplayRole:
                return group.label
            if role == Qt.ItemDataRole.ToolTipRole:
                return group.path or "Chats that belong to no project"
            if role == IsGroupRole:
                return True
            return None
        session = self.session_at(index)
        if session is None:
            return None
        if role == Qt.ItemDataRole.DisplayRole:
            return session["title"] or UNTITLED
        if role == Qt.ItemDataRole.EditRole:
            return session["title"]
        if role == Qt.ItemDataRole.ToolTipRole:
            return session["title"] or UNTITLED
        if role == SessionIdRole:
            return session["id"]
        if role == IsGroupRole:
            return False
        if role == UPDATED_ROLE:
            return session["updatedAt"]
        return None

    def setData(self, index: _Index, value, role: int = Qt.ItemDataRole.EditRole) -> bool:
        """An edited title: shown at once, confirmed by the host (see ``renameRequested``)."""
        session = self.session_at(index)
        if session is None or role != Qt.ItemDataRole.EditRole or not isinstance(value, str):
            return False
        title = value.strip()
        if not title or title == session["title"]:
            return False
        self.renameRequested.emit(session["id"], title)
        return True

    # -- helpers -------------------------------------------------------------
    def _group_for(self, path: str | None) -> _Group | None:
        return next((g for g in self._groups if g.path == path), None)

    def _group_by_uid(self, uid: int) -> _Group | None:
        return next((g for g in self._groups if g.uid == uid), None)

    def _group_index(self, group: _Group) -> QModelIndex:
        return self.createIndex(self._groups.index(group), 0, 0)

    def _group_position(self, group: _Group, recency: tuple[int, str]) -> int:
        """Projects by their newest session; "Chats" (no project) always last."""
        if group.path is None:
            return len(self._groups)
        position = 0
        while (position < len(self._groups) and self._groups[position].path is not None
               and self._groups[position].newest > recency):
            position += 1
        return position

    def _sort_groups_in_place(self) -> None:
        self._groups.sort(key=lambda g: g.newest, reverse=True)
        self._groups.sort(key=lambda g: g.path is None)  # stable: "Chats" last


def _recency(session: dict) -> tuple[int, str]:
    return session["updatedAt"], session["id"]
