"""What a tool call's row says: its status, one-line summary, and what unfolds under it.

The agent's file and shell tools (``read``, ``write``, ``edit``, ``bash``,
``grep``, ``find``, ``ls``) get their own detail: a coloured unified diff for
a change (from the call's ``details.review``, else from its arguments), the
output of a command with its exit status, a short preview of a read or a
search. Any other tool keeps the arguments and result as JSON. Everything here
is computed when a row is laid out (once per row and width), never on paint;
long text is cut to ``PREVIEW_LINES`` rows so no layout grows with the output.
"""

from __future__ import annotations

import difflib
import html
from typing import Any

import orjson
from PySide6.QtCore import QCoreApplication

from pidesktop import tool_output
from pidesktop.ui.kit.theme import Theme

FILE_TOOLS = frozenset({"read", "write", "edit", "bash", "grep", "find", "ls"})
CHANGE_TOOLS = frozenset({"write", "edit"})
# pi's limits on a tool's output (spec 4.7): shown at most this much, like the model is.
MAX_LINES, MAX_BYTES = tool_output.MAX_LINES, tool_output.MAX_BYTES
DIFF_LINES = 200  # diff rows laid out in a row (a 200-row document lays out in about 20 ms); the rest is counted
OUTPUT_LINES = 200  # a command's last lines
# While a command runs its row shows only its newest lines, like a terminal's tail: the row is laid out
# again for every update (20 a second), and 200 long wrapped lines took 5 ms each time, a frame's worth.
LIVE_OUTPUT_LINES = 40
PREVIEW_LINES = 12  # a read's or a search's first lines
LIVE_OUTPUT_KEPT = 64 * 1024  # characters of a running command's output kept for its row


# -- status ---------------------------------------------------------------------------------
def status_of(block: dict, live: bool) -> str:
    """running | ok | error | denied | unanswered: a call without a result is never a success."""
    status = block.get("status")
    if status in ("error", "denied"):
        return str(status)
    if "result" in block or "liveResult" in block:
        done = block.get("liveResult")
        if isinstance(done, dict) and "result" not in block and done.get("ok") is False:
            return "error"
        return "ok"
    return "running" if live or status == "running" else "unanswered"


def effective(block: dict, live: bool) -> dict:
    """The block as its row shows it: the status it really has (``running`` while its reply streams)."""
    if block.get("type") != "tool_call":
        return block
    status = status_of(block, live)
    return block if status == block.get("status") else {**block, "status": status}


# -- summary ----------------------------------------------------------------------------------
def summary(block: dict) -> str | None:
    """``src/app.py``, ``make test``, ``"TODO" in src``: None for tools this module does not know."""
    name = str(block.get("name") or "")
    args = _args(block)
    if name not in FILE_TOOLS:
        return None
    if name == "bash":
        return _one_line(args.get("command"))
    if name == "grep":
        pattern = _one_line(args.get("pattern"))
        where = _one_line(args.get("path"))
        return f"{pattern} in {where}" if where else pattern
    if name == "find":
        return _one_line(args.get("pattern"))
    return _one_line(args.get("path")) or ("." if name == "ls" else "")


def _args(block: dict) -> dict:
    args = block.get("args")
    return args if isinstance(args, dict) else {}


def _one_line(value: Any) -> str:
    text = value if isinstance(value, str) else ""
    first = text.strip().splitlines()[0] if text.strip() else ""
    return first + " …" if first and first != text.strip() else first


# -- a change: its review and diff --------------------------------------------------------------
def details_of(block: dict) -> dict:
    """The call's ``details`` (on the block, or in a result object)."""
    details = block.get("details")
    if isinstance(details, dict):
        return details
    result = block.get("result")
    if isinstance(result, dict) and isinstance(result.get("details"), dict):
        return result["details"]
    return {}


def review_of(block: dict) -> dict | None:
    """``details.review`` of a write or edit that changed a file: ``snapshotId``, ``path``, ``op`` ..."""
    review = details_of(block).get("review")
    return review if isinstance(review, dict) and isinstance(review.get("snapshotId"), str) else None


def diff_lines(block: dict) -> list[tuple[str, str]]:
    """The change as (mark, text) rows: ``+`` added, ``-`` removed, `` `` context, ``@`` a hunk header.

    From the host's own words first (``details.diff``, a unified diff; or ``before``/``after``
    texts), else from the call's arguments (an edit's old and new text, a write's content)."""
    review = review_of(block) or {}
    diff = details_of(block).get("diff", review.get("diff"))
    if isinstance(diff, str) and diff:
        return _parse_unified(diff)
    args = _args(block)
    if isinstance(review.get("before"), str) and isinstance(review.get("after"), str):
        before, after = review["before"], review["after"]
    elif block.get("name") == "edit" and isinstance(args.get("oldText"), str) and isinstance(args.get("newText"), str):
        before, after = args["oldText"], args["newText"]
    elif block.get("name") == "write" and isinstance(args.get("content"), str):
        before, after = "", args["content"]
    else:
        return []
    lines = difflib.unified_diff(before.splitlines(), after.splitlines(), lineterm="", n=3)
    return _parse_unified("\n".join(lines))


