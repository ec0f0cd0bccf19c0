"""The pi sessions this host lists: discovery, one index per file, ids, rows.

A native id is ``native-pi:`` plus a hash of the file's real path: opaque,
stable across restarts, and never the path itself (the path stays in the
host). Files that share a header ``id`` (a copied file) are listed once, the
one with the newest activity; the others are not rewritten or removed, only
left out of this scan's id map.

Files are only ever read here. A file that is not a pi session, garbage, or a
torn last line never breaks the listing; a file that cannot be read is
reported in the log once per reason.
"""

from __future__ import annotations

import hashlib
import logging
import os
import time
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

import apsw

from pidesktop.bus import native_sessions
from pidesktop.bus.errors import ErrorCode, HostError
from pidesktop.host.native import discovery
from pidesktop.host.native.index import FileIndex
from pidesktop.host.native.roots_cache import RootsCache
from pidesktop.host.projects.commands import normalise_path

log = logging.getLogger("pidesktop.host.native")

PREFIX = native_sessions.ID_PREFIX
OPEN_KEPT = 16  # files whose full index stays in memory after they were read (the rest keep their row only)
ORIGIN = "native-pi"


is_native = native_sessions.names_a_pi_session


def native_id(real_path: str) -> str:
    return PREFIX + hashlib.blake2b(os.fsencode(real_path), digest_size=12).hexdigest()


