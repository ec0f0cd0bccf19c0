"""Which commands may name a native pi session, shared by the host (which refuses the rest) and the window.

A pi session's file is pi's own: reads (an export's included), the fork and
``native.append`` only. It sits in the bus, below both, so the two lists can
never drift apart.
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
