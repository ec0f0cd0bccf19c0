"""TranscriptStore: the file layer for conversation transcripts.

Each conversation is ``<sessions_dir>/<session_id>.jsonl``, the source of
truth for its messages. The store writes it durably, reads it whole, and
serves windows of it through a layout (kept in memory per session and on disk
next to the transcript) so that a page costs the same whatever the length of
the history.

The store is meant for a single thread and a single writer per transcript.
"""

from __future__ import annotations

import logging
import os
from array import array
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

from pidesktop.formats.transcript import binary_storage
from pidesktop.formats.transcript.lines import (
    COMPACTION,
    MESSAGE,
    SESSION,
    WRITER_LINE_START,
    is_classified_as,
    scan_top_level,
)
from pidesktop.formats.transcript.records import (
    InvalidRecord,
    decode_record,
    encode_record,
    now_rfc3339,
    parse_line,
    session_header,
)
from pidesktop.host.transcripts import collector, cut, info, layout_cache
from pidesktop.host.transcripts.files import (
    ReadCounter,
    append_durably,
    atomic_stream,
    atomic_write,
    create_exclusive,
    fsync_dir,
    read_at,
    read_to_end,
    read_whole,
)
from pidesktop.host.transcripts.layout import (
    Layout,
    StaleLayout,
    ends_at_line_boundary,
    extend,
    read_lines,
    scan_bytes,
    scan_file,
)
from pidesktop.host.transcripts.windows import MessageNotFound, Window, WindowRequest, select

log = logging.getLogger("pidesktop.host.transcripts")

# Save the disk cache again once it lags this far behind: a reopen then
# rescans at most this much tail.
SAVE_AFTER_ENTRIES = 512
SAVE_AFTER_BYTES = 4 << 20
DIR_MODE = 0o700  # like every folder of the data root
COPY_BLOCK = 1 << 20  # bytes a rewrite that only cuts lines out copies at a time
STREAM_BLOCK = 4 << 20  # bytes of message lines a streamed read holds at a time (a longer line alone)
PATHS_KEPT = 4096  # transcript paths remembered (a chat id's path is built once while it is in use)


class TranscriptChanged(OSError):
    """The transcript kept changing while it was being read."""


@dataclass
class Transcript:
    header: dict[str, Any] | None
    messages: list[tuple[int, dict[str, Any]]]
    compactions: list[dict[str, Any]]
    total: int = 0  # message lines, hidden duplicates included


@dataclass(frozen=True)
class Appended:
    """Where an appended line landed: its message position (None for other kinds) and its bytes."""

    position: int | None
    start: int  # the file's length before the line
    end: int  # and after it


@dataclass
class _Remembered:
    layout: Layout
    # What the disk cache holds (message count, prefix length); None: nothing usable.
    saved: tuple[int, int] | None


