"""``kv(cache, …)``: the recent-models list and the model-refresh stamps (spec 004, 4.1 K.5 and M.3).

Both are caches: losing them loses nothing but an ordering and a date.

- ``kv(cache, recentModels)``: ``[{providerId, modelId, usedAt}]``, newest
  first, at most ``RECENT_MAX``, one entry per model; a turn that starts on a
  model (``session.startTurn`` with both ids) puts it first. ``models.recent``
  reads it.
- ``kv(cache, modelRefresh)``: ``{providerId: ms}``, when each provider's
  model list was last fetched (``models.applyDiscovery``); ``models.list``
  returns it as ``refreshedAt``.
"""

from __future__ import annotations

from typing import Any

import apsw

from pidesktop.host import kv
from pidesktop.host.commands import command
from pidesktop.host.context import HostContext
from pidesktop.host.params import Params

NS = "cache"
RECENT_KEY, REFRESH_KEY = "recentModels", "modelRefresh"
RECENT_MAX = 10


def remember_use(conn: apsw.Connection, provider_id: str, model_id: str, now: int) -> None:
    """Put the model first in the recent list (inside the caller's transaction)."""
    others = [entry for entry in recent(conn) if (entry["providerId"], entry["modelId"]) != (provider_id, model_id)]
    entries = [{"providerId": provider_id, "modelId": model_id, "usedAt": now}, *others][:RECENT_MAX]
    kv.put(conn, NS, RECENT_KEY, entries, now)


def recent(conn: apsw.Connection) -> list[dict[str, Any]]:
    """The stored list, entries that are not well formed left out."""
    stored = kv.get(conn, NS, RECENT_KEY, [])
    if not isinstance(stored, list):
        return []
    return [
        {"providerId": e["providerId"], "modelId": e["modelId"], "usedAt": e.get("usedAt")}
        for e in stored
        if isinstance(e, dict) and isinstance(e.get("providerId"), str) and isinstance(e.get("modelId"), str)
    ]


def stamp_refresh(conn: apsw.Connection, provider_id: str, now: int) -> None:
    stamps = refreshed_at(conn)
    stamps[provider_id] = now
    kv.put(conn, NS, REFRESH_KEY, stamps, now)


def refreshed_at(conn: apsw.Connection) -> dict[str, int]:
    stored = kv.get(conn, NS, REFRESH_KEY, {})
    if not isinstance(stored, dict):
        return {}
    return {k: v for k, v in stored.items() if isinstance(v, int) and not isinstance(v, bool)}


@command("models.recent", emits=[])
def models_recent(ctx: HostContext, p: Params) -> dict[str, Any]:
    return {"models": recent(ctx.conn)}
