"""The layout of a transcript: where each message and compaction line lives.

A layout lists the byte offset, length and top-level id of every message line
and every compaction line, in file order, together with the identity of the
file it describes (``st_dev``, ``st_ino``) and ``prefix_len``, the number of
bytes up to and including the last ``\\n`` it covers. A torn trailing line is
outside the prefix, so it is picked up by a later scan once it is complete.

With a layout, a page of history is a handful of positioned reads instead of
a pass over the whole file. Because the file is append-only between rewrites,
a layout whose file has grown is brought up to date by scanning only the new
bytes. Offsets can still go stale (someone edits the file in place), so every
line read through a layout is checked against it; a mismatch raises
:class:`StaleLayout` and the caller rescans.
"""

from __future__ import annotations

import os
from array import array
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

from pidesktop.formats.transcript.lines import (
    COMPACTION,
    MESSAGE,
    WRITER_LINE_START,
    is_classified_as,
    scan_top_level,
)
from pidesktop.host.transcripts.files import ReadCounter, read_at, read_to_end
from pidesktop.host.transcripts.id_column import IdColumn

_NEWLINE = 0x0A
# Up to this many later lines, finding which lines of a range are hidden looks at each of them in turn.
LOOK_BACK = 1024

# Told of each line that is neither a message nor a compaction: (type, line start, line end).
OtherLine = Callable[[str | None, int, int], None]


def _int64s() -> array[int]:
    return array("q")


class StaleLayout(Exception):
    """The file no longer matches the layout used to read it."""


@dataclass
class Layout:
    """Offsets and lengths are int64 arrays and ids an :class:`IdColumn`: about 60 MB at a million lines
    where lists of Python ints and strings took about 150 MB. Lists given to the constructor are packed."""

    dev: int
    ino: int
    prefix_len: int = 0
    message_offsets: array[int] = field(default_factory=_int64s)
    message_lengths: array[int] = field(default_factory=_int64s)
    message_ids: IdColumn = field(default_factory=IdColumn)
    compaction_offsets: array[int] = field(default_factory=_int64s)
    compaction_lengths: array[int] = field(default_factory=_int64s)
    compaction_ids: IdColumn = field(default_factory=IdColumn)
    # Last position of each message id, built on first use and kept up to date by add().
    _last_positions: dict[str | None, int] | None = field(default=None, compare=False, repr=False)

    def __post_init__(self) -> None:
        for kind in ("message", "compaction"):
            for part in ("offsets", "lengths"):
                values: Sequence[int] = getattr(self, f"{kind}_{part}")
                if not isinstance(values, array):
                    setattr(self, f"{kind}_{part}", array("q", values))
            ids: Iterable[str | None] = getattr(self, f"{kind}_ids")
            if not isinstance(ids, IdColumn):
                setattr(self, f"{kind}_ids", IdColumn(ids))

    @property
    def total(self) -> int:
        """Number of message lines (hidden duplicates included)."""
        return len(self.message_offsets)

    def describes(self, stat: os.stat_result) -> bool:
        return (self.dev, self.ino) == (stat.st_dev, stat.st_ino) and self.prefix_len <= stat.st_size

    def add(self, kind: str | None, offset: int, length: int, record_id: str | None, *, track: bool = True) -> None:
        """Add one line (other kinds are ignored); ``track=False`` leaves the id index to a later :meth:`note_added`."""
        if kind == MESSAGE:
            if track and self._last_positions is not None:
                self._last_positions[record_id] = len(self.message_offsets)
            self.message_offsets.append(offset)
            self.message_lengths.append(length)
            self.message_ids.append(record_id)
        elif kind == COMPACTION:
            self.compaction_offsets.append(offset)
            self.compaction_lengths.append(length)
            self.compaction_ids.append(record_id)

    def note_added(self, first: int) -> None:
        """Index the message lines added from position ``first`` on without add()."""
        if self._last_positions is not None:
            self._last_positions.update(zip(self.message_ids.iter_from(first), range(first, len(self.message_ids))))

    def last_position(self, message_id: str) -> int | None:
        """Position of the last message line carrying ``message_id``."""
        return self._positions().get(message_id)

    def visible_count(self) -> int:
        """Number of message lines no later line hides: the distinct message ids."""
        return len(self._positions())

    def is_hidden(self, position: int) -> bool:
        """True when a later line repeats this line's id (the later one wins)."""
        return self._positions().get(self.message_ids[position]) != position

    def hidden_between(self, start: int, end: int) -> set[int]:
        """Positions in ``[start, end)`` whose id a later line repeats."""
        ids = self.message_ids
        if self._last_positions is None and self.total - start > LOOK_BACK and end - start > LOOK_BACK:
            # Most of the layout at once (a streamed read of the whole chat): compare the ids by hash
            # rather than build the id index the layout would then keep (about 130 MB at a million lines).
            return {position for position in ids.repeated_before(start) if position < end}
        if self._last_positions is None and self.total - start <= 4 * (end - start) + LOOK_BACK:
            # Near the newest lines (where reading usually starts) only the few
            # lines after ``start`` can hide anything: no need to index them all.
            later: set[str | None] = set()
            hidden = set()
            for position, record_id in zip(range(self.total - 1, start - 1, -1), reversed(list(ids.iter_from(start)))):
                if record_id in later:
                    if position < end:
                        hidden.add(position)
                else:
                    later.add(record_id)
            return hidden
        positions = self._positions()
        in_range = zip(range(start, end), ids.iter_from(start))
        return {position for position, record_id in in_range if positions.get(record_id) != position}

    def _positions(self) -> dict[str | None, int]:
        if self._last_positions is None:
            # dict() keeps the last value for a repeated key: exactly keep-last.
            self._last_positions = dict(zip(self.message_ids, range(len(self.message_ids))))
        return self._last_positions