class TranscriptStore:
    def __init__(self, sessions_dir: Path):
        self.sessions_dir = Path(sessions_dir)
        self._layouts: dict[str, _Remembered] = {}
        self._reads = ReadCounter()
        self._paths: dict[str, Path] = {}  # an append asks for its file's path several times

    # -- names ---------------------------------------------------------------

    def path(self, session_id: str) -> Path:
        path = self._paths.get(session_id)
        if path is None:
            if len(self._paths) >= PATHS_KEPT:
                self._paths.clear()
            path = self._paths[session_id] = self.sessions_dir / self.file_name(session_id)
        return path

    @staticmethod
    def file_name(session_id: str) -> str:
        """The transcript's name in ``sessions/`` (a plain string: start-up looks at every chat's)."""
        if (
            not isinstance(session_id, str)
            or not session_id
            or session_id.startswith(".")
            or any(char in session_id for char in "/\\\0")
        ):
            raise ValueError(f"not a usable session id: {session_id!r}")
        return f"{session_id}.jsonl"

    def layout_path(self, session_id: str) -> Path:
        return self.sessions_dir / f"{session_id}.jsonl.layout"

    def exists(self, session_id: str) -> bool:
        return self.path(session_id).is_file()

    @property
    def bytes_read(self) -> int:
        """Bytes read from transcript files by this store so far."""
        return self._reads.bytes_read

    # -- writing -------------------------------------------------------------

    def create(self, session_id: str, created_at: str) -> None:
        """Create the transcript with its header; ``FileExistsError`` if it exists."""
        path = self.path(session_id)
        self._ensure_sessions_dir()
        header = encode_record(session_header(session_id, created_at))
        create_exclusive(path, header)
        # A cache left by an earlier file of that name could match a reused inode.
        layout_cache.remove(self.layout_path(session_id))
        stat = os.stat(path)
        self._layouts[session_id] = _Remembered(Layout(stat.st_dev, stat.st_ino, len(header)), (0, len(header)))

    def append(self, session_id: str, record: dict[str, Any]) -> int | None:
        """Append ``record`` durably; its message position, or None for other kinds.

        An incomplete last line (left by a crash mid-append) is cut off first,
        so the new record does not merge into it.
        """
        return self.append_line(session_id, record).position

    def append_line(self, session_id: str, record: dict[str, Any]) -> Appended:
        """``append``, saying where the line landed (the bytes a failed index commit takes back)."""
        line = _encode_body_record(record)
        kind, record_id = scan_top_level(line, 0, len(line) - 1)
        path = self.path(session_id)
        if not path.exists():
            try:
                self.create(session_id, now_rfc3339())
            except FileExistsError:
                pass
        fd = os.open(path, os.O_RDWR | os.O_APPEND)
        try:
            layout = self._current_layout(session_id, fd, os.fstat(fd))
            size = os.fstat(fd).st_size
            if size > layout.prefix_len and not self._mend_tail(fd, layout, size, path):
                log.warning("discarding %d bytes of an incomplete last line of %s", size - layout.prefix_len, path)
                os.ftruncate(fd, layout.prefix_len)
            try:
                append_durably(fd, line)
            except BaseException:
                self._layouts.pop(session_id, None)  # the file's end is unknown now
                raise
        finally:
            os.close(fd)
        start = layout.prefix_len
        layout.add(kind, start, len(line), record_id)
        layout.prefix_len += len(line)
        self._save_if_lagging(session_id)
        return Appended(layout.total - 1 if kind == MESSAGE else None, start, layout.prefix_len)

    def mend_unterminated_tail(self, session_id: str) -> bool:
        """Give a last line that is a complete record but lacks its ``\\n`` (a cut file) its newline.

        True when it did. A strict prefix of a JSON object is never a JSON
        object, so a line a crash tore mid-write never passes for complete.
        """
        try:
            fd = os.open(self.path(session_id), os.O_RDWR | os.O_APPEND)
        except FileNotFoundError:
            return False
        try:
            layout = self._current_layout(session_id, fd, os.fstat(fd))
            size = os.fstat(fd).st_size
            return size > layout.prefix_len and self._mend_tail(fd, layout, size, self.path(session_id))
        finally:
            os.close(fd)

    def take_back(self, session_id: str, length: int) -> None:
        """Cut the transcript back to ``length`` bytes: undo an append whose index commit failed."""
        path = self.path(session_id)
        self._layouts.pop(session_id, None)  # the file's end moves back; rescan on next use
        fd = os.open(path, os.O_WRONLY)
        try:
            os.ftruncate(fd, length)
            os.fsync(fd)
        finally:
            os.close(fd)

    def length(self, session_id: str) -> int | None:
        """The transcript's size in bytes, or None if there is no file."""
        try:
            return os.stat(self.path(session_id)).st_size
        except FileNotFoundError:
            return None

    def _mend_tail(self, fd: int, layout: Layout, size: int, path: Path) -> bool:
        tail = read_at(fd, layout.prefix_len, size - layout.prefix_len, self._reads)
        if b"\n" in tail or not _is_complete_record(tail):
            return False
        append_durably(fd, b"\n")
        extend(layout, fd, self._reads)
        log.warning("gave the complete last line of %s its missing newline", path)
        return True

    def rewrite(self, session_id: str, records: list[dict[str, Any]], header: dict[str, Any] | None = None) -> None:
        """Replace the whole transcript atomically; keeps the current header when ``header`` is None."""
        kept_info = self._folded_info(session_id, records)
        body = b"".join(_encode_body_record(record) for record in [*kept_info, *records])
        if header is None:
            header = self._read_header(session_id) or session_header(session_id, now_rfc3339())
        header_line = encode_record({**header, "type": SESSION})
        self._ensure_sessions_dir()
        atomic_write(self.path(session_id), header_line + body)
        self._drop_layouts(session_id)  # only now: until the rename, the old layouts were right

    def _folded_info(self, session_id: str, records: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """The current file's ``session_info`` lines as one record and its ``session_row`` lines as one per row,
        unless ``records`` carry their own."""
        own_info = any(record.get("type") == info.INFO for record in records)
        own_rows = any(record.get("type") == info.ROW for record in records)
        if own_info and own_rows:
            return []
        try:
            data = self.path(session_id).read_bytes()
        except FileNotFoundError:
            return []
        line = None if own_info else info.folded_line(info.fold(data))
        rows = [] if own_rows else info.folded_row_lines(data)
        return ([] if line is None else [line]) + rows

    def rewrite_dropping(
        self, session_id: str, message_ids: set[str], compaction_ids: set[str], header: dict[str, Any]
    ) -> None:
        """Replace the transcript by itself without the message lines of ``message_ids`` (every copy of
        a repeated id) and the checkpoint lines of ``compaction_ids``, in one pass of large blocks.

        The layout says where those lines are, so the rest of the file is copied
        byte for byte as a few ranges (1 MiB at a time) instead of line by line,
        and the new layout is the old one moved, not a rescan. ``header`` comes
        first; the old header and a torn trailing line are not copied. The same
        atomic replacement as :meth:`rewrite`. ``FileNotFoundError`` if there is
        no transcript.
        """
        path = self.path(session_id)
        header_line = encode_record({**header, "type": SESSION})
        with open(path, "rb") as source:
            fd = source.fileno()
            layout = self._current_layout(session_id, fd, os.fstat(fd))
            first = source.readline()
            start = len(first) if first.endswith(b"\n") and _classify(first)[0] == SESSION else 0
            ranges = cut.kept_ranges(start, layout.prefix_len, cut.cuts_for(layout, message_ids, compaction_ids))
            with atomic_stream(path) as out:
                out.write(header_line)
                for range_start, range_end in ranges:
                    offset = range_start
                    while offset < range_end:
                        block = os.pread(fd, min(COPY_BLOCK, range_end - offset), offset)
                        if not block:
                            raise TranscriptChanged(f"{path} got shorter while it was being rewritten")
                        out.write(block)
                        offset += len(block)
                stat = os.fstat(out.fileno())
                moved = cut.moved_layout(layout, ranges, len(header_line), stat.st_dev, stat.st_ino)
        self._drop_layouts(session_id)  # only now: until the rename, the old layouts were right
        self._layouts[session_id] = _Remembered(moved, None)

    def header(self, session_id: str) -> dict[str, Any] | None:
        """The transcript's header, or None if there is no file or no valid header."""
        return self._read_header(session_id)

    def delete(self, session_id: str) -> None:
        """Remove the transcript and its layout cache, if present."""
        path = self.path(session_id)
        self._layouts.pop(session_id, None)
        layout_cache.remove(self.layout_path(session_id))
        try:
            path.unlink()
        except FileNotFoundError:
            return
        fsync_dir(path.parent)

    # -- reading -------------------------------------------------------------

    def _read_whole(
        self, session_id: str, report_unreadable: bool
    ) -> tuple[memoryview, Layout, dict[str, Any] | None, str]:
        """One sequential read of the file: its bytes, a fresh layout (adopted) and the header."""
        path = self.path(session_id)
        fd = os.open(path, os.O_RDONLY)
        try:
            data = read_whole(fd, self._reads)
            stat = os.fstat(fd)
        finally:
            os.close(fd)
        others: list[tuple[str | None, int, int]] = []
        layout = scan_bytes(data, stat, lambda kind, start, end: others.append((kind, start, end)))
        self._adopt(session_id, layout)
        view = memoryview(data)
        name = path.name
        header = None
        for kind, start, end in others:
            if kind == SESSION and start == 0:
                header = decode_record(view[start:end], SESSION, None, name, start)
            elif report_unreadable:
                _report_unreadable(view[start:end], kind, name, start)
        return view, layout, header, name

    def read_all(self, session_id: str) -> Transcript:
        """Everything in the transcript, from one sequential read; ``FileNotFoundError`` if missing."""
        view, layout, header, name = self._read_whole(session_id, report_unreadable=True)
        if header is None and layout.prefix_len:
            log.warning("%s does not start with a session header", name)

        total = layout.total
        hidden = layout.hidden_between(0, total)
        wanted = [p for p in range(total) if p not in hidden] if hidden else range(total)
        try:
            with collector.paused():  # every record stays alive: nothing for the collector to free
                messages = _decode_lines(
                    view.obj,  # type: ignore[arg-type]  # read_whole's bytes
                    0,
                    layout.message_offsets,
                    layout.message_lengths,
                    wanted,
                    0,
                    layout.message_ids.between(0, total),
                    name,
                )
        except StaleLayout:  # never for the layout of these very bytes; the lines as they are, line by line
            messages = self._decoded_one_by_one(view, layout, name)
        compactions = []
        for offset, length, record_id in zip(
            layout.compaction_offsets, layout.compaction_lengths, layout.compaction_ids
        ):
            record = decode_record(view[offset : offset + length], COMPACTION, record_id, name, offset)
            if record is not None:
                compactions.append(record)
        return Transcript(header, messages, compactions, layout.total)

    @staticmethod
    def _decoded_one_by_one(view: memoryview, layout: Layout, name: str) -> list[tuple[int, dict[str, Any]]]:
        messages = []
        offsets, lengths, ids = layout.message_offsets, layout.message_lengths, layout.message_ids
        for position in range(layout.total):
            if layout.is_hidden(position):
                continue
            offset = offsets[position]
            record = decode_record(view[offset : offset + lengths[position]], MESSAGE, ids[position], name, offset)
            if record is not None:
                messages.append((position, record))
        return messages

    def stream_messages(self, session_id: str, block: int = STREAM_BLOCK) -> Iterator[list[tuple[int, dict[str, Any]]]]:
        """What :meth:`read_all` gives as ``messages``, a batch of about ``block`` bytes of lines at a time.

        Memory stays bounded by the block and the layout whatever the length of
        the history: neither the file nor every record is held. The layout is
        read (or scanned) once when the iteration starts. ``FileNotFoundError``
        if missing; ``TranscriptChanged`` when the file stops matching its
        layout while it is being read.
        """
        path = self.path(session_id)
        fd = os.open(path, os.O_RDONLY)
        try:
            layout = self._current_layout(session_id, fd, os.fstat(fd))
            lengths, ids = layout.message_lengths, layout.message_ids
            total = layout.total
            # One pass over the ids, compared by hash while it runs: not the id index is_hidden() would build
            # and the layout keep (about 130 MB at a million lines).
            hidden = layout.hidden_between(0, total)
            name = path.name
            position = 0
            while position < total:
                end, size = position + 1, lengths[position]
                while end < total and size + lengths[end] <= block:
                    size += lengths[end]
                    end += 1
                wanted = [p for p in range(position, end) if p not in hidden] if hidden else range(position, end)
                batch_ids = ids.between(position, end)  # one slicing pass, not a lookup per line
                try:
                    batch = _decoded_messages(fd, layout, wanted, position, batch_ids, name, self._reads)
                except StaleLayout:
                    self._drop_stale(session_id, path)
                    raise TranscriptChanged(f"{path} changed while being read") from None
                yield batch
                position = end
        finally:
            os.close(fd)

    def read_records(self, session_id: str) -> tuple[dict[str, Any] | None, list[dict[str, Any]]]:
        """The header and every message and compaction record, interleaved in file order.

        A repeated message id appears once, with its last line's content at that
        line's place (keep-last), so a rewrite from these records keeps every
        checkpoint where it was. ``FileNotFoundError`` if missing.
        """
        view, layout, header, name = self._read_whole(session_id, report_unreadable=False)
        lines = [
            (layout.message_offsets[position], layout.message_lengths[position], MESSAGE, layout.message_ids[position])
            for position in range(layout.total)
            if not layout.is_hidden(position)
        ]
        lines += zip(
            layout.compaction_offsets,
            layout.compaction_lengths,
            [COMPACTION] * len(layout.compaction_offsets),
            layout.compaction_ids,
        )
        lines.sort()
        records = []
        for offset, length, kind, record_id in lines:
            record = decode_record(view[offset : offset + length], kind, record_id, name, offset)
            if record is not None:
                records.append(record)
        return header, records

    def window(
        self,
        session_id: str,
        *,
        before: int | None = None,
        limit: int | None = None,
        around: str | None = None,
        start: int | None = None,
    ) -> Window:
        """A page of history plus every compaction; see :mod:`.windows` for the selection rules.

        A transcript that does not exist yet reads as empty.
        """
        request = WindowRequest(before=before, limit=limit, around=around, start=start)
        path = self.path(session_id)
        try:
            fd = os.open(path, os.O_RDONLY)
        except FileNotFoundError:
            if around is not None:
                raise MessageNotFound(around) from None
            return Window([], 0, 0, 0, False, False, [])
        try:
            for attempt in range(2):
                layout = self._current_layout(session_id, fd, os.fstat(fd), use_disk_cache=attempt == 0)
                around_position = None
                if around is not None:
                    around_position = layout.last_position(around)
                    if around_position is None:
                        raise MessageNotFound(around)
                first, end = select(request, layout.total, around_position)
                try:
                    message_lines = self._read_messages(fd, layout, range(first, end))
                    compaction_lines = self._read_compactions(fd, layout)
                except StaleLayout:
                    self._drop_stale(session_id, path)
                    continue
                hidden = layout.hidden_between(first, end)
                messages = []
                for position, line in zip(range(first, end), message_lines):
                    if position in hidden:
                        continue
                    record = decode_record(
                        line, MESSAGE, layout.message_ids[position], path.name, layout.message_offsets[position]
                    )
                    if record is not None:
                        messages.append((position, record))
                compactions = self._decode_compactions(layout, compaction_lines, path.name)
                return Window(messages, first, end, layout.total, first > 0, end < layout.total, compactions)
        finally:
            os.close(fd)
        raise TranscriptChanged(f"{path} changed while being read")

    def find(self, session_id: str, message_id: str) -> tuple[int, dict[str, Any]] | None:
        """The latest line carrying ``message_id`` and its position, read through the layout."""
        path = self.path(session_id)
        try:
            fd = os.open(path, os.O_RDONLY)
        except FileNotFoundError:
            return None
        try:
            for attempt in range(2):
                layout = self._current_layout(session_id, fd, os.fstat(fd), use_disk_cache=attempt == 0)
                position = layout.last_position(message_id)
                if position is None:
                    return None
                try:
                    (line,) = self._read_messages(fd, layout, [position])
                except StaleLayout:
                    self._drop_stale(session_id, path)
                    continue
                record = decode_record(line, MESSAGE, message_id, path.name, layout.message_offsets[position])
                return None if record is None else (position, record)
        finally:
            os.close(fd)
        raise TranscriptChanged(f"{path} changed while being read")

    def message_count(self, session_id: str) -> int:
        """Number of message lines (hidden duplicates included); 0 when the file does not exist."""
        current = self.layout(session_id)
        return 0 if current is None else current.total

    # -- layouts -------------------------------------------------------------

    def layout(self, session_id: str) -> Layout | None:
        """The up-to-date layout of the transcript, or None if it does not exist."""
        try:
            fd = os.open(self.path(session_id), os.O_RDONLY)
        except FileNotFoundError:
            return None
        try:
            return self._current_layout(session_id, fd, os.fstat(fd))
        finally:
            os.close(fd)

    def flush_layouts(self) -> None:
        """Write every layout that the disk cache does not fully reflect."""
        for session_id, remembered in list(self._layouts.items()):
            current = (remembered.layout.total, remembered.layout.prefix_len)
            if remembered.saved != current:
                self._save(session_id, remembered)

    def evict(self, session_id: str, *, save: bool = True) -> None:
        """Forget the in-memory layout (after saving it, unless ``save`` is False)."""
        remembered = self._layouts.pop(session_id, None)
        if (
            save
            and remembered is not None
            and remembered.saved != (remembered.layout.total, remembered.layout.prefix_len)
        ):
            self._save(session_id, remembered)

    def _current_layout(self, session_id: str, fd: int, stat: os.stat_result, *, use_disk_cache: bool = True) -> Layout:
        remembered = self._layouts.get(session_id)
        if remembered is not None and not remembered.layout.describes(stat):
            remembered = None
        boundary_checked = False
        if remembered is None and use_disk_cache:
            cached = layout_cache.load(self.layout_path(session_id), fd, stat, self._reads)
            if cached is not None:
                remembered = _Remembered(cached, (cached.total, cached.prefix_len))
                boundary_checked = True  # loading checks that the prefix still ends a line
        if remembered is not None and stat.st_size > remembered.layout.prefix_len:
            if boundary_checked or ends_at_line_boundary(fd, remembered.layout.prefix_len, self._reads):
                extend(remembered.layout, fd, self._reads)  # append-only growth: scan the tail only
            else:
                remembered = None
        if remembered is None:
            remembered = _Remembered(scan_file(fd, stat, self._reads), None)
        self._layouts[session_id] = remembered
        self._save_if_lagging(session_id)
        return remembered.layout

    def _adopt(self, session_id: str, layout: Layout) -> None:
        remembered = self._layouts.get(session_id)
        if remembered is None or remembered.layout != layout:
            self._layouts[session_id] = _Remembered(layout, None)
            self._save_if_lagging(session_id)

    def _save_if_lagging(self, session_id: str) -> None:
        remembered = self._layouts[session_id]
        layout = remembered.layout
        if (
            remembered.saved is None
            or layout.total - remembered.saved[0] >= SAVE_AFTER_ENTRIES
            or layout.prefix_len - remembered.saved[1] >= SAVE_AFTER_BYTES
        ):
            self._save(session_id, remembered)

    def _save(self, session_id: str, remembered: _Remembered) -> None:
        layout_cache.save(self.layout_path(session_id), remembered.layout)
        # Even when saving failed: retrying on every read would not help.
        remembered.saved = (remembered.layout.total, remembered.layout.prefix_len)

    def _drop_layouts(self, session_id: str) -> None:
        self._layouts.pop(session_id, None)
        layout_cache.remove(self.layout_path(session_id))

    def _drop_stale(self, session_id: str, path: Path) -> None:
        log.info("layout of %s is stale; rescanning", path)
        self._drop_layouts(session_id)

    def _read_messages(self, fd: int, layout: Layout, indexes: range | list[int]) -> list[bytes]:
        return read_lines(
            fd, layout.message_offsets, layout.message_lengths, layout.message_ids, MESSAGE, indexes, self._reads
        )

    def _read_compactions(self, fd: int, layout: Layout) -> list[bytes]:
        return read_lines(
            fd,
            layout.compaction_offsets,
            layout.compaction_lengths,
            layout.compaction_ids,
            COMPACTION,
            range(len(layout.compaction_offsets)),
            self._reads,
        )

    @staticmethod
    def _decode_compactions(layout: Layout, lines: list[bytes], source: str) -> list[dict[str, Any]]:
        compactions = []
        for line, offset, record_id in zip(lines, layout.compaction_offsets, layout.compaction_ids):
            record = decode_record(line, COMPACTION, record_id, source, offset)
            if record is not None:
                compactions.append(record)
        return compactions

    def _ensure_sessions_dir(self) -> None:
        if not self.sessions_dir.is_dir():
            self.sessions_dir.mkdir(mode=DIR_MODE, parents=True, exist_ok=True)
            fsync_dir(self.sessions_dir.parent)  # so the new folder survives a crash too

    def _read_header(self, session_id: str) -> dict[str, Any] | None:
        """The current file's header, or None if there is no file or no valid header."""
        try:
            fd = os.open(self.path(session_id), os.O_RDONLY)
        except FileNotFoundError:
            return None
        try:
            first_line = b""
            for chunk in read_to_end(fd, 0, self._reads, chunk_size=4096):
                first_line += chunk
                if b"\n" in chunk:
                    break
        finally:
            os.close(fd)
        first_line = first_line.partition(b"\n")[0]
        if scan_top_level(first_line).type != SESSION:
            return None
        return decode_record(first_line, SESSION, None, self.path(session_id).name, 0)


def _decoded_messages(
    fd: int,
    layout: Layout,
    wanted: range | list[int],
    first: int,
    batch_ids: list[str | None],
    source: str,
    counter: ReadCounter,
) -> list[tuple[int, dict[str, Any]]]:
    """The message records at ``wanted`` (positions from ``first``, whose ids are ``batch_ids``), each line
    checked against the layout as :func:`read_lines` checks it and decoded as :func:`decode_record` decodes
    it: what ``decode_record(read_lines(...))`` gives, a batch at a time.

    A line in the writer's shape (``{"type":"message","id":"<its id>"`` and a record with nothing to
    decode or warn about) is checked and kept inline, with no call per line: on a whole read these
    steps were more than the parse itself. Any other line takes the general path, with the same answer.
    """
    if not wanted:
        return []
    offsets, lengths = layout.message_offsets, layout.message_lengths
    low, high = wanted[0], wanted[-1]
    lead = 1 if offsets[low] > 0 else 0
    start = offsets[low] - lead
    size = offsets[high] + lengths[high] - start
    if size > 2 * sum(lengths[p] for p in wanted) + STREAM_BLOCK:  # much else between them: read by runs
        lines = read_lines(fd, offsets, lengths, layout.message_ids, MESSAGE, wanted, counter)
        out = []
        for p, line in zip(wanted, lines):
            record = decode_record(line, MESSAGE, batch_ids[p - first], source, offsets[p])
            if record is not None:
                out.append((p, record))
        return out
    data = read_at(fd, start, size, counter)
    if len(data) != size:
        raise StaleLayout
    with collector.paused():
        return _decode_lines(data, start, offsets, lengths, wanted, first, batch_ids, source)


def _decode_lines(
    data: bytes,
    start: int,
    offsets: array[int],
    lengths: array[int],
    wanted: range | list[int],
    first: int,
    batch_ids: list[str | None],
    source: str,
) -> list[tuple[int, dict[str, Any]]]:
    view = memoryview(data)
    loads, startswith = orjson.loads, data.startswith
    envelope = binary_storage.ENVELOPE_KEY
    batch: list[tuple[int, dict[str, Any]]] = []
    append = batch.append
    for p in wanted:
        begin = offsets[p] - start
        end = begin + lengths[p]
        record_id = batch_ids[p - first]
        if data[end - 1] != _NEWLINE or (begin and data[begin - 1] != _NEWLINE):
            raise StaleLayout
        if (
            record_id is None
            or not startswith(_MESSAGE_START + record_id.encode("utf-8", "surrogatepass") + b'"', begin, end - 1)
            or '"' in record_id
            or "\\" in record_id
        ) and not is_classified_as(data, begin, end - 1, MESSAGE, record_id):
            raise StaleLayout
        try:
            record = loads(view[begin:end])
        except orjson.JSONDecodeError:
            record = None
        if (
            record_id is not None
            and type(record) is dict
            and record.get("type") == MESSAGE
            and record.get("id") == record_id
            and type(record.get("role")) is str
            and type(record.get("blocks")) is list
            and envelope not in record
        ):
            append((p, record))
        else:  # anything odd: the general decoding, its warnings and its envelope included
            decoded = decode_record(data[begin:end], MESSAGE, record_id, source, offsets[p])
            if decoded is not None:
                append((p, decoded))
    return batch


_MESSAGE_START = b'{"type":"message","id":"'
_NEWLINE = 0x0A


def _encode_body_record(record: dict[str, Any]) -> bytes:
    if isinstance(record, dict) and record.get("type") == SESSION:
        raise InvalidRecord("the session header is written by create() and rewrite(), not as a record")
    return encode_record(record)


def _is_complete_record(line: bytes) -> bool:
    """True when ``line`` (without a newline) is a whole JSON object with a string ``type``."""
    try:
        record = parse_line(line)
    except orjson.JSONDecodeError:
        return False
    return isinstance(record, dict) and isinstance(record.get("type"), str)


def _report_unreadable(line: memoryview, kind: str | None, source: str, offset: int) -> None:
    """Warn about a line no reader can use; lines of unknown types are skipped silently."""
    if kind is not None:
        return
    try:
        parse_line(line)
    except Exception as error:
        log.warning("skipping a line of %s at byte %d that is not valid JSON: %s", source, offset, error)
    else:
        log.warning("skipping a line of %s at byte %d without a string 'type'", source, offset)


def _classify(line: bytes) -> tuple[str | None, str | None]:
    """The top-level type and id of one complete line (its ``\\n`` included)."""
    end = len(line) - 1
    match = WRITER_LINE_START.match(line, 0, end)
    if match is not None and match.group(2) is not None:
        return match.group(1).decode("utf-8", "replace"), match.group(2).decode("utf-8", "replace")
    return scan_top_level(line, 0, end)
