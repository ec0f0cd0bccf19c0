"""The command bus: the only way the UI and the agent reach the host.

A command is ``(method, params)``; its reply is a result dict or a
``HostError``. Events flow the other way as ``(topic, payload)``.
"""

from typing import TYPE_CHECKING

from pidesktop.bus.errors import ErrorCode, HostError

if TYPE_CHECKING:
    from pidesktop.bus.inprocess import HostClient, HostThread

__all__ = ["ErrorCode", "HostError", "HostClient", "HostThread"]


def __getattr__(name: str) -> object:
    # The in-process bus (asyncio, threads) is loaded when first asked for: code that only names an error
    # code (the start-up checks before the window's first paint) does not pay for asyncio.
    if name in ("HostClient", "HostThread"):
        from pidesktop.bus import inprocess

        return getattr(inprocess, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