def scan_lines(layout: Layout, chunks: Iterable[bytes], start: int, on_other_line: OtherLine | None = None) -> None:
    """Add the complete lines of ``chunks`` (file bytes from offset ``start``) to ``layout``.

    ``start`` must be a line boundary. Bytes after the last newline are left
    out, and ``layout.prefix_len`` ends just after that newline. Every other
    complete line (header, unknown type, unclassifiable) is reported as
    ``on_other_line(type, line_start, line_end)`` in file offsets, newline
    included, when that callback is given.
    """
    first_new = layout.total
    carry = b""
    base = start  # file offset of buf[0]
    for chunk in chunks:
        buf = carry + chunk if carry else chunk
        complete = buf.rfind(b"\n") + 1
        if complete:
            _scan_complete_lines(layout, buf, complete, base, on_other_line)
            layout.prefix_len = base + complete
        carry = buf[complete:]
        base += complete
    layout.note_added(first_new)


def _scan_complete_lines(layout: Layout, buf: bytes, complete: int, base: int, on_other_line: OtherLine | None) -> None:
    """Classify every line of ``buf[:complete]``, whose offset in the file is ``base``.

    This loop runs once per line of a history, so it is kept flat: lines in
    the writer's shape are classified by one regex match, and only the others
    pay for the full depth-aware scan.
    """
    find = buf.find
    writer_shaped = WRITER_LINE_START.match
    add_offset = layout.message_offsets.append
    add_length = layout.message_lengths.append
    add_id = layout.message_ids.append
    # The column's own parts for the ASCII ids the regex matched: what append_encoded() does, minus a call per line.
    id_bytes = layout.message_ids.data
    add_id_end = layout.message_ids.ends.append
    pos = 0
    while pos < complete:
        end = find(b"\n", pos) + 1
        match = writer_shaped(buf, pos, end - 1)
        if match is None:
            kind, record_id = scan_top_level(buf, pos, end - 1)
            if kind == MESSAGE or kind == COMPACTION:
                layout.add(kind, base + pos, end - pos, record_id, track=False)
            elif on_other_line is not None:
                on_other_line(kind, base + pos, base + end)
        else:
            raw_kind, raw_id = match.groups()
            if raw_kind == b"message":
                add_offset(base + pos)
                add_length(end - pos)
                if raw_id is None:
                    add_id(scan_top_level(buf, pos, end - 1).id)
                elif raw_id.isascii():  # the bytes the column would store for it
                    id_bytes += raw_id
                    add_id_end(len(id_bytes))
                else:
                    add_id(raw_id.decode("utf-8", "replace"))
            elif raw_kind == b"compaction":
                record_id = (
                    raw_id.decode("utf-8", "replace") if raw_id is not None else scan_top_level(buf, pos, end - 1).id
                )
                layout.add(COMPACTION, base + pos, end - pos, record_id)
            elif on_other_line is not None:
                on_other_line(raw_kind.decode("utf-8", "replace"), base + pos, base + end)
        pos = end


def scan_file(fd: int, stat: os.stat_result, counter: ReadCounter) -> Layout:
    """A fresh layout of the whole file."""
    layout = Layout(stat.st_dev, stat.st_ino)
    scan_lines(layout, read_to_end(fd, 0, counter), 0)
    return layout


def scan_bytes(data: bytes, stat: os.stat_result, on_other_line: OtherLine | None = None) -> Layout:
    """A layout of ``data``, the whole content of the file ``stat`` describes."""
    layout = Layout(stat.st_dev, stat.st_ino)
    scan_lines(layout, (data,), 0, on_other_line)
    return layout


def ends_at_line_boundary(fd: int, offset: int, counter: ReadCounter) -> bool:
    return offset == 0 or read_at(fd, offset - 1, 1, counter) == b"\n"


def extend(layout: Layout, fd: int, counter: ReadCounter) -> None:
    """Scan what was appended after ``layout.prefix_len`` (which must still end a line)."""
    scan_lines(layout, read_to_end(fd, layout.prefix_len, counter), layout.prefix_len)


def read_lines(
    fd: int,
    offsets: Sequence[int],
    lengths: Sequence[int],
    ids: IdColumn,
    kind: str,
    indexes: range | list[int],
    counter: ReadCounter,
) -> list[bytes]:
    """The lines at ``indexes`` of one kind, each checked against the layout.

    Adjacent lines are fetched with a single read; each run also fetches the
    byte before it, which must be a newline. Raises :class:`StaleLayout` when
    any line does not start where, or hold what, the layout says.
    """
    lines: list[bytes] = []
    indexes = list(indexes)
    i = 0
    while i < len(indexes):
        run_end = i + 1
        while run_end < len(indexes):
            previous, current = indexes[run_end - 1], indexes[run_end]
            if offsets[previous] + lengths[previous] != offsets[current]:
                break
            run_end += 1
        first, last = indexes[i], indexes[run_end - 1]
        lead = 1 if offsets[first] > 0 else 0
        start = offsets[first] - lead
        size = offsets[last] + lengths[last] - start
        data = read_at(fd, start, size, counter)
        if len(data) != size or (lead and data[0] != _NEWLINE):
            raise StaleLayout
        run = indexes[i:run_end]
        low = min(run)  # adjacent lines have consecutive positions: the run's ids, sliced in one pass
        run_ids = ids.between(low, max(run) + 1)
        for index in run:
            begin = offsets[index] - start
            end = begin + lengths[index]
            if data[end - 1] != _NEWLINE or not is_classified_as(data, begin, end - 1, kind, run_ids[index - low]):
                raise StaleLayout
            lines.append(data[begin:end])
        i = run_end
    return lines
