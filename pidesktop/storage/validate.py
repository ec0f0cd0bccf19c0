"""Validation of a copied data root before it may become the active one.

The copy's database is opened read-only and must pass ``integrity_check`` and
``foreign_key_check`` with the same number of rows in every table as the
source. The source itself is never opened: its counts are taken from the copy
right after the byte comparison proved the two identical, so validation
cannot disturb the root that stays active if anything fails.
"""

from __future__ import annotations

from pathlib import Path

import apsw

from pidesktop.formats.index.schema import DB_NAME
from pidesktop.storage.errors import Failed
from pidesktop.storage.sqlite_ro import integrity_problems, open_readonly, table_counts


def counts(data_root: Path) -> dict[str, int] | None:
    """Rows per table of ``data_root``'s database; None when there is no database."""
    db = data_root / DB_NAME
    if not db.exists():
        return None
    try:
        conn = open_readonly(db)
        try:
            return table_counts(conn)
        finally:
            conn.close()
    except apsw.Error as exc:
        raise Failed(f"Cannot read the copied database {db}: {exc}. The active data folder was not changed.") from exc


def validate(data_root: Path, expected: dict[str, int] | None) -> None:
    """Raise ``Failed`` unless the copy's database is sound and holds ``expected`` rows."""
    db = data_root / DB_NAME
    if expected is None:
        if db.exists():
            raise Failed(f"{db} appeared in the copy although the source had no database.")
        return
    try:
        conn = open_readonly(db)
        try:
            problems = integrity_problems(conn)
            found = table_counts(conn)
        finally:
            conn.close()
    except apsw.Error as exc:
        raise Failed(f"Cannot open the copied database {db}: {exc}. The active data folder was not changed.") from exc
    if problems:
        raise Failed(
            f"The copied database {db} is damaged: {'; '.join(problems[:5])}. The active data folder was not changed."
        )
    if found != expected:
        diff = {
            name: (expected.get(name), found.get(name))
            for name in set(expected) | set(found)
            if expected.get(name) != found.get(name)
        }
        raise Failed(
            f"The copied database {db} does not hold the same rows as the source "
            f"(table: source, copy): {diff}. The active data folder was not changed."
        )
