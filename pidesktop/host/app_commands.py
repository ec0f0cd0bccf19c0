"""``app.handshake``: the first call of every client."""

from __future__ import annotations

from typing import Any

from pidesktop import __version__
from pidesktop.bus.errors import ErrorCode, HostError
from pidesktop.formats.index.schema import SCHEMA_VERSION
from pidesktop.host.commands import command
from pidesktop.host.context import HostContext
from pidesktop.host.params import Params

PROTOCOL_VERSION = 1


@command("app.handshake", emits=[])
def handshake(ctx: HostContext, p: Params) -> dict[str, Any]:
    version = p.integer("protocolVersion")
    if version != PROTOCOL_VERSION:
        raise HostError(
            ErrorCode.INVALID_PARAMS,
            f"app.handshake: protocolVersion {version} is not supported; this host speaks {PROTOCOL_VERSION}.",
            {"field": "protocolVersion"},
        )
    result = {
        "protocolVersion": PROTOCOL_VERSION,
        "schemaVersion": SCHEMA_VERSION,
        "dataRoot": str(ctx.data_root),
        "hostVersion": __version__,
        "interruptedReplies": list(ctx.interrupted_replies),
    }
    if ctx.rebuilt is not None:  # only when this start rebuilt chats from their transcripts
        result["rebuilt"] = dict(ctx.rebuilt)
    if ctx.migration is not None:  # only when this start migrated (or archived) the database
        result["migration"] = ctx.migration.to_json()
    return result
