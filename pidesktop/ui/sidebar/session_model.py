"""The sidebar's model: Pinned, then projects, then chats without a project.

Two levels: group rows and session rows. Organisation (pin, archive, sort,
manual project order) comes from the front-end preferences and is
presentation only. A new or updated session moves with row inserts/removals.
A change that only reorders groups, or sessions within their groups, sorts
the rows in place: one layout change, so views keep expansion, selection and
the current row. Only a preference change that moves sessions between groups
(pin, archive, show archived) rebuilds the whole tree (``relaidOut``).

The tree's shape lives in C++ (``QStandardItemModel``): ``QTreeView`` walks
every row through ``index()`` and ``flags()`` each time rows are added, and
answering those from Python cost about 10 µs a row, a 100 ms stall per page
at 10,000 chats. Each item holds only its session id or group key; ``data()``
reads the session dicts, so the items never need updating.
"""

from __future__ import annotations

from bisect import bisect_left
from dataclasses import dataclass, field

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication, QModelIndex, QPersistentModelIndex, Qt, Signal
from PySide6.QtGui import QStandardItem, QStandardItemModel

from pidesktop.ui.kit.prefs import Preferences
from pidesktop.ui.kit.session_rows import display_title, is_native
from pidesktop.ui.sidebar import native_rows, project_rows

# Roles carry plain values; views read whole rows with ``session_at`` rather
# than converting a dict through a QVariant on every paint.
SessionIdRole = Qt.ItemDataRole.UserRole + 1
IsGroupRole = Qt.ItemDataRole.UserRole + 2
GroupKeyRole = Qt.ItemDataRole.UserRole + 3
# Target positions, set just before an in-place sort. Two roles: sorting the
# root also sorts every group's rows (by the same role), which must keep them.
_GroupOrderRole = Qt.ItemDataRole.UserRole + 4
_SessionOrderRole = Qt.ItemDataRole.UserRole + 5

# English source texts; shown through ``QCoreApplication.translate`` with this context.
CONTEXT = "SessionTreeModel"
NO_PROJECT = QT_TRANSLATE_NOOP("SessionTreeModel", "Chats")
PINNED = QT_TRANSLATE_NOOP("SessionTreeModel", "Pinned")
# A list read again with more changes than this is reset rather than merged row by row (each row moved or
# inserted is a model signal and a view update: a thousand of them cost more than one relayout).
MERGE_MAX = 200

_Index = QModelIndex | QPersistentModelIndex

GROUP_FLAGS = Qt.ItemFlag.ItemIsEnabled
SESSION_FLAGS = (
    Qt.ItemFlag.ItemIsEnabled
    | Qt.ItemFlag.ItemIsSelectable
    | Qt.ItemFlag.ItemIsEditable
    | Qt.ItemFlag.ItemNeverHasChildren
)


def _prototype(flags: Qt.ItemFlag) -> QStandardItem:
    item = QStandardItem()
    item.setFlags(flags)
    return item


# Cloning copies the flags in C++, about twice as fast as setting them per item.
_GROUP_ITEM = _prototype(GROUP_FLAGS)
_SESSION_ITEM = _prototype(SESSION_FLAGS)
_NATIVE_ITEM = _prototype(SESSION_FLAGS & ~Qt.ItemFlag.ItemIsEditable)  # a pi session is never renamed here


def _session_item(session: dict) -> QStandardItem:
    item = (_NATIVE_ITEM if is_native(session) else _SESSION_ITEM).clone()
    item.setData(session["id"], SessionIdRole)
    return item


def _group_item(key: str) -> QStandardItem:
    item = _GROUP_ITEM.clone()
    item.setData(key, GroupKeyRole)
    item.setColumnCount(1)  # else its first rows also insert a column, a change nested in the insert
    return item


@dataclass(eq=False)  # compared by identity: ``list.index`` on groups must not compare their sessions
class _Group:
    key: str  # "pinned", "project:<path>", "pgroup:<id>" (project_rows) or "chats"
    path: str | None = None
    sessions: list[dict] = field(default_factory=list)
    title: str | None = None  # the host's name for a project or a project group

    @property
    def label(self) -> str:
        if self.title:
            return self.title
        if native_rows.is_group_key(self.key):
            return native_rows.group_label(self.key)
        if self.key == "pinned":
            return QCoreApplication.translate(CONTEXT, PINNED)
        if self.path is None:
            return QCoreApplication.translate(CONTEXT, NO_PROJECT)
        return self.path.rstrip("/").rsplit("/", 1)[-1] or self.path


