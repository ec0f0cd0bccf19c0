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


def fold_file(path: Path) -> dict[str, Any]:
    """:func:`fold` of a transcript file, read a line at a time (never the whole file in memory)."""
    state: dict[str, Any] = {}
    with open(path, "rb") as lines:
        for line in lines:
            _fold_line(state, line)
    return state


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


def fold_rows(data: bytes) -> dict[tuple[str, str], dict[str, Any]]:
    """Every ``session_row`` line folded in order: per (table, key), the columns' last values."""
    return _fold_rows(data.split(b"\n"))


def fold_rows_file(path: Path) -> dict[tuple[str, str], dict[str, Any]]:
    """:func:`fold_rows` of a transcript file, read a line at a time (never the whole file in memory)."""
    with open(path, "rb") as lines:
        return _fold_rows(lines)


def _fold_rows(lines: Iterable[bytes]) -> dict[tuple[str, str], dict[str, Any]]:
    rows: dict[tuple[str, str], dict[str, Any]] = {}
    for line in lines:
        if not line.startswith(ROW_LINE_START):
            continue
        try:
            entry = orjson.loads(line)
        except orjson.JSONDecodeError:
            continue
        if not isinstance(entry, dict) or entry.get("type") != ROW:
            continue
        table, key, row = entry.get("table"), entry.get("key"), entry.get("row")
        if isinstance(table, str) and isinstance(key, str) and isinstance(row, dict):
            rows.setdefault((table, key), {}).update(row)
    return rows


def folded_row_lines(data: bytes) -> list[dict[str, Any]]:
    """One ``session_row`` record per (table, key) carrying its folded row, for a rewrite to keep."""
    return [{"type": ROW, "table": table, "key": key, "row": row} for (table, key), row in fold_rows(data).items()]
