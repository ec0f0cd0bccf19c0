"""pi's limits on one tool result: 2,000 lines or 50 KiB, and the cut that keeps a result within them.

Shared by the host (which cuts what its tools return and keeps the whole
output on disk) and the provider conversion (which cuts an older result, such
as an imported Claude Code or Codex tool output, before a model reads it).
"""

from __future__ import annotations

from dataclasses import dataclass

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


# A result this app cut already ends with a note of a few hundred characters; only more than that is cut again.
NOTE_ROOM_BYTES, NOTE_ROOM_LINES = 2048, 4


def for_model(text: str) -> str:
    """A stored result as the model may read it: over the limits (an imported tool output, say), its start
    and a note saying the rest is in the chat's transcript."""
    if len(text) <= MAX_LINES or (  # a short text cannot pass either limit
        text.count("\n") <= MAX_LINES + NOTE_ROOM_LINES and len(text.encode()) <= MAX_BYTES + NOTE_ROOM_BYTES
    ):
        return text
    kept = cut(text)
    return (
        f"{kept.text.rstrip(chr(10))}\n\n[Output cut: showing the first {kept.kept_lines} of {kept.total_lines} "
        f"lines (limit {MAX_LINES} lines or {MAX_BYTES // 1024} KiB). The whole output is kept in this chat's "
        f"transcript.]"
    )
