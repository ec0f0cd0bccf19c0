"""The working folders a person trusts pi sessions to be continued in (spec 004, section 12, NP.9).

A native prompt runs only after, among others, a "trust" check of the
session's working folder. Spec 004 does not describe pi's own trust store, and
pidesktop never writes pi's files other than a session it continues, so the
trust is pidesktop's own record: one ``kv(nativeTrust, <real path>)`` row per
folder the person said yes to, ``{trustedAt}``. A folder is trusted by its
real path, so a link to it and the folder itself are one decision.

``native.trust`` records a folder; a native session's ``session.get`` row says
``cwdTrusted``; the runtime refuses to continue in a folder not trusted
(``agent/native_continue.py``) and the window asks first.
"""

from __future__ import annotations

import os
from typing import Any

import apsw

from pidesktop.host import kv
from pidesktop.host.commands import command
from pidesktop.host.context import HostContext
from pidesktop.host.params import Params, invalid

TRUST_NS = "nativeTrust"


def folder_key(cwd: str) -> str:
    return os.path.realpath(cwd)


def is_trusted(conn: apsw.Connection, cwd: str) -> bool:
    return bool(cwd) and kv.get(conn, TRUST_NS, folder_key(cwd)) is not None


@command("native.trust", emits=[])
def trust_folder(ctx: HostContext, p: Params) -> dict[str, Any]:
    cwd = p.text("cwd", nonempty=True)
    if not os.path.isabs(cwd) or not os.path.isdir(cwd):
        raise invalid(f"native.trust: {cwd} is not a folder on this computer.", "cwd")
    key = folder_key(cwd)
    now = ctx.clock()
    with ctx.conn:
        if kv.get(ctx.conn, TRUST_NS, key) is None:
            kv.put(ctx.conn, TRUST_NS, key, {"trustedAt": now}, now)
    return {"cwd": key, "trusted": True}