class Catalog:
    """Per host: the indexes of the files seen and the id map of the last scan (host thread only)."""

    def __init__(self) -> None:
        self.indexes: dict[str, FileIndex] = {}  # real path -> index
        self.by_id: dict[str, str] = {}  # native id -> real path, after de-duplication
        self.admitted: set[str] = set()  # configured directories that admitted a file in this process
        self.roots: discovery.Roots | None = None
        self._roots_cache = RootsCache()
        self._projects: tuple[apsw.Connection, int, list[str], dict[str, tuple[int, str]]] | None = None
        self.on_roots: Callable[[discovery.Roots], None] | None = None  # the watchers follow the roots
        self._problems: dict[str, str] = {}
        self._open: OrderedDict[str, None] = OrderedDict()  # files read lately keep their full index
        self.pending: dict[str, discovery.Found] = {}  # found by the last walk, not indexed yet (by native id)
        self.indexing = False  # a slice of ``index_pending`` is queued on the host thread
        # (roots, folder mtimes, files) of the last full walk, while nothing in it can have changed unseen
        self._listed: list[FileIndex] | None = None  # what the last scan listed (the same list while unchanged)
        self._rows: tuple[list[FileIndex], list[int], dict[str, Any], list[dict[str, Any]]] | None = None
        self._walked: tuple[discovery.Roots, list[tuple[str, int]], list[tuple[str, FileIndex]]] | None = None

    # -- scanning -------------------------------------------------------------------------------
    def current_roots(self, conn: apsw.Connection) -> discovery.Roots:
        found = self._roots_cache.roots(self._projects_of(conn)[0])
        if found != self.roots:
            self.roots = found
            if self.on_roots is not None:
                self.on_roots(found)
        return found

    def _projects_of(self, conn: apsw.Connection) -> tuple[list[str], dict[str, tuple[int, str]]]:
        """The projects' absolute paths, newest first (for the roots), and the projects by normalised path
        (for the rows); read again only after the connection wrote: the host's is the database's only writer."""
        changes = conn.total_changes()
        kept = self._projects
        if kept is not None and kept[0] is conn and kept[1] == changes:
            return kept[2], kept[3]
        rows = conn.execute(
            "SELECT path FROM projects ORDER BY last_opened_at DESC, id DESC LIMIT ?", (discovery.MAX_PROJECTS,)
        ).fetchall()
        paths = [path for (path,) in rows if isinstance(path, str) and os.path.isabs(path)]
        projects = _projects(conn)
        self._projects = (conn, changes, paths, projects)
        return paths, projects

    def scan(self, conn: apsw.Connection, budget: float | None = None) -> list[FileIndex]:
        """The listed sessions, one per header id, each index up to date.

        When no folder changed since the last walk (same mtimes, none of them
        recent enough to hide a change in the same clock tick), the files of
        that walk are only stat'ed again: a file that grew is brought up to
        date, and the walk is skipped.

        ``budget`` (seconds): files never indexed before wait in ``pending``
        once it is spent, so a first list over thousands of long sessions
        does not hold the host thread; ``index_pending`` goes on with them.
        """
        found_roots = self.current_roots(conn)
        if self._walked is not None and self._walked[0] == found_roots and _folders_unchanged(self._walked[1]):
            files = self._walked[2]
            changed = False
            for path, index in files:
                try:
                    if index.refresh_path(os.stat(path)):
                        changed = True
                        self._lighten(index)
                except OSError:
                    break  # gone: walk again
            else:
                if not changed and self._listed is not None:
                    return self._listed
                return self._choose([index for _, index in files])
        walk = discovery.scan(found_roots)
        fresh: dict[str, FileIndex] = {}
        files = []
        deadline = None if budget is None else time.monotonic() + budget
        self.pending = {}
        for found in walk.files:
            known = self.indexes.get(found.real)
            if known is None and deadline is not None and time.monotonic() > deadline:
                self.pending[native_id(found.real)] = found
                continue
            index = known or FileIndex(found.real, native_id(found.real))
            try:
                if found.stat is None:
                    raise found.error or FileNotFoundError(found.path)
                index.refresh_path(found.stat)
            except OSError as exc:
                self._problem(found.real, f"cannot read pi session {found.path}: {exc}")
                continue
            self._problems.pop(found.real, None)
            self._lighten(index)
            fresh[found.real] = index
            files.append((found.path, index))
            if found.root != found_roots.default:
                self.admitted.add(found.root)
        self.indexes = fresh
        settled = walk.settled and not self._problems and not self.pending
        self._walked = (found_roots, walk.folders, files) if settled else None
        return self._choose([index for _, index in files])

    def index_pending(self, budget: float) -> bool:
        """Index files the last scan left waiting, for about ``budget`` seconds; True when none wait."""
        deadline = time.monotonic() + budget
        while self.pending:  # at least one file a slice, however small the budget
            session_id, found = next(iter(self.pending.items()))
            del self.pending[session_id]
            self._adopt(found)
            if time.monotonic() >= deadline:
                break
        return not self.pending

    def _adopt(self, found: discovery.Found) -> FileIndex | None:
        index = self.indexes.get(found.real) or FileIndex(found.real, native_id(found.real))
        try:
            index.refresh_path()
        except OSError as exc:
            self._problem(found.real, f"cannot read pi session {found.path}: {exc}")
            return None
        self._lighten(index)
        self.indexes[found.real] = index
        return index

    def _lighten(self, index: FileIndex) -> None:
        if index.path not in self._open:
            index.make_light()

    def _choose(self, indexes: list[FileIndex]) -> list[FileIndex]:
        chosen: dict[str, FileIndex] = {}
        for index in indexes:
            if not index.is_session:
                continue
            other = chosen.get(index.session_id)
            if other is None or (index.updated_at, index.path) > (other.updated_at, other.path):
                chosen[index.session_id] = index
        listed = sorted(chosen.values(), key=lambda i: i.path)
        self.by_id = {index.native_id: index.path for index in listed}
        self._listed = listed
        return listed

    def _problem(self, path: str, message: str) -> None:
        if self._problems.get(path) != message:
            self._problems[path] = message
            log.warning(message)

    # -- one session ------------------------------------------------------------------------------
    def resolve(self, conn: apsw.Connection, session_id: str) -> FileIndex:
        """The index of a listed native session, authorised again against the current roots."""
        path = self.by_id.get(session_id)
        if path is None and session_id in self.pending:  # listed soon: read it now
            found = self.pending.pop(session_id)
            if self._adopt(found) is not None:
                path = found.real
                self.by_id[session_id] = path
        if path is None:
            self.scan(conn)
            path = self.by_id.get(session_id)
        if path is None:
            raise not_found(session_id)
        found_roots = self.roots or self.current_roots(conn)
        if os.path.realpath(path) != path or not found_roots.admits(path, self.admitted):
            raise not_found(session_id)
        index = self.indexes.get(path)
        if index is None:
            index = self.indexes[path] = FileIndex(path, native_id(path))
        self._open[path] = None
        self._open.move_to_end(path)
        while len(self._open) > OPEN_KEPT:
            self._open.popitem(last=False)
        return index

    # -- rows ---------------------------------------------------------------------------------------
    def rows(self, conn: apsw.Connection, listed: list[FileIndex]) -> list[dict[str, Any]]:
        projects = self._projects_of(conn)[1]
        generations = [index.generation for index in listed]
        if (
            self._rows is not None
            and self._rows[0] is listed
            and self._rows[1] == generations
            and self._rows[2] == projects
        ):
            return [dict(r) for r in self._rows[3]]
        ids = {index.path: index.native_id for index in listed}
        by_name: dict[str, list[str]] = {}
        for index in listed:
            by_name.setdefault(index.file_name, []).append(index.path)
        rows = [cached_row(index, projects, _parent_id(index, ids, by_name)) for index in listed]
        self._rows = (listed, generations, projects, rows)
        return [dict(r) for r in rows]

    def row_of(self, conn: apsw.Connection, index: FileIndex) -> dict[str, Any]:
        listed = [self.indexes[path] for path in self.by_id.values() if path in self.indexes]
        ids = {i.path: i.native_id for i in listed}
        by_name: dict[str, list[str]] = {}
        for other in listed:
            by_name.setdefault(os.path.basename(other.path), []).append(other.path)
        return cached_row(index, self._projects_of(conn)[1], _parent_id(index, ids, by_name))


