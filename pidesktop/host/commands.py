"""The command registry: method name -> handler.

Handlers are plain functions ``handler(ctx, params) -> dict`` registered with
``@command("session.create")`` in the module of their concept. They run on the
host thread, one at a time.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pidesktop.host.context import HostContext
from pidesktop.host.params import Params

Handler = Callable[[HostContext, Params], dict[str, Any]]

_HANDLERS: dict[str, Handler] = {}


def command(name: str) -> Callable[[Handler], Handler]:
    def register(fn: Handler) -> Handler:
        if name in _HANDLERS:
            raise RuntimeError(f"command {name} registered twice")
        _HANDLERS[name] = fn
        return fn

    return register


def lookup(name: str) -> Handler | None:
    return _HANDLERS.get(name)


def names() -> list[str]:
    return sorted(_HANDLERS)
