"""The schema steps from v7 to v27 (spec 004, section 7), one function each.

Each function gets the open connection inside its step's transaction and
changes only what its version changed; ``migrations`` runs them in order,
sets ``user_version`` after each and keeps the backups. Versions whose change
the spec does not describe (v12, v13, v18, v21) are version-only.
"""

from __future__ import annotations

import apsw


def version_only(conn: apsw.Connection) -> None:
    """A step that changes nothing but the version number."""
