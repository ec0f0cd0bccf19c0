"""The command registry: method name -> handler, and the events each handler emits.

Handlers are plain functions ``handler(ctx, params) -> dict`` registered with
``@command("session.create", emits=[topics.SESSION_CHANGED])`` in the module
of their concept (``handlers.py`` finds those modules). ``emits`` names every
event the command may cause (``pidesktop.bus.topics``), also those a job it
starts emits later; ``docs/rpc.md`` documents the same list for each command
(a test compares them). Handlers run on the host thread, one at a time.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from pidesktop.bus import topics
from pidesktop.host.context import HostContext
from pidesktop.host.params import Params

Handler = Callable[[HostContext, Params], dict[str, Any]]

_HANDLERS: dict[str, Handler] = {}
_EMITS: dict[str, frozenset[str]] = {}


def command(name: str, *, emits: Iterable[str]) -> Callable[[Handler], Handler]:
    declared = frozenset(emits)
    unknown = sorted(declared - topics.ALL)
    if unknown:
        raise ValueError(f"command {name} declares events that are not topics: {unknown}")

    def register(fn: Handler) -> Handler:
        if name in _HANDLERS:
            raise RuntimeError(f"command {name} registered twice")
        _HANDLERS[name] = fn
        _EMITS[name] = declared
        return fn

    return register


def lookup(name: str) -> Handler | None:
    return _HANDLERS.get(name)


def names() -> list[str]:
    return sorted(_HANDLERS)


def emits(name: str) -> frozenset[str]:
    """The events command ``name`` declares (KeyError for no such command)."""
    return _EMITS[name]