def _parse_unified(text: str) -> list[tuple[str, str]]:
    rows: list[tuple[str, str]] = []
    for line in text.splitlines():
        if line.startswith(("---", "+++")) and not rows:
            continue  # the file names: the row's summary names the file already
        if line.startswith("@@"):
            rows.append(("@", line))
        elif line[:1] in ("+", "-", " "):
            rows.append((line[0], line[1:]))
        elif line.startswith("\\"):
            rows.append(("@", line))  # "\ No newline at end of file"
        else:
            rows.append((" ", line))
    return rows


def diff_counts(rows: list[tuple[str, str]]) -> tuple[int, int]:
    return sum(1 for mark, _ in rows if mark == "+"), sum(1 for mark, _ in rows if mark == "-")


def diff_html(rows: list[tuple[str, str]], theme: Theme) -> str:
    """Each row a line of its own, added green, removed red; at most ``DIFF_LINES`` of them."""
    added_bg, removed_bg = diff_colours(theme)
    out = []
    for mark, text in rows[:DIFF_LINES]:
        line = html.escape(text, quote=False) or "&nbsp;"
        if mark == "@":
            out.append(f'<p style="color:{theme.muted}; margin:0; white-space:pre-wrap;">{line}</p>')
            continue
        background = {"+": added_bg, "-": removed_bg}.get(mark)
        style = f"background-color:{background}; " if background else ""
        out.append(f'<p style="{style}margin:0; white-space:pre-wrap;">{html.escape(mark, quote=False)} {line}</p>')
    hidden = len(rows) - DIFF_LINES
    if hidden > 0:
        out.append(
            _muted_line(QCoreApplication.translate("ToolRows", "… %1 more lines").replace("%1", str(hidden)), theme)
        )
    return f'<div style="font-family: monospace;">{"".join(out)}</div>'


def diff_colours(theme: Theme) -> tuple[str, str]:
    """Line backgrounds for added and removed rows, readable under the theme's text colour."""
    if theme.name == "dark":
        return "#1F3B2A", "#4A2226"
    return "#DDF4E4", "#FBE0E0"


# -- output ------------------------------------------------------------------------------------------
def cut(text: str, max_lines: int = MAX_LINES, max_bytes: int = MAX_BYTES) -> tuple[str, bool]:
    """At most ``max_lines`` lines and ``max_bytes`` bytes of UTF-8 from the start (``tool_output.cut``)."""
    kept = tool_output.cut(text, max_lines=max_lines, max_bytes=max_bytes)
    return kept.text, kept.truncated


def result_text(value: Any) -> str:
    """A result as the text a person reads: a string as it is, the output field of an object, else JSON."""
    if isinstance(value, str):
        return value
    if isinstance(value, dict):
        for key in ("output", "content", "text", "stdout"):
            if isinstance(value.get(key), str):
                return value[key]
    return pretty(value)


def exit_status(block: dict) -> int | None:
    live = block.get("liveResult")
    done: dict = live if isinstance(live, dict) else {}
    details = details_of(block)
    for source in (details.get("bash"), details, block.get("result"), done.get("result")):
        if isinstance(source, dict):
            for key in ("exitCode", "exit_code", "exitStatus"):
                if isinstance(source.get(key), int) and not isinstance(source.get(key), bool):
                    return int(source[key])
    return None


def _head(text: str, count: int) -> tuple[str, int]:
    """The first ``count`` lines, and how many more there were."""
    lines = text.rstrip("\n").split("\n")
    return "\n".join(lines[:count]), max(0, len(lines) - count)


def _tail(text: str, count: int) -> tuple[str, int]:
    lines = text.rstrip("\n").split("\n")
    return "\n".join(lines[-count:]), max(0, len(lines) - count)


