"""Whether ``pi.sqlite`` is of this pidesktop's version, read at once and read-only.

Every start asks this before its first paint; the answer is nearly always
yes, and it comes from ``user_version`` alone, without the migration engine's
modules (``storage.schema`` has the whole answer, for when it is not).
"""

from __future__ import annotations

import apsw

from pidesktop import paths
from pidesktop.formats.index.schema import DB_NAME, SCHEMA_VERSION
from pidesktop.storage.sqlite_ro import open_readonly, user_version


def is_current(location: paths.StorageLocation) -> bool:
    """True when the database is missing or of this version; False when it is not, or cannot be read now."""
    db = location.data_root / DB_NAME
    if not db.exists():
        return True
    try:
        conn = open_readonly(db)
    except apsw.Error:
        return False
    try:
        conn.execute("PRAGMA busy_timeout = 0")  # a database being written now: the whole answer will do
        return user_version(conn) == SCHEMA_VERSION
    except (apsw.Error, TypeError):
        return False
    finally:
        conn.close()
