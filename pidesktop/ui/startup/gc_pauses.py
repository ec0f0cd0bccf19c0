"""Keep the garbage collector's full passes short once start-up is done.

A full (oldest-generation) pass walks every container object the process
holds. Right after start-up that is some 50,000 objects (the modules'
functions, classes and dicts), 60,000 once the deferred modules are in, and a
pass took 20-60 ms holding the GIL: the longest stall while the sidebar loads
10,000 chats, and one that can land in any scroll or streamed reply later.
What start-up loads lives as long as the app, so it is moved out of the
collector's reach (``gc.freeze``), once when the window is up and once after
the warm-up; later passes walk only what came after (about 1 ms). Reference
counting still frees any of it that is let go; only a reference cycle made
before a freeze stays. No collection is forced before freezing: it would be
one more full pass in the middle of start-up.

Before that, the window's start runs with the collector off (``pause_start``
until ``start_done``): nearly all it allocates is of that kind, and the
passes over it were about 9 ms before the first frame and 7 ms more while
the widgets were built, for nothing to free.
"""

from __future__ import annotations

import gc

_frozen: set[str] = set()


def pause_start() -> None:
    """No collector pass from here until ``start_done`` (the window's start)."""
    gc.disable()


def resume() -> None:
    gc.enable()


def start_done() -> None:
    """The window is built: what start-up made is frozen (stage ``window``) and the collector runs again."""
    freeze("window")
    gc.enable()


def freeze(stage: str) -> bool:
    """Freeze what the process holds now, once per ``stage``; True if this call froze it."""
    if stage in _frozen:
        return False
    _frozen.add(stage)
    gc.freeze()
    return True
