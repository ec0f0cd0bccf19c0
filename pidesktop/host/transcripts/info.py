"""``session_info`` lines in a transcript: folding them, and keeping them through a rewrite.

A rewrite keeps only messages and checkpoints; one line with the folded state
goes right after the header so what the lines said survives it.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

import orjson

INFO = "session_info"
LINE_START = b'{"type":"session_info"'


def fold(data: bytes) -> dict[str, Any]:
    """Every ``session_info`` line of a transcript's bytes folded in order: the last value of each field
    (``at`` included: the time of the last line, so folding the same lines twice gives the same bytes)."""
    state: dict[str, Any] = {}
    for line in data.split(b"\n"):
        _fold_line(state, line)
    return state


def fold_file(path: Path, block: int = 8 << 20) -> tuple[dict[str, Any], dict[tuple[str, str], dict[str, Any]]]:
    """:func:`fold` and :func:`fold_rows` of a transcript file in one pass, ``block`` bytes at a time.

    Only the lines that start with ``{"type":"session_`` are split out and parsed: a restore's look
    through a 200 MB transcript costs about a bare read of it, not a Python step per line.
    """
    state: dict[str, Any] = {}
    rows: dict[tuple[str, str], dict[str, Any]] = {}
    carry = b""
    with open(path, "rb") as source:
        while chunk := source.read(block):
            data = carry + chunk
            end = data.rfind(b"\n") + 1  # what follows the last newline waits for the next block
            carry = data[end:]
            _fold_marked(state, rows, data, end)
    if carry:
        _fold_marked(state, rows, carry, len(carry))
    return state, rows


def _fold_marked(state: dict[str, Any], rows: dict[tuple[str, str], dict[str, Any]], data: bytes, end: int) -> None:
    """Fold the ``session_info`` and ``session_row`` lines that start in ``data[:end]``, in order."""
    at = 0 if data.startswith(MARK) else _next_mark(data, 0, end)
    while at >= 0:
        stop = data.find(b"\n", at, end)
        line = data[at : end if stop < 0 else stop]
        if line.startswith(LINE_START):
            _fold_line(state, line)
        else:
            _fold_row(rows, line)
        if stop < 0:
            return
        at = _next_mark(data, stop, end)


def _next_mark(data: bytes, start: int, end: int) -> int:
    """Where the next line that starts with ``MARK`` begins, from the newline at or after ``start``; -1 if none."""
    found = data.find(b"\n" + MARK, start, end)
    return found + 1 if found >= 0 else -1


def _fold_line(state: dict[str, Any], line: bytes) -> None:
    if not line.startswith(LINE_START):
        return
    try:
        entry = orjson.loads(line)
    except orjson.JSONDecodeError:
        return
    if isinstance(entry, dict) and entry.get("type") == INFO:
        state.update((k, v) for k, v in entry.items() if k != "type")


def folded_line(state: dict[str, Any]) -> dict[str, Any] | None:
    """One record carrying a folded state, or None when there is nothing to carry."""
    return {"type": INFO, **state} if state else None


# ``session_row`` lines: a row of a per-chat table (a turn, a plan approval) as it stood after a change,
# ``{"type":"session_row","table":"turns","key":"<id>","row":{<column>: value},"at":...}``.
ROW = "session_row"
ROW_LINE_START = b'{"type":"session_row"'
MARK = b'{"type":"session_'  # how both kinds of line start


def fold_rows(data: bytes) -> dict[tuple[str, str], dict[str, Any]]:
    """Every ``session_row`` line folded in order: per (table, key), the columns' last values."""
    return _fold_rows(data.split(b"\n"))


def _fold_rows(lines: Iterable[bytes]) -> dict[tuple[str, str], dict[str, Any]]:
    rows: dict[tuple[str, str], dict[str, Any]] = {}
    for line in lines:
        _fold_row(rows, line)
    return rows


def _fold_row(rows: dict[tuple[str, str], dict[str, Any]], line: bytes) -> None:
    if not line.startswith(ROW_LINE_START):
        return
    try:
        entry = orjson.loads(line)
    except orjson.JSONDecodeError:
        return
    if not isinstance(entry, dict) or entry.get("type") != ROW:
        return
    table, key, row = entry.get("table"), entry.get("key"), entry.get("row")
    if isinstance(table, str) and isinstance(key, str) and isinstance(row, dict):
        rows.setdefault((table, key), {}).update(row)


def folded_row_lines(data: bytes) -> list[dict[str, Any]]:
    """One ``session_row`` record per (table, key) carrying its folded row, for a rewrite to keep."""
    return [{"type": ROW, "table": table, "key": key, "row": row} for (table, key), row in fold_rows(data).items()]
