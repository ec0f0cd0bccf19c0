"""What a native pi session's id looks like and which commands may name one, shared by the host (which
refuses the rest), the window and the agent.

A pi session's file is pi's own: reads (an export's included), the fork and
``native.append`` only. It sits in the bus, below all three, so none can
drift from the others.
"""

from __future__ import annotations

MAY_NAME_A_PI_SESSION = frozenset(
    {
        "session.get",
        "session.export",
        "session.fork",
        "native.append",
        "search.query",
        "search.sessions",
        "usage.summary",
    }
)
READ_ONLY_SENTENCE = "This is a pi session; it is read-only here. Fork it or continue it in pidesktop."
ID_PREFIX = "native-pi:"  # the ids the host gives pi's own session files


def names_a_pi_session(session_id: object) -> bool:
    return isinstance(session_id, str) and session_id.startswith(ID_PREFIX)
