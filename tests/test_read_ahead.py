"""An iterator drained one item ahead by a helper thread gives the source's items, errors and end, and never
outlives its caller."""

from __future__ import annotations

import threading
from collections.abc import Iterator

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pidesktop.host.transcripts.read_ahead import read_ahead


class Source:
    """A generator source that records where it ran, how far it got and whether it was closed."""

    def __init__(self, items: list[int], fail_at: int | None = None) -> None:
        self.items = items
        self.fail_at = fail_at
        self.made = 0
        self.closed = False
        self.thread: int | None = None

    def __call__(self) -> Iterator[int]:
        self.thread = threading.get_ident()
        try:
            for index, item in enumerate(self.items):
                if index == self.fail_at:
                    raise OSError(f"broken at {index}")
                self.made += 1
                yield item
        finally:
            self.closed = True


def helpers() -> list[threading.Thread]:
    return [thread for thread in threading.enumerate() if thread.name == "pidesktop-read-ahead"]


@given(st.lists(st.integers()), st.integers(min_value=1, max_value=3))
def test_every_item_comes_in_order_from_another_thread(items, depth):
    source = Source(items)
    assert list(read_ahead(source, depth)) == items
    assert source.closed and source.thread != threading.get_ident()
    assert helpers() == []


@given(st.lists(st.integers(), min_size=1), st.data())
def test_an_error_reaches_the_caller_after_the_items_before_it(items, data):
    fail_at = data.draw(st.integers(min_value=0, max_value=len(items) - 1))
    got: list[int] = []
    with pytest.raises(OSError, match=f"broken at {fail_at}"):
        for item in read_ahead(Source(items, fail_at)):
            got.append(item)
    assert got == items[:fail_at]
    assert helpers() == []


@given(st.lists(st.integers(), min_size=1, max_size=50), st.data(), st.integers(min_value=1, max_value=3))
def test_a_caller_that_stops_early_closes_the_source_on_the_spot(items, data, depth):
    wanted = data.draw(st.integers(min_value=0, max_value=len(items) - 1))
    source = Source(items)
    ahead = read_ahead(source, depth)
    for _ in range(wanted + 1):
        next(ahead)
        # Bounded: the helper holds at most ``depth`` items in the queue and one it is handing over.
        assert source.made <= wanted + 1 + depth + 1
    ahead.close()
    assert source.closed
    assert helpers() == []


def test_a_depth_below_one_is_refused():
    with pytest.raises(ValueError, match="depth"):
        next(read_ahead(lambda: iter([1]), 0))
