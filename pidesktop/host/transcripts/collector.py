"""The cyclic garbage collector held off while a batch of parsed records is built.

A streamed read keeps a batch of parsed lines (about 4 MB of JSON: tens of
thousands of dicts and lists) while it builds it. Every 700 allocations the
collector walks the young objects, and the records of the batch survive into
the older generations and are walked again there: about half again the parse
of the same lines (0.55x of a bare parse, 10,000 messages), for nothing, since
parsed JSON holds no reference cycle and is freed by its reference counts.

The collector is process-wide; held off only while it was on and let run again
only if it is still off (another thread's pause, such as the window's start,
is never cut short by this one ending first; one that starts and ends inside
this one turns it back on early, which costs a pass, not correctness).
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def paused() -> Iterator[None]:
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()
