"""Search pi sessions by their text, read-only, for ``search.sessions``.

pi's session files are not in the database (the app never copies them), so
Ctrl+K searches them here: the user and assistant text of each listed file's
current branch, extracted once per file state (device, inode, size, mtime)
and kept in memory; a search is then a case-folded substring test over that
text, like the host's ``pi_contains``. A hit names the entry, which the pi
session's transcript opens at. Files are only ever read.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass, field
from typing import Any

from pidesktop.host.context import HostContext
from pidesktop.host.native import pi_format
from pidesktop.host.native.catalog import Catalog
from pidesktop.host.native.index import FileIndex
from pidesktop.host.native.reading import FIRST_BUDGET, catalog_of

log = logging.getLogger("pidesktop.host.native")

ROLES = ("user", "assistant")
READ_BUDGET = 0.25  # seconds a search spends reading files not read before; the rest are read between commands
SLICE = 0.05  # seconds of reading per step in between


@dataclass
class FileText:
    """The searchable text of one file state: ``(entry id, role, text, lowercased text)``, file order."""

    key: tuple[int, int, int, int] | None
    entries: list[tuple[str, str, str, str]] = field(default_factory=list)
    blob: str = ""  # every lowercased text, NUL-joined: one substring test tells whether to look closer


@dataclass
class NativeHit:
    """One matching pi session: its ``session.list`` row and its matching entries, newest first."""

    row: dict[str, Any]
    title_match: bool
    project_match: bool
    entries: list[tuple[str, str, str]]  # (entry id, role, text)


class TextCache:
    """Per host: the text of each pi session file searched, by real path (host thread only)."""

    def __init__(self) -> None:
        self.files: dict[str, FileText] = {}
        self.reading = False  # a slice of reading is queued on the host thread

    def text_of(self, index: FileIndex) -> FileText:
        """The file's text, read again whole when it changed (pi appends a few lines at a time; its
        user and assistant text is small next to the tool output, which is skipped)."""
        cached = self.files.get(index.path)
        if cached is not None and cached.key == index.stat_key and cached.key is not None:
            return cached
        text = FileText(index.stat_key)
        try:
            with open(index.path, "rb") as handle:
                data = handle.read()
        except OSError as exc:
            log.warning("cannot read pi session %s for search: %s", index.path, exc)
            return text
        text.entries = current_branch_text(data)
        text.blob = "\0".join(low for *_rest, low in text.entries)
        self.files[index.path] = text
        return text

    def has(self, index: FileIndex) -> bool:
        cached = self.files.get(index.path)
        return cached is not None and cached.key is not None and cached.key == index.stat_key

    def forget_others(self, paths: set[str]) -> None:
        """Drop the text of files no longer listed."""
        for path in [p for p in self.files if p not in paths]:
            del self.files[path]


def current_branch_text(data: bytes) -> list[tuple[str, str, str, str]]:
    """The user and assistant text of the file's current branch (the chain up from its last entry)."""
    lines, _end = pi_format.split_lines(data)
    version = 0
    ordinal = 0
    parents: dict[str, str | None] = {}
    texts: dict[str, tuple[str, str]] = {}
    order: list[str] = []
    last: str | None = None
    for offset, raw in lines:
        value = pi_format.parse_line(raw)
        if offset == 0:
            if not pi_format.is_header(value):
                return []
            assert isinstance(value, dict)
            version = pi_format.version_of(value)
            continue
        if value is None:
            continue
        entry_id, parent = pi_format.entry_id(value, ordinal, version)
        ordinal += 1
        parents[entry_id] = parent
        last = entry_id
        message = value.get("message") if value.get("type") == "message" else None
        role = message.get("role") if isinstance(message, dict) else None
        if role in ROLES and isinstance(message, dict):
            content = pi_format.content_text(message.get("content"))
            if content.strip():
                if entry_id not in texts:
                    order.append(entry_id)
                texts[entry_id] = (str(role), content)
    on_branch: set[str] = set()
    current = last
    while current is not None and current not in on_branch:
        on_branch.add(current)
        current = parents.get(current)
    return [(eid, *texts[eid], texts[eid][1].lower()) for eid in order if eid in on_branch]


def cache_of(ctx: HostContext) -> TextCache:
    if ctx.native_text is None:
        ctx.native_text = TextCache()
    return ctx.native_text


def search(ctx: HostContext, query: str) -> tuple[list[NativeHit], bool]:
    """The listed pi sessions whose text, title or project matches ``query``, newest first, and whether
    every file's text was searched. Files never read before are read newest first for ``READ_BUDGET``
    seconds (at least one); the rest are read between the host's other commands and searched next time,
    so a first search over a long pi history does not hold the host."""
    catalog: Catalog = catalog_of(ctx)
    try:
        listed = catalog.scan(ctx.conn, FIRST_BUDGET if ctx.post is not None else None)
        rows = catalog.rows(ctx.conn, listed)
    except Exception:
        log.exception("listing pi sessions for search failed")
        return [], True
    cache = cache_of(ctx)
    cache.forget_others({index.path for index in listed})
    needle = query.lower()
    hits = []
    deadline = time.monotonic() + READ_BUDGET if ctx.post is not None else None
    unread: list[FileIndex] = []
    pairs = sorted(zip(listed, rows), key=lambda pair: pair[1]["updatedAt"], reverse=True)
    read_one = False
    for index, row in pairs:
        if deadline is not None and read_one and time.monotonic() > deadline and not cache.has(index):
            unread.append(index)
            text = FileText(None)
        else:
            read_one = read_one or not cache.has(index)
            text = cache.text_of(index)
        matched = [(eid, role, t) for eid, role, t, low in text.entries if needle in low] if needle in text.blob else []
        title_match = needle in (row.get("title") or "").lower()
        project_match = needle in (row.get("projectPath") or "").lower()
        if matched or title_match or project_match:
            matched.reverse()
            hits.append(NativeHit(row, title_match, project_match, matched))
    hits.sort(key=lambda hit: (hit.row["updatedAt"], hit.row["id"]), reverse=True)
    if unread:
        _read_between(ctx, cache, unread)
    return hits, not unread


def _read_between(ctx: HostContext, cache: TextCache, waiting: list[FileIndex]) -> None:
    """Read the files a search left for later, a slice at a time between the host's other commands."""
    if ctx.post is None or cache.reading:
        return

    def step() -> None:
        cache.reading = False
        deadline = time.monotonic() + SLICE
        while waiting:  # at least one file a slice, however small the budget
            cache.text_of(waiting.pop(0))
            if time.monotonic() >= deadline:
                break
        if waiting:
            _read_between(ctx, cache, waiting)

    cache.reading = ctx.post(step)


__all__ = ["NativeHit", "TextCache", "current_branch_text", "search"]
