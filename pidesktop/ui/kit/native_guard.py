"""What the window may send naming a pi session: reads, the fork and ``native.append`` only.

A pi session's file is pi's own; the host refuses every other command on a
``native-pi:`` id (``host/native/guard.py``; both read the list from
``bus/native_sessions.py``). Checking here as well means the window never sends
such a command at all, so a view that forgot a pi session is read-only shows
no error for something the person never asked for.
"""

from __future__ import annotations

import logging

from pidesktop.bus import ErrorCode, HostError
from pidesktop.bus.native_sessions import MAY_NAME_A_PI_SESSION, READ_ONLY_SENTENCE
from pidesktop.ui.kit.session_rows import is_native_id

log = logging.getLogger("pidesktop.ui")

MAY_SEND = MAY_NAME_A_PI_SESSION


def allows(method: str, params: object) -> bool:
    """Whether ``method`` with ``params`` may go to the host: False when it would act on a pi session."""
    if not isinstance(params, dict) or method in MAY_SEND:
        return True
    return not is_native_id(params.get("sessionId"))


def refusal(method: str, params: object) -> HostError | None:
    """The host's own refusal, made here without sending ``method``; None when it may be sent."""
    if allows(method, params):
        return None
    assert isinstance(params, dict)  # allows() passes anything else
    log.warning("not sent: %s names the pi session %s", method, params.get("sessionId"))
    data = {"sessionId": params.get("sessionId"), "native": True}
    return HostError(ErrorCode.PERMISSION_DENIED, READ_ONLY_SENTENCE, data)