# -- what unfolds --------------------------------------------------------------------------------------
def detail_html(block: dict, theme: Theme) -> str:
    """The unfolded body of one of the file and shell tools' rows (see the module's docstring)."""
    name = str(block.get("name") or "")
    status = block.get("status")
    if name == "bash" and status != "denied":
        return _bash_html(block, theme)  # a failed command still has its output and exit status
    if status in ("error", "denied"):
        said = result_text(block.get("result", block.get("liveResult", {}).get("result", "")))
        return _pre(
            cut(said)[0] or QCoreApplication.translate("ToolRows", "The call failed without saying why."),
            theme,
            theme.danger,
        )
    if name in CHANGE_TOOLS:
        return _change_html(block, theme)
    if "result" not in block:
        return _muted_line(
            QCoreApplication.translate("ToolRows", "Running…")
            if status == "running"
            else QCoreApplication.translate("ToolRows", "No result was recorded."),
            theme,
        )
    text, _cut = cut(result_text(block["result"]))
    shown, more = _head(text, PREVIEW_LINES)
    html_text = (
        _pre(shown, theme) if shown.strip() else _muted_line(QCoreApplication.translate("ToolRows", "(nothing)"), theme)
    )
    if more:
        html_text += _muted_line(
            QCoreApplication.translate("ToolRows", "… %1 more lines").replace("%1", str(more)), theme
        )
    return html_text


def _change_html(block: dict, theme: Theme) -> str:
    rows = diff_lines(block)
    if not rows:
        return _muted_line(QCoreApplication.translate("ToolRows", "No change to show."), theme)
    added, removed = diff_counts(rows)
    counts = f'<span style="color:{theme.muted};">+{added} −{removed}</span>'
    return f"<div>{counts}</div>{diff_html(rows, theme)}"


def _bash_html(block: dict, theme: Theme) -> str:
    shown, more = _bash_output(block)
    html_text = ""
    if more:
        html_text += _muted_line(
            QCoreApplication.translate("ToolRows", "… %1 earlier lines").replace("%1", str(more)), theme
        )
    html_text += _pre(shown, theme) if shown.strip() else ""
    code = exit_status(block)
    if block.get("status") == "running":
        html_text += _muted_line(QCoreApplication.translate("ToolRows", "Running…"), theme)
    elif code is not None:
        colour = theme.muted if code == 0 else theme.danger
        said = QCoreApplication.translate("ToolRows", "Exit status %1").replace("%1", str(code))
        html_text += f'<div style="color:{colour};">{html.escape(said, quote=False)}</div>'
    return html_text or _muted_line(QCoreApplication.translate("ToolRows", "(no output)"), theme)


def _bash_output(block: dict) -> tuple[str, int]:
    """The lines a command's row shows, and how many it printed before them.

    Its result: pi's limits, then the last ``OUTPUT_LINES``. While it runs: the newest
    ``LIVE_OUTPUT_LINES`` of what the window kept (``liveOutput``, the tail of the stream;
    ``liveOutputEarlier`` counts the lines dropped before it)."""
    if "result" in block:
        return _tail(cut(result_text(block["result"]))[0], OUTPUT_LINES)
    if isinstance(block.get("liveResult"), dict):
        return _tail(cut(result_text(block["liveResult"].get("result", "")))[0], OUTPUT_LINES)
    output = block.get("liveOutput")
    newest = tool_output.cut(output if isinstance(output, str) else "", keep="tail")
    shown, more = _tail(newest.text, LIVE_OUTPUT_LINES)
    earlier = block.get("liveOutputEarlier")
    dropped = earlier if isinstance(earlier, int) and not isinstance(earlier, bool) else 0
    return shown, more + newest.total_lines - newest.kept_lines + dropped


def _pre(text: str, theme: Theme, colour: str | None = None) -> str:
    colour_style = f"color:{colour}; " if colour else ""
    return f'<pre style="{colour_style}white-space:pre-wrap;">{html.escape(text, quote=False)}</pre>'


def _muted_line(text: str, theme: Theme) -> str:
    return f'<div style="color:{theme.muted};">{html.escape(text, quote=False)}</div>'


# -- Revert ---------------------------------------------------------------------------------------------
def revert_state(review: dict, known: dict | None) -> tuple[bool, str]:
    """(Revert can be pressed, the sentence beside it): from ``review.list`` when known, else the call's own."""
    state = {**review, **(known or {})}
    if state.get("reverted"):
        return False, QCoreApplication.translate("ToolRows", "Reverted: the file is back as it was before this change.")
    if state.get("reversible") is False:
        reason = state.get("reason") if isinstance(state.get("reason"), str) else ""
        return False, reason or QCoreApplication.translate(
            "ToolRows",
            "This change can't be reverted: the file was larger than 1 MiB, so its earlier version was not kept.",
        )
    return True, ""


def pretty(value: Any) -> str:
    if isinstance(value, str):
        return value
    try:
        return orjson.dumps(value, option=orjson.OPT_INDENT_2).decode()
    except TypeError:
        return str(value)