def _folders_unchanged(folders: list[tuple[str, int]]) -> bool:
    """Every folder of the last walk still has its mtime (files added, removed or renamed change it)."""
    for folder, mtime in folders:
        try:
            current = os.stat(folder).st_mtime_ns
        except FileNotFoundError:
            current = -1  # still missing is unchanged
        except OSError:
            return False
        if current != mtime:
            return False
    return True


def not_found(session_id: str) -> HostError:
    return HostError(
        ErrorCode.NOT_FOUND, f"There is no pi session with id {session_id!r}; its file may have been moved or removed."
    )


def _projects(conn: apsw.Connection) -> dict[str, tuple[int, str]]:
    return {normalise_path(path): (pid, path) for pid, path in conn.execute("SELECT id, path FROM projects")}


def _parent_id(index: FileIndex, ids: dict[str, str], by_name: dict[str, list[str]]) -> str | None:
    """The listed file the header's ``parentSession`` names: by real path, else by its unique file name."""
    parent = index.header.get("parentSession") if index.header else None
    if not isinstance(parent, str) or not parent:
        return None
    real = os.path.realpath(os.path.expanduser(parent))
    if real in ids:
        return ids[real]
    same_name = by_name.get(os.path.basename(parent), [])
    return ids[same_name[0]] if len(same_name) == 1 and same_name[0] != index.path else None


def cached_row(index: FileIndex, projects: dict[str, tuple[int, str]], parent_id: str | None) -> dict[str, Any]:
    """The row, rebuilt only when the file, its project or its parent changed (a warm list is lookups)."""
    cwd = index.header.get("cwd") if index.header else None
    project = projects.get(normalise_path(cwd)) if isinstance(cwd, str) and cwd else None
    key = (index.generation, project, parent_id)
    if index.row_cache is None or index.row_cache[0] != key:
        index.row_cache = (key, row(index, projects, parent_id))
    return dict(index.row_cache[1])


def row(index: FileIndex, projects: dict[str, tuple[int, str]], parent_id: str | None) -> dict[str, Any]:
    """The ``session.list`` row of a native session (the same keys as the app's own rows)."""
    header = index.header or {}
    cwd = header.get("cwd") if isinstance(header.get("cwd"), str) else ""
    project = projects.get(normalise_path(cwd)) if cwd else None
    return {
        "id": index.native_id,
        "title": index.title,
        "titleSource": "native",
        "projectId": project[0] if project else None,
        "projectPath": project[1] if project else None,
        "providerId": index.provider,
        "modelId": index.model,
        "mode": "agent",
        "thinkingLevel": index.thinking or "off",
        "permissionMode": "inherit",
        "fastMode": False,
        "pinned": False,
        "messageCount": index.message_count,
        "source": None,
        "deletedAt": None,
        "createdAt": index.created_at,
        "updatedAt": index.updated_at,
        "origin": ORIGIN,
        "readOnly": True,
        "nativeId": index.session_id,
        "cwd": cwd,
        "parentSessionId": parent_id,
        "nativeToken": index.token,
    }
