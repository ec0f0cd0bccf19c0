"""Giving pi.sqlite's free pages back to the file system.

The database is ``auto_vacuum = INCREMENTAL`` from its creation: pages a
delete or an FTS merge frees stay in the file as free pages until an
``incremental_vacuum`` moves the last pages into them and truncates the file.
That pragma frees one page for each step of its statement, so it must be run
to its end: executed and left unread, it frees a single page.
"""

from __future__ import annotations

import apsw

from pidesktop.formats.index.sql_rows import one_row


def give_back(conn: apsw.Connection) -> int:
    """Free every free page (never inside a caller's transaction); how many there were."""
    count = int(one_row(conn.execute("PRAGMA freelist_count"))[0])
    if count:
        conn.execute("PRAGMA incremental_vacuum").fetchall()
    return count
