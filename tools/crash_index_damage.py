"""The crash campaign's ``indexDamage`` kind: a SIGKILL, then ``pi.sqlite`` damaged; every chat comes back.

The same chats and commands as ``indexLoss`` (``crash_index_loss.py``): a host
SIGKILLed at a random instant while it renames chats, switches modes,
thinking levels, permission modes and projects, and appends. Then the killed
root's database is damaged in one of these ways, as a failing disk would:

- ``delete``, ``truncate``: the file (and its ``-wal``, ``-shm``) deleted or cut to nothing;
- ``cut``: cut to a random whole number of pages, short of its end;
- ``sessions``: the root page of the ``sessions`` table overwritten with garbage;
- ``messages``: a random page of the ``messages`` table overwritten;
- ``search``: a random page of the search index's data (``messages_fts_data``) overwritten;
- ``schema``: page 1 past its 100-byte file header (the schema table) overwritten.

The page numbers come from ``dbstat`` and ``PRAGMA page_size`` on the killed
file (opening it first moves the WAL's frames into the file, as the next open
would). The new host must notice (``quick_check`` after the unclean close),
set the file aside, and give back every chat, title, project, mode and
message; the campaign's common checks then append to it.
"""

from __future__ import annotations

import random
from pathlib import Path

import apsw

from tools import crash_index_loss

PAGE_WAYS = ("cut", "sessions", "messages", "search", "schema")
WAYS = (*crash_index_loss.LOSS_WAYS, *PAGE_WAYS)
# the b-tree each way overwrites a page of (dbstat names)
TARGETS = {"sessions": "sessions", "messages": "messages", "search": "messages_fts_data", "schema": "sqlite_schema"}
HEADER = 100  # page 1 starts with the file header; past it is the schema table's page


def layout(db: Path) -> tuple[int, dict[str, list[int]], dict[str, int]]:
    """Page size, the pages of every b-tree and the root pages, read through SQLite itself."""
    conn = apsw.Connection(str(db))
    try:
        (page_size,) = conn.execute("PRAGMA page_size").fetchone()
        pages: dict[str, list[int]] = {}
        for name, pageno in conn.execute("SELECT name, pageno FROM dbstat ORDER BY pageno"):
            pages.setdefault(str(name), []).append(int(pageno))
        roots = {str(name): int(root) for name, root in conn.execute("SELECT name, rootpage FROM sqlite_schema")}
    finally:
        conn.close()  # the last connection: the WAL's frames are now in the file
    return int(page_size), pages, roots


def overwrite(db: Path, offset: int, size: int, rng: random.Random) -> None:
    with open(db, "r+b") as out:
        out.seek(offset)
        out.write(rng.randbytes(size))


def damage_database(root: Path, rng: random.Random) -> str:
    """Damage the killed root's ``pi.sqlite`` one of ``WAYS``; the way chosen."""
    way = rng.choice(WAYS)
    db = root / "pi.sqlite"
    if way in crash_index_loss.LOSS_WAYS:
        return crash_index_loss.lose(root, way)
    page_size, pages, roots = layout(db)
    for suffix in ("-wal", "-shm"):
        (root / f"pi.sqlite{suffix}").unlink(missing_ok=True)
    if way == "cut":
        total = db.stat().st_size // page_size
        with open(db, "r+b") as out:
            out.truncate(rng.randint(1, max(1, total - 1)) * page_size)
        return way
    target = TARGETS[way]
    page = roots[target] if way == "sessions" else rng.choice(pages[target])
    start = HEADER if page == 1 else 0
    overwrite(db, (page - 1) * page_size + start, page_size - start, rng)
    return way
