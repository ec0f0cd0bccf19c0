"""The command that exists only for native pi sessions: ``native.append``.

``session.list``, ``session.get`` and ``session.fork`` take native ids through
small hooks in their own modules; the write commands are refused by
``guard`` in the dispatcher.
"""

from __future__ import annotations

from typing import Any

from pidesktop.bus import topics
from pidesktop.host.commands import command
from pidesktop.host.context import HostContext
from pidesktop.host.native import writing
from pidesktop.host.params import Params


@command("native.append", emits=[topics.SESSION_CHANGED])
def native_append(ctx: HostContext, p: Params) -> dict[str, Any]:
    """Continue a pi session: native v3 entries after the current leaf, every check passed first."""
    return writing.append(ctx, p)
