"""The sidebar's model: Pinned, then projects, then chats without a project.

Two levels: group rows and session rows. Organisation (pin, archive, sort,
manual project order) comes from the front-end preferences and is
presentation only. Groups carry a stable id in their indexes' ``internalId``
so a session row's parent survives groups being added or removed around it.
A new or updated session moves with row inserts/removals; a change that
reorders groups or follows a preference change relayouts the whole tree.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import count

from PySide6.QtCore import (QT_TRANSLATE_NOOP, QAbstractItemModel, QCoreApplication, QModelIndex,
                            QPersistentModelIndex, Qt, Signal)

from .prefs import Preferences

# Roles carry plain values; views read whole rows with ``session_at`` rather
# than converting a dict through a QVariant on every paint.
SessionIdRole = Qt.ItemDataRole.UserRole + 1
IsGroupRole = Qt.ItemDataRole.UserRole + 2
GroupKeyRole = Qt.ItemDataRole.UserRole + 3

# English source texts; shown through ``QCoreApplication.translate`` with this context.
CONTEXT = "SessionTreeModel"
UNTITLED = QT_TRANSLATE_NOOP("SessionTreeModel", "New chat")
NO_PROJECT = QT_TRANSLATE_NOOP("SessionTreeModel", "Chats")
PINNED = QT_TRANSLATE_NOOP("SessionTreeModel", "Pinned")

_Index = QModelIndex | QPersistentModelIndex

# Computed once: Qt asks for flags on every row after a reset, and combining
# enum members in Python each time costs more than the rest of the call.
GROUP_FLAGS = Qt.ItemFlag.ItemIsEnabled
SESSION_FLAGS = (Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable | Qt.ItemFlag.ItemIsEditable
                 | Qt.ItemFlag.ItemNeverHasChildren)


def display_title(session: dict) -> str:
    """A session's title as shown: the host's title, or "New chat" (translated) while it has none."""
    return session.get("title") or QCoreApplication.translate(CONTEXT, UNTITLED)


@dataclass
class _Group:
    uid: int
    key: str  # "pinned", "project:<path>" or "chats"
    path: str | None = None
    sessions: list[dict] = field(default_factory=list)

    @property
    def label(self) -> str:
        if self.key == "pinned":
            return QCoreApplication.translate(CONTEXT, PINNED)
        if self.path is None:
            return QCoreApplication.translate(CONTEXT, NO_PROJECT)
        return self.path.rstrip("/").rsplit("/", 1)[-1] or self.path


class SessionTreeModel(QAbstractItemModel):
    renameRequested = Signal(str, str)  # session id, new title
    relaidOut = Signal()  # after a whole-tree relayout (views restore selection/expansion)

    def __init__(self, prefs: Preferences | None = None, parent=None):
        super().__init__(parent)
        self.prefs = prefs or Preferences(None)
        self._sessions: dict[str, dict] = {}
        self._groups: list[_Group] = []
        self._uids = count(1)
        self._uid_of: dict[str, int] = {}  # group key -> uid, stable across relayouts

    # -- organisation ------------------------------------------------------------------
    def _group_key(self, session: dict) -> str | None:
        """Where a session shows, or None when it is hidden (archived)."""
        meta = self.prefs.session_meta(session["id"])
        view = self.prefs.sidebar["sessionView"]
        if meta.get("archived") and not view["archived"]:
            return None
        if meta.get("pinned"):
            return "pinned"
        path = session.get("projectPath")
        if path is None:
            return "chats"
        if self.prefs.project_meta(path).get("archived") and not view["archived"]:
            return None
        return f"project:{path}"

    def _session_key(self, session: dict) -> tuple:
        sort = self.prefs.sidebar["sessionView"]["sort"]
        if sort == "name":
            return (display_title(session).casefold(), session["id"])
        if sort == "created":
            return (-session.get("createdAt", 0), session["id"])
        if sort == "oldest":
            return (session.get("createdAt", 0), session["id"])
        return (-session["updatedAt"], _desc(session["id"]))

    def _group_order(self, group: _Group) -> tuple:
        if group.key == "pinned":
            return (0,)
        if group.key == "chats":
            return (2,)
        sort = self.prefs.sidebar["projectSort"]
        meta = self.prefs.project_meta(group.path)
        pinned = 0 if meta.get("pinned") else 1
        if sort == "manual":
            return (1, pinned, meta.get("order", 1 << 30), group.path)
        if sort == "name":
            return (1, pinned, group.label.casefold(), group.path)
        created = [s.get("createdAt", 0) for s in group.sessions] or [0]
        if sort == "created":
            return (1, pinned, -max(created), group.path)
        if sort == "oldest":
            return (1, pinned, min(created), group.path)
        newest = group.sessions[0]["updatedAt"] if group.sessions else 0
        return (1, pinned, -newest, group.path)

    def _layout(self) -> list[_Group]:
        groups: dict[str, _Group] = {}
        for session in self._sessions.values():
            key = self._group_key(session)
            if key is None:
                continue
            if key not in groups:
                path = key[len("project:"):] if key.startswith("project:") else None
                groups[key] = _Group(self._uid_for(key), key, path)
            groups[key].sessions.append(session)
        for group in groups.values():
            group.sessions.sort(key=self._session_key)
        return sorted(groups.values(), key=self._group_order)

    def _uid_for(self, key: str) -> int:
        if key not in self._uid_of:
            self._uid_of[key] = next(self._uids)
        return self._uid_of[key]

    # -- filling ---------------------------------------------------------------------
    def reset(self, sessions: list[dict]) -> None:
        self._sessions = {s["id"]: s for s in sessions}
        self.relayout()

    def relayout(self) -> None:
        """Recompute the whole tree (after a preference change)."""
        self.beginResetModel()
        self._groups = self._layout()
        self.endResetModel()
        self.relaidOut.emit()

    def extend(self, sessions: list[dict]) -> None:
        """Add a further page of sessions without a reset.

        ``session.list`` pages come newest first, so with the default sort each
        group grows at its end and takes one row insert per group per page.
        """
        fresh = [s for s in sessions if s["id"] not in self._sessions]
        by_group: dict[str, list[dict]] = {}
        for session in fresh:
            self._sessions[session["id"]] = session
            key = self._group_key(session)
            if key is not None:
                by_group.setdefault(key, []).append(session)
        for key, items in by_group.items():
            items.sort(key=self._session_key)
            group = next((g for g in self._groups if g.key == key), None)
            if group is None:
                group = self._insert_group(key, items[0])
            if group.sessions and self._session_key(items[0]) < self._session_key(group.sessions[-1]):
                for session in items:  # out of order for this sort: place each one
                    self._insert(session, key)
                continue
            first = len(group.sessions)
            self.beginInsertRows(self._group_index(group), first, first + len(items) - 1)
            group.sessions.extend(items)
            self.endInsertRows()
        if [g.key for g in self._groups] != [g.key for g in sorted(self._groups, key=self._group_order)]:
            self.relayout()

    def _insert_group(self, key: str, first_session: dict) -> _Group:
        path = key[len("project:"):] if key.startswith("project:") else None
        group = _Group(self._uid_for(key), key, path, [first_session])
        order = self._group_order(group)
        position = sum(1 for g in self._groups if self._group_order(g) < order)
        group.sessions = []
        self.beginInsertRows(QModelIndex(), position, position)
        self._groups.insert(position, group)
        self.endInsertRows()
        return group

    def upsert(self, session: dict) -> None:
        """Insert a new session or update one, moving it only if its place changed."""
        old = self._sessions.get(session["id"])
        self._sessions[session["id"]] = session
        found = self.find(session["id"])
        key = self._group_key(session)
        if found is not None:
            group, row = found
            if group.key == key and self._still_in_place(group, row, session):
                group.sessions[row] = session
                index = self.index(row, 0, self._group_index(group))
                self.dataChanged.emit(index, index)
                return
            self._remove_row(group, row)
        elif old is None and key is None:
            return
        if key is not None:
            self._insert(session, key)
        if [g.key for g in self._groups] != [g.key for g in sorted(self._groups, key=self._group_order)]:
            self.relayout()

    def remove(self, session_id: str) -> None:
        self._sessions.pop(session_id, None)
        found = self.find(session_id)
        if found is not None:
            self._remove_row(*found)

    def _still_in_place(self, group: _Group, row: int, session: dict) -> bool:
        key = self._session_key(session)
        before = group.sessions[row - 1] if row > 0 else None
        after = group.sessions[row + 1] if row + 1 < len(group.sessions) else None
        return ((before is None or self._session_key(before) <= key)
                and (after is None or key <= self._session_key(after)))

    def _insert(self, session: dict, key: str) -> None:
        group = next((g for g in self._groups if g.key == key), None)
        if group is None:
            group = self._insert_group(key, session)
        sort_key = self._session_key(session)
        row = sum(1 for s in group.sessions if self._session_key(s) < sort_key)
        self.beginInsertRows(self._group_index(group), row, row)
        group.sessions.insert(row, session)
        self.endInsertRows()

    def _remove_row(self, group: _Group, row: int) -> None:
        self.beginRemoveRows(self._group_index(group), row, row)
        del group.sessions[row]
        self.endRemoveRows()
        if not group.sessions:
            position = self._groups.index(group)
            self.beginRemoveRows(QModelIndex(), position, position)
            del self._groups[position]
            self.endRemoveRows()

    # -- lookups ------------------------------------------------------------------------
    def find(self, session_id: str) -> tuple[_Group, int] | None:
        for group in self._groups:
            for row, session in enumerate(group.sessions):
                if session["id"] == session_id:
                    return group, row
        return None

    def session(self, session_id: str) -> dict | None:
        return self._sessions.get(session_id)

    def index_of(self, session_id: str) -> QModelIndex:
        found = self.find(session_id)
        if found is None:
            return QModelIndex()
        group, row = found
        return self.index(row, 0, self._group_index(group))

    def group_index(self, key: str) -> QModelIndex:
        group = next((g for g in self._groups if g.key == key), None)
        return self._group_index(group) if group is not None else QModelIndex()

    def group_at(self, index: _Index) -> _Group | None:
        if not index.isValid() or index.internalId() != 0 or index.row() >= len(self._groups):
            return None
        return self._groups[index.row()]

    def project_paths(self) -> list[str]:
        return [g.path for g in self._groups if g.key.startswith("project:")]

    def session_at(self, index: _Index) -> dict | None:
        if not index.isValid() or index.internalId() == 0:
            return None
        group = self._group_by_uid(index.internalId())
        if group is None or not 0 <= index.row() < len(group.sessions):
            return None
        return group.sessions[index.row()]

    def session_count(self) -> int:
        return sum(len(g.sessions) for g in self._groups)

    # -- QAbstractItemModel ------------------------------------------------------------------
    def index(self, row: int, column: int, parent: _Index = QModelIndex()) -> QModelIndex:
        if column != 0 or row < 0:
            return QModelIndex()
        if not parent.isValid():
            return self.createIndex(row, 0, 0) if row < len(self._groups) else QModelIndex()
        if parent.internalId() != 0 or parent.row() >= len(self._groups):
            return QModelIndex()
        group = self._groups[parent.row()]
        return self.createIndex(row, 0, group.uid) if row < len(group.sessions) else QModelIndex()

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
        return GROUP_FLAGS if index.internalId() == 0 else SESSION_FLAGS

    def data(self, index: _Index, role: int = Qt.ItemDataRole.DisplayRole):
        if not index.isValid():
            return None
        if index.internalId() == 0:
            group = self.group_at(index)
            if group is None:
                return None
            if role == Qt.ItemDataRole.DisplayRole:
                return group.label
            if role == Qt.ItemDataRole.ToolTipRole:
                return group.path or (self.tr("Pinned chats") if group.key == "pinned"
                                      else self.tr("Chats that belong to no project"))
            if role == IsGroupRole:
                return True
            if role == GroupKeyRole:
                return group.key
            return None
        session = self.session_at(index)
        if session is None:
            return None
        if role == Qt.ItemDataRole.DisplayRole:
            return display_title(session)
        if role == Qt.ItemDataRole.EditRole:
            return session["title"]
        if role == Qt.ItemDataRole.ToolTipRole:
            return display_title(session)
        if role == SessionIdRole:
            return session["id"]
        if role == IsGroupRole:
            return False
        return None

    def setData(self, index: _Index, value, role: int = Qt.ItemDataRole.EditRole) -> bool:
        """An edited title: confirmed by the host (see ``renameRequested``)."""
        session = self.session_at(index)
        if session is None or role != Qt.ItemDataRole.EditRole or not isinstance(value, str):
            return False
        title = value.strip()
        if not title or title == session["title"]:
            return False
        self.renameRequested.emit(session["id"], title)
        return True

    # -- helpers -------------------------------------------------------------------------------
    def _group_by_uid(self, uid: int) -> _Group | None:
        return next((g for g in self._groups if g.uid == uid), None)

    def _group_index(self, group: _Group) -> QModelIndex:
        return self.createIndex(self._groups.index(group), 0, 0)


_INVERT = {code: 0x10FFFF - code for code in range(0x20, 0x7F)}


def _desc(text: str) -> str:
    """Sorts ASCII ids descending inside an ascending key (ties by id, highest id first)."""
    return text.translate(_INVERT)
