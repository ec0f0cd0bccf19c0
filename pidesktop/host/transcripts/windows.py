"""Windows over a transcript's history, in physical message positions.

A position is the 0-based index of a message line among the message lines of
the file; the header, compactions and other lines do not count. A line hidden
by a later line with the same id keeps its position (positions never shift)
but is not returned. ``end`` is exclusive throughout.

Selection rules:

- ``before`` / ``limit``: the ``limit`` lines ending just before ``before``
  (``before`` defaults to, and is capped at, ``total``);
- ``start`` / ``limit``: the ``limit`` lines from ``start`` onwards;
- ``around`` / ``limit``: ``limit`` lines centred on the last line carrying
  that id, shifted inwards at either end of the history so the page stays
  full; an id the file does not hold raises :class:`MessageNotFound`.

``limit=None`` means no limit.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


class MessageNotFound(KeyError):
    """The transcript holds no message with the requested id."""


@dataclass
class Window:
    messages: list[tuple[int, dict[str, Any]]]
    start: int
    end: int
    total: int
    has_more_before: bool
    has_more_after: bool
    compactions: list[dict[str, Any]] = field(default_factory=list)


@dataclass(frozen=True)
class WindowRequest:
    before: int | None = None
    limit: int | None = None
    around: str | None = None
    start: int | None = None

    def __post_init__(self) -> None:
        if sum(value is not None for value in (self.before, self.around, self.start)) > 1:
            raise ValueError("give at most one of before, around and start")
        if self.limit is not None and not (_is_count(self.limit) and self.limit > 0):
            raise ValueError(f"limit must be a positive integer or None, not {self.limit!r}")
        for name in ("before", "start"):
            value = getattr(self, name)
            if value is not None and not _is_count(value):
                raise ValueError(f"{name} must be a non-negative integer or None, not {value!r}")
        if self.around is not None and not isinstance(self.around, str):
            raise ValueError("around must be a message id")


def _is_count(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def select(request: WindowRequest, total: int, around_position: int | None = None) -> tuple[int, int]:
    """The ``[start, end)`` range of positions the request covers.

    ``around_position`` is the position of ``request.around``, which the
    caller looks up (and raises :class:`MessageNotFound` for) beforehand.
    """
    limit = total if request.limit is None else request.limit
    if request.around is not None:
        assert around_position is not None
        start = max(0, around_position - limit // 2)
        end = min(total, start + limit)
        return max(0, end - limit), end
    if request.start is not None:
        start = min(request.start, total)
        return start, min(total, start + limit)
    end = total if request.before is None else min(request.before, total)
    return max(0, end - limit), end
