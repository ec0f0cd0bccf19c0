"""pi's limits on what one tool result may hand the model: 2,000 lines or 50 KiB.

A longer output is cut (the head for listings and files, the tail for a
command, where the end says how it went), the model is told so, and the whole
output is kept under ``scratch/<sessionId>/tool-output/`` and named by path
(spec 004, 4.7). ``read`` is the one exception: the file itself is the whole
output, so the model is told which ``offset`` reads on instead.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from pathlib import Path

from ...durable import atomic_write
from ..context import HostContext

MAX_LINES = 2000
MAX_BYTES = 50 * 1024


@dataclass(frozen=True)
class Cut:
    text: str
    truncated: bool
    total_lines: int
    kept_lines: int


def cut(text: str, *, keep: str = "head", max_lines: int = MAX_LINES, max_bytes: int = MAX_BYTES) -> Cut:
    """At most ``max_lines`` whole lines and ``max_bytes`` UTF-8 bytes, from the start or (``keep="tail"``) the end."""
    lines = text.splitlines(keepends=True)
    if len(lines) <= max_lines and len(text.encode()) <= max_bytes:
        return Cut(text, False, len(lines), len(lines))
    ordered = lines if keep == "head" else list(reversed(lines))
    kept: list[str] = []
    size = 0
    for line in ordered[:max_lines]:
        length = len(line.encode())
        if size + length > max_bytes:
            if not kept:  # one enormous line: keep its part that fits
                raw = line.encode()
                part = raw[:max_bytes] if keep == "head" else raw[-max_bytes:]
                kept.append(part.decode(errors="ignore"))
            break
        kept.append(line)
        size += length
    if keep != "head":
        kept.reverse()
    return Cut("".join(kept), True, len(lines), len(kept))


def spill(ctx: HostContext, session_id: str, text: str, tool: str) -> Path:
    """Keep a whole output on disk, beside the chat's other scratch files; its path goes in the result."""
    folder = ctx.data_root / "scratch" / session_id / "tool-output"
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{tool}-{uuid.uuid4().hex[:12]}.txt"
    atomic_write(path, text.encode(errors="replace"), durable=False)
    return path


def limited(ctx: HostContext, session_id: str, text: str, tool: str, *, keep: str = "head") -> str:
    """``text`` within the limits; when cut, a note saying what was left out and where the whole is."""
    result = cut(text, keep=keep)
    if not result.truncated:
        return text
    where = spill(ctx, session_id, text, tool)
    part = "first" if keep == "head" else "last"
    return (
        f"{result.text.rstrip(chr(10))}\n\n[Output cut: showing the {part} {result.kept_lines} of "
        f"{result.total_lines} lines (limit {MAX_LINES} lines or {MAX_BYTES // 1024} KiB). "
        f"The whole output is in {where}; read it with offset and limit.]"
    )
