"""How an assistant message's blocks are grouped for display (spec 004, 4.1).

``transcriptDisplayMode`` changes presentation only:

- ``flat``: every tool call is its own row, no groups.
- ``command-first``: commands (Bash, run, shell ...) stand alone; the other
  tool calls between them fold into activity groups.
- ``fully-folded`` (the default, and what any unknown value means): each run
  of consecutive tool calls, commands included, folds into one group.

A group of one call is shown as that call: a fold around a single row hides
nothing. Tool calls keep their number among the message's tool calls, so the
expansion keys (``tool:<message>:<n>``) are the same in every mode.
"""

from __future__ import annotations

from dataclasses import dataclass

DISPLAY_MODES = ("flat", "command-first", "fully-folded")
DEFAULT_MODE = "fully-folded"
# Tool names that run a command: shown on their own in command-first mode.
COMMAND_TOOLS = frozenset(
    {
        "bash",
        "run",
        "shell",
        "exec",
        "execute",
        "command",
        "terminal",
        "run_command",
        "execute_command",
        "shell_command",
        "local_shell",
    }
)


@dataclass(frozen=True)
class Segment:
    kind: str  # "text" | "tool" | "group"
    text: str = ""
    tools: tuple[tuple[int, dict], ...] = ()  # (number among the message's tool calls, block)
    key: str = ""  # what expands a group


def normalize_mode(mode: object) -> str:
    return mode if mode in DISPLAY_MODES else DEFAULT_MODE


def is_command(block: dict) -> bool:
    return str(block.get("name") or "").lower() in COMMAND_TOOLS


def segments(message_id: str, blocks: list[dict], mode: str) -> list[Segment]:
    """Text and tool calls in block order, tool runs grouped as ``mode`` says."""
    mode = normalize_mode(mode)
    out: list[Segment] = []
    texts: list[str] = []
    run: list[tuple[int, dict]] = []
    number = 0

    def flush_text() -> None:
        if texts:
            out.append(Segment("text", text="\n\n".join(texts)))
            texts.clear()

    def flush_run() -> None:
        if run:
            out.extend(_grouped(message_id, list(run), mode))
            run.clear()

    for block in blocks:
        kind = block.get("type")
        if kind == "text" and block.get("text"):
            flush_run()
            texts.append(block["text"])
        elif kind == "tool_call":
            flush_text()
            run.append((number, block))
            number += 1
    flush_text()
    flush_run()
    return out


def _grouped(message_id: str, run: list[tuple[int, dict]], mode: str) -> list[Segment]:
    if mode == "flat":
        return [_tool(item) for item in run]
    if mode == "fully-folded":
        return [_group(message_id, run)]
    out: list[Segment] = []
    pending: list[tuple[int, dict]] = []
    for item in run:
        if is_command(item[1]):
            if pending:
                out.append(_group(message_id, pending))
                pending = []
            out.append(_tool(item))
        else:
            pending.append(item)
    if pending:
        out.append(_group(message_id, pending))
    return out


def _tool(item: tuple[int, dict]) -> Segment:
    return Segment("tool", tools=(item,))


def _group(message_id: str, items: list[tuple[int, dict]]) -> Segment:
    if len(items) == 1:
        return _tool(items[0])
    return Segment("group", tools=tuple(items), key=f"group:{message_id}:{items[0][0]}")


def group_summary(tools: tuple[tuple[int, dict], ...]) -> tuple[list[tuple[str, int]], float | None, str]:
    """(tool names with counts in first-use order, total seconds if known, worst status)."""
    counts: dict[str, int] = {}
    total = 0.0
    timed = False
    worst = "ok"
    for _number, block in tools:
        name = str(block.get("name") or "tool")
        counts[name] = counts.get(name, 0) + 1
        duration = block.get("durationMs")
        if isinstance(duration, (int, float)):
            total += duration / 1000
            timed = True
        status = block.get("status")
        if status in ("error", "denied"):
            worst = "error"
        elif status == "unanswered" and worst == "ok":
            worst = "unanswered"  # stored without a result: it did not run, and it is not running
        elif status not in ("ok", "unanswered") and worst != "error":
            worst = "running"
    return list(counts.items()), (total if timed else None), worst
