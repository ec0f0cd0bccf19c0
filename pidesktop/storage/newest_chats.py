"""The session list's first page, read from ``pi.sqlite`` read-only before the host has opened it.

Start-up shows these rows in the sidebar while the host thread imports its
modules and runs its boot pass; the host's own ``session.list`` replaces them
as soon as it answers (with pi's own sessions among them, which live in pi's
files and are not read here). They are the rows the host's first page gives
of the database (``formats.index.session_summary``). Nothing is written and
nothing waits: a database that is locked, damaged, of another version or not
there yet gives None, and the sidebar simply fills when the host answers.
"""

from __future__ import annotations

import logging
from typing import Any

import apsw

from pidesktop import paths
from pidesktop.formats.index.schema import DB_NAME, SCHEMA_VERSION
from pidesktop.formats.index.session_summary import LISTED, NEWEST_FIRST, SUMMARY_SQL, to_summary
from pidesktop.storage.sqlite_ro import open_readonly, user_version

log = logging.getLogger("pidesktop.storage")


def newest_chats(location: paths.StorageLocation, limit: int) -> list[dict[str, Any]] | None:
    """The ``limit`` most recently updated chats, as ``session.list`` lists them, or None if they cannot be read
    at once."""
    db = location.data_root / DB_NAME
    if not db.is_file():
        return None
    try:
        conn = open_readonly(db)
    except apsw.Error as exc:
        log.info("the chats are not read before the host: %s", exc)
        return None
    try:
        conn.execute("PRAGMA busy_timeout = 0")  # a database being written now: the host's answer will do
        if user_version(conn) != SCHEMA_VERSION:
            return None
        rows = conn.execute(f"{SUMMARY_SQL} WHERE {LISTED}{NEWEST_FIRST} LIMIT ?", (limit,)).fetchall()
        return [to_summary(row) for row in rows]
    except (apsw.Error, TypeError) as exc:
        log.info("the chats are not read before the host: %s", exc)
        return None
    finally:
        conn.close()