def _new_group(key: str) -> _Group:
    return _Group(key, key[len("project:") :] if key.startswith("project:") else None)


class SessionTreeModel(QStandardItemModel):
    renameRequested = Signal(str, str)  # session id, new title
    relaidOut = Signal()  # after a whole-tree relayout (views restore selection/expansion)
    aboutToMove = Signal(str)  # a session's row leaves to come back elsewhere (views keep it current)
    moved = Signal(str)

    def __init__(self, prefs: Preferences | None = None, parent=None):
        super().__init__(0, 1, parent)
        self.invisibleRootItem().setFlags(Qt.ItemFlag.NoItemFlags)
        self.prefs = prefs or Preferences(None)
        self._sessions: dict[str, dict] = {}
        self._groups: list[_Group] = []
        self._group_of: dict[str, _Group] = {}  # group key -> group, for the shown groups
        self._running: set[str] = set()  # ids of sessions whose last turn is still running
        self.project_index = project_rows.ProjectIndex()  # the host's projects and groups, by path

    def set_projects(self, projects: list[dict], groups: list[dict]) -> None:
        """The host's project names, missing folders and groups: headers renamed, groups placed."""
        self.project_index.set(projects, groups)
        for group in self._groups:
            group.title = project_rows.title(self.project_index, group.key)
        self.relayout()
        if self.rowCount():
            self.dataChanged.emit(self.index(0, 0), self.index(self.rowCount() - 1, 0))

    def _new_group(self, key: str) -> _Group:
        group = _new_group(key)
        group.title = project_rows.title(self.project_index, key)
        return group

    # -- organisation ------------------------------------------------------------------
    def _group_key(self, session: dict, projects: dict[str, str | None] | None = None) -> str | None:
        """Where a session shows, or None when it is hidden (archived).

        ``projects`` memoises each project's key over a whole layout: reading a
        project's preferences per session was most of a relayout at 10,000 chats.
        """
        meta = self.prefs.session_meta(session["id"])
        view = self.prefs.sidebar["sessionView"]
        if not view.get("native", True) and is_native(session):
            return None
        if meta.get("archived") and not view["archived"]:
            return None
        if meta.get("pinned"):
            return "pinned"
        path = session.get("projectPath")
        if path is None:
            return native_rows.group_key(session) or "chats"
        if projects is not None and path in projects:
            return projects[path]
        key = None if self.prefs.project_meta(path).get("archived") and not view["archived"] else f"project:{path}"
        if projects is not None:
            projects[path] = key
        return key

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
        if native_rows.is_group_key(group.key):  # pi sessions outside projects: after the app's own chats
            return (3, -(group.sessions[0]["updatedAt"] if group.sessions else 0), group.key)
        placed = project_rows.order(self.project_index, group.key, group.path)
        if placed is not None:  # project groups first, each header then its members
            return placed
        sort = self.prefs.sidebar["projectSort"]
        meta = self.prefs.project_meta(group.path)
        pinned = 0 if meta.get("pinned") else 1
        if sort == "manual":
            return (1, pinned, meta.get("order", 1 << 30), group.path)
        if sort == "name":
            return (1, pinned, group.label.casefold(), group.path)
        if sort in ("created", "oldest"):  # only these read every session of the group
            created = [s.get("createdAt", 0) for s in group.sessions] or [0]
            return (1, pinned, -max(created) if sort == "created" else min(created), group.path)
        newest = group.sessions[0]["updatedAt"] if group.sessions else 0
        return (1, pinned, -newest, group.path)

    def _layout(self) -> list[_Group]:
        groups: dict[str, _Group] = {}
        projects: dict[str, str | None] = {}
        for session in self._sessions.values():
            key = self._group_key(session, projects)
            if key is None:
                continue
            if key not in groups:
                groups[key] = self._new_group(key)
            groups[key].sessions.append(session)
        for group in groups.values():
            group.sessions.sort(key=self._session_key)
        view = self.prefs.sidebar["sessionView"]
        for path in self.project_index.by_path:  # a project with no chat yet still shows (its "+" starts one)
            key = f"project:{path}"
            if key not in groups and (view["archived"] or not self.prefs.project_meta(path).get("archived")):
                groups[key] = self._new_group(key)
        for key in list(groups):
            header = project_rows.header_of(self.project_index, key)
            if header is not None and header not in groups:
                groups[header] = self._new_group(header)
        return sorted(groups.values(), key=self._group_order)

    # -- filling ---------------------------------------------------------------------
    def reset(self, sessions: list[dict]) -> None:
        self._sessions = {s["id"]: s for s in sessions}
        self._running = {s["id"] for s in sessions if _is_running(s)}
        self._rebuild(self._layout())  # rows may show other dicts now: rebuilt, not sorted

    def relayout(self) -> None:
        """Recompute the tree after a preference change: sorted in place when every
        session stays in its group, else rebuilt."""
        groups = self._layout()
        if self._same_groups(groups):
            self._sort_in_place(groups)
        else:
            self._rebuild(groups)

    def _rebuild(self, groups: list[_Group]) -> None:
        """One reset, then the groups in one insert; views restore their state on ``relaidOut``."""
        self._groups = groups
        self._group_of = {g.key: g for g in self._groups}
        items = []
        for group in self._groups:
            item = _group_item(group.key)
            item.appendRows([_session_item(s) for s in group.sessions])
            items.append(item)
        self.clear()
        self.setColumnCount(1)
        self.invisibleRootItem().setFlags(Qt.ItemFlag.NoItemFlags)
        if items:
            self.invisibleRootItem().appendRows(items)
        self.relaidOut.emit()

    def _same_groups(self, groups: list[_Group]) -> bool:
        """Whether ``groups`` hold the shown groups' sessions, each group in any order."""
        if len(groups) != len(self._groups):
            return False
        for group in groups:
            shown = self._group_of.get(group.key)
            if shown is None or len(shown.sessions) != len(group.sessions):
                return False
            if {s["id"] for s in shown.sessions} != {s["id"] for s in group.sessions}:
                return False
        return True

    def _sort_in_place(self, groups: list[_Group]) -> None:
        """Reorder rows to ``groups`` (same groups, same sessions) in one layout change.

        ``QStandardItem.sortChildren`` moves the items and their persistent
        indexes in C++; a group row taken and reinserted would drop the view's
        expansion and move its current row instead.
        """
        resorted = []
        for group in groups:
            shown = self._group_of[group.key]
            if shown.sessions != group.sessions:  # the same dicts: compared by identity until one differs
                resorted.append((shown, group.sessions))
        moved = [self._group_of[g.key] for g in groups] != self._groups
        if not resorted and not moved:
            for group in groups:  # same rows; the dicts may be newer
                self._group_of[group.key].sessions = group.sessions
            return
        self.layoutAboutToBeChanged.emit()
        blocked = self.blockSignals(True)  # one layout change, not one per sorted group nor per order set
        try:
            for shown, sessions in resorted:
                rank = {s["id"]: r for r, s in enumerate(sessions)}
                item = self._group_item(shown)
                for row, session in enumerate(shown.sessions):
                    item.child(row).setData(rank[session["id"]], _SessionOrderRole)
                self.setSortRole(_SessionOrderRole)
                item.sortChildren(0)
            if moved:
                position = {g.key: p for p, g in enumerate(groups)}
                root = self.invisibleRootItem()
                for row, shown in enumerate(self._groups):
                    root.child(row).setData(position[shown.key], _GroupOrderRole)
                self.setSortRole(_GroupOrderRole)
                root.sortChildren(0)
        finally:
            self.blockSignals(blocked)
        for group in groups:
            self._group_of[group.key].sessions = group.sessions
        self._groups = [self._group_of[g.key] for g in groups]
        self.layoutChanged.emit()

    def _reorder_groups(self) -> None:
        """Put the groups back in order after their sessions changed (a page, an update)."""
        ordered = sorted(self._groups, key=self._group_order)
        if ordered != self._groups:
            self._sort_in_place([_Group(g.key, g.path, g.sessions, g.title) for g in ordered])

    def extend(self, sessions: list[dict]) -> None:
        """Add a further page of sessions without a reset.

        ``session.list`` pages come newest first, so with the default sort each
        group grows at its end and takes one row insert per group per page.
        """
        fresh = [s for s in sessions if s["id"] not in self._sessions]
        by_group: dict[str, list[dict]] = {}
        for session in fresh:
            self._sessions[session["id"]] = session
            if _is_running(session):
                self._running.add(session["id"])
            key = self._group_key(session)
            if key is not None:
                by_group.setdefault(key, []).append(session)
        for key, items in by_group.items():
            items.sort(key=self._session_key)
            group = self._group_of.get(key)
            if group is None:
                group = self._insert_group(key, items[0])
            if group.sessions and self._session_key(items[0]) < self._session_key(group.sessions[-1]):
                for session in items:  # out of order for this sort: place each one
                    self._insert(session, key)
                continue
            group.sessions.extend(items)
            self._group_item(group).appendRows([_session_item(s) for s in items])
        self._reorder_groups()

    def _insert_group(self, key: str, first_session: dict) -> _Group:
        """An empty group at the place its first session gives it (after its project group's header)."""
        header = project_rows.header_of(self.project_index, key)
        if header is not None and header not in self._group_of:
            self._insert_group(header, first_session)
        group = self._new_group(key)
        group.sessions = [first_session]
        order = self._group_order(group)
        position = sum(1 for g in self._groups if self._group_order(g) < order)
        group.sessions = []
        self._groups.insert(position, group)
        self._group_of[key] = group
        self.invisibleRootItem().insertRow(position, [_group_item(key)])
        return group

    def upsert(self, session: dict) -> None:
        """Insert a new session or update one, moving it only if its place changed.

        An automation's run chat (``scheduledRun``) is no row of the list: the Automations page and the
        inbox open it."""
        if session.get("scheduledRun"):
            if session["id"] in self._sessions:
                self.remove(session["id"])
            return
        old = self._sessions.get(session["id"])
        found = self.find(session["id"])  # first: its row is found by the dict it was placed with
        self._sessions[session["id"]] = session
        if _is_running(session):
            self._running.add(session["id"])
        else:
            self._running.discard(session["id"])
        key = self._group_key(session)
        if found is not None:
            group, row = found
            if group.key == key and self._still_in_place(group, row, session):
                group.sessions[row] = session
                index = self.index(row, 0, self._group_index(group))
                self.dataChanged.emit(index, index)
                return
            self.aboutToMove.emit(session["id"])
            try:
                self._remove_row(group, row)
                if key is not None:
                    self._insert(session, key)
                self._reorder_groups()
            finally:
                self.moved.emit(session["id"])
            return
        if old is None and key is None:
            return
        if key is not None:
            self._insert(session, key)
        self._reorder_groups()

    def merge(self, sessions: list[dict]) -> bool:
        """The whole list as the host has it now, taken in without a reset: changed rows are updated (moved
        only if their place changed), new ones inserted, missing ones removed, so views keep the reader's
        place and the selection. False (nothing done) past ``MERGE_MAX`` changes: a reset is cheaper then."""
        fresh = {s["id"]: s for s in sessions if not s.get("scheduledRun")}
        gone = [sid for sid in self._sessions if sid not in fresh]
        changed = [s for sid, s in fresh.items() if self._sessions.get(sid) != s]
        if len(gone) + len(changed) > MERGE_MAX:
            return False
        for session_id in gone:
            self.remove(session_id)
        for session in changed:
            self.upsert(session)
        return True

    def remove(self, session_id: str) -> None:
        found = self.find(session_id)
        if found is not None:
            self._remove_row(*found)  # first: views still read the row while it goes
        self._sessions.pop(session_id, None)
        self._running.discard(session_id)

    def _still_in_place(self, group: _Group, row: int, session: dict) -> bool:
        key = self._session_key(session)
        before = group.sessions[row - 1] if row > 0 else None
        after = group.sessions[row + 1] if row + 1 < len(group.sessions) else None
        return (before is None or self._session_key(before) <= key) and (
            after is None or key <= self._session_key(after)
        )

    def _insert(self, session: dict, key: str) -> None:
        group = self._group_of.get(key)
        if group is None:
            group = self._insert_group(key, session)
        row = bisect_left(group.sessions, self._session_key(session), key=self._session_key)
        group.sessions.insert(row, session)
        self._group_item(group).insertRow(row, [_session_item(session)])

    def _remove_row(self, group: _Group, row: int) -> None:
        # Rows leave Qt first (views react before they go) and arrive in Python first.
        self.removeRow(row, self._group_index(group))
        del group.sessions[row]
        if not group.sessions and group.path not in self.project_index.by_path:  # a known project stays
            self._drop_group(group)
            header = self._group_of.get(project_rows.header_of(self.project_index, group.key) or "")
            if header is not None and not any(
                project_rows.header_of(self.project_index, g.key) == header.key for g in self._groups
            ):
                self._drop_group(header)  # the project group's last shown project went

    def _drop_group(self, group: _Group) -> None:
        position = self._groups.index(group)
        self.removeRow(position)
        del self._groups[position]
        del self._group_of[group.key]

    # -- lookups ------------------------------------------------------------------------
    def find(self, session_id: str) -> tuple[_Group, int] | None:
        """The group and row showing a session, or None.

        Looked up where the session's group and sort key place it (a bisect: selecting
        a chat in a 10,000-chat sidebar walked every row in Python, about 2 ms); only
        when it is not there (a preference changed and the tree is not relaid out yet)
        every group is walked."""
        session = self._sessions.get(session_id)
        if session is None:
            return None
        group = self._group_of.get(self._group_key(session) or "")
        if group is not None:
            row = bisect_left(group.sessions, self._session_key(session), key=self._session_key)
            if row < len(group.sessions) and group.sessions[row]["id"] == session_id:
                return group, row
        for group in self._groups:
            for row, session in enumerate(group.sessions):
                if session["id"] == session_id:
                    return group, row
        return None

    def session(self, session_id: str) -> dict | None:
        return self._sessions.get(session_id)

    def shown_sessions(self) -> list[dict]:
        """Every chat the sidebar shows, in its order."""
        return [session for group in self._groups for session in group.sessions]

    def has_running(self) -> bool:
        """Whether any session's last turn is still running (the sidebar pulses its dot)."""
        return bool(self._running)

    def index_of(self, session_id: str) -> QModelIndex:
        found = self.find(session_id)
        if found is None:
            return QModelIndex()
        group, row = found
        return self.index(row, 0, self._group_index(group))

    def group_index(self, key: str) -> QModelIndex:
        group = self._group_of.get(key)
        return self._group_index(group) if group is not None else QModelIndex()

    def group_at(self, index: _Index) -> _Group | None:
        if not index.isValid() or index.parent().isValid():
            return None
        return self._group_of.get(super().data(index, GroupKeyRole))

    def project_paths(self) -> list[str]:
        return [g.path for g in self._groups if g.key.startswith("project:")]

    def session_at(self, index: _Index) -> dict | None:
        if not index.isValid() or not index.parent().isValid():
            return None
        return self._sessions.get(super().data(index, SessionIdRole))

    def session_count(self) -> int:
        return sum(len(g.sessions) for g in self._groups)

    # -- QStandardItemModel -------------------------------------------------------------------
    # index(), parent(), rowCount() and flags() stay in C++ (see the module docstring).
    def data(self, index: _Index, role: int = Qt.ItemDataRole.DisplayRole):
        if not index.isValid():
            return None
        if not index.parent().isValid():
            group = self.group_at(index)
            if group is None:
                return None
            if role == Qt.ItemDataRole.DisplayRole:
                return group.label
            if role == Qt.ItemDataRole.ToolTipRole:
                special = project_rows.tooltip(self.project_index, group.key, group.path)
                if special:
                    return special
                if native_rows.is_group_key(group.key):
                    return self.tr("pi sessions in %1").replace("%1", native_rows.group_folder(group.key))
                return group.path or (
                    self.tr("Pinned chats") if group.key == "pinned" else self.tr("Chats that belong to no project")
                )
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
            if native_rows.is_pi_copy(session):
                return native_rows.copy_tooltip(display_title(session))
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
    # Items are reached through indexes, never kept: Python holds no wrapper of
    # an item that C++ may delete. Rows go in as lists: PySide's
    # ``insertRow(row, item)`` leaves the item owned by Python, which frees it.
    def _group_index(self, group: _Group) -> QModelIndex:
        return self.index(self._groups.index(group), 0)

    def _group_item(self, group: _Group) -> QStandardItem:
        return self.itemFromIndex(self._group_index(group))


def _is_running(session: dict) -> bool:
    return (session.get("lastTurn") or {}).get("status") == "running"


_INVERT = {code: 0x10FFFF - code for code in range(0x20, 0x7F)}


def _desc(text: str) -> str:
    """Sorts ASCII ids descending inside an ascending key (ties by id, highest id first)."""
    return text.translate(_INVERT)
