"""What the turn queue keeps beside the spec's columns, in host-owned kv namespaces.

The highest position a session ever handed out (so a position is never reused
after removals) and the last failed start of an entry. Below both ``queue``
and ``sessions``: deleting a session forgets them without importing the queue.
"""

from __future__ import annotations

import apsw

from pidesktop.host import kv

POSITION_NS = "queuePosition"  # key: session id; value: the highest position handed out
FAILURE_NS = "queueFailure"  # key: entry id; value: {sessionId, code, message, failedAt}


def forget_session(conn: apsw.Connection, session_id: str) -> None:
    """A deleted session's queue bookkeeping (its rows go by cascade); inside the caller's transaction."""
    conn.execute(
        f"DELETE FROM kv WHERE ns = '{FAILURE_NS}' AND key IN (SELECT id FROM turn_queue WHERE session_id = ?)",
        (session_id,),
    )
    kv.delete(conn, POSITION_NS, session_id)
