"""Which commands may name a native pi session: reads (an export's included), the fork and ``native.append`` only.

The check runs in the dispatcher before any handler, so a write command
(append, rename, update, delete, history edits, revisions, turns, queue,
compaction, usage) on a ``native-pi:`` id is refused with
``PERMISSION_DENIED`` and nothing is written, including commands added later:
a command is refused unless it is listed here.
"""

from __future__ import annotations

from pidesktop.bus.errors import ErrorCode, HostError
from pidesktop.bus.native_sessions import MAY_NAME_A_PI_SESSION, READ_ONLY_SENTENCE
from pidesktop.host.native.catalog import is_native

ALLOWED = MAY_NAME_A_PI_SESSION


def check(method: str, params: object) -> None:
    """Raise ``PERMISSION_DENIED`` when ``method`` may not act on the native session ``params`` names."""
    if not isinstance(params, dict) or method in ALLOWED:
        return
    session_id = params.get("sessionId")
    if is_native(session_id):
        raise HostError(ErrorCode.PERMISSION_DENIED, READ_ONLY_SENTENCE, {"sessionId": session_id, "native": True})
