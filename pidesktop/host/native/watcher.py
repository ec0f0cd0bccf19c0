"""A watchfiles thread that turns changes to pi session files into events.

- a ``*.jsonl`` file that grows: ``session.changed {sessionId, reason: "native"}``
- a ``*.jsonl`` file that appears or goes: ``session.listChanged {}``

It watches the folders the last scan found (``Catalog.on_roots`` hands them
over from the host thread, which alone reads the database) and never reads a
session file or the database itself; the next ``session.get`` or
``session.list`` brings the index up to date. A folder that does not exist
yet (no pi run so far) is looked for twice a second and watched once it
appears. ``stop`` ends it within a fraction of a second (watchfiles'
``stop_event``).
"""

from __future__ import annotations

import logging
import os
import threading
from typing import Any

from pidesktop.bus import topics
from pidesktop.host.context import Emit, HostContext
from pidesktop.host.native.catalog import native_id
from pidesktop.host.native.discovery import SUFFIX, Roots, inside
from pidesktop.host.native.reading import catalog_of

log = logging.getLogger("pidesktop.host.native")

DEBOUNCE_MS = 150  # events reach the window well within a second of the write
STEP_MS = 50
RETRY_SECONDS = 0.5
MAX_RETRY_SECONDS = 30.0  # a watch that keeps failing (an inotify limit) is tried again this rarely


class NativeWatcher:
    """One thread watching folders: recursively (the default root) or only their own files (configured ones)."""

    def __init__(
        self,
        emit: Emit,
        roots: tuple[str, ...],
        recursive: bool = True,
        name: str = "pidesktop-native-watcher",
    ):
        self._emit = emit
        self._roots = roots
        self._recursive = recursive
        # the folders there when the host started: one made before the thread first looks is still news
        self._watched: tuple[str, ...] = _existing(roots)
        self._stop = threading.Event()
        self._restart = threading.Event()  # set with _stop, or when the roots change
        self._thread = threading.Thread(target=self._run, name=name, daemon=True)

    def start(self) -> NativeWatcher:
        self._thread.start()
        return self

    def set_roots(self, roots: tuple[str, ...]) -> None:
        if roots != self._roots:
            self._roots = roots
            self._restart.set()

    def stop(self, timeout: float = 5.0) -> None:
        self._stop.set()
        self._restart.set()
        if self._thread.is_alive():
            self._thread.join(timeout)

    @property
    def alive(self) -> bool:
        return self._thread.is_alive()

    def _run(self) -> None:
        try:
            import watchfiles
        except ImportError:  # declared in pyproject; without it the list refreshes on demand only
            log.warning("watchfiles is not installed: pi sessions will not refresh by themselves")
            return
        failures = 0
        while not self._stop.is_set():
            self._restart.clear()
            roots = self._roots
            existing = _existing(roots)
            if existing != self._watched:
                self._emit(topics.SESSION_LIST_CHANGED, {})  # a folder came or went with its files
            self._watched = existing
            if not existing:
                self._restart.wait(RETRY_SECONDS)
                continue
            try:
                for changes in watchfiles.watch(
                    *existing,
                    stop_event=self._restart,
                    debounce=DEBOUNCE_MS,
                    step=STEP_MS,
                    rust_timeout=int(RETRY_SECONDS * 1000),
                    yield_on_timeout=True,
                    recursive=self._recursive,
                    raise_interrupt=False,
                    ignore_permission_denied=True,
                ):
                    if changes:
                        self._handle(changes, roots)
                    if self._restart.is_set() or self._missing_or_new(existing, roots):
                        break
            except Exception as exc:
                failures += 1
                if failures == 1:
                    log.warning("watching pi session folders failed (%s); lists still refresh on demand", exc)
                self._restart.wait(min(MAX_RETRY_SECONDS, RETRY_SECONDS * 2**failures))
            else:
                failures = 0

    @staticmethod
    def _missing_or_new(existing: tuple[str, ...], roots: tuple[str, ...]) -> bool:
        """A watched folder vanished, or one that was missing appeared: watch again."""
        return any(not os.path.isdir(root) for root in existing) or any(
            root not in existing and os.path.isdir(root) for root in roots
        )

    def _handle(self, changes: set[tuple[Any, str]], roots: tuple[str, ...]) -> None:
        import watchfiles

        grown: set[str] = set()
        listed = False
        for change, path in changes:
            if not path.endswith(SUFFIX):
                # A folder that appears may already hold sessions written before its own watch began
                # (inotify reports nothing made in that gap), and one that goes takes its files along.
                if (
                    self._recursive
                    and change != watchfiles.Change.modified
                    and _admitted(path, roots, True)
                    and (os.path.isdir(path) or (change == watchfiles.Change.deleted and not os.path.splitext(path)[1]))
                ):
                    listed = True
                continue
            if not _admitted(path, roots, self._recursive):
                continue
            if change == watchfiles.Change.modified:
                grown.add(native_id(os.path.realpath(path)))
            else:  # added or deleted
                listed = True
                if change == watchfiles.Change.added:
                    grown.add(native_id(os.path.realpath(path)))
        if listed:
            self._emit(topics.SESSION_LIST_CHANGED, {})
        for session_id in sorted(grown):
            self._emit(topics.SESSION_CHANGED, {"sessionId": session_id, "reason": "native"})


def _existing(roots: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(root for root in roots if os.path.isdir(root))


def _admitted(path: str, roots: tuple[str, ...], recursive: bool) -> bool:
    """The default root counts nested files; a configured folder only its own."""
    if recursive:
        return any(inside(path, root) for root in roots)
    return os.path.dirname(path) in roots


def start_watching(ctx: HostContext) -> tuple[NativeWatcher, NativeWatcher]:
    """Start the watchers of this host's pi session folders; they stop when the host closes.

    Two threads, because watchfiles' recursion is one flag per watch: the
    default root recursively, the configured folders without recursion (a
    ``sessionDir`` inside a large tree must not cost a watch per subfolder).
    """
    catalog = catalog_of(ctx)
    found = catalog.current_roots(ctx.conn)
    tree = NativeWatcher(ctx.emit, (found.default,)).start()
    flat = NativeWatcher(ctx.emit, found.extra, recursive=False, name="pidesktop-native-watcher-folders").start()

    def follow(roots: Roots) -> None:
        tree.set_roots((roots.default,))
        flat.set_roots(roots.extra)

    catalog.on_roots = follow
    ctx.on_close.append(flat.stop)
    ctx.on_close.append(tree.stop)
    return tree, flat
