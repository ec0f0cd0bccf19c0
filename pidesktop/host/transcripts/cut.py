"""Cutting lines out of a transcript by their layout: which bytes stay, and where lines land.

A rewrite that only leaves lines out does not need to look at every line: the
layout already says where each message and checkpoint line starts and ends.
These pure functions turn "leave out these lines" into the byte ranges to copy
and the layout of the copy, so the copy can move large blocks.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Iterable, Sequence

from pidesktop.formats.transcript.lines import COMPACTION, MESSAGE
from pidesktop.host.transcripts.id_column import IdColumn
from pidesktop.host.transcripts.layout import Layout


def cuts_for(layout: Layout, message_ids: set[str], compaction_ids: set[str]) -> list[tuple[int, int]]:
    """``(start, end)`` of every message line whose id is in ``message_ids`` (each copy of a repeated id)
    and every checkpoint line whose id is in ``compaction_ids``, in file order."""
    cuts = [
        (offset, offset + length)
        for offset, length, record_id in zip(layout.message_offsets, layout.message_lengths, layout.message_ids)
        if record_id in message_ids
    ]
    cuts += [
        (offset, offset + length)
        for offset, length, record_id in zip(
            layout.compaction_offsets, layout.compaction_lengths, layout.compaction_ids
        )
        if record_id in compaction_ids
    ]
    return sorted(cuts)


def kept_ranges(start: int, end: int, cuts: Iterable[tuple[int, int]]) -> list[tuple[int, int]]:
    """The parts of ``[start, end)`` outside every cut (cuts sorted, not overlapping)."""
    ranges: list[tuple[int, int]] = []
    position = start
    for cut_start, cut_end in cuts:
        if cut_start > position:
            ranges.append((position, cut_start))
        position = max(position, cut_end)
    if position < end:
        ranges.append((position, end))
    return ranges


def moved_layout(layout: Layout, ranges: list[tuple[int, int]], new_start: int, dev: int, ino: int) -> Layout:
    """The layout of a file holding ``new_start`` bytes (a new header), then ``ranges`` of the old one."""
    old_starts = [old_start for old_start, _end in ranges]
    shifts = []  # for each range: new offset minus old offset
    written = new_start
    for old_start, old_end in ranges:
        shifts.append(written - old_start)
        written += old_end - old_start
    moved = Layout(dev, ino, prefix_len=written)

    def place(kind: str, offsets: Sequence[int], lengths: Sequence[int], ids: IdColumn) -> None:
        for offset, length, record_id in zip(offsets, lengths, ids):
            which = bisect_right(old_starts, offset) - 1
            if which >= 0 and offset + length <= ranges[which][1]:  # a line that stayed
                moved.add(kind, offset + shifts[which], length, record_id, track=False)

    place(MESSAGE, layout.message_offsets, layout.message_lengths, layout.message_ids)
    place(COMPACTION, layout.compaction_offsets, layout.compaction_lengths, layout.compaction_ids)
    return moved
