"""pi's limits on what one tool result may hand the model: 2,000 lines or 50 KiB.

A longer output is cut (the head for listings and files, the tail for a
command, where the end says how it went), the model is told so, and the whole
output is kept under ``scratch/<sessionId>/tool-output/`` and named by path
(spec 004, 4.7). ``read`` is the one exception: the file itself is the whole
output, so the model is told which ``offset`` reads on instead.
"""

from __future__ import annotations

import uuid
from pathlib import Path

from pidesktop import tool_output
from pidesktop.durable import atomic_write
from pidesktop.host.context import HostContext

MAX_LINES, MAX_BYTES = tool_output.MAX_LINES, tool_output.MAX_BYTES
Cut = tool_output.Cut
cut = tool_output.cut


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
